import type * as ts from 'typescript';
import { buildFlow, type FlowNode } from './cfg.js';
import { isFunctionLike, isWithinNode, resolveIdentifier } from './scope.js';
import { skipOuter } from './sdk.js';
import { memberValue, urlMembers } from './detect.js';
import { isIdSource, isOutcomeNeutralCall, isPureCallee, PURE_CONSTRUCTORS } from './purity.js';
import type { TS } from './types.js';

/**
 * Side effects that run before a question. After the rewrite they run in the round that asks; if
 * the client never retries, what the original code did after the question never happens. Such
 * sites are still rewritten, tagged `review`.
 */

export function sideEffectsBefore(
  ts: TS,
  fn: ts.FunctionLikeDeclaration,
  statement: ts.Statement,
  awaited: ts.Expression,
  question: ts.Node,
  isQuestion: (node: ts.Node) => boolean,
  checker?: ts.TypeChecker,
): string[] {
  const found: string[] = [];
  const isLocal = (expr: ts.Expression): boolean => {
    let root = skipOuter(ts, expr);
    while (ts.isPropertyAccessExpression(root) || ts.isElementAccessExpression(root) || ts.isCallExpression(root)) root = skipOuter(ts, root.expression);
    if (!ts.isIdentifier(root)) return root.kind !== ts.SyntaxKind.ThisKeyword;
    const decl = resolveIdentifier(ts, root);
    return !!decl && (decl.scope === fn || isWithinNode(decl.scope, fn));
  };
  /**
   * `ideas.push(text)` on a `const` of the handler that holds a collection it made (`[]`, `new Map()`):
   * nothing outside the call sees the change, and the collection travels in requestState. Handing the
   * collection to anything else is a call or an assignment noted on its own.
   */
  const changesOwnCollection = (call: ts.CallExpression): boolean => {
    const callee = skipOuter(ts, call.expression);
    if (!ts.isPropertyAccessExpression(callee) || !IN_PLACE_METHODS.has(callee.name.text)) return false;
    // sort() calls the comparator it is given, which may do anything.
    if (callee.name.text === 'sort' && call.arguments.length > 0) return false;
    const target = skipOuter(ts, callee.expression);
    const decl = ts.isIdentifier(target) ? resolveIdentifier(ts, target) : undefined;
    if (decl?.kind !== 'const' || !isWithinNode(decl.scope, fn) || !ts.isVariableDeclaration(decl.declaration) || !decl.declaration.initializer) return false;
    const made = skipOuter(ts, decl.declaration.initializer);
    if (ts.isArrayLiteralExpression(made)) return true;
    const ctor = ts.isNewExpression(made) ? skipOuter(ts, made.expression) : undefined;
    return !!ctor && ts.isIdentifier(ctor) && ['Array', 'Map', 'Set'].includes(ctor.text) && resolveIdentifier(ts, ctor) === undefined;
  };
  const note = (node: ts.Node, what: string): void => {
    const text = node.getText().replace(/\s+/g, ' ');
    found.push(`${what}: \`${text.length > 70 ? `${text.slice(0, 67)}...` : text}\``);
  };
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(ts, node) || ts.isClassLike(node)) return;
    if (isQuestion(node)) return;
    if (ts.isCallExpression(node)) {
      if (!isEffectFreeCall(ts, node, checker) && !changesOwnCollection(node)) {
        note(node, 'call');
        return;
      }
    } else if (ts.isNewExpression(node)) {
      const callee = skipOuter(ts, node.expression);
      if (!(ts.isIdentifier(callee) && PURE_CONSTRUCTORS.has(callee.text))) {
        note(node, 'construction');
        return;
      }
    } else if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment && !isLocal(node.left)) {
        note(node, 'assignment outside the handler');
        return;
      }
    } else if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
               (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken) && !isLocal(node.operand)) {
      note(node, 'update outside the handler');
      return;
    } else if (ts.isDeleteExpression(node) && !isLocal(node.expression)) {
      note(node, 'delete');
      return;
    }
    node.forEachChild(visit);
  };
  for (const node of codeBefore(ts, fn, statement, awaited)) visit(node);
  // The part of the statement evaluated before the await, and the question's own arguments.
  const prefixVisit = (node: ts.Node): void => {
    if (node === awaited) {
      if (ts.isCallExpression(question) || ts.isNewExpression(question)) for (const arg of question.arguments ?? []) withoutUrlId(ts, arg).forEach(visit);
      return;
    }
    if (node.pos >= awaited.end) return;
    if (isFunctionLike(ts, node)) return;
    if (node.end <= awaited.pos) {
      visit(node);
      return;
    }
    node.forEachChild(prefixVisit);
  };
  prefixVisit(statement);
  return found;
}

/**
 * A URL question's params without its elicitationId, which the rewrite drops (inputRequired.elicitUrl
 * takes message and url; see urlPushProblem in analyze.ts): what computes it no longer runs.
 */
function withoutUrlId(ts: TS, arg: ts.Expression): readonly ts.Node[] {
  const e = skipOuter(ts, arg);
  const shape = ts.isObjectLiteralExpression(e) ? urlMembers(ts, e) : undefined;
  const members = shape && 'members' in shape ? shape.members : undefined;
  const mode = members?.get('mode');
  const value = mode && skipOuter(ts, memberValue(ts, mode));
  if (!members || !value || !ts.isStringLiteralLike(value) || value.text !== 'url') return [arg];
  return (e as ts.ObjectLiteralExpression).properties.filter(p => p !== members.get('elicitationId'));
}

/**
 * The code that can run before the question in the round that asks it: what the flow graph reaches
 * the question from (a branch that returns first, or the other case of a switch, does not).
 */
function codeBefore(ts: TS, fn: ts.FunctionLikeDeclaration, statement: ts.Statement, awaited: ts.Expression): ts.Node[] {
  const flow = buildFlow(ts, fn, new Set([awaited]));
  const suspend = flow.suspendOf.get(awaited);
  if (!suspend) return [];
  const preds = new Map<FlowNode, FlowNode[]>();
  for (const n of flow.nodes) {
    for (const next of n.succ) preds.set(next, [...(preds.get(next) ?? []), n]);
    if (n.exc) preds.set(n.exc, [...(preds.get(n.exc) ?? []), n]);
  }
  const seen = new Set<FlowNode>([suspend]);
  const stack = [suspend];
  while (stack.length > 0) {
    for (const p of preds.get(stack.pop()!) ?? []) {
      if (!seen.has(p)) {
        seen.add(p);
        stack.push(p);
      }
    }
  }
  // The question's own statement is looked at separately (only its part before the await counts).
  return [...seen].filter(n => n.kind === 'plain' && n.ast && !isWithinNode(n.ast, statement)).map(n => n.ast!).sort((a, b) => a.pos - b.pos);
}

/** Methods that change the array, Map or Set they are called on, and nothing else. */
const IN_PLACE_METHODS = new Set(['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin', 'set', 'add', 'delete', 'clear']);

/** A call that changes nothing a handler's outcome depends on: a pure one from the table, or logging and the like. */
function isEffectFreeCall(ts: TS, call: ts.CallExpression, checker: ts.TypeChecker | undefined): boolean {
  if (isPureCallee(ts, call, checker)) return true;
  const callee = skipOuter(ts, call.expression);
  if (isIdSource(ts, call)) return true;
  if (ts.isIdentifier(callee)) return callee.text === 'Symbol' && resolveIdentifier(ts, callee) === undefined;
  return isOutcomeNeutralCall(ts, call);
}
