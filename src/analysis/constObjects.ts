import type * as ts from 'typescript';
import { forEachValueIdentifier, isExported, isWriteReference, resolveIdentifier, type LocalDecl } from './scope.js';
import { skipOuter } from './sdk.js';
import type { TS } from './types.js';

/**
 * Objects and Maps of a file that hold handlers (`const tools = { deploy: confirmDeploy, ... }`), read by
 * registrations through data (dataRegistrations.ts) and dispatch maps (dispatchMaps.ts): every entry
 * is seen only where the object is a `const` written out without a spread or a computed key, not
 * exported, and only read.
 */

/** One property of such an object: its key, and its value (or the method it declares). */
export interface ObjectEntry {
  key: string;
  value: ts.Expression | ts.MethodDeclaration;
}

/** The properties of the `const` object `decl` declares, where every entry is seen; undefined where one may come from elsewhere. */
export function constObjectEntries(ts: TS, decl: LocalDecl): ObjectEntry[] | undefined {
  const declaration = decl.declaration;
  if (decl.kind !== 'const' || !ts.isVariableDeclaration(declaration) || !declaration.initializer || !ts.isIdentifier(declaration.name)) return undefined;
  const object = skipOuter(ts, declaration.initializer);
  if (!ts.isObjectLiteralExpression(object) || isExported(ts, declaration.getSourceFile(), declaration.name.text, declaration) || !onlyRead(ts, decl)) return undefined;
  const entries: ObjectEntry[] = [];
  for (const p of object.properties) {
    // A spread or a computed key may bring any entry; an accessor may return anything.
    if (ts.isSpreadAssignment(p) || !p.name || !(ts.isIdentifier(p.name) || ts.isStringLiteralLike(p.name))) return undefined;
    const value = ts.isPropertyAssignment(p) ? p.initializer : ts.isShorthandPropertyAssignment(p) ? p.name : ts.isMethodDeclaration(p) ? p : undefined;
    if (!value) return undefined;
    entries.push({ key: p.name.text, value });
  }
  return entries;
}

/**
 * The entries of the `const` Map `decl` declares (`new Map([['deploy', confirmDeploy], ...])`) and
 * those `set` on it (`tools.set('status', ...)`) by statements of the block that declares it, before
 * any other use of it: every entry is seen where the Map is not exported and is otherwise only read
 * (`get`, `has`, `size`, iterated). `valueType` is the value type it declares (`Map<string, F>`).
 */
export function constMapEntries(ts: TS, decl: LocalDecl): { entries: ObjectEntry[]; valueType: ts.TypeNode | undefined } | undefined {
  const declaration = decl.declaration;
  if (decl.kind !== 'const' || !ts.isVariableDeclaration(declaration) || !declaration.initializer || !ts.isIdentifier(declaration.name)) return undefined;
  const built = skipOuter(ts, declaration.initializer);
  if (!ts.isNewExpression(built) || !isGlobal(ts, built.expression, 'Map') || (built.arguments?.length ?? 0) > 1 ||
      isExported(ts, declaration.getSourceFile(), declaration.name.text, declaration)) return undefined;
  const entries: ObjectEntry[] = [];
  const initial = built.arguments?.[0] && skipOuter(ts, built.arguments[0]);
  if (initial && !ts.isArrayLiteralExpression(initial)) return undefined;
  for (const element of initial?.elements ?? []) {
    const pair = skipOuter(ts, element);
    const entry = ts.isArrayLiteralExpression(pair) && pair.elements.length === 2 ? keyedEntry(ts, pair.elements[0]!, pair.elements[1]!) : undefined;
    if (!entry) return undefined;
    entries.push(entry);
  }
  const added = addedBySet(ts, decl, declaration);
  if (!added) return undefined;
  entries.push(...added);
  const declared = declaration.type && ts.isTypeReferenceNode(declaration.type) && ['Map', 'ReadonlyMap'].includes(declaration.type.typeName.getText()) ? declaration.type.typeArguments : undefined;
  const typeArguments = declared ?? built.typeArguments;
  return { entries, valueType: typeArguments?.length === 2 ? typeArguments[1] : undefined };
}

