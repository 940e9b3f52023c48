import type * as ts from 'typescript';
import { resolveIdentifier } from './scope.js';
import { skipOuter } from './sdk.js';
import type { TS } from './types.js';

/**
 * What only computes: expressions and calls with no side effect that give the same value each time
 * they run on the same inputs, so the rewrite may evaluate them in both rounds or leave them out of
 * the effects a review must look at. The one table of such calls, for the codemod and the lint rules.
 *
 * A method counts by what it is called on, not by its name alone: `labels.get(id)` is pure when
 * `labels` is a `Map` (the checker says so, or without it a `const` built with `new Map(...)`), not
 * when it is a user's object whose `get` may write.
 */

type ValueKind = 'array' | 'string' | 'number' | 'map' | 'set' | 'date' | 'url' | 'searchParams';

/** Global functions: conversions and parsing. */
const GLOBAL_FUNCTIONS = new Set([
  'String', 'Number', 'Boolean', 'BigInt', 'parseInt', 'parseFloat', 'isNaN', 'isFinite',
  'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI', 'structuredClone',
]);

/** Members of the global namespaces (Math.random is not one: it gives another value each time). */
const NAMESPACE_FUNCTIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map(Object.entries({
  JSON: new Set(['stringify', 'parse']),
  Math: new Set([
    'abs', 'acos', 'acosh', 'asin', 'asinh', 'atan', 'atan2', 'atanh', 'cbrt', 'ceil', 'clz32', 'cos', 'cosh', 'exp', 'expm1',
    'floor', 'fround', 'hypot', 'imul', 'log', 'log10', 'log1p', 'log2', 'max', 'min', 'pow', 'round', 'sign', 'sin', 'sinh',
    'sqrt', 'tan', 'tanh', 'trunc',
  ]),
  Object: new Set(['keys', 'values', 'entries', 'fromEntries', 'hasOwn', 'is', 'getOwnPropertyNames', 'isFrozen', 'isSealed', 'isExtensible']),
  Array: new Set(['isArray', 'from', 'of']),
  Number: new Set(['isInteger', 'isFinite', 'isNaN', 'isSafeInteger', 'parseFloat', 'parseInt']),
  String: new Set(['fromCharCode', 'fromCodePoint']),
}));

/** Methods that read their receiver and return a new value (never sort, splice, push, RegExp test/exec). */
const METHODS: Readonly<Record<ValueKind, ReadonlySet<string>>> = {
  array: new Set([
    'map', 'filter', 'reduce', 'reduceRight', 'find', 'findIndex', 'findLast', 'findLastIndex', 'some', 'every', 'includes',
    'indexOf', 'lastIndexOf', 'join', 'slice', 'concat', 'flat', 'flatMap', 'at', 'toString', 'with', 'toSorted',
    'toReversed', 'toSpliced',
  ]),
  string: new Set([
    'at', 'charAt', 'charCodeAt', 'codePointAt', 'concat', 'endsWith', 'includes', 'indexOf', 'lastIndexOf', 'localeCompare',
    'match', 'normalize', 'padEnd', 'padStart', 'repeat', 'replace', 'replaceAll', 'slice', 'split', 'startsWith',
    'substring', 'toLowerCase', 'toUpperCase', 'toString', 'trim', 'trimEnd', 'trimStart',
  ]),
  number: new Set(['toFixed', 'toPrecision', 'toExponential', 'toString']),
  map: new Set(['get', 'has']),
  set: new Set(['has']),
  url: new Set(['toString', 'toJSON']),
  searchParams: new Set(['get', 'getAll', 'has', 'toString']),
  date: new Set(['getTime', 'toISOString', 'toJSON', 'valueOf', 'getFullYear', 'getMonth', 'getDate', 'getDay', 'getHours', 'getMinutes', 'getSeconds', 'getUTCFullYear', 'getUTCMonth', 'getUTCDate']),
};

