import type * as ts from 'typescript';
import { forEachValueIdentifier, resolveIdentifier, type LocalDecl } from './scope.js';
import { skipOuter } from './sdk.js';
import type { TS } from './types.js';

/**
 * Handlers registered through data: a list of registrations, each an object with a name and a
 * function, iterated into the SDK's registration method.
 *
 *   const registrations: Registration[] = [];
 *   registrations.push({ name: 'deploy', description: '...', handler: confirmDeploy });
 *   for (const { name, description, handler } of registrations) server.registerTool(name, { description }, handler);
 *
 * Each function the list holds is a handler of that registration, under the name its own entry
 * gives. Followed only where the list is a `const` of the file whose every use is the loop or a
 * `push` of entries the file writes, so no entry can come from elsewhere.
 */
export interface DataRegistered {
  fn: ts.FunctionLikeDeclaration;
  /** The entry's name, where the registration's name is read from the entry and the entry writes it as a literal. */
  name: string | undefined;
  /** The function type the list's declared element type gives the entry's function (widened by the rewrite), if it declares one. */
  slotType: ts.FunctionTypeNode | undefined;
}

/** `handler` / `tool.handler` of a `for (const ... of list)` loop: the entry's property it reads. */
interface EntryRead {
  loop: ts.ForOfStatement;
  key: string;
}

export function dataRegisteredFunctions(ts: TS, call: ts.CallExpression, callback: ts.Expression, functionOf: (e: ts.Expression) => ts.FunctionLikeDeclaration | undefined): DataRegistered[] {
  const read = entryRead(ts, callback);
  if (!read) return [];
  const list = listOf(ts, read.loop.expression);
  // A declared element type whose function member the rewrite cannot widen would reject the rewritten handlers.
  if (!list || (list.typed && !list.slot(read.key))) return [];
  const nameRead = call.arguments[0] && entryRead(ts, call.arguments[0]);
  const found = list.entries.flatMap(entry => {
    const value = member(ts, entry, read.key);
    const fn = value && (ts.isMethodDeclaration(value) ? value : functionOf(value));
    if (!fn) return [];
    const nameValue = nameRead?.loop === read.loop ? member(ts, entry, nameRead.key) : undefined;
    const literal = nameValue && !ts.isMethodDeclaration(nameValue) ? skipOuter(ts, nameValue) : undefined;
    return [{ fn, name: literal && ts.isStringLiteralLike(literal) ? literal.text : undefined, slotType: list.slot(read.key) }];
  });
  // A function two entries hold is registered under two names: one rewrite cannot bind it to both.
  return found.filter(f => found.filter(g => g.fn === f.fn).length === 1);
}

function entryRead(ts: TS, e: ts.Expression): EntryRead | undefined {
  const inner = skipOuter(ts, e);
  if (ts.isIdentifier(inner)) {
    const decl = resolveIdentifier(ts, inner);
    const element = decl?.nameNode.parent;
    if (!element || !ts.isBindingElement(element) || element.dotDotDotToken || !ts.isObjectBindingPattern(element.parent)) return undefined;
    const key = element.propertyName ? propertyKey(ts, element.propertyName) : element.name.getText();
    const loop = loopOf(ts, element.parent.parent);
    return loop && key !== undefined && !isWritten(ts, decl!) ? { loop, key } : undefined;
  }
  if (ts.isPropertyAccessExpression(inner) && ts.isIdentifier(inner.expression)) {
    const decl = resolveIdentifier(ts, inner.expression);
    const declaration = decl?.declaration;
    const loop = declaration && ts.isVariableDeclaration(declaration) && ts.isIdentifier(declaration.name) ? loopOf(ts, declaration) : undefined;
    return loop && !isWritten(ts, decl!) ? { loop, key: inner.name.text } : undefined;
  }
  return undefined;
}

/** The for-of loop a variable declaration is the head of. */
function loopOf(ts: TS, declaration: ts.Node): ts.ForOfStatement | undefined {
  const list = declaration.parent;
  const loop = list?.parent;
  return ts.isVariableDeclaration(declaration) && list && ts.isVariableDeclarationList(list) && loop && ts.isForOfStatement(loop) && loop.initializer === list && !loop.awaitModifier ? loop : undefined;
}

function isWritten(ts: TS, decl: LocalDecl): boolean {
  let written = false;
  forEachValueIdentifier(ts, decl.scope, id => {
    if (written || resolveIdentifier(ts, id) !== decl) return;
    const parent = id.parent;
    written = ts.isBinaryExpression(parent) && parent.left === id && parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
  });
  return written;
}

/**
 * A `const` list of the file: its entries (object literals, written in its initializer or pushed),
 * when every other use of it is a for-of loop; and the function type its declared element type
 * gives a member, if it declares one.
 */
