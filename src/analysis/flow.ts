import type * as ts from 'typescript';
import { isFunctionLike } from './scope.js';
import { skipOuter } from './sdk.js';
import { isPureExpression } from './purity.js';
import type { ControlFlowTag, TS } from './types.js';

/**
 * The control flow around a question and the statement that holds it: what the rewrite needs to
 * know to split the function into the part before the question and the part after it.
 */

export type Consumption =
  /** `await call(...)` */
  | 'await'
  /** `return call(...)` in an async function: awaited by the caller. */
  | 'return'
  /** Promise kept in a variable or passed along, awaited later (or never). */
  | 'stored'
  /** `.then(...)` / `.catch(...)` chained on the call. */
  | 'then'
  /** The promise is dropped: `void call()` or a bare expression statement. */
  | 'dropped'
  /** Inside `Promise.all([...])` and friends. */
  | 'parallel';

export type AnswerForm =
  /** `const x = await ask(...)` (one declarator, the await is the whole initializer). */
  | 'declare'
  /** `x = await ask(...)` */
  | 'assign'
  /** `await ask(...);` */
  | 'discard'
  /** `return await ask(...)` / `return ask(...)` */
  | 'return'
  /** The await sits inside a larger statement and is evaluated first. */
  | 'embedded';

export interface FlowInfo {
  tags: ControlFlowTag[];
  consumption: Consumption;
  /** The `await` expression (or the call itself for `return call()`). */
  awaited: ts.Expression;
  /**
   * The statement that holds the question, directly inside a statement list or branch. Undefined
   * with a form: the question is in an arrow function's expression body (see expressionBodyOf).
   */
  statement: ts.Statement | undefined;
  form: AnswerForm | undefined;
  /** Why an embedded question cannot be lifted out of its statement, if it cannot. */
  embeddedBlocker: string | undefined;
  /** One question per item of a list, asked together (`await Promise.all(items.map(item => ask(item)))`), or why it cannot be one round. */
  list: ListRound | { problem: string } | undefined;
}

/**
 * `await Promise.all(items.map((item, i) => ask(item)))`: one round with one inputRequests key per
 * item. The callback only asks (its body is the question, or `return` of it); the answers come back
 * in the items' order. With no items nothing is asked (normalize.ts gives that case a branch).
 */
export interface ListRound {
  /** `await Promise.all(...)`: what ends the round, in its own statement. */
  awaited: ts.AwaitExpression;
  combinator: 'all' | 'allSettled';
  /** `items.map(...)` */
  map: ts.CallExpression;
  /** `items` */
  list: ts.Expression;
  callback: ts.ArrowFunction | ts.FunctionExpression;
  /** The question as the callback returns it: the call, possibly under `await`. */
  returned: ts.Expression;
}

const PARALLEL_COMBINATORS = new Set(['all', 'allSettled', 'race', 'any']);

export function analyzeFlow(ts: TS, call: ts.Expression, boundary: ts.FunctionLikeDeclaration): FlowInfo {
  const list = listRoundOf(ts, call, boundary);
  // A question per item is read from where its round is awaited: the callback only builds the question.
  const { consumption, awaited } = list && !('problem' in list) ? { consumption: 'parallel' as const, awaited: list.awaited } : consumptionOf(ts, call);
  const tags: ControlFlowTag[] = [];
  let child: ts.Node = list && !('problem' in list) ? list.awaited : call;
  for (let node = child.parent; node && node !== boundary; child = node, node = node.parent) {
    const tag = tagFor(ts, node, child);
    if (tag && !tags.includes(tag)) tags.push(tag);
  }
  if (tags.length === 0) tags.push('straight-line');
  if (consumption === 'parallel' && !tags.includes('parallel')) tags.push('parallel');
  const statement = statementOf(ts, awaited, boundary);
  const body = statement ? undefined : expressionBodyOf(ts, awaited, boundary);
  // In an arrow function's expression body the question is read as in `{ return <body>; }`, the block the rewrite makes of it.
  const form = statement ? formOf(ts, statement, awaited) : body && (skipOuterNoCast(ts, body) === awaited ? 'return' : 'embedded');
  const container = statement ?? body;
  const embeddedBlocker = container && form === 'embedded' ? impurePrefix(ts, awaited, container) : undefined;
  return { tags, consumption, awaited, statement, form, embeddedBlocker, list };
}

