import type * as ts from 'typescript';
import { forEachValueIdentifier, isAssignedIn, isFunctionLike, resolveIdentifier, type LocalDecl } from './scope.js';
import { functionNameNode, skipOuter } from './sdk.js';
import { expressionBodyOf, firstEvaluatedBefore, statementOf } from './flow.js';
import { isPureExpression } from './purity.js';
import type { HandlerWrapper, TS } from './types.js';

/**
 * Handlers the SDK reaches through a wrapper: the callback it calls is a function that calls the
 * real handler through a parameter, once per request, and shapes what it returns:
 *
 *   function withErrors(fn) { return async (args) => { try { return ok(await fn(args)); } catch (e) { ... } }; }
 *   server.registerTool('confirm', config, withErrors(async () => { ... }));
 *
 *   const register = (name, handler) => server.registerTool(name, config, async () => ({ content: [{ type: 'text', text: await handler() }] }));
 *   register('confirm', async () => { ... });
 *
 * The function given is the handler: it is rewritten, takes the context the wrapper now passes on,
 * and may return an input-required result, which the wrapper hands back to the SDK unchanged
 * (`if (isInputRequiredResult(result)) return result;` where it awaited the call). The wrapper's own
 * code before that call runs again in every round, so it may only compute.
 */

/** A plain, never assigned parameter of `owner` that `e` names. */
export function parameterOf(ts: TS, e: ts.Expression | undefined): { owner: ts.FunctionLikeDeclaration; index: number; decl: LocalDecl } | undefined {
  const id = e && skipOuter(ts, e);
  const decl = id && ts.isIdentifier(id) ? resolveIdentifier(ts, id) : undefined;
  if (decl?.kind !== 'parameter' || !isFunctionLike(ts, decl.scope) || isAssignedIn(ts, decl.scope, decl)) return undefined;
  const owner = decl.scope;
  const index = owner.parameters.findIndex(p => p === decl.declaration);
  const parameter = owner.parameters[index];
  return parameter && ts.isIdentifier(parameter.name) && !parameter.dotDotDotToken ? { owner, index, decl } : undefined;
}

/** `return async (args) => ...` as the whole body of a wrapping function (or its arrow's expression body). */
export function returnedFunction(ts: TS, fn: ts.FunctionLikeDeclaration): ts.ArrowFunction | ts.FunctionExpression | undefined {
  const body = fn.body;
  if (!body) return undefined;
  let returned: ts.Expression | undefined;
  if (ts.isBlock(body)) {
    const only = body.statements.length === 1 ? body.statements[0] : undefined;
    returned = only && ts.isReturnStatement(only) ? only.expression : undefined;
  } else {
    returned = body;
  }
  const e = returned && skipOuter(ts, returned);
  return e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) ? e : undefined;
}

/**
 * The one call in `outer` (not in a function nested in it) of a parameter of a function enclosing
 * it whose value makes the callback's result: `return { text: await handler() }`, `const text = await
 * fn(args)`, an expression body. Undefined when there is none, or calls of several such parameters
 * (a `log(message)` whose result is dropped is not the handler).
 */
export function innerHandlerCall(ts: TS, outer: ts.FunctionLikeDeclaration): { call: ts.CallExpression; owner: ts.FunctionLikeDeclaration; index: number; decl: LocalDecl } | undefined {
  const found: Array<{ call: ts.CallExpression; owner: ts.FunctionLikeDeclaration; index: number; decl: LocalDecl }> = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(ts, node)) return;
    if (ts.isCallExpression(node)) {
      const p = parameterOf(ts, node.expression);
      if (p && p.owner !== outer && isEnclosedBy(outer, p.owner) && makesResult(ts, node, outer)) found.push({ call: node, ...p });
    }
    node.forEachChild(visit);
  };
  if (outer.body) visit(outer.body);
  const first = found[0];
  return first && found.every(f => f.decl === first.decl) ? first : undefined;
}