/** Pure calls that return a new array: array methods, `split`, and the `Object` / `Array` statics. */
const NEW_ARRAY = new Set([
  'map', 'filter', 'slice', 'concat', 'flat', 'flatMap', 'toSorted', 'toReversed', 'toSpliced', 'with', 'split',
  'keys', 'values', 'entries', 'getOwnPropertyNames', 'from', 'of',
]);

/** What a pure method returns, where the next call of a chain needs it (`names.join(', ').trim()`). */
function resultKind(receiver: ValueKind, method: string): ValueKind | undefined {
  // An array's keys() / values() / entries() are iterators, not arrays.
  if (receiver === 'array') return ['join', 'toString'].includes(method) ? 'string' : NEW_ARRAY.has(method) && !['keys', 'values', 'entries'].includes(method) ? 'array' : undefined;
  if (receiver === 'string') return method === 'split' ? 'array' : ['includes', 'startsWith', 'endsWith', 'indexOf', 'lastIndexOf', 'localeCompare', 'charCodeAt', 'codePointAt', 'match'].includes(method) ? undefined : 'string';
  return ['toFixed', 'toPrecision', 'toExponential', 'toString', 'toISOString', 'toJSON'].includes(method) ? 'string' : undefined;
}

/** Where a pure call takes a function it calls: that function must only compute too. */
const CALLBACK_ARGUMENT: ReadonlyMap<string, number> = new Map(Object.entries({
  map: 0, filter: 0, reduce: 0, reduceRight: 0, find: 0, findIndex: 0, findLast: 0, findLastIndex: 0, some: 0, every: 0,
  flatMap: 0, toSorted: 0, sort: 0, replace: 1, replaceAll: 1, stringify: 1, parse: 1, from: 1,
}));

/** Constructors whose instances start empty or copy their arguments (for the effects before a question). */
export const PURE_CONSTRUCTORS = new Set([
  'Date', 'Map', 'Set', 'URL', 'URLSearchParams', 'Error', 'TypeError', 'RangeError', 'RegExp', 'Array', 'Object',
  'TextEncoder', 'TextDecoder', 'ResourceTemplate',
]);

/** Expressions with no side effects: names, literals, property reads, function values, pure calls over pure parts. */
export function isPureExpression(ts: TS, node: ts.Node, checker?: ts.TypeChecker): boolean {
  const pure = (n: ts.Node): boolean => isPureExpression(ts, n, checker);
  if (ts.isIdentifier(node) || ts.isLiteralExpression(node) || ts.isNoSubstitutionTemplateLiteral(node) ||
      node.kind === ts.SyntaxKind.ThisKeyword || node.kind === ts.SyntaxKind.TrueKeyword ||
      node.kind === ts.SyntaxKind.FalseKeyword || node.kind === ts.SyntaxKind.NullKeyword ||
      ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isRegularExpressionLiteral(node)) {
    return true;
  }
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node) ||
      ts.isSatisfiesExpression(node) || ts.isTypeOfExpression(node)) {
    return pure(node.expression);
  }
  if (ts.isPropertyAccessExpression(node)) return pure(node.expression);
  if (ts.isElementAccessExpression(node)) return pure(node.expression) && pure(node.argumentExpression);
  if (ts.isTemplateExpression(node)) return node.templateSpans.every(span => pure(span.expression));
  if (ts.isArrayLiteralExpression(node)) return node.elements.every(pure);
  if (ts.isObjectLiteralExpression(node)) {
    return node.properties.every(p =>
      (ts.isPropertyAssignment(p) && !ts.isComputedPropertyName(p.name) && pure(p.initializer)) ||
      ts.isShorthandPropertyAssignment(p) || (ts.isSpreadAssignment(p) && pure(p.expression)) ||
      ts.isMethodDeclaration(p));
  }
  if (ts.isSpreadElement(node)) return pure(node.expression);
  if (ts.isPrefixUnaryExpression(node)) {
    return node.operator !== ts.SyntaxKind.PlusPlusToken && node.operator !== ts.SyntaxKind.MinusMinusToken && pure(node.operand);
  }
  if (ts.isBinaryExpression(node)) {
    const op = node.operatorToken.kind;
    if (op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment) return false;
    return pure(node.left) && pure(node.right);
  }
  if (ts.isConditionalExpression(node)) return pure(node.condition) && pure(node.whenTrue) && pure(node.whenFalse);
  if (ts.isVariableDeclaration(node)) return !node.initializer || pure(node.initializer);
  if (ts.isCallExpression(node)) return isPureCall(ts, node, checker);
  return false;
}