function listOf(ts: TS, e: ts.Expression): { entries: ts.ObjectLiteralExpression[]; typed: boolean; slot: (key: string) => ts.FunctionTypeNode | undefined } | undefined {
  const id = skipOuter(ts, e);
  const decl = ts.isIdentifier(id) ? resolveIdentifier(ts, id) : undefined;
  const declaration = decl?.declaration;
  if (decl?.kind !== 'const' || !declaration || !ts.isVariableDeclaration(declaration) || !declaration.initializer) return undefined;
  const initial = skipOuter(ts, declaration.initializer);
  if (!ts.isArrayLiteralExpression(initial) || isExported(ts, declaration)) return undefined;
  const written: ts.Expression[] = [...initial.elements];
  let open = false;
  forEachValueIdentifier(ts, declaration.getSourceFile(), use => {
    if (open || use === decl.nameNode || resolveIdentifier(ts, use) !== decl) return;
    const parent = use.parent;
    if (ts.isForOfStatement(parent) && parent.expression === use) return;
    const push = ts.isPropertyAccessExpression(parent) && parent.name.text === 'push' && ts.isCallExpression(parent.parent) && parent.parent.expression === parent ? parent.parent : undefined;
    if (push && ts.isExpressionStatement(push.parent)) written.push(...push.arguments);
    else open = true;
  });
  if (open) return undefined;
  const entries: ts.ObjectLiteralExpression[] = [];
  for (const w of written) {
    const entry = objectOf(ts, w);
    if (!entry) return undefined; // a spread or a value the file does not write out: the list is not all seen
    entries.push(entry);
  }
  return { entries, typed: declaration.type !== undefined, slot: key => slotType(ts, declaration.type, key) };
}

/** `export const list = ...` or `export { list }`: other modules may add to it. */
function isExported(ts: TS, declaration: ts.VariableDeclaration): boolean {
  const statement = declaration.parent.parent;
  if (ts.isVariableStatement(statement) && statement.modifiers?.some(m => m.kind === ts.SyntaxKind.ExportKeyword)) return true;
  const name = declaration.name.getText();
  return declaration.getSourceFile().statements.some(s => ts.isExportDeclaration(s) && !s.moduleSpecifier && s.exportClause !== undefined &&
    ts.isNamedExports(s.exportClause) && s.exportClause.elements.some(e => (e.propertyName ?? e.name).getText() === name));
}

/** An entry written as an object literal without a spread, or a `const` of the file initialized with one. */
function objectOf(ts: TS, e: ts.Expression): ts.ObjectLiteralExpression | undefined {
  let inner = skipOuter(ts, e);
  if (ts.isIdentifier(inner)) {
    const decl = resolveIdentifier(ts, inner);
    const init = decl?.kind === 'const' && ts.isVariableDeclaration(decl.declaration) ? decl.declaration.initializer : undefined;
    if (!init) return undefined;
    inner = skipOuter(ts, init);
  }
  // A spread may bring any member, the function included.
  return ts.isObjectLiteralExpression(inner) && !inner.properties.some(p => ts.isSpreadAssignment(p)) ? inner : undefined;
}

/** The value an entry gives a member: `key: value`, `key` (shorthand), or a method. */
function member(ts: TS, entry: ts.ObjectLiteralExpression, key: string): ts.Expression | ts.MethodDeclaration | undefined {
  for (const p of entry.properties) {
    if (!p.name || propertyKey(ts, p.name) !== key) continue;
    if (ts.isPropertyAssignment(p)) return p.initializer;
    if (ts.isShorthandPropertyAssignment(p)) return p.name;
    if (ts.isMethodDeclaration(p)) return p;
  }
  return undefined;
}

function propertyKey(ts: TS, name: ts.PropertyName): string | undefined {
  return ts.isIdentifier(name) || ts.isStringLiteralLike(name) ? name.text : undefined;
}

/**
 * `Registration[]` / `Array<Registration>` where the file declares `type Registration = { handler: () => Promise<R> }`
 * (or an interface): the function type of `handler`.
 */
function slotType(ts: TS, listType: ts.TypeNode | undefined, key: string): ts.FunctionTypeNode | undefined {
  if (!listType) return undefined;
  const element = ts.isArrayTypeNode(listType) ? listType.elementType
    : ts.isTypeReferenceNode(listType) && listType.typeName.getText() === 'Array' && listType.typeArguments?.length === 1 ? listType.typeArguments[0]! : undefined;
  let members: ts.NodeArray<ts.TypeElement> | undefined;
  if (element && ts.isTypeLiteralNode(element)) members = element.members;
  else if (element && ts.isTypeReferenceNode(element) && ts.isIdentifier(element.typeName) && !element.typeArguments) {
    const name = element.typeName.text;
    const declared = element.getSourceFile().statements.find((s): s is ts.TypeAliasDeclaration | ts.InterfaceDeclaration =>
      (ts.isTypeAliasDeclaration(s) || ts.isInterfaceDeclaration(s)) && s.name.text === name && !s.typeParameters);
    if (declared && ts.isInterfaceDeclaration(declared) && !declared.heritageClauses) members = declared.members;
    if (declared && ts.isTypeAliasDeclaration(declared) && ts.isTypeLiteralNode(declared.type)) members = declared.type.members;
  }
  const signature = members?.find(m => ts.isPropertySignature(m) && m.name && propertyKey(ts, m.name) === key);
  const type = signature && ts.isPropertySignature(signature) ? signature.type : undefined;
  // The rewrite widens what it promises: `Promise<T>` becomes `Promise<T | InputRequiredResult>`.
  const promises = type && ts.isFunctionTypeNode(type) && ts.isTypeReferenceNode(type.type) && type.type.typeName.getText() === 'Promise' && type.type.typeArguments?.length === 1;
  return promises ? type as ts.FunctionTypeNode : undefined;
}
