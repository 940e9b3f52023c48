import type * as ts from 'typescript';
import { forEachValueIdentifier, isAssignedIn, isExported, resolveIdentifier, type LocalDecl } from './scope.js';
import { skipOuter } from './sdk.js';
import { promisedFunction, returnedFunction } from './wrappedHandlers.js';
import { constMapEntries, constObjectEntries, entryValueType, isGlobal, type ObjectEntry } from './constObjects.js';
import type { TS } from './types.js';

/**
 * Handlers registered through data: a list of registrations, each an object with a name and a
 * function, iterated into the SDK's registration method.
 *
 *   const registrations: Registration[] = [];
 *   registrations.push({ name: 'deploy', description: '...', handler: confirmDeploy });
 *   for (const { name, description, handler } of registrations) server.registerTool(name, { description }, handler);
 *
 *   const tools = { deploy: confirmDeploy, status: async () => ... };
 *   for (const [name, handler] of Object.entries(tools)) server.registerTool(name, {}, handler);
 *
 *   const tools = new Map([['deploy', confirmDeploy]]);
 *   tools.set('status', async () => ...);
 *   for (const [name, handler] of tools) server.registerTool(name, {}, handler);
 *
 * Each function the list holds is a handler of that registration, under the name its own entry
 * gives (or the key it is held under). Followed only where the list is a `const` of the file whose
 * every use is the loop or a `push` of entries the file writes (an object: only read), so no entry
 * can come from elsewhere.
 */
export interface DataRegistered {
  fn: ts.FunctionLikeDeclaration;
  /** The entry's name, where the registration's name is read from the entry and the entry writes it as a literal. */
  name: string | undefined;
  /** The function type the list's declared element type gives the entry's function (widened by the rewrite), if it declares one. */
  slotType: ts.FunctionTypeNode | undefined;
}

/**
 * What a registration reads of the entry a `for (const ... of list)` loop is at: a member (`handler`,
 * `tool.handler`), or, through the `[key, value]` pair of `Object.entries(...)`, the value itself or
 * its key; `made` where the registration calls it (`tool.factory({ server })`) and registers what it returns.
 */
interface EntryRead {
  loop: ts.ForOfStatement;
  /** The member read, or undefined where the whole value (or the key) is. */
  key: string | undefined;
  /** Read through the `[key, value]` pair the loop's head destructures. */
  pair: boolean;
  /** The pair's key, not its value. */
  isKey: boolean;
  made: boolean;
}

export function dataRegisteredFunctions(ts: TS, call: ts.CallExpression, callback: ts.Expression, functionOf: (e: ts.Expression) => ts.FunctionLikeDeclaration | undefined): DataRegistered[] {
  const read = registeredRead(ts, callback);
  if (!read || read.isKey) return [];
  const list = listOf(ts, read.loop.expression);
  if (!list || list.pairs !== read.pair) return [];
  const nameRead = call.arguments[0] && entryRead(ts, call.arguments[0]);
  const found: DataRegistered[] = [];
  for (const entry of list.entries) {
    // A declared element type whose function member the rewrite cannot widen would reject the rewritten handlers;
    // the list's and the entry's own declaration must name the same member.
    const slots = [list.type, entry.type].filter((t): t is ts.TypeNode => t !== undefined).map(t => slotType(ts, t, read));
    // A class's constructor types the member it keeps (`readonly run: () => Promise<R>`).
    const built = builtSlot(ts, entry, read);
    if (built !== undefined) slots.push(built ?? undefined);
    if (slots.some(s => s === undefined || s !== slots[0])) return [];
    const value = read.key === undefined ? entry.value : memberOfEntry(ts, entry, read.key);
    const held = value && (ts.isMethodDeclaration(value) ? value : functionOf(value));
    // A factory's whole body returns the handler: it runs once, at registration.
    const fn = held && read.made ? returnedFunction(ts, held) : held;
    if (!fn) continue;
    found.push({ fn, name: nameRead?.loop === read.loop ? entryName(ts, entry, nameRead) : undefined, slotType: slots[0] });
  }
  // A function two entries hold is registered under two names: one rewrite cannot bind it to both.
  return found.filter(f => found.filter(g => g.fn === f.fn).length === 1);
}