/** Whether the call's value is part of what `outer` returns: in its expression body, a `return`, or a declaration's initializer. */
function makesResult(ts: TS, call: ts.CallExpression, outer: ts.FunctionLikeDeclaration): boolean {
  for (let n: ts.Node = call; n.parent; n = n.parent) {
    if (n === outer.body) return !ts.isBlock(n);
    if (ts.isReturnStatement(n) || ts.isVariableDeclaration(n)) return true;
    if (ts.isStatement(n) || isFunctionLike(ts, n)) return false;
  }
  return false;
}

function isEnclosedBy(node: ts.Node, ancestor: ts.Node): boolean {
  for (let n = node.parent; n; n = n.parent) if (n === ancestor) return true;
  return false;
}

/** How the wrapper's result of the call reaches the SDK. */
export type PassThrough =
  /** `return await handler(...)` / `async (args) => handler(args)`: the result is the wrapper's. */
  | { kind: 'returned' }
  /** `text: await handler()` inside `statement` (undefined: the wrapper's expression body): awaited first, passed on when input-required. */
  | { kind: 'hoisted'; awaited: ts.AwaitExpression; statement: ts.Statement | undefined }
  | { kind: 'problem'; problem: string; repeats?: true };

/** Describes the wrapper of a handler, and whether the rewrite can make it pass input-required results on. */
export function describeWrapper(ts: TS, outer: ts.FunctionLikeDeclaration, outerCtxParamIndex: number, inner: { call: ts.CallExpression; owner: ts.FunctionLikeDeclaration; index: number; decl: LocalDecl }, checker: ts.TypeChecker | undefined): HandlerWrapper {
  const parameter = inner.owner.parameters[inner.index]!;
  const wrapper: HandlerWrapper = { outer, call: inner.call, parameter, outerCtxParamIndex, problem: undefined };
  wrapper.problem = wrapperProblem(ts, wrapper, inner.decl, checker);
  return wrapper;
}

function wrapperProblem(ts: TS, w: HandlerWrapper, decl: LocalDecl, checker: ts.TypeChecker | undefined): string | undefined {
  const owner = decl.scope as ts.FunctionLikeDeclaration;
  const ownerName = nameOf(ts, owner);
  const param = decl.name;
  const line = (n: ts.Node): number => n.getSourceFile().getLineAndCharacterOfPosition(n.getStart()).line + 1;
  let uses = 0;
  forEachValueIdentifier(ts, owner.body!, id => { if (resolveIdentifier(ts, id) === decl) uses++; });
  if (uses !== 1) return `${ownerName} uses its parameter \`${param}\` other than by one call per request; only a wrapper that calls the handler once can pass its input-required result on.`;
  // The handler takes what the wrapper was given, in order; the rewrite adds the context where it is missing.
  const outerParams = w.outer.parameters;
  const ctxParam = outerParams[w.outerCtxParamIndex];
  if (ctxParam && !ts.isIdentifier(ctxParam.name)) return `the callback ${ownerName} registers destructures its context parameter; name it (e.g. \`ctx\`) so the rewrite can hand the context to \`${param}\`.`;
  const passed = w.call.arguments.every((arg, i) => {
    const p = outerParams[i];
    const e = skipOuter(ts, arg);
    return p && ts.isIdentifier(p.name) && ts.isIdentifier(e) && resolveIdentifier(ts, e)?.declaration === p;
  });
  if (!passed || w.call.arguments.length > w.outerCtxParamIndex + 1) {
    return `${ownerName} calls \`${param}\` with other arguments than its callback's own (${firstLine(w.call.getText().replace(/\s+/g, ' '))}); the rewritten handler needs the request's arguments and context as the SDK gives them.`;
  }
  if (w.call.arguments.length < w.outerCtxParamIndex) return `${ownerName} does not hand \`${param}\` the tool's arguments; the rewritten handler binds its state to them.`;
  if (owner.type && returnedFunction(ts, owner) === w.outer) return `${ownerName} declares the type of the function it returns, which the rewrite would have to widen to return an input-required result; drop the annotation or migrate by hand.`;
  const typeProblem = parameterTypeProblem(ts, w.parameter!, w.call.arguments.length, w.outerCtxParamIndex);
  if (typeProblem) return `${ownerName}'s parameter \`${param}\` ${typeProblem}.`;
  const through = passThrough(ts, w, checker);
  if (through.kind === 'problem') {
    if (through.repeats) w.repeats = true;
    return `${ownerName} ${through.problem} (line ${line(w.call)}).`;
  }
  return undefined;
}