/** A call from the table, on what the table says it reads, with arguments (and called functions) that only compute. */
export function isPureCall(ts: TS, call: ts.CallExpression, checker?: ts.TypeChecker): boolean {
  const member = pureMember(ts, call, checker);
  if (member === undefined) return false;
  return call.arguments.every((arg, i) => (CALLBACK_ARGUMENT.get(member) === i ? isPureCallback(ts, arg, checker) : isPureExpression(ts, arg, checker)));
}

/**
 * The call itself does nothing but compute, whatever its arguments do (a caller that looks at the
 * arguments on its own): a table entry whose function argument, if it takes one, only computes.
 */
export function isPureCallee(ts: TS, call: ts.CallExpression, checker?: ts.TypeChecker): boolean {
  const member = pureMember(ts, call, checker);
  if (member === undefined) return false;
  const at = CALLBACK_ARGUMENT.get(member);
  const callback = at === undefined ? undefined : call.arguments[at];
  return !callback || isPureCallback(ts, callback, checker);
}

/**
 * Calls that are not pure but whose effects are no outcome of a handler, for the effects a review
 * must look at before a question: logging, building zod schemas or paths, the Date, Promise and Math
 * statics (Date.now and Math.random are not pure: they give another value each time).
 */
export const OUTCOME_NEUTRAL_NAMESPACES = new Set(['console', 'z', 'path', 'Date', 'Promise', 'Math']);

/** `console.log(...)`, `z.string().min(1)`, `Date.now()`: a call on one of those namespaces, whose effects are no outcome. */
export function isOutcomeNeutralCall(ts: TS, call: ts.CallExpression): boolean {
  const callee = skipOuter(ts, call.expression);
  if (!ts.isPropertyAccessExpression(callee)) return false;
  let root = skipOuter(ts, callee.expression);
  while (ts.isPropertyAccessExpression(root) || ts.isCallExpression(root)) root = skipOuter(ts, root.expression);
  return ts.isIdentifier(root) && OUTCOME_NEUTRAL_NAMESPACES.has(root.text);
}

/**
 * `randomUUID()`, `crypto.randomUUID()`, `Date.now()`, `Math.random()`: a call that only makes an id,
 * which nothing outside sees run (not pure: each call gives another value).
 */
export function isIdSource(ts: TS, call: ts.CallExpression): boolean {
  const callee = skipOuter(ts, call.expression);
  if (ts.isIdentifier(callee)) return callee.text === 'randomUUID' && importedFrom(ts, callee, ['node:crypto', 'crypto']);
  if (!ts.isPropertyAccessExpression(callee) || !ts.isIdentifier(callee.expression)) return false;
  const name = `${callee.expression.text}.${callee.name.text}`;
  return name === 'crypto.randomUUID' || name === 'Date.now' || name === 'Math.random';
}

/** Whether `id` is bound by an import from one of `modules`. */
function importedFrom(ts: TS, id: ts.Identifier, modules: readonly string[]): boolean {
  const decl = resolveIdentifier(ts, id);
  let node: ts.Node | undefined = decl?.kind === 'import' ? decl.declaration : undefined;
  while (node && !ts.isImportDeclaration(node)) node = node.parent;
  return !!node && ts.isStringLiteral(node.moduleSpecifier) && modules.includes(node.moduleSpecifier.text);
}

/** A call in `value` that is neither pure nor an id source (or an assignment, an update, a `new`), if any. */
export function observableCall(ts: TS, value: ts.Node): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(n)) {
      if (!isIdSource(ts, n) && !isPureExpression(ts, n)) found = n;
    } else if (ts.isNewExpression(n) || ts.isAwaitExpression(n) || ts.isDeleteExpression(n) ||
      (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment) ||
      ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken))) {
      found = n;
    }
    n.forEachChild(visit);
  };
  visit(value);
  return found;
}