/** The name an entry gives where the registration reads it: the key it is held under, or a member it writes as a literal. */
function entryName(ts: TS, entry: ListEntry, read: EntryRead): string | undefined {
  if (read.isKey) return entry.key;
  const value = read.key === undefined ? undefined : memberOfEntry(ts, entry, read.key);
  const literal = value && !ts.isMethodDeclaration(value) ? skipOuter(ts, value) : undefined;
  return literal && ts.isStringLiteralLike(literal) ? literal.text : undefined;
}

/**
 * The function type the constructor of a class-built entry declares for the member read: undefined
 * where the entry is no construction or the parameter declares no type, null where its type cannot be widened.
 */
function builtSlot(ts: TS, entry: ListEntry, read: EntryRead): ts.FunctionTypeNode | null | undefined {
  const built = ts.isMethodDeclaration(entry.value) ? undefined : objectOf(ts, entry.value)?.entry;
  if (!built || !ts.isNewExpression(built) || read.key === undefined) return undefined;
  const type = keptParameter(ts, classOf(ts, built)!, read.key)?.type;
  if (!type) return undefined;
  const widened = read.made ? undefined : promisedFunction(ts, type);
  return widened ?? null;
}

/** The entry's member `key`, where the entry is an object literal the file writes out. */
function memberOfEntry(ts: TS, entry: ListEntry, key: string): ts.Expression | ts.MethodDeclaration | undefined {
  const object = ts.isMethodDeclaration(entry.value) ? undefined : objectOf(ts, entry.value);
  return object && member(ts, object.entry, key);
}

/** The entry's function (`tool.handler`), or what its factory makes (`tool.factory({ server })`). */
function registeredRead(ts: TS, e: ts.Expression): EntryRead | undefined {
  const inner = skipOuter(ts, e);
  if (!ts.isCallExpression(inner)) return entryRead(ts, inner);
  const read = entryRead(ts, inner.expression);
  return read && { ...read, made: true };
}

function entryRead(ts: TS, e: ts.Expression): EntryRead | undefined {
  const inner = skipOuter(ts, e);
  if (ts.isIdentifier(inner)) {
    const decl = resolveIdentifier(ts, inner);
    const element = decl?.nameNode.parent;
    if (!decl || !element || !ts.isBindingElement(element) || element.dotDotDotToken || isAssignedIn(ts, decl.scope, decl)) return undefined;
    const pattern = element.parent;
    // `for (const { name, handler } of list)`, `for (const [name, { handler }] of Object.entries(tools))`
    if (ts.isObjectBindingPattern(pattern)) {
      const key = element.propertyName ? propertyKey(ts, element.propertyName) : element.name.getText();
      const head = valueHolder(ts, pattern.parent);
      return head && key !== undefined ? { ...head, key, isKey: false, made: false } : undefined;
    }
    // `for (const [name, handler] of Object.entries(tools))`
    const index = pattern.elements.indexOf(element);
    const loop = loopOf(ts, pattern.parent);
    return loop && (index === 0 || index === 1) ? { loop, key: undefined, pair: true, isKey: index === 0, made: false } : undefined;
  }
  if (ts.isPropertyAccessExpression(inner) && ts.isIdentifier(inner.expression)) {
    const decl = resolveIdentifier(ts, inner.expression);
    const head = decl && !isAssignedIn(ts, decl.scope, decl) ? valueHolder(ts, decl.nameNode.parent) : undefined;
    return head && { ...head, key: inner.name.text, isKey: false, made: false };
  }
  return undefined;
}

/**
 * The loop whose entry `node` holds: the loop's head (`const tool`), or the value of the pair it
 * destructures (`tool` of `const [name, tool]`).
 */
