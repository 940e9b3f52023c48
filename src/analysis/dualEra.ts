import type * as ts from 'typescript';
import { isFunctionLike } from './scope.js';
import { sdkOfFileName, skipOuter, type SdkImport } from './sdk.js';
import type { TS } from './types.js';

/**
 * The SDK guide's dual-era handler: a push call made only on 2025-era connections, beside the
 * handler's own `inputRequired(...)` path for the 2026-07-28 era:
 *
 *   if (reqCtx.era === 'legacy') { const answer = await ctx.mcpReq.elicitInput(...); ... }
 *   return inputRequired({ inputRequests: { ... } });
 *
 * The push call is correct where it is (the legacy connection has the channel it needs), so the site
 * is not one to migrate: the handler counts as already migrated. A branch is legacy-only when it is
 * the `then` of `<x>.era === 'legacy'` (or `!== 'modern'`), the `else` of `=== 'modern'` (or
 * `!== 'legacy'`), or follows, in the same block, an `if` on the modern test whose branch always
 * leaves. With a checker, `era` must be the SDK's own property (`McpRequestContext.era`).
 */
export function isDualEraPush(ts: TS, node: ts.Node, fn: ts.FunctionLikeDeclaration, sdkExport: (e: ts.Expression) => SdkImport | undefined, checker: ts.TypeChecker | undefined): boolean {
  const branch = legacyBranch(ts, node, fn, checker);
  return branch !== undefined && answersInputRequired(ts, fn, branch, sdkExport);
}

/** The legacy-only branch (or guarded statement) that holds `node`, inside `fn`. */
function legacyBranch(ts: TS, node: ts.Node, fn: ts.FunctionLikeDeclaration, checker: ts.TypeChecker | undefined): ts.Node | undefined {
  let child: ts.Node = node;
  for (let parent = node.parent; parent && parent !== fn; child = parent, parent = parent.parent) {
    if (ts.isIfStatement(parent) && child !== parent.expression) {
      const era = eraTested(ts, parent.expression, checker);
      if ((era === 'legacy' && child === parent.thenStatement) || (era === 'modern' && child === parent.elseStatement)) return child;
    }
    if (ts.isBlock(parent) || ts.isSourceFile(parent)) {
      const before = parent.statements.slice(0, parent.statements.indexOf(child as ts.Statement));
      if (before.some(st => ts.isIfStatement(st) && !st.elseStatement && eraTested(ts, st.expression, checker) === 'modern' && alwaysLeaves(ts, st.thenStatement))) return child;
    }
  }
  return undefined;
}

/** Which era a condition is true on alone: `x.era === 'legacy'`, `'modern' !== x.era`, ... */
function eraTested(ts: TS, condition: ts.Expression, checker: ts.TypeChecker | undefined): 'legacy' | 'modern' | undefined {
  const e = skipOuter(ts, condition);
  if (!ts.isBinaryExpression(e)) return undefined;
  const op = e.operatorToken.kind;
  const equal = op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken;
  const unequal = op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken;
  if (!equal && !unequal) return undefined;
  const [read, literal] = ts.isStringLiteralLike(skipOuter(ts, e.right)) ? [e.left, e.right] : [e.right, e.left];
  const value = skipOuter(ts, literal);
  const access = skipOuter(ts, read);
  if (!ts.isStringLiteralLike(value) || (value.text !== 'legacy' && value.text !== 'modern')) return undefined;
  if (!ts.isPropertyAccessExpression(access) || access.name.text !== 'era' || !isSdkEra(ts, access, checker)) return undefined;
  const other = value.text === 'legacy' ? 'modern' : 'legacy';
  return equal ? value.text : other;
}

/** `era` is the SDK's property (by the checker; by its name alone without one). */
function isSdkEra(ts: TS, access: ts.PropertyAccessExpression, checker: ts.TypeChecker | undefined): boolean {
  if (!checker) return true;
  const declaration = checker.getSymbolAtLocation(access.name)?.declarations?.[0];
  return declaration !== undefined && sdkOfFileName(declaration.getSourceFile().fileName) !== undefined;
}

function alwaysLeaves(ts: TS, st: ts.Statement): boolean {
  if (ts.isReturnStatement(st) || ts.isThrowStatement(st)) return true;
  if (ts.isBlock(st)) {
    const last = st.statements[st.statements.length - 1];
    return last !== undefined && alwaysLeaves(ts, last);
  }
  if (ts.isIfStatement(st)) return !!st.elseStatement && alwaysLeaves(ts, st.thenStatement) && alwaysLeaves(ts, st.elseStatement);
  return false;
}

/** Whether `fn` calls the SDK's `inputRequired(...)` (or one of its builders) outside the legacy branch. */
function answersInputRequired(ts: TS, fn: ts.FunctionLikeDeclaration, legacy: ts.Node, sdkExport: (e: ts.Expression) => SdkImport | undefined): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found || n === legacy || (isFunctionLike(ts, n) && n !== fn)) return;
    if (ts.isCallExpression(n)) {
      const callee = skipOuter(ts, n.expression);
      const target = ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'inputRequired' ? callee.expression : callee;
      if (sdkExport(target)?.exported === 'inputRequired') found = true;
    }
    n.forEachChild(visit);
  };
  visit(fn);
  return found;
}
