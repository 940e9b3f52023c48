import type * as ts from 'typescript';
import { sdkOfFileName } from './sdk.js';
import type { TS } from './types.js';

/**
 * Whether a value of a type comes back equal after JSON.stringify / JSON.parse, which is what
 * travelling in requestState does to it.
 */

export type Jsonness = { json: 'yes' } | { json: 'no' | 'unknown'; why: string };

const NON_JSON_NAMES = new Set([
  'Date', 'Map', 'Set', 'WeakMap', 'WeakSet', 'RegExp', 'Promise', 'PromiseLike', 'URL', 'URLSearchParams', 'Buffer',
  'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array',
  'Int32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'Uint8ClampedArray', 'Error',
  'AbortSignal', 'AbortController', 'ReadableStream', 'WritableStream', 'Blob', 'File', 'FormData', 'Headers', 'Request',
  'Response', 'Symbol', 'Function', 'WeakRef', 'Iterator', 'AsyncIterator', 'Generator', 'AsyncGenerator',
]);

const YES: Jsonness = { json: 'yes' };

/** `wire`: inside a member the SDK declares on a protocol type, whose values were parsed from JSON. */
export function jsonnessOfType(ts: TS, checker: ts.TypeChecker, type: ts.Type, seen: Set<ts.Type> = new Set(), depth = 0, wire = false): Jsonness {
  if (seen.has(type) || depth > 12) return YES; // recursive types (JSON trees) are fine if their parts are
  const flags = type.flags;
  if (flags & ts.TypeFlags.Any) return { json: 'unknown', why: 'its type is `any`' };
  if (flags & ts.TypeFlags.Unknown) return wire ? YES : { json: 'unknown', why: 'its type is `unknown`' };
  if (flags & (ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike | ts.TypeFlags.BooleanLike | ts.TypeFlags.Null |
               ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Never | ts.TypeFlags.EnumLike)) {
    return YES;
  }
  if (flags & ts.TypeFlags.BigIntLike) return { json: 'no', why: 'a bigint cannot be serialized to JSON' };
  if (flags & ts.TypeFlags.ESSymbolLike) return { json: 'no', why: 'a symbol cannot be serialized to JSON' };
  if (flags & ts.TypeFlags.TypeParameter) {
    const constraint = checker.getBaseConstraintOfType(type);
    return constraint && constraint !== type ? jsonnessOfType(ts, checker, constraint, seen, depth + 1) : { json: 'unknown', why: 'its type is a type parameter' };
  }
  const next = new Set(seen).add(type);
  if (type.isUnionOrIntersection()) {
    for (const member of type.types) {
      const result = jsonnessOfType(ts, checker, member, next, depth + 1, wire);
      if (result.json !== 'yes') return result;
    }
    return YES;
  }
  if (flags & ts.TypeFlags.NonPrimitive) return { json: 'unknown', why: 'its type is `object`' };
  if (!(flags & ts.TypeFlags.Object)) return { json: 'unknown', why: `its type \`${checker.typeToString(type)}\` is not known to be JSON` };

  const name = (type.aliasSymbol ?? type.getSymbol())?.getName();
  if (name && NON_JSON_NAMES.has(name)) return { json: 'no', why: `a ${name} does not survive a JSON round trip` };
  if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) {
    return { json: 'no', why: 'a function cannot travel in requestState' };
  }
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    for (const element of checker.getTypeArguments(type as ts.TypeReference)) {
      if (element.flags & ts.TypeFlags.Undefined || (element.isUnion() && element.types.some(t => t.flags & ts.TypeFlags.Undefined))) {
        return { json: 'no', why: 'undefined array elements come back as null' };
      }
      const result = jsonnessOfType(ts, checker, element, next, depth + 1, wire);
      if (result.json !== 'yes') return result;
    }
    return YES;
  }
  const symbol = type.getSymbol();
  if (symbol && symbol.flags & ts.SymbolFlags.Class) {
    return { json: 'no', why: `an instance of class ${symbol.getName()} loses its prototype in JSON` };
  }
  for (const property of checker.getPropertiesOfType(type)) {
    const declaration = property.valueDeclaration ?? property.declarations?.[0];
    if (declaration && (ts.isMethodDeclaration(declaration) || ts.isMethodSignature(declaration))) {
      return { json: 'no', why: `it has a method (${property.getName()})` };
    }
    if (declaration && (ts.isGetAccessorDeclaration(declaration) || ts.isSetAccessorDeclaration(declaration))) {
      return { json: 'no', why: `it has an accessor (${property.getName()})` };
    }
    const propertyType = checker.getTypeOfSymbol(property);
    const result = jsonnessOfType(ts, checker, propertyType, next, depth + 1, wire || isSdkDeclared(declaration));
    if (result.json !== 'yes') {
      return { json: result.json, why: `property ${property.getName()}: ${result.why}` };
    }
  }
  // A protocol type the SDK infers from its schemas (`ElicitResult`) has an open index signature with no declaration of its own.
  const sdkAlias = isSdkDeclared((type.aliasSymbol ?? type.getSymbol())?.declarations?.[0]);
  for (const info of checker.getIndexInfosOfType(type)) {
    const result = jsonnessOfType(ts, checker, info.type, next, depth + 1, wire || sdkAlias || isSdkDeclared(info.declaration));
    if (result.json !== 'yes') return { json: result.json, why: `index signature: ${result.why}` };
  }
  return YES;
}