function valueHolder(ts: TS, node: ts.Node): { loop: ts.ForOfStatement; pair: boolean } | undefined {
  if (ts.isVariableDeclaration(node)) {
    const loop = loopOf(ts, node);
    return loop && { loop, pair: false };
  }
  const pattern = node.parent;
  if (!ts.isBindingElement(node) || node.dotDotDotToken || !ts.isArrayBindingPattern(pattern) || pattern.elements.indexOf(node) !== 1) return undefined;
  const loop = loopOf(ts, pattern.parent);
  return loop && { loop, pair: true };
}

/** The for-of loop a variable declaration is the head of. */
function loopOf(ts: TS, declaration: ts.Node): ts.ForOfStatement | undefined {
  const list = declaration.parent;
  const loop = list?.parent;
  return ts.isVariableDeclaration(declaration) && list && ts.isVariableDeclarationList(list) && loop && ts.isForOfStatement(loop) && loop.initializer === list && !loop.awaitModifier ? loop : undefined;
}

/**
 * An entry of a list: its value (an object literal, or for an object's entries any value or a
 * method), the key an object holds it under, and the type its own `const` declares (`const deploy:
 * Tool = { ... }`), if any.
 */
interface ListEntry {
  value: ts.Expression | ts.MethodDeclaration;
  key: string | undefined;
  type: ts.TypeNode | undefined;
}

/**
 * The entries of the list a loop iterates, where every one is seen: a `const` of the file (its
 * initializer and what is pushed on it), a parameter of a function of the file that only its calls
 * in the file give a value (`registerAll(server, [deploy, rollback])`), or the entries or values of
 * an object of the file (`Object.entries(tools)`, `pairs`). `type` is the element type the list
 * declares, if it declares one.
 */
function listOf(ts: TS, e: ts.Expression): { entries: ListEntry[]; type: ts.TypeNode | undefined; pairs: boolean } | undefined {
  const id = skipOuter(ts, e);
  if (ts.isCallExpression(id)) return objectEntries(ts, id) ?? mapEntries(ts, id);
  const decl = ts.isIdentifier(id) ? resolveIdentifier(ts, id) : undefined;
  const declaration = decl?.declaration;
  if (!decl || !declaration) return undefined;
  const map = constMapEntries(ts, decl);
  if (map) return { entries: map.entries.map(keyedListEntry(ts)), type: map.valueType, pairs: true };
  let written: ts.Expression[];
  if (decl.kind === 'const' && ts.isVariableDeclaration(declaration) && declaration.initializer) {
    const initial = skipOuter(ts, declaration.initializer);
    if (!ts.isArrayLiteralExpression(initial) || isExported(ts, declaration.getSourceFile(), declaration.name.getText(), declaration)) return undefined;
    written = [...initial.elements];
  } else if (decl.kind === 'parameter' && ts.isParameter(declaration) && !declaration.dotDotDotToken && !declaration.initializer && ts.isIdentifier(declaration.name)) {
    const given = givenLists(ts, declaration);
    if (!given) return undefined;
    written = given;
  } else {
    return undefined;
  }
  const pushed = pushedOnly(ts, decl, declaration.kind === ts.SyntaxKind.Parameter ? decl.scope : declaration.getSourceFile());
  if (!pushed) return undefined;
  const entries: ListEntry[] = [];
  for (const w of [...written, ...pushed]) {
    const entry = objectOf(ts, w);
    if (!entry) return undefined; // a spread or a value the file does not write out: the list is not all seen
    entries.push({ value: entry.entry, key: undefined, type: entry.type });
  }
  return { entries, type: elementType(ts, declaration.type), pairs: false };
}

/**
 * `Object.entries(tools)` / `Object.values(tools)` of a `const` object of the file written out
 * without a spread or a computed key, not exported and only read: its properties, by key. Its
 * declared type (`Record<string, T>`, `{ [name: string]: T }`) gives the element type.
 */