/**
 * One wrapper for tools with and without arguments takes the context at two places, which one
 * rewrite of it cannot both serve: each handler behind it says so.
 */
export function sharedWrapperProblems(handlers: ReadonlyArray<{ wrapper?: HandlerWrapper | undefined }>): void {
  const indexes = new Map<ts.FunctionLikeDeclaration, Set<number>>();
  for (const { wrapper } of handlers) if (wrapper) indexes.set(wrapper.outer, (indexes.get(wrapper.outer) ?? new Set()).add(wrapper.outerCtxParamIndex));
  for (const { wrapper } of handlers) {
    if (wrapper && !wrapper.problem && indexes.get(wrapper.outer)!.size > 1) {
      wrapper.problem = 'the wrapper that calls this handler also wraps tools that take their arguments differently (with and without an input schema), so one rewrite of it cannot hand each its context; give them one wrapper each.';
    }
  }
}

/**
 * The function type a wrapper's handler parameter is typed with, which the rewrite widens: written on
 * the parameter (`handler: () => Promise<string>`), or an alias of the file that types no other
 * function's parameter (`type Run = (args: Args) => Promise<Reply>`, then `run: Run`). Where the alias
 * also types something else, the project's type check after the rewrite has the last word.
 */
export function handlerParameterType(ts: TS, parameter: ts.ParameterDeclaration): ts.FunctionTypeNode | undefined {
  const type = parameter.type;
  if (!type) return undefined;
  if (ts.isFunctionTypeNode(type)) return type;
  if (!ts.isTypeReferenceNode(type) || !ts.isIdentifier(type.typeName) || type.typeArguments) return undefined;
  const name = type.typeName.text;
  const file = parameter.getSourceFile();
  const aliases: ts.TypeAliasDeclaration[] = [];
  let typedParameters = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isTypeAliasDeclaration(node) && node.name.text === name) aliases.push(node);
    // Parameters of functions with a body: those of a function type only describe one.
    if (ts.isParameter(node) && node.type && ts.isTypeReferenceNode(node.type) && ts.isIdentifier(node.type.typeName) && node.type.typeName.text === name &&
        isFunctionLike(ts, node.parent) && (node.parent as ts.FunctionLikeDeclaration).body) typedParameters++;
    node.forEachChild(visit);
  };
  visit(file);
  const [alias, ...others] = aliases;
  if (!alias || others.length > 0 || alias.typeParameters || typedParameters !== 1 || !ts.isFunctionTypeNode(alias.type)) return undefined;
  return alias.type;
}

/** A function type that promises (`(args: A) => Promise<R>`): one the rewrite widens to `Promise<R | InputRequiredResult>`. */
export function promisedFunction(ts: TS, type: ts.TypeNode): ts.FunctionTypeNode | undefined {
  const promises = ts.isFunctionTypeNode(type) && ts.isTypeReferenceNode(type.type) && type.type.typeName.getText() === 'Promise' && type.type.typeArguments?.length === 1;
  return promises ? type as ts.FunctionTypeNode : undefined;
}