/** `console.log(...)` and the like (a `console` nothing shadows): they only read what they are given. */
export function isLogging(ts: TS, call: ts.CallExpression): boolean {
  const callee = skipOuter(ts, call.expression);
  return ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'console' && isGlobal(ts, callee.expression);
}

/** The called member's name when the callee is in the table (and its receiver pure), else undefined. */
function pureMember(ts: TS, call: ts.CallExpression, checker: ts.TypeChecker | undefined): string | undefined {
  const callee = skipOuter(ts, call.expression);
  if (ts.isIdentifier(callee)) return GLOBAL_FUNCTIONS.has(callee.text) && isGlobal(ts, callee) ? callee.text : undefined;
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  const name = callee.name.text;
  const receiver = skipOuter(ts, callee.expression);
  if (ts.isIdentifier(receiver) && NAMESPACE_FUNCTIONS.get(receiver.text)?.has(name) && isGlobal(ts, receiver)) return name;
  // `Object.keys(tags).sort()`, `[...ids].reverse()`: sorting an array nobody else holds changes nothing else.
  if ((name === 'sort' || name === 'reverse') && isFreshArray(ts, receiver, checker)) return name;
  const kind = valueKind(ts, receiver, checker);
  return kind && METHODS[kind].has(name) && isPureExpression(ts, receiver, checker) ? name : undefined;
}

/** An array made by the expression itself: a literal, or what a pure call returns as a new array. */
function isFreshArray(ts: TS, e: ts.Expression, checker: ts.TypeChecker | undefined): boolean {
  if (ts.isArrayLiteralExpression(e)) return isPureExpression(ts, e, checker);
  if (!ts.isCallExpression(e) || !isPureCall(ts, e, checker)) return false;
  const callee = skipOuter(ts, e.expression);
  return ts.isPropertyAccessExpression(callee) && NEW_ARRAY.has(callee.name.text);
}

/** A function a pure call calls: a literal whose body only computes, or a pure global (`filter(Boolean)`); or a non-function value. */
export function isPureCallback(ts: TS, arg: ts.Expression, checker: ts.TypeChecker | undefined): boolean {
  const e = skipOuter(ts, arg);
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) {
    if (e.asteriskToken || ts.getModifiers(e)?.some(m => m.kind === ts.SyntaxKind.AsyncKeyword)) return false;
    if (!ts.isBlock(e.body)) return isPureExpression(ts, e.body, checker);
    const statements = e.body.statements;
    return statements.every((s, i) =>
      (ts.isReturnStatement(s) && i === statements.length - 1 && (!s.expression || isPureExpression(ts, s.expression, checker))) ||
      (ts.isVariableStatement(s) && (s.declarationList.flags & ts.NodeFlags.Const) !== 0 &&
        s.declarationList.declarations.every(d => ts.isIdentifier(d.name) && isPureExpression(ts, d, checker))));
  }
  if (ts.isIdentifier(e)) return e.text === 'undefined' || (GLOBAL_FUNCTIONS.has(e.text) && isGlobal(ts, e));
  // A replacement string, a JSON.stringify key list or indent: values, not functions.
  return ts.isLiteralExpression(e) || ts.isNoSubstitutionTemplateLiteral(e) || e.kind === ts.SyntaxKind.NullKeyword ||
    (ts.isArrayLiteralExpression(e) && e.elements.every(el => ts.isLiteralExpression(el)));
}

/** A name no declaration of the file shadows (`JSON`, `Math`, `String`). */
function isGlobal(ts: TS, id: ts.Identifier): boolean {
  return resolveIdentifier(ts, id) === undefined;
}

/** What a receiver holds: by its type with the checker (the standard library's types only), else by how it is written. */
function valueKind(ts: TS, receiver: ts.Expression, checker: ts.TypeChecker | undefined): ValueKind | undefined {
  return checker ? kindOfType(ts, checker, checker.getTypeAtLocation(receiver)) : syntacticKind(ts, receiver);
}