function objectEntries(ts: TS, call: ts.CallExpression): { entries: ListEntry[]; type: ts.TypeNode | undefined; pairs: boolean } | undefined {
  const callee = skipOuter(ts, call.expression);
  const method = ts.isPropertyAccessExpression(callee) && isGlobal(ts, callee.expression, 'Object') ? callee.name.text : undefined;
  const arg = call.arguments.length === 1 ? skipOuter(ts, call.arguments[0]!) : undefined;
  const decl = arg && ts.isIdentifier(arg) ? resolveIdentifier(ts, arg) : undefined;
  const properties = (method === 'entries' || method === 'values') && decl ? constObjectEntries(ts, decl) : undefined;
  if (!properties) return undefined;
  const declared = (decl!.declaration as ts.VariableDeclaration).type;
  return { entries: properties.map(keyedListEntry(ts)), type: declared && entryValueType(ts, declared), pairs: method === 'entries' };
}

/** `tools.entries()` / `tools.values()` of a Map of the file whose every entry is seen (constObjects.ts). */
function mapEntries(ts: TS, call: ts.CallExpression): { entries: ListEntry[]; type: ts.TypeNode | undefined; pairs: boolean } | undefined {
  const callee = skipOuter(ts, call.expression);
  const method = ts.isPropertyAccessExpression(callee) && call.arguments.length === 0 ? callee.name.text : undefined;
  const held = method === 'entries' || method === 'values' ? skipOuter(ts, (callee as ts.PropertyAccessExpression).expression) : undefined;
  const decl = held && ts.isIdentifier(held) ? resolveIdentifier(ts, held) : undefined;
  const map = decl && constMapEntries(ts, decl);
  return map && { entries: map.entries.map(keyedListEntry(ts)), type: map.valueType, pairs: method === 'entries' };
}

/** An entry held under a key: its value, and the type its own `const` declares where it is one. */
function keyedListEntry(ts: TS): (entry: ObjectEntry) => ListEntry {
  return ({ key, value }) => ({ value, key, type: ts.isIdentifier(value) ? declaredType(ts, value) : undefined });
}

/** The type a `const` of the file declares (`const confirmDeploy: Handler = ...`). */
function declaredType(ts: TS, id: ts.Identifier): ts.TypeNode | undefined {
  const declaration = resolveIdentifier(ts, id)?.declaration;
  return declaration && ts.isVariableDeclaration(declaration) ? declaration.type : undefined;
}

/** What is pushed on the list, where every other use of it in `scope` is a for-of loop's head. */
function pushedOnly(ts: TS, decl: LocalDecl, scope: ts.Node): ts.Expression[] | undefined {
  const pushed: ts.Expression[] = [];
  let open = false;
  forEachValueIdentifier(ts, scope, use => {
    if (open || use === decl.nameNode || resolveIdentifier(ts, use) !== decl) return;
    const parent = use.parent;
    if (ts.isForOfStatement(parent) && parent.expression === use) return;
    const push = ts.isPropertyAccessExpression(parent) && parent.name.text === 'push' && ts.isCallExpression(parent.parent) && parent.parent.expression === parent ? parent.parent : undefined;
    if (push && ts.isExpressionStatement(push.parent)) pushed.push(...push.arguments);
    else open = true;
  });
  return open ? undefined : pushed;
}

/**
 * The elements of the array literals a function's calls give its parameter, where the function is
 * declared in the file (`function registerAll(...)`, `const registerAll = (...) => ...`), not
 * exported, and every use of its name is a call of it there: no other caller can give it a list.
 */