/**
 * The list round a question is asked in, when it is asked from a callback given to `.map()` whose
 * result goes to a Promise combinator; or why that cannot be one round. Undefined for other shapes.
 */
export function listRoundOf(ts: TS, call: ts.Expression, boundary: ts.FunctionLikeDeclaration): ListRound | { problem: string } | undefined {
  let callback: ts.Node | undefined = call.parent;
  while (callback && callback !== boundary && !isFunctionLike(ts, callback)) callback = callback.parent;
  if (!callback || callback === boundary || !(ts.isArrowFunction(callback) || ts.isFunctionExpression(callback))) return undefined;
  let map: ts.Node = callback;
  while (map.parent && ts.isParenthesizedExpression(map.parent)) map = map.parent;
  const mapCall = map.parent;
  if (!mapCall || !ts.isCallExpression(mapCall) || mapCall.arguments[0] !== map) return undefined;
  const callee = skipOuter(ts, mapCall.expression);
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 'map') return undefined;
  let outer: ts.Node = mapCall;
  while (outer.parent && (ts.isParenthesizedExpression(outer.parent) || ts.isAsExpression(outer.parent))) outer = outer.parent;
  const combinator = outer.parent;
  if (!combinator || !ts.isCallExpression(combinator) || !isParallelCombinator(ts, combinator) || combinator.arguments[0] !== outer) return undefined;

  const name = (skipOuter(ts, combinator.expression) as ts.PropertyAccessExpression).name.text;
  if (name !== 'all' && name !== 'allSettled') {
    return { problem: `Promise.${name} settles with the first answer, which one round of inputRequests cannot express (the client answers all of them); ask with Promise.all.` };
  }
  if (mapCall.arguments.length > 1 || callee.questionDotToken || mapCall.questionDotToken) {
    return { problem: `\`${callee.getText().slice(0, 40)}(...)\` is not a plain .map() with one callback; write \`items.map(item => ask(item))\` so each item's question can be built in one round.` };
  }
  const returned = returnedQuestion(ts, callback);
  if (!returned || returned.question !== call) {
    return { problem: 'the .map() callback does more than return its question; build what the question needs before the Promise.all, and let the callback only return the question (`items.map(item => ask(item))`).' };
  }
  // The requests are built in a plain callback (`items.map(item => inputRequired.elicit(...))`): nothing in them may wait.
  const waits = awaitInside(ts, call);
  if (waits) {
    return { problem: `the question's arguments wait for \`${waits.getText().slice(0, 40)}\` inside the .map() callback; await that for every item before the Promise.all.` };
  }
  let awaitedNode: ts.Node = combinator;
  while (awaitedNode.parent && (ts.isParenthesizedExpression(awaitedNode.parent) || ts.isAsExpression(awaitedNode.parent))) awaitedNode = awaitedNode.parent;
  const awaited = awaitedNode.parent;
  if (!awaited || !ts.isAwaitExpression(awaited) || statementOf(ts, awaited, boundary) === undefined) {
    return { problem: 'the Promise.all of a question per item is not awaited where it is made; await it in its own statement.' };
  }
  return { awaited, combinator: name, map: mapCall, list: callee.expression, callback, returned: returned.value };
}

/** `items.map(item => ask(item))`: the call its callback only returns (a question, where `isQuestion` says so). */
export function mappedQuestion(ts: TS, node: ts.Node, isQuestion: (call: ts.Node) => boolean): boolean {
  if (!ts.isCallExpression(node) || node.arguments.length !== 1) return false;
  const callee = skipOuter(ts, node.expression);
  const callback = skipOuterNoCast(ts, node.arguments[0]!);
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 'map' || !(ts.isArrowFunction(callback) || ts.isFunctionExpression(callback))) return false;
  const returned = returnedQuestion(ts, callback);
  return !!returned && isQuestion(returned.question);
}