/** `['deploy', confirmDeploy]` / `map.set('deploy', confirmDeploy)`: a key written as a string, and its value. */
function keyedEntry(ts: TS, key: ts.Expression, value: ts.Expression): ObjectEntry | undefined {
  const k = skipOuter(ts, key);
  return ts.isStringLiteralLike(k) && !ts.isSpreadElement(value) ? { key: k.text, value } : undefined;
}

/**
 * The entries `map.set(key, value)` statements add, where each is a statement of the block that
 * declares the Map and comes before every other use of it, and every other use reads it.
 */
function addedBySet(ts: TS, map: LocalDecl, declaration: ts.VariableDeclaration): ObjectEntry[] | undefined {
  const block = declaration.parent.parent.parent;
  const added: ObjectEntry[] = [];
  let firstRead = Infinity;
  let lastSet = -1;
  let open = false;
  forEachValueIdentifier(ts, declaration.getSourceFile(), use => {
    if (open || use === map.nameNode || resolveIdentifier(ts, use) !== map) return;
    const parent = use.parent;
    const access = ts.isPropertyAccessExpression(parent) && parent.expression === use ? parent : undefined;
    const call = access && ts.isCallExpression(access.parent) && access.parent.expression === access ? access.parent : undefined;
    if (call && access!.name.text === 'set') {
      const entry = call.arguments.length === 2 && ts.isExpressionStatement(call.parent) && call.parent.parent === block ? keyedEntry(ts, call.arguments[0]!, call.arguments[1]!) : undefined;
      if (entry) added.push(entry);
      else open = true;
      lastSet = Math.max(lastSet, call.pos);
      return;
    }
    firstRead = Math.min(firstRead, use.pos);
    if (ts.isForOfStatement(parent) && parent.expression === use) return;
    if (call && MAP_READS.has(access!.name.text)) return;
    if (access && !call && access.name.text === 'size' && !isWriteReference(ts, access)) return;
    open = true;
  });
  return open || lastSet > firstRead ? undefined : added;
}

const MAP_READS = new Set(['get', 'has', 'keys', 'values', 'entries']);

/** `Map`, `Object`: the global of that name, not a binding of the file. */
export function isGlobal(ts: TS, e: ts.Expression, name: string): boolean {
  const id = skipOuter(ts, e);
  return ts.isIdentifier(id) && id.text === name && !resolveIdentifier(ts, id);
}

/** Every use of the object reads it: `map[key]` (not written or deleted), `key in map`, `Object.keys(map)` / `values` / `entries`, `typeof map`. */
function onlyRead(ts: TS, map: LocalDecl): boolean {
  let read = true;
  forEachValueIdentifier(ts, map.declaration.getSourceFile(), use => {
    if (!read || use === map.nameNode || resolveIdentifier(ts, use) !== map) return;
    const parent = use.parent;
    if ((ts.isElementAccessExpression(parent) || ts.isPropertyAccessExpression(parent)) && parent.expression === use) {
      // `map.x = f`, `delete map[x]`; and `map.x(...)`, whose method may change the map.
      read = !isWriteReference(ts, parent) && !ts.isDeleteExpression(parent.parent) && !(ts.isCallExpression(parent.parent) && parent.parent.expression === parent && ts.isPropertyAccessExpression(parent));
      return;
    }
    if (ts.isBinaryExpression(parent) && parent.right === use && parent.operatorToken.kind === ts.SyntaxKind.InKeyword) return;
    if (ts.isTypeQueryNode(parent)) return; // `keyof typeof map`
    if (ts.isCallExpression(parent) && parent.arguments.length === 1 && ts.isPropertyAccessExpression(parent.expression) &&
        isGlobal(ts, parent.expression.expression, 'Object') && ['keys', 'values', 'entries'].includes(parent.expression.name.text)) return;
    read = false;
  });
  return read;
}

/** `Record<string, T>` / `{ [name: string]: T }`: T, the type of each entry; the type itself where it is another. */
export function entryValueType(ts: TS, type: ts.TypeNode): ts.TypeNode {
  if (ts.isTypeReferenceNode(type) && type.typeName.getText() === 'Record' && type.typeArguments?.length === 2) return type.typeArguments[1]!;
  if (ts.isTypeLiteralNode(type) && type.members.length === 1 && ts.isIndexSignatureDeclaration(type.members[0]!)) return type.members[0].type;
  return type;
}