function givenLists(ts: TS, parameter: ts.ParameterDeclaration): ts.Expression[] | undefined {
  const owner = parameter.parent;
  const index = owner.parameters.indexOf(parameter);
  const named = ts.isFunctionDeclaration(owner) ? owner.name
    : (ts.isArrowFunction(owner) || ts.isFunctionExpression(owner)) && ts.isVariableDeclaration(owner.parent) && owner.parent.initializer === owner && ts.isIdentifier(owner.parent.name) ? owner.parent.name : undefined;
  const decl = named && resolveIdentifier(ts, named);
  if (!decl || (decl.kind !== 'function' && decl.kind !== 'const') || isExported(ts, owner.getSourceFile(), named!.text, decl.declaration)) return undefined;
  const elements: ts.Expression[] = [];
  let open = false;
  forEachValueIdentifier(ts, owner.getSourceFile(), use => {
    if (open || use === decl.nameNode || resolveIdentifier(ts, use) !== decl) return;
    const call = use.parent;
    const arg = ts.isCallExpression(call) && call.expression === use ? call.arguments[index] : undefined;
    const list = arg && skipOuter(ts, arg);
    if (list && ts.isArrayLiteralExpression(list)) elements.push(...list.elements);
    else open = true;
  });
  return open ? undefined : elements;
}
/**
 * An entry written as an object literal without a spread, or a `const` of the file initialized with
 * one; or built by a class of the file whose constructor keeps what it is given
 * (`new Tool('deploy', async () => ...)` where `constructor(readonly name: string, readonly run: ...)`).
 */
function objectOf(ts: TS, e: ts.Expression): { entry: ts.ObjectLiteralExpression | ts.NewExpression; type: ts.TypeNode | undefined } | undefined {
  let inner = skipOuter(ts, e);
  let type: ts.TypeNode | undefined;
  if (ts.isIdentifier(inner)) {
    const decl = resolveIdentifier(ts, inner);
    const init = decl?.kind === 'const' && ts.isVariableDeclaration(decl.declaration) ? decl.declaration.initializer : undefined;
    if (!init) return undefined;
    type = (decl!.declaration as ts.VariableDeclaration).type;
    inner = skipOuter(ts, init);
  }
  if (ts.isNewExpression(inner)) return classOf(ts, inner) ? { entry: inner, type } : undefined;
  // A spread may bring any member, the function included.
  return ts.isObjectLiteralExpression(inner) && !inner.properties.some(p => ts.isSpreadAssignment(p)) ? { entry: inner, type } : undefined;
}

/** The class of the file a `new` builds (one that extends nothing, so its constructor is all there is). */
function classOf(ts: TS, construction: ts.NewExpression): ts.ClassDeclaration | undefined {
  const callee = skipOuter(ts, construction.expression);
  const declaration = ts.isIdentifier(callee) ? resolveIdentifier(ts, callee)?.declaration : undefined;
  return declaration && ts.isClassDeclaration(declaration) && !declaration.heritageClauses ? declaration : undefined;
}

/** The value an entry gives a member: `key: value`, `key` (shorthand), a method, or what a constructor keeps as `key`. */
function member(ts: TS, entry: ts.ObjectLiteralExpression | ts.NewExpression, key: string): ts.Expression | ts.MethodDeclaration | undefined {
  if (ts.isNewExpression(entry)) {
    const kept = keptParameter(ts, classOf(ts, entry)!, key);
    const ctor = kept?.parent;
    return ctor && ts.isConstructorDeclaration(ctor) ? entry.arguments?.[ctor.parameters.indexOf(kept!)] : undefined;
  }
  for (const p of entry.properties) {
    if (!p.name || propertyKey(ts, p.name) !== key) continue;
    if (ts.isPropertyAssignment(p)) return p.initializer;
    if (ts.isShorthandPropertyAssignment(p)) return p.name;
    if (ts.isMethodDeclaration(p)) return p;
  }
  return undefined;
}

/**
 * The constructor parameter a class keeps as its member `key` (`constructor(readonly run: Run)`),
 * where nothing else can change it: `readonly`, or no assignment to a `.key` anywhere in the file;
 * and the class declares no other member of that name.
 */