/**
 * Members the SDK declares on protocol types (`_meta`, open index signatures) hold what came off
 * the wire, parsed from JSON: their `unknown` parts survive a JSON round trip.
 */
function isSdkDeclared(declaration: ts.Node | undefined): boolean {
  return !!declaration && sdkOfFileName(declaration.getSourceFile().fileName) !== undefined;
}

const STRING_METHODS = new Set([
  'trim', 'trimStart', 'trimEnd', 'toLowerCase', 'toUpperCase', 'slice', 'substring', 'padStart', 'padEnd', 'repeat',
  'replace', 'replaceAll', 'toString', 'toFixed', 'join', 'normalize', 'charAt', 'at',
]);

/** Without a checker: JSON-ness from the shape of an initializer. */
export function jsonnessOfInitializer(ts: TS, init: ts.Expression | undefined, isAnswer: (e: ts.Expression) => boolean): Jsonness {
  const unknown: Jsonness = { json: 'unknown', why: 'without type information its value cannot be shown to be JSON' };
  if (!init) return unknown;
  const check = (e: ts.Expression): boolean => {
    if (isAnswer(e)) return true;
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e)) return check(e.expression);
    if (ts.isStringLiteralLike(e) || ts.isNumericLiteral(e) || ts.isTemplateExpression(e) ||
        e.kind === ts.SyntaxKind.TrueKeyword || e.kind === ts.SyntaxKind.FalseKeyword || e.kind === ts.SyntaxKind.NullKeyword) {
      return true;
    }
    if (ts.isPrefixUnaryExpression(e)) return true; // -x, !x, +x produce numbers and booleans
    if (ts.isTypeOfExpression(e)) return true;
    if (ts.isBinaryExpression(e)) {
      const op = e.operatorToken.kind;
      const comparison = op >= ts.SyntaxKind.FirstBinaryOperator && op <= ts.SyntaxKind.LastBinaryOperator &&
        ![ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.PlusToken, ts.SyntaxKind.CommaToken].includes(op) &&
        !(op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment);
      if (comparison) return true; // arithmetic, comparisons, bitwise: numbers and booleans
      if (op === ts.SyntaxKind.PlusToken) return check(e.left) && check(e.right);
      if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken) {
        return check(e.left) && check(e.right);
      }
      return false;
    }
    if (ts.isConditionalExpression(e)) return check(e.whenTrue) && check(e.whenFalse);
    if (ts.isArrayLiteralExpression(e)) return e.elements.every(el => !ts.isOmittedExpression(el) && !ts.isSpreadElement(el) && check(el));
    if (ts.isObjectLiteralExpression(e)) {
      return e.properties.every(p => ts.isPropertyAssignment(p) && !ts.isComputedPropertyName(p.name) && check(p.initializer));
    }
    if (ts.isPropertyAccessExpression(e) && e.name.text === 'length') return true;
    if (ts.isCallExpression(e)) {
      const callee = e.expression;
      if (ts.isIdentifier(callee) && ['String', 'Number', 'Boolean', 'parseInt', 'parseFloat', 'encodeURIComponent', 'decodeURIComponent'].includes(callee.text)) return true;
      if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) &&
          ((callee.expression.text === 'JSON' && (callee.name.text === 'parse' || callee.name.text === 'stringify')) || callee.expression.text === 'Math')) {
        return true;
      }
      if (ts.isPropertyAccessExpression(callee) && STRING_METHODS.has(callee.name.text) && callee.name.text !== 'slice' && callee.name.text !== 'at') {
        return true;
      }
    }
    return false;
  };
  return check(init) ? YES : unknown;
}

