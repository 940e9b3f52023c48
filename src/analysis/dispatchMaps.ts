import type * as ts from 'typescript';
import { enclosingFunction, forEachValueIdentifier, isExported, isFunctionLike, resolveIdentifier, type LocalDecl } from './scope.js';
import { skipOuter } from './sdk.js';
import type { Handler, TS } from './types.js';
import { passThrough } from './wrappedHandlers.js';

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
export function dispatchedHandlers(ts: TS, outer: Handler, checker: ts.TypeChecker | undefined): Handler[] {
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
  const entries = mapEntries(ts, only.map);
  if (!entries) return [];
  const slot = slotOf(ts, (only.map.declaration as ts.VariableDeclaration).type);
  if (slot === 'unwidenable') return [];
  const problem = dispatchProblem(ts, only.call, requestDecl, outer, checker);
  const wrapper = { outer: outer.fn, call: only.call, parameter: undefined, outerCtxParamIndex: outer.ctxParamIndex, problem };
  return entries.map(({ name, fn }) => ({
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
  if (!ts.isElementAccessExpression(e) || !isToolName(ts, e.argumentExpression, request)) return undefined;
  const map = skipOuter(ts, e.expression);
  const decl = ts.isIdentifier(map) ? resolveIdentifier(ts, map) : undefined;
  return decl?.kind === 'const' ? decl : undefined;
}

/** `request.params.name`, or a `const` holding it (`const { name } = request.params`, `const name = request.params.name`). */
function isToolName(ts: TS, e: ts.Expression, request: LocalDecl): boolean {
  return isRequestParam(ts, e, request, 'name');
}

/** `request.params.<key>` or a `const` that holds it. */
export function isRequestParam(ts: TS, e: ts.Expression, request: LocalDecl, key: string): boolean {
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

/** The map's entries, each a function under a literal key, where the map is all seen and only read. */
function mapEntries(ts: TS, map: LocalDecl): Array<{ name: string; fn: ts.FunctionLikeDeclaration }> | undefined {
  const declaration = map.declaration;
  if (!ts.isVariableDeclaration(declaration) || !declaration.initializer || !ts.isIdentifier(declaration.name)) return undefined;
  const literal = skipOuter(ts, declaration.initializer);
  if (!ts.isObjectLiteralExpression(literal) || isExported(ts, declaration.getSourceFile(), declaration.name.text, declaration) || !onlyRead(ts, map)) return undefined;
  const entries: Array<{ name: string; fn: ts.FunctionLikeDeclaration }> = [];
  for (const p of literal.properties) {
    // A spread or a computed key may bring any entry.
    if (ts.isSpreadAssignment(p) || !p.name || !(ts.isIdentifier(p.name) || ts.isStringLiteralLike(p.name))) return undefined;
    const fn = ts.isMethodDeclaration(p) ? p : ts.isPropertyAssignment(p) ? functionOf(ts, p.initializer) : ts.isShorthandPropertyAssignment(p) ? functionOf(ts, p.name) : undefined;
    if (fn) entries.push({ name: p.name.text, fn });
  }
  // A function two keys hold would be bound to two names by one rewrite.
  return entries.filter(e => entries.filter(o => o.fn === e.fn).length === 1);
}

/** An inline function, or a function of the file a name refers to. */
function functionOf(ts: TS, e: ts.Expression): ts.FunctionLikeDeclaration | undefined {
  const inner = skipOuter(ts, e);
  if (ts.isArrowFunction(inner) || ts.isFunctionExpression(inner)) return inner;
  if (!ts.isIdentifier(inner)) return undefined;
  const declaration = resolveIdentifier(ts, inner)?.declaration;
  if (declaration && ts.isFunctionDeclaration(declaration)) return declaration;
  const init = declaration && ts.isVariableDeclaration(declaration) && declaration.initializer ? skipOuter(ts, declaration.initializer) : undefined;
  return init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) ? init : undefined;
}

/** Every use of the map reads it: `map[key]` (not written or deleted), `key in map`, `Object.keys(map)` / `values` / `entries`. */
export function onlyRead(ts: TS, map: LocalDecl): boolean {
  let read = true;
  forEachValueIdentifier(ts, map.declaration.getSourceFile(), use => {
    if (!read || use === map.nameNode || resolveIdentifier(ts, use) !== map) return;
    const parent = use.parent;
    if ((ts.isElementAccessExpression(parent) || ts.isPropertyAccessExpression(parent)) && parent.expression === use) {
      read = !isWritten(ts, parent) && !isCalledMember(ts, parent);
      return;
    }
    if (ts.isBinaryExpression(parent) && parent.right === use && parent.operatorToken.kind === ts.SyntaxKind.InKeyword) return;
    if (ts.isTypeQueryNode(parent)) return; // `keyof typeof map`
    const call = parent;
    if (ts.isCallExpression(call) && call.arguments.length === 1 && ts.isPropertyAccessExpression(call.expression) &&
        ts.isIdentifier(call.expression.expression) && call.expression.expression.text === 'Object' && !resolveIdentifier(ts, call.expression.expression) &&
        ['keys', 'values', 'entries'].includes(call.expression.name.text)) return;
    read = false;
  });
  return read;
}

/** `map[key] = f`, `map.key += ...`, `delete map[key]`, `map[key]++`. */
function isWritten(ts: TS, access: ts.Expression): boolean {
  let target: ts.Node = access;
  while (ts.isParenthesizedExpression(target.parent)) target = target.parent;
  const parent = target.parent;
  if (ts.isBinaryExpression(parent)) return parent.left === target && parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
  if (ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) return parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken;
  return ts.isDeleteExpression(parent);
}

/** `map.assign(...)`-style calls on a member: a method of the map's value could change it. */
function isCalledMember(ts: TS, access: ts.Node): boolean {
  return ts.isPropertyAccessExpression(access) && ts.isCallExpression(access.parent) && access.parent.expression === access;
}

/**
 * `Record<string, F>` or `{ [name: string]: F }`: the function type F the map declares for its
 * entries, which the rewrite widens; 'unwidenable' where it declares one the rewrite cannot widen.
 */
function slotOf(ts: TS, type: ts.TypeNode | undefined): ts.FunctionTypeNode | undefined | 'unwidenable' {
  if (!type) return undefined;
  let value: ts.TypeNode | undefined;
  if (ts.isTypeReferenceNode(type) && type.typeName.getText() === 'Record' && type.typeArguments?.length === 2) value = type.typeArguments[1];
  if (ts.isTypeLiteralNode(type) && type.members.length === 1 && ts.isIndexSignatureDeclaration(type.members[0]!)) value = type.members[0].type;
  const promises = value && ts.isFunctionTypeNode(value) && ts.isTypeReferenceNode(value.type) && value.type.typeName.getText() === 'Promise' && value.type.typeArguments?.length === 1;
  return promises ? value as ts.FunctionTypeNode : 'unwidenable';
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