/** An `await` in `node` outside the functions nested in it. */
function awaitInside(ts: TS, node: ts.Node): ts.AwaitExpression | undefined {
  let found: ts.AwaitExpression | undefined;
  const visit = (n: ts.Node): void => {
    if (found || isFunctionLike(ts, n)) return;
    if (ts.isAwaitExpression(n)) found = n;
    else n.forEachChild(visit);
  };
  node.forEachChild(visit);
  return found;
}

/**
 * `item => ask(item)`, `async item => await ask(item)`, `function (item) { return ask(item); }`: what
 * the callback returns (`value`, with its `await`) and the call inside it, when returning it is all it does.
 */
function returnedQuestion(ts: TS, callback: ts.ArrowFunction | ts.FunctionExpression): { value: ts.Expression; question: ts.Expression } | undefined {
  if (callback.asteriskToken) return undefined;
  const body = callback.body;
  const value = ts.isBlock(body)
    ? body.statements.length === 1 && ts.isReturnStatement(body.statements[0]!) ? body.statements[0].expression : undefined
    : body;
  if (!value) return undefined;
  const inner = skipOuterNoCast(ts, value);
  return { value, question: ts.isAwaitExpression(inner) ? skipOuterNoCast(ts, inner.expression) : inner };
}

/** The expression body of `boundary` that holds `node` outside any nested function, if it does. */
export function expressionBodyOf(ts: TS, node: ts.Node, boundary: ts.FunctionLikeDeclaration): ts.Expression | undefined {
  const body = boundary.body;
  if (!body || ts.isBlock(body)) return undefined;
  for (let n: ts.Node | undefined = node; n && n !== boundary; n = n.parent) {
    if (n === body) return body as ts.Expression;
    if (isFunctionLike(ts, n) && n !== node) return undefined;
  }
  return undefined;
}

function tagFor(ts: TS, node: ts.Node, child: ts.Node): ControlFlowTag | undefined {
  if (ts.isIfStatement(node)) return node.expression === child ? 'if-condition' : 'if';
  if (ts.isTryStatement(node)) {
    if (node.tryBlock === child) return 'try';
    if (node.catchClause === child) return 'catch';
    return 'finally';
  }
  if (ts.isCaseClause(node) || ts.isDefaultClause(node)) return 'switch-case';
  if (ts.isSwitchStatement(node)) return node.expression === child ? 'if-condition' : undefined;
  if (ts.isForStatement(node)) return node.initializer === child ? undefined : 'loop';
  if (ts.isForOfStatement(node) || ts.isForInStatement(node)) return node.expression === child ? undefined : 'loop';
  if (ts.isWhileStatement(node) || ts.isDoStatement(node)) return 'loop';
  if (ts.isConditionalExpression(node)) return node.condition === child ? undefined : 'conditional-expression';
  if (ts.isBinaryExpression(node)) {
    const op = node.operatorToken.kind;
    const shortCircuit = op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken ||
      op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.AmpersandAmpersandEqualsToken ||
      op === ts.SyntaxKind.BarBarEqualsToken || op === ts.SyntaxKind.QuestionQuestionEqualsToken;
    return shortCircuit && node.right === child ? 'conditional-expression' : undefined;
  }
  if (ts.isLabeledStatement(node)) return 'labeled';
  if (isFunctionLike(ts, node)) return 'nested-callback';
  if (ts.isCallExpression(node) && isParallelCombinator(ts, node) && node.arguments.includes(child as ts.Expression)) return 'parallel';
  return undefined;
}

export function isParallelCombinator(ts: TS, call: ts.CallExpression): boolean {
  const callee = skipOuter(ts, call.expression);
  return ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'Promise' &&
    PARALLEL_COMBINATORS.has(callee.name.text);
}

