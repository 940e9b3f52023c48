import type * as ts from 'typescript';
import { forEachValueIdentifier, isExported, isWriteReference, resolveIdentifier, type LocalDecl } from './scope.js';
import { skipOuter } from './sdk.js';
import type { TS } from './types.js';

/**
 * Objects of a file that hold handlers (`const tools = { deploy: confirmDeploy, ... }`), read by
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
        ts.isIdentifier(parent.expression.expression) && parent.expression.expression.text === 'Object' && !resolveIdentifier(ts, parent.expression.expression) &&
        ['keys', 'values', 'entries'].includes(parent.expression.name.text)) return;
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