function kindOfType(ts: TS, checker: ts.TypeChecker, type: ts.Type): ValueKind | undefined {
  const members = (type.isUnion() ? type.types : [type]).filter(t => (t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) === 0);
  const kinds = new Set(members.map(t => kindOfOne(ts, checker, t)));
  if (kinds.size !== 1) return undefined;
  return [...kinds][0];
}

function kindOfOne(ts: TS, checker: ts.TypeChecker, type: ts.Type): ValueKind | undefined {
  if (type.flags & ts.TypeFlags.StringLike) return 'string';
  if (type.flags & ts.TypeFlags.NumberLike) return 'number';
  if (checker.isArrayType(type) || checker.isTupleType(type)) return 'array';
  const symbol = type.getSymbol();
  // Only the standard library's own Map or Date: a user's class of that name may do anything.
  if (!symbol?.declarations?.length || !symbol.declarations.every(d => isStandardLibrary(d.getSourceFile()))) return undefined;
  switch (symbol.getName()) {
    case 'ReadonlyArray': return 'array';
    case 'Map': case 'ReadonlyMap': return 'map';
    case 'Set': case 'ReadonlySet': return 'set';
    case 'Date': return 'date';
    case 'String': return 'string';
    case 'URL': return 'url';
    case 'URLSearchParams': return 'searchParams';
  }
  return undefined;
}

/** TypeScript's own lib.*.d.ts files, wherever the compiler host keeps them, and Node's (its URL, URLSearchParams). */
function isStandardLibrary(file: ts.SourceFile): boolean {
  return file.isDeclarationFile && (/(^|[\\/])lib\.[\w.]+\.d\.ts$/.test(file.fileName) || /[\\/]@types[\\/]node[\\/]/.test(file.fileName));
}

/** Without the checker: literals, a `const` holding one (or a new Map / Set / Date), and chains of pure calls on them. */
function syntacticKind(ts: TS, receiver: ts.Expression): ValueKind | undefined {
  const e = skipOuter(ts, receiver);
  if (ts.isStringLiteralLike(e) || ts.isTemplateExpression(e)) return 'string';
  if (ts.isNumericLiteral(e)) return 'number';
  if (ts.isArrayLiteralExpression(e)) return 'array';
  if (ts.isNewExpression(e) && ts.isIdentifier(e.expression) && isGlobal(ts, e.expression)) {
    return new Map<string, ValueKind>([['Map', 'map'], ['Set', 'set'], ['Date', 'date'], ['URL', 'url'], ['URLSearchParams', 'searchParams']]).get(e.expression.text);
  }
  if (ts.isPropertyAccessExpression(e) && e.name.text === 'searchParams') return syntacticKind(ts, e.expression) === 'url' ? 'searchParams' : undefined;
  if (ts.isCallExpression(e)) {
    const callee = skipOuter(ts, e.expression);
    if (ts.isIdentifier(callee)) return callee.text === 'String' && isGlobal(ts, callee) ? 'string' : undefined;
    if (!ts.isPropertyAccessExpression(callee)) return undefined;
    const namespace = skipOuter(ts, callee.expression);
    if (ts.isIdentifier(namespace) && NAMESPACE_FUNCTIONS.get(namespace.text)?.has(callee.name.text) && isGlobal(ts, namespace)) {
      return callee.name.text === 'stringify' ? 'string' : NEW_ARRAY.has(callee.name.text) ? 'array' : undefined;
    }
    const kind = syntacticKind(ts, callee.expression);
    return kind && METHODS[kind].has(callee.name.text) ? resultKind(kind, callee.name.text) : undefined;
  }
  if (!ts.isIdentifier(e)) return undefined;
  const decl = resolveIdentifier(ts, e);
  if (decl?.kind !== 'const' || !ts.isVariableDeclaration(decl.declaration) || !ts.isIdentifier(decl.declaration.name) || !decl.declaration.initializer) return undefined;
  return syntacticKind(ts, decl.declaration.initializer);
}