function consumptionOf(ts: TS, call: ts.Expression): { consumption: Consumption; awaited: ts.Expression } {
  let node: ts.Node = call;
  while (node.parent && (ts.isParenthesizedExpression(node.parent) || ts.isAsExpression(node.parent) ||
         ts.isNonNullExpression(node.parent) || ts.isSatisfiesExpression(node.parent))) {
    node = node.parent;
  }
  const parent = node.parent;
  if (!parent) return { consumption: 'dropped', awaited: call };
  if (ts.isAwaitExpression(parent)) return { consumption: 'await', awaited: parent };
  if (ts.isReturnStatement(parent)) return { consumption: 'return', awaited: node as ts.Expression };
  if (ts.isArrowFunction(parent) && parent.body === node) return { consumption: 'return', awaited: node as ts.Expression };
  if (ts.isPropertyAccessExpression(parent) && ['then', 'catch', 'finally'].includes(parent.name.text)) {
    return { consumption: 'then', awaited: call };
  }
  if (ts.isVoidExpression(parent) || ts.isExpressionStatement(parent)) return { consumption: 'dropped', awaited: call };
  if (ts.isArrayLiteralExpression(parent) && parent.parent && ts.isCallExpression(parent.parent) && isParallelCombinator(ts, parent.parent)) {
    return { consumption: 'parallel', awaited: call };
  }
  if (ts.isCallExpression(parent) && isParallelCombinator(ts, parent)) return { consumption: 'parallel', awaited: call };
  if (ts.isThrowStatement(parent)) return { consumption: 'await', awaited: node as ts.Expression };
  return { consumption: 'stored', awaited: call };
}

/** The end of the `.then()` / `.catch()` / `.finally()` chain on `call` (the call itself where there is none). */
function thenChainEnd(ts: TS, call: ts.Expression): ts.Node {
  let node: ts.Node = call;
  for (;;) {
    while (node.parent && (ts.isParenthesizedExpression(node.parent) || ts.isAsExpression(node.parent) || ts.isNonNullExpression(node.parent))) node = node.parent;
    const access = node.parent;
    if (access && ts.isPropertyAccessExpression(access) && access.expression === node && ['then', 'catch', 'finally'].includes(access.name.text) &&
        access.parent && ts.isCallExpression(access.parent) && access.parent.expression === access) {
      node = access.parent;
      continue;
    }
    return node;
  }
}

/** `return ask().then(f)` / `await ask().then(f).catch(g)`: the chain is waited for, only not with `await ask()`. */
export function thenChainAwaited(ts: TS, call: ts.Expression): boolean {
  const end = thenChainEnd(ts, call);
  const parent = end.parent;
  if (!parent) return false;
  return ts.isAwaitExpression(parent) || ts.isReturnStatement(parent) || (ts.isArrowFunction(parent) && parent.body === end);
}

/**
 * `void save()`, `save();` or `save().then(log);` as a statement: the call is started and nothing waits
 * for it, so whatever it does after its first await runs when the caller may have finished. A promise
 * kept in a variable or handed on may be awaited later: not this.
 */
export function leftRunning(ts: TS, call: ts.Expression): boolean {
  const end = thenChainEnd(ts, call);
  const parent = end.parent;
  return !!parent && (ts.isVoidExpression(parent) || ts.isExpressionStatement(parent));
}

/** The statement holding `node`: the nearest ancestor statement that sits in a statement position. */
export function statementOf(ts: TS, node: ts.Node, boundary: ts.Node): ts.Statement | undefined {
  for (let n: ts.Node | undefined = node; n && n !== boundary; n = n.parent) {
    if (isStatementLike(ts, n) && isInStatementPosition(ts, n)) return n as ts.Statement;
    if (isFunctionLike(ts, n) && n !== node) return undefined;
  }
  return undefined;
}

function isStatementLike(ts: TS, node: ts.Node): boolean {
  return ts.isStatement(node) || ts.isVariableStatement(node) || ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node);
}

function isInStatementPosition(ts: TS, node: ts.Node): boolean {
  const parent = node.parent;
  if (!parent) return false;
  if (ts.isBlock(parent) || ts.isSourceFile(parent) || ts.isModuleBlock(parent) || ts.isCaseClause(parent) || ts.isDefaultClause(parent)) return true;
  if (ts.isIfStatement(parent)) return parent.thenStatement === node || parent.elseStatement === node;
  if (ts.isLabeledStatement(parent)) return parent.statement === node;
  if (ts.isIterationStatement(parent, false)) return parent.statement === node;
  return false;
}