/** `handler: () => Promise<string>`: a function type the rewrite can widen (absent in JavaScript). */
function parameterTypeProblem(ts: TS, parameter: ts.ParameterDeclaration, passed: number, ctxIndex: number): string | undefined {
  if (!parameter.type) return undefined;
  const type = handlerParameterType(ts, parameter);
  if (!type) return 'is not typed as a function type the rewrite can widen to pass the context and return an input-required result';
  if (!promisedFunction(ts, type)) return 'is not typed to return a Promise';
  if (passed === ctxIndex && type.parameters.length !== passed) return 'declares other parameters than the callback hands it';
  return undefined;
}

/** Where the call's awaited result goes, and whether the wrapper's code before it only computes. */
export function passThrough(ts: TS, w: Pick<HandlerWrapper, 'outer' | 'call'>, checker?: ts.TypeChecker): PassThrough {
  let use: ts.Node = w.call;
  while (ts.isParenthesizedExpression(use.parent)) use = use.parent;
  const awaited = ts.isAwaitExpression(use.parent) ? use.parent : undefined;
  let result: ts.Node = awaited ?? use;
  while (ts.isParenthesizedExpression(result.parent)) result = result.parent;
  const body = w.outer.body!;
  if (result === body || (ts.isReturnStatement(result.parent) && result.parent.expression === result)) {
    return ts.isReturnStatement(result.parent) ? blockedPath(ts, result.parent, body, checker) ?? { kind: 'returned' } : { kind: 'returned' };
  }
  if (!awaited) return { kind: 'problem', problem: 'uses the handler\'s promise without awaiting it where it calls it' };
  const statement = statementOf(ts, awaited, w.outer) ?? expressionBodyOf(ts, awaited, w.outer);
  // Awaited first, the call must run exactly when it ran: not in a loop's or an if's head, not under `?:`, `&&`, `||`, `??`.
  if (!statement || !(statement === body || ts.isReturnStatement(statement) || ts.isVariableStatement(statement) || ts.isExpressionStatement(statement) || ts.isThrowStatement(statement))) {
    return { kind: 'problem', problem: 'calls the handler in the head of a statement (a condition, a loop), where the rewrite cannot await it first' };
  }
  if (underCondition(ts, awaited, statement)) return { kind: 'problem', problem: 'calls the handler under a condition, where the rewrite does not pass its input-required result on' };
  // Moved after the call, what the statement evaluated before it could see what the handler changed: only constants may.
  const before = firstEvaluatedBefore(ts, awaited, statement, earlier => notInert(ts, earlier) === undefined);
  const shown = before && notInert(ts, before);
  if (shown) return { kind: 'problem', problem: `evaluates \`${firstLine(shown.getText())}\` before it awaits the handler, which the rewrite would have to reorder` };
  if (statement === body) return { kind: 'hoisted', awaited, statement: undefined };
  const blocked = blockedPath(ts, statement as ts.Statement, body, checker);
  return blocked ?? { kind: 'hoisted', awaited, statement: statement as ts.Statement };
}

/**
 * A statement whose run in every round nobody sees: a declaration of computed values, or a guard
 * that only computes and returns or throws (`if (!tool) return { isError: true, ... };`).
 */
function rerunsUnseen(ts: TS, s: ts.Statement, checker: ts.TypeChecker | undefined): boolean {
  if (ts.isVariableStatement(s)) return s.declarationList.declarations.every(d => isPureExpression(ts, d, checker));
  if (!ts.isIfStatement(s) || s.elseStatement || !isPureExpression(ts, s.expression, checker)) return false;
  const exit = ts.isBlock(s.thenStatement) && s.thenStatement.statements.length === 1 ? s.thenStatement.statements[0]! : s.thenStatement;
  if (ts.isReturnStatement(exit)) return !exit.expression || isPureExpression(ts, exit.expression, checker);
  return ts.isThrowStatement(exit) && isErrorConstruction(ts, exit.expression, checker);
}