function keptParameter(ts: TS, cls: ts.ClassDeclaration, key: string): ts.ParameterDeclaration | undefined {
  const ctor = cls.members.find(ts.isConstructorDeclaration);
  const modifiers = (p: ts.ParameterDeclaration) => ts.getModifiers(p) ?? [];
  const parameter = ctor?.parameters.find(p => ts.isIdentifier(p.name) && p.name.text === key && !p.dotDotDotToken &&
    modifiers(p).some(m => m.kind === ts.SyntaxKind.PublicKeyword || m.kind === ts.SyntaxKind.ReadonlyKeyword) &&
    !modifiers(p).some(m => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword));
  if (!parameter || cls.members.some(m => !ts.isConstructorDeclaration(m) && m.name && propertyKey(ts, m.name) === key)) return undefined;
  if (modifiers(parameter).some(m => m.kind === ts.SyntaxKind.ReadonlyKeyword)) return parameter;
  let assigned = false;
  const visit = (node: ts.Node): void => {
    if (assigned) return;
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && node.left.name.text === key) assigned = true;
    node.forEachChild(visit);
  };
  visit(cls.getSourceFile());
  return assigned ? undefined : parameter;
}

function propertyKey(ts: TS, name: ts.PropertyName): string | undefined {
  return ts.isIdentifier(name) || ts.isStringLiteralLike(name) ? name.text : undefined;
}

/** `Registration[]` / `Array<Registration>`: the element type a list declares. */
function elementType(ts: TS, listType: ts.TypeNode | undefined): ts.TypeNode | undefined {
  if (!listType) return undefined;
  if (ts.isArrayTypeNode(listType)) return listType.elementType;
  return ts.isTypeReferenceNode(listType) && listType.typeName.getText() === 'Array' && listType.typeArguments?.length === 1 ? listType.typeArguments[0]! : listType;
}

/**
 * The function type an entry's element type (a type literal, or an alias or interface of the file:
 * `type Registration = { handler: () => Promise<R> }`) gives the function the registration reads:
 * the member's, or what the member's factory type returns (`factory: (deps: Deps) => () => Promise<R>`).
 */
function slotType(ts: TS, element: ts.TypeNode, read: EntryRead): ts.FunctionTypeNode | undefined {
  let members: ts.NodeArray<ts.TypeElement> | undefined;
  if (ts.isTypeLiteralNode(element)) members = element.members;
  else if (ts.isTypeReferenceNode(element) && ts.isIdentifier(element.typeName) && !element.typeArguments) {
    const name = element.typeName.text;
    const declared = element.getSourceFile().statements.find((s): s is ts.TypeAliasDeclaration | ts.InterfaceDeclaration =>
      (ts.isTypeAliasDeclaration(s) || ts.isInterfaceDeclaration(s)) && s.name.text === name && !s.typeParameters);
    if (declared && ts.isInterfaceDeclaration(declared) && !declared.heritageClauses) members = declared.members;
    if (declared && ts.isTypeAliasDeclaration(declared) && ts.isTypeLiteralNode(declared.type)) members = declared.type.members;
    // `Tool[]` where `class Tool { constructor(readonly run: () => Promise<R>) {} }`: the parameter it keeps.
    const cls = element.getSourceFile().statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === name);
    const kept = cls && read.key !== undefined && !read.made ? keptParameter(ts, cls, read.key) : undefined;
    if (cls) return kept?.type && promisedFunction(ts, kept.type);
  }
  const signature = members?.find(m => (ts.isPropertySignature(m) || ts.isMethodSignature(m)) && m.name && propertyKey(ts, m.name) === read.key);
  // The whole entry (`[name, handler]` of an object's entries), or the member read.
  let type: ts.TypeNode | undefined = read.key === undefined ? element : signature && ts.isPropertySignature(signature) ? signature.type : undefined;
  if (read.made) type = type && ts.isFunctionTypeNode(type) ? type.type : undefined;
  // `make(deps: Deps): () => Promise<R>`: what a factory method returns (a method is no slot to hold the handler itself).
  if (signature && ts.isMethodSignature(signature) && read.made && read.key !== undefined) type = signature.type;
  return type && promisedFunction(ts, type);
}