export function formOf(ts: TS, statement: ts.Statement, awaited: ts.Expression): AnswerForm {
  if (ts.isVariableStatement(statement)) {
    const declarations = statement.declarationList.declarations;
    const only = declarations.length === 1 ? declarations[0] : undefined;
    if (only?.initializer && skipOuterNoCast(ts, only.initializer) === awaited) return 'declare';
    return 'embedded';
  }
  if (ts.isExpressionStatement(statement)) {
    const e = skipOuterNoCast(ts, statement.expression);
    if (e === awaited) return 'discard';
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        skipOuterNoCast(ts, e.right) === awaited && ts.isIdentifier(skipOuter(ts, e.left))) {
      return 'assign';
    }
    return 'embedded';
  }
  if (ts.isReturnStatement(statement) && statement.expression && skipOuterNoCast(ts, statement.expression) === awaited) return 'return';
  return 'embedded';
}

/** Like skipOuter, but keeps `as` casts: they change the type the answer is read as. */
function skipOuterNoCast(ts: TS, expr: ts.Expression): ts.Expression {
  let e = expr;
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  return e;
}

/**
 * In `f(a(), await ask())` the call `a()` runs before the question; lifting the question out of
 * the statement would move it after. Only side-effect-free code may run before an embedded question.
 */
function impurePrefix(ts: TS, awaited: ts.Node, statement: ts.Node): string | undefined {
  const earlier = firstEvaluatedBefore(ts, awaited, statement, node => isPureExpression(ts, node));
  return earlier && `\`${earlier.getText().slice(0, 60)}\` runs before the question in the same statement`;
}

/**
 * The first part of `container` evaluated before `node` that `acceptable` rejects (what moving
 * `node` to a statement of its own would move after it), if any.
 */
export function firstEvaluatedBefore(ts: TS, node: ts.Node, container: ts.Node, acceptable: (earlier: ts.Node) => boolean): ts.Node | undefined {
  let child: ts.Node = node;
  for (let parent = node.parent; parent && child !== container; child = parent, parent = parent.parent) {
    const rejected = evaluatedBefore(ts, parent, child).find(earlier => !acceptable(earlier));
    if (rejected) return rejected;
    if (parent === container) break;
  }
  return undefined;
}

function evaluatedBefore(ts: TS, node: ts.Node, child: ts.Node): ts.Node[] {
  const before: ts.Node[] = [];
  if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
    if (node.expression === child) return before;
    before.push(node.expression);
    for (const arg of node.arguments ?? []) {
      if (arg === child) break;
      before.push(arg);
    }
    return before;
  }
  if (ts.isBinaryExpression(node)) return node.right === child ? [node.left] : before;
  if (ts.isArrayLiteralExpression(node)) {
    for (const item of node.elements) {
      if (item === child) break;
      before.push(item);
    }
    return before;
  }
  if (ts.isObjectLiteralExpression(node)) {
    // What a property evaluates: its computed name and its value (`type: 'text'` only computes).
    for (const item of node.properties) {
      if (item === child) break;
      if (item.name && ts.isComputedPropertyName(item.name)) before.push(item.name.expression);
      if (ts.isPropertyAssignment(item)) before.push(item.initializer);
      else if (ts.isSpreadAssignment(item)) before.push(item.expression);
    }
    return before;
  }
  if (ts.isPropertyAssignment(node) && node.initializer === child && ts.isComputedPropertyName(node.name)) return [node.name.expression];
  if (ts.isTemplateExpression(node)) {
    for (const span of node.templateSpans) {
      if (span === child) break;
      before.push(span.expression);
    }
    return before;
  }
  if (ts.isVariableDeclarationList(node)) {
    for (const declaration of node.declarations) {
      if (declaration === child) break;
      before.push(declaration);
    }
    return before;
  }
  if (ts.isElementAccessExpression(node)) return node.argumentExpression === child ? [node.expression] : before;
  return before;
}

/** The table of what only computes lives in purity.ts; the flow code and its importers read it from here too. */
export { isPureExpression } from './purity.js';