/** `new Error(...)`, `new McpError(code, message)`: a global or imported error class given computed values. */
function isErrorConstruction(ts: TS, e: ts.Expression, checker: ts.TypeChecker | undefined): boolean {
  const inner = skipOuter(ts, e);
  if (!ts.isNewExpression(inner) || !ts.isIdentifier(inner.expression) || !/Error$/.test(inner.expression.text)) return false;
  const decl = resolveIdentifier(ts, inner.expression);
  // A class of the file may do anything in its constructor.
  return (decl === undefined || decl.kind === 'import') && (inner.arguments ?? []).every(a => isPureExpression(ts, a, checker));
}

/** `c ? await fn() : x`, `ok && await fn()`: the call runs only on one side. */
function underCondition(ts: TS, awaited: ts.Node, statement: ts.Node): boolean {
  for (let n: ts.Node = awaited; n !== statement; n = n.parent) {
    const parent = n.parent;
    if (ts.isConditionalExpression(parent) && parent.condition !== n) return true;
    if (ts.isBinaryExpression(parent) && parent.right === n && [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(parent.operatorToken.kind)) return true;
  }
  return false;
}

function childrenOf(node: ts.Node): ts.Node[] {
  const children: ts.Node[] = [];
  node.forEachChild(c => { children.push(c); });
  return children;
}

/** The first part of `node` that is not a literal or a constant (the innermost one), if any. */
function notInert(ts: TS, node: ts.Node): ts.Node | undefined {
  if (ts.isTypeNode(node) || ts.isStringLiteralLike(node) || ts.isNumericLiteral(node) || ts.isTemplateLiteralToken(node) ||
      node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword || node.kind === ts.SyntaxKind.NullKeyword) {
    return undefined;
  }
  if (ts.isIdentifier(node)) {
    // A property's name, or a name that always holds the same value (a callee like `ok(...)` included).
    if (ts.isPropertyAssignment(node.parent) && node.parent.name === node) return undefined;
    const decl = resolveIdentifier(ts, node);
    const constant = decl?.kind === 'const' || decl?.kind === 'import' || decl?.kind === 'function' || (decl?.kind === 'parameter' && !isAssignedIn(ts, decl.scope, decl));
    return constant ? undefined : node;
  }
  if (ts.isPropertyAssignment(node) || ts.isObjectLiteralExpression(node) || ts.isArrayLiteralExpression(node) || ts.isTemplateExpression(node) ||
      ts.isTemplateSpan(node) || ts.isAsExpression(node) || ts.isParenthesizedExpression(node) || ts.isVariableDeclarationList(node) || ts.isVariableDeclaration(node)) {
    for (const child of childrenOf(node)) {
      const found = notInert(ts, child);
      if (found) return found;
    }
    return undefined;
  }
  return node;
}

/**
 * The way from the wrapper's body to the statement: blocks and `try` blocks, whose statements before
 * it only declare computed values (they run again in every round); a `finally` would run in every round.
 */
function blockedPath(ts: TS, statement: ts.Statement, body: ts.Node, checker: ts.TypeChecker | undefined): PassThrough | undefined {
  for (let n: ts.Node = statement; n !== body; n = n.parent) {
    const parent = n.parent;
    if (ts.isBlock(parent)) {
      const earlier = parent.statements.slice(0, parent.statements.indexOf(n as ts.Statement));
      const effect = earlier.find(s => !rerunsUnseen(ts, s, checker));
      if (effect) return { kind: 'problem', problem: `runs \`${firstLine(effect.getText())}\` before it calls the handler, which would run again in every round`, repeats: true };
      continue;
    }
    if (ts.isTryStatement(parent) && parent.tryBlock === n) {
      if (parent.finallyBlock) return { kind: 'problem', problem: 'has a finally block around the handler\'s call, which would run again in every round', repeats: true };
      continue;
    }
    return { kind: 'problem', problem: 'calls the handler under a condition or in a loop, where the rewrite does not pass its input-required result on' };
  }
  return undefined;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]!;
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

function nameOf(ts: TS, fn: ts.FunctionLikeDeclaration): string {
  const name = functionNameNode(ts, fn);
  return name ? `${name.text}()` : 'the wrapping function';
}