/**
 * What a value is when it is an object the server keeps rather than data, as a verb phrase: an SDK
 * object (`is an MCP SDK Client`), an object holding one (`holds the MCP McpServer (\`server\`)`), a
 * package's client or handle (`is a Pool of package pg`), an instance of a class of the project.
 * Undefined for data, built-in values (Date, Map) included.
 */
export function liveObjectOf(ts: TS, checker: ts.TypeChecker, type: ts.Type): string | undefined {
  const t = checker.getNonNullableType(type);
  if (t.isUnion()) {
    for (const member of t.types) {
      const found = liveObjectOf(ts, checker, member);
      if (found) return found;
    }
    return undefined;
  }
  const symbol = t.getSymbol();
  if (!symbol || NON_JSON_NAMES.has(symbol.getName()) || checker.isArrayType(t) || checker.isTupleType(t)) return undefined;
  const name = symbol.getName();
  const properties = checker.getPropertiesOfType(t);
  const isMethod = (p: ts.Symbol): boolean => {
    const d = p.valueDeclaration ?? p.declarations?.[0];
    return !!d && (ts.isMethodDeclaration(d) || ts.isMethodSignature(d));
  };
  if (!(symbol.flags & ts.SymbolFlags.Class) && !properties.some(isMethod)) return undefined;
  const file = (symbol.valueDeclaration ?? symbol.declarations?.[0])?.getSourceFile().fileName ?? '';
  if (sdkOfFileName(file)) return `is an MCP SDK ${name}`;
  for (const property of properties) {
    if (isMethod(property)) continue;
    const held = checker.getNonNullableType(checker.getTypeOfSymbol(property)).getSymbol();
    const heldFile = (held?.valueDeclaration ?? held?.declarations?.[0])?.getSourceFile().fileName;
    if (held && heldFile && sdkOfFileName(heldFile) && held.flags & ts.SymbolFlags.Class) {
      return `holds the MCP ${held.getName()} (\`${property.getName()}\`)`;
    }
  }
  const pkg = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file)?.[1]?.replace('\\', '/');
  // The compiler's own lib files declare built-ins (their JSON-ness says enough).
  if (pkg === 'typescript') return undefined;
  // `@types/pg` describes package pg, `@types/foo__bar` package @foo/bar.
  if (pkg === '@types/node') return `is ${article(name)} ${name} of Node.js`;
  if (pkg) return `is ${article(name)} ${name} of package ${pkg.startsWith('@types/') ? pkg.slice('@types/'.length).replace(/^(.*)__/, '@$1/') : pkg}`;
  return symbol.flags & ts.SymbolFlags.Class ? `is an instance of class ${name}` : undefined;
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}
