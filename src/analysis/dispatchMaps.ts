import type * as ts from 'typescript';
import { enclosingFunction, isFunctionLike, resolveIdentifier, type LocalDecl } from './scope.js';
import { constObjectEntries, entryValueType } from './constObjects.js';
import { skipOuter } from './sdk.js';
import type { Handler, TS } from './types.js';
import { passThrough, promisedFunction } from './wrappedHandlers.js';

/**
 * Tools served by a map of handlers a low-level `tools/call` handler picks by the tool's name:
 *
 *   const tools: Record<string, (args: Record<string, unknown>) => Promise<string>> = {
 *     async rename(args) { ... await server.elicitInput(...) ... },
 *   };
 *   server.setRequestHandler(CallToolRequestSchema, async (request) => {
 *     const tool = tools[request.params.name];
 *     if (!tool) return { isError: true, content: [...] };
 *     return { content: [{ type: 'text', text: await tool(request.params.arguments ?? {}) }] };
 *   });
 *
 * Each function of the map is the handler of the tool its key names: it takes the tool's arguments,
 * and the context the `tools/call` handler now hands it, as a wrapper does (wrappedHandlers.ts).
 * Followed only where the map is a `const` of the file, written out as an object literal without a
 * spread, not exported, and only read (indexed, `in`, `Object.keys(...)`): no entry can come from
 * elsewhere, and no code can replace one.
 */
export function dispatchedHandlers(ts: TS, outer: Handler, checker: ts.TypeChecker | undefined, functionOf: (e: ts.Expression) => ts.FunctionLikeDeclaration | undefined): Handler[] {
  if (outer.registration !== 'setRequestHandler' || outer.method !== 'tools/call' || !outer.fn.body) return [];
  const request = outer.fn.parameters[0];
  const requestDecl = request && ts.isIdentifier(request.name) ? resolveIdentifier(ts, request.name) : undefined;
  if (!requestDecl) return [];
  const calls: Array<{ call: ts.CallExpression; map: LocalDecl }> = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(ts, node)) return;
    if (ts.isCallExpression(node)) {
      const map = pickedMap(ts, node.expression, requestDecl, outer.fn);
      if (map) calls.push({ call: node, map });
    }
    node.forEachChild(visit);
  };
  visit(outer.fn.body);
  // One call picks the handler: several would run several tools (or one twice) in a request.
  const [only, ...more] = calls;
  if (!only || more.length > 0) return [];
  const entries = constObjectEntries(ts, only.map)?.flatMap(({ key, value }) => {
    const fn = ts.isMethodDeclaration(value) ? value : functionOf(value);
    return fn ? [{ name: key, fn }] : [];
  });
  if (!entries) return [];
  const slot = slotOf(ts, (only.map.declaration as ts.VariableDeclaration).type);
  if (slot === 'unwidenable') return [];
  const problem = dispatchProblem(ts, only.call, requestDecl, outer, checker);
  const wrapper = { outer: outer.fn, call: only.call, parameter: undefined, outerCtxParamIndex: outer.ctxParamIndex, problem };
  // A function two keys hold would be bound to two names by one rewrite.
  return entries.filter(e => entries.filter(o => o.fn === e.fn).length === 1).map(({ name, fn }) => ({
    ...outer, fn, name, nameExpression: undefined, ctxParamIndex: 1, argsParamIndex: 0, wrapper, dispatched: true, data: { slotType: slot },
  }));
}

/** `tools[request.params.name]`, or a `const` of the handler initialized with it: the map's declaration. */
function pickedMap(ts: TS, callee: ts.Expression, request: LocalDecl, outer: ts.FunctionLikeDeclaration): LocalDecl | undefined {
  let e = skipOuter(ts, callee);
  if (ts.isIdentifier(e)) {
    const local = resolveIdentifier(ts, e);
    const declaration = local?.declaration;
    if (local?.kind !== 'const' || enclosingFunction(ts, declaration!) !== outer || !ts.isVariableDeclaration(declaration!) || !declaration.initializer) return undefined;
    e = skipOuter(ts, declaration.initializer);
  }
  if (!ts.isElementAccessExpression(e) || !isRequestParam(ts, e.argumentExpression, request, 'name')) return undefined;
  const map = skipOuter(ts, e.expression);
  const decl = ts.isIdentifier(map) ? resolveIdentifier(ts, map) : undefined;
  return decl?.kind === 'const' ? decl : undefined;
}

/** `request.params.<key>`, or a `const` that holds it (`const { name } = request.params`, `const name = request.params.name`). */
function isRequestParam(ts: TS, e: ts.Expression, request: LocalDecl, key: string): boolean {
  const inner = skipOuter(ts, e);
  if (ts.isPropertyAccessExpression(inner)) return inner.name.text === key && isRequestParams(ts, inner.expression, request);
  if (!ts.isIdentifier(inner)) return false;
  const decl = resolveIdentifier(ts, inner);
  if (decl?.kind !== 'const') return false;
  const element = decl.nameNode.parent;
  if (ts.isVariableDeclaration(element)) return element.initializer !== undefined && isRequestParam(ts, element.initializer, request, key);
  // `const { name, arguments: args } = request.params`
  if (ts.isBindingElement(element) && !element.dotDotDotToken && !element.initializer && ts.isObjectBindingPattern(element.parent)) {
    const property = element.propertyName ?? element.name;
    const holder = element.parent.parent;
    return ts.isIdentifier(property) && property.text === key && ts.isVariableDeclaration(holder) && holder.initializer !== undefined && isRequestParams(ts, holder.initializer, request);
  }
  return false;
}

function isRequestParams(ts: TS, e: ts.Expression, request: LocalDecl): boolean {
  const inner = skipOuter(ts, e);
  return ts.isPropertyAccessExpression(inner) && inner.name.text === 'params' && ts.isIdentifier(inner.expression) && resolveIdentifier(ts, inner.expression) === request;
}

/**
 * `Record<string, F>` or `{ [name: string]: F }`: the function type F the map declares for its
 * entries, which the rewrite widens; 'unwidenable' where it declares one the rewrite cannot widen.
 */
function slotOf(ts: TS, type: ts.TypeNode | undefined): ts.FunctionTypeNode | undefined | 'unwidenable' {
  return type ? promisedFunction(ts, entryValueType(ts, type)) ?? 'unwidenable' : undefined;
}

/**
 * Why the rewrite cannot hand the picked handler its context and pass its input-required result on:
 * it must be called with the tool's arguments (and, at most, the context), and its result awaited
 * where the `tools/call` handler can return it first.
 */
function dispatchProblem(ts: TS, call: ts.CallExpression, request: LocalDecl, outer: Handler, checker: ts.TypeChecker | undefined): string | undefined {
  const [args, ctx, ...rest] = call.arguments;
  const argsExpr = args && skipOuter(ts, args);
  const argsOk = argsExpr && (isRequestParam(ts, argsExpr, request, 'arguments') ||
    (ts.isBinaryExpression(argsExpr) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(argsExpr.operatorToken.kind) &&
      isRequestParam(ts, argsExpr.left, request, 'arguments') && ts.isObjectLiteralExpression(skipOuter(ts, argsExpr.right)) && (skipOuter(ts, argsExpr.right) as ts.ObjectLiteralExpression).properties.length === 0));
  const ctxParam = outer.fn.parameters[outer.ctxParamIndex];
  const ctxOk = !ctx || (ctxParam && ts.isIdentifier(ctxParam.name) && ts.isIdentifier(skipOuter(ts, ctx)) && resolveIdentifier(ts, skipOuter(ts, ctx) as ts.Identifier)?.declaration === ctxParam);
  if (!argsOk || !ctxOk || rest.length > 0) {
    return `the tools/call handler calls the tool it picks with other arguments than the request's (${call.getText().replace(/\s+/g, ' ').slice(0, 60)}); the rewritten tool needs the tool's arguments and the context.`;
  }
  const through = passThrough(ts, { outer: outer.fn, call }, checker);
  return through.kind === 'problem' ? `the tools/call handler ${through.problem}.` : undefined;
}
