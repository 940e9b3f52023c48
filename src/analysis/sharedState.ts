import type * as ts from 'typescript';
import { statementList } from './continuation.js';
import { lineOf } from './places.js';
import { isLogging, isOutcomeNeutralCall, isPureCall, isPureCallback, isPureExpression, PURE_CONSTRUCTORS } from './purity.js';
import { bindingIdentifiers, forEachValueIdentifier, isFunctionLike, isWithinNode, resolveIdentifier, returnedValues, type LocalDecl } from './scope.js';
import { isProjectSource, skipOuter } from './sdk.js';
import type { TS } from './types.js';

/**
 * Objects a handler shares with code outside it (module state, the class's fields, what a project
 * function hands out of them): carried through requestState they come back as copies, so a change
 * made through the local after the question, or a use of its identity, would no longer reach the
 * originals. Such a local is looked up again on resume when a pure expression gives it (by key), or
 * the site is refused (`shared-state-mutated`).
 */

/** Methods that return one of the receiver's own elements. */
const ELEMENT_OF = new Set(['find', 'findLast', 'at', 'get', 'pop', 'shift']);
/** Methods that return a new container of (some of) the receiver's elements. */
const ELEMENTS_OF = new Set(['filter', 'slice', 'values', 'concat', 'flat', 'toSorted', 'toReversed', 'splice']);
/** Methods that return the receiver itself, sorted or reversed in place. */
const SAME_OBJECT = new Set(['sort', 'reverse']);
/** Methods that return (some of) the receiver's own elements, not copies. */
const ELEMENT_ACCESSORS: ReadonlySet<string> = new Set([...ELEMENT_OF, ...ELEMENTS_OF, ...SAME_OBJECT]);
/** Statics that return a new array of their argument's own values. */
const VALUES_OF = new Set(['Object.values', 'Object.entries', 'Array.from']);

/**
 * How deep in the state a value sits: `at` 0 is the state itself (`queues`, `this.carts`), 1 what
 * it holds (`queues.get(q)`), and so on. `fresh`: the value is a new container (`Object.values(s)`,
 * `s.filter(...)`) whose elements sit at `at`. A change to an object reaches a value only when the
 * object sits at the value's depth or deeper: deleting a Map entry changes the Map, not the array
 * the entry held.
 */
export interface Level {
  at: number;
  fresh: boolean;
}

/** One read on the way from a root to a value: into an element or property, a new container of elements, or the same object. */
type Step = 'element' | 'copy' | 'same';

/** Where a value comes from: an outside name, `this`, a call, or anything else; `copied` when only its elements are shared. */
interface Source {
  root: ts.Expression;
  /** `this.carts` when the root is `this`. */
  name: string;
  copied: boolean;
  /** The reads from the root to the value, root first. */
  steps: Step[];
}

/** Walks `carts.get(id)`, `this.carts[id].items`, `Object.values(carts)`, `[...list]` back to what they read. */
function sourceOf(ts: TS, init: ts.Expression): Source {
  let e = skipOuter(ts, init);
  if (ts.isAwaitExpression(e)) e = skipOuter(ts, e.expression);
  let copied = false;
  let above: ts.Expression | undefined;
  const steps: Step[] = [];
  for (;;) {
    let next: ts.Expression | undefined;
    let step: Step = 'element';
    if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) next = e.expression;
    else if (ts.isCallExpression(e) && e.arguments.length === 1 && VALUES_OF.has(e.expression.getText())) {
      step = 'copy';
      next = e.arguments[0];
    } else if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && ELEMENT_ACCESSORS.has(e.expression.name.text)) {
      const method = e.expression.name.text;
      step = ELEMENTS_OF.has(method) ? 'copy' : SAME_OBJECT.has(method) ? 'same' : 'element';
      next = e.expression.expression;
    } else if (ts.isArrayLiteralExpression(e) && e.elements.length === 1 && ts.isSpreadElement(e.elements[0]!)) {
      step = 'copy';
      next = e.elements[0].expression;
    }
    if (!next) break;
    copied ||= step === 'copy';
    steps.unshift(step);
    above = e;
    e = skipOuter(ts, next);
  }
  const name = e.kind === ts.SyntaxKind.ThisKeyword && above && ts.isPropertyAccessExpression(above) ? `this.${above.name.text}` : e.getText();
  return { root: e, name, copied, steps };
}

/** What a value is read from, through element reads, copies and `Object.values(...)`: `notes` for `Object.values(notes).filter(...)`. */
export function readRoot(ts: TS, value: ts.Expression): ts.Expression {
  return sourceOf(ts, value).root;
}

/** The level a value reaches from `start` through `steps`: an element of a new container sits where its elements do. */
function levelAfter(start: Level, steps: readonly Step[]): Level {
  let level = start;
  for (const step of steps) {
    if (step === 'element') level = { at: level.fresh ? level.at : level.at + 1, fresh: false };
    else if (step === 'copy') level = { at: level.fresh ? level.at : level.at + 1, fresh: true };
  }
  return level;
}

/** The level of the state's own name: `this.carts` is one read below `this`. */
function rootLevel(ts: TS, root: ts.Expression): Level {
  return { at: root.kind === ts.SyntaxKind.ThisKeyword ? -1 : 0, fresh: false };
}

export interface SharedOrigin {
  /** The outside name (`carts`, `this.carts`), or the parameter or live local whose objects it holds. */
  name: string;
  /** Held outside the handler (module or class state), rather than in its arguments or another local. */
  outside: boolean;
  /** The project function that handed the objects out, when the local is what it returned. */
  via?: string;
  /** What holds the state outside: the name's declaration, or the class whose `this.<member>` it is. */
  holder?: { declaration: ts.Node } | { cls: ts.ClassLikeDeclaration; member: string };
  /** How deep in that state the local's shared objects sit (the shallowest, where it may take several values). */
  level: Level;
  /** The other origins of a local that may take several values (`teams[t] ?? defaults`). */
  also?: SharedOrigin[];
}

export interface SharedInput {
  ts: TS;
  checker: ts.TypeChecker | undefined;
  fn: ts.FunctionLikeDeclaration;
}

/**
 * `const matching = notes.filter(...)` with `notes` living outside the handler: the local refers to
 * the same objects. Carried through requestState it comes back as copies, so `notes.indexOf(note)`
 * or `note.done = true` after the question would no longer reach the originals. Returns where the
 * local's objects (not primitives) come from, when they are shared.
 */
export function sharedOrigin(input: SharedInput, decl: LocalDecl, isLive: (d: LocalDecl) => boolean, seen = new Set<LocalDecl>()): SharedOrigin | undefined {
  const { ts, checker } = input;
  if (seen.has(decl)) return undefined;
  seen.add(decl);
  const declaration = decl.declaration;
  if (!ts.isVariableDeclaration(declaration) || !declaration.initializer) return undefined;
  const type = checker?.getTypeAtLocation(decl.nameNode);
  if (checker && type && !holdsObjects(ts, checker, type)) return undefined;
  let found: SharedOrigin | undefined;
  for (const value of alternatives(ts, declaration.initializer)) {
    const source = sourceOf(ts, value);
    // A new array of the originals' elements: shared only when the elements are objects.
    if (source.copied && checker && type) {
      const element = checker.getIndexTypeOfType(checker.getNonNullableType(type), ts.IndexKind.Number);
      if (element && !holdsObjects(ts, checker, element)) continue;
    }
    const e = source.root;
    const fromCall = ts.isCallExpression(e) ? returnedShared(input, e) : undefined;
    const shared = fromCall ? { ...fromCall, level: levelAfter(fromCall.level, source.steps) }
      : outsideOrigin(input, value, input.fn) ?? (ts.isIdentifier(e) ? sharedLocal(input, e, source.steps, isLive, seen) : undefined);
    if (!shared) continue;
    // `queues.get(q) ?? fallback`: the first origin names the state, the others are checked too.
    found = found ? { ...found, also: [...found.also ?? [], shared] } : shared;
  }
  return found;
}

/** What a name of the handler (the root a local's value is read from, through `steps`) shares. */
function sharedLocal(input: SharedInput, e: ts.Identifier, steps: readonly Step[], isLive: (d: LocalDecl) => boolean, seen: Set<LocalDecl>): SharedOrigin | undefined {
  const root = resolveIdentifier(input.ts, e);
  if (!root || !(root.scope === input.fn || isWithinNode(root.scope, input.fn))) return undefined;
  // Parameters come back as new objects each round; another live local would be restored as a
  // separate copy: either way the identity the code after the question relies on is gone.
  if (root.kind === 'parameter' || isLive(root)) return { name: e.text, outside: false, level: levelAfter({ at: 0, fresh: false }, steps) };
  const shared = sharedOrigin(input, root, isLive, seen);
  return shared && { ...shared, level: levelAfter(shared.level, steps) };
}

/** The module or class state `value` is read from: a `this` member, or a name bound outside `fn` that is not code. */
function outsideOrigin(input: SharedInput, value: ts.Expression, fn: ts.Node): SharedOrigin | undefined {
  const { ts } = input;
  const source = sourceOf(ts, value);
  const e = source.root;
  const level = levelAfter(rootLevel(ts, e), source.steps);
  if (e.kind === ts.SyntaxKind.ThisKeyword) return { name: source.name, outside: true, holder: thisHolder(ts, e, source.name), level };
  if (!ts.isIdentifier(e)) return undefined;
  const root = resolveIdentifier(ts, e);
  if (!root || root.scope === fn || isWithinNode(root.scope, fn) || isCode(input, root, e)) return undefined;
  return { name: e.text, outside: true, holder: { declaration: declarationOf(input, root, e) }, level };
}

/** The symbol a name stands for, through an import's alias. */
function symbolOf(ts: TS, checker: ts.TypeChecker, node: ts.Node): ts.Symbol | undefined {
  const symbol = checker.getSymbolAtLocation(node);
  return symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/** The values an expression may take: both sides of `??` and `||`, both branches of `? :`. */
function alternatives(ts: TS, value: ts.Expression): ts.Expression[] {
  const e = skipOuter(ts, value);
  if (ts.isBinaryExpression(e) && (e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || e.operatorToken.kind === ts.SyntaxKind.BarBarToken)) {
    return [...alternatives(ts, e.left), ...alternatives(ts, e.right)];
  }
  if (ts.isConditionalExpression(e)) return [...alternatives(ts, e.whenTrue), ...alternatives(ts, e.whenFalse)];
  return [e];
}

/** A function, a class, or an import of one: code, not state. */
function isCode(input: SharedInput, root: LocalDecl, id: ts.Identifier): boolean {
  const { ts, checker } = input;
  if (root.kind === 'function' || root.kind === 'class') return true;
  if (root.kind !== 'import') return false;
  // An imported binding is state when it is a value that is not a function or class (`import { carts }`).
  const target = checker && symbolOf(ts, checker, id);
  if (!target) return true;
  return (target.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class | ts.SymbolFlags.Method)) !== 0 || !(target.flags & ts.SymbolFlags.Variable);
}

/** `cartOf(id)` where the project's cartOf returns one of the objects of module (or class) state, or one it stored there. */
function returnedShared(input: SharedInput, call: ts.CallExpression): SharedOrigin | undefined {
  const { ts, checker } = input;
  const callee = checker?.getResolvedSignature(call)?.declaration;
  if (!callee || !isFunctionLike(ts, callee) || !callee.body) return undefined;
  const file = callee.getSourceFile();
  if (file.isDeclarationFile || !isProjectSource(file)) return undefined;
  const via = `${skipOuter(ts, call.expression).getText().replace(/\s+/g, '')}()`;
  for (const value of returnedValues(ts, callee.body).flatMap(v => alternatives(ts, v))) {
    const outside = outsideOrigin(input, value, callee);
    if (outside) return { ...outside, via };
    // A local of the function that it also stored outside (`provisioned.push(vm); return vm;`).
    const root = sourceOf(ts, value).root;
    const local = ts.isIdentifier(root) ? resolveIdentifier(ts, root) : undefined;
    const stored = local && (local.scope === callee || isWithinNode(local.scope, callee)) ? storedOutside(input, callee, local) : undefined;
    if (stored) return { ...stored, via };
  }
  return undefined;
}

/** Mutating methods of arrays, maps and sets. */
const MUTATORS = new Set(['push', 'unshift', 'splice', 'pop', 'shift', 'set', 'add', 'delete', 'clear', 'sort', 'reverse', 'fill', 'copyWithin']);

/** Where `fn` puts its local `local` into outside state: `list.push(x)`, `byId.set(k, x)`, `byId[k] = x`, `this.last = x`. */
function storedOutside(input: SharedInput, fn: ts.FunctionLikeDeclaration, local: LocalDecl): SharedOrigin | undefined {
  const { ts } = input;
  const isLocal = (n: ts.Node): boolean => ts.isIdentifier(skipOuter(ts, n as ts.Expression)) && resolveIdentifier(ts, skipOuter(ts, n as ts.Expression) as ts.Identifier)?.nameNode === local.nameNode;
  let found: SharedOrigin | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && MUTATORS.has(node.expression.name.text) && node.arguments.some(isLocal)) {
      // `provisioned.push(vm)`: the local is one of what the container holds.
      const container = outsideOrigin(input, node.expression.expression, fn);
      found = container && { ...container, level: levelAfter(container.level, ['element']) };
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && isLocal(node.right) &&
               (ts.isPropertyAccessExpression(node.left) || ts.isElementAccessExpression(node.left))) {
      // `this.last = vm`, `byId[k] = vm`: taken as the state itself, so that any change to it counts.
      const holder = outsideOrigin(input, node.left.expression, fn);
      found = holder && { ...holder, level: { at: 0, fresh: false } };
    }
    if (!found) node.forEachChild(visit);
  };
  if (fn.body) visit(fn.body);
  return found;
}

/** The class and member of `this.<member>` (the name `this.<member>`). */
function thisHolder(ts: TS, self: ts.Node, name: string): SharedOrigin['holder'] {
  let cls: ts.Node | undefined = self.parent;
  while (cls && !ts.isClassLike(cls)) cls = cls.parent;
  return cls && ts.isClassLike(cls) ? { cls, member: name.slice('this.'.length) } : undefined;
}

/** The declaration of a root name: through an import, the exported variable in its module. */
function declarationOf(input: SharedInput, root: LocalDecl, id: ts.Identifier): ts.Node {
  const { ts, checker } = input;
  if (root.kind !== 'import' || !checker) return root.nameNode;
  const declaration = symbolOf(ts, checker, id)?.valueDeclaration;
  return declaration && ts.isVariableDeclaration(declaration) && ts.isIdentifier(declaration.name) ? declaration.name : root.nameNode;
}

/**
 * Whether the code around the state ever changes the objects a local of it holds: its class, or its
 * module and `alsoIn` (the handler's module, which may import it). A change counts when it reaches
 * an object as deep in the state as the local's (`origin.level`) or deeper: a mutating method
 * (`jobs.push(x)`, `queues.get(q).sort()`), a write (`vm.attached = true`, `byId[k].n++`,
 * `Object.assign(vm, patch)`), through the state or a local read from it. A change to what holds
 * the local's objects (`queues.delete(q)`, `queues.set(q, [])`, `delete byId[k]`, `this.jobs = []`)
 * leaves them as they were, and state nothing changes (a catalogue) reads the same from a copy.
 */
export function isChangedState(ts: TS, origin: SharedOrigin, checker: ts.TypeChecker | undefined, alsoIn: ts.SourceFile): boolean {
  return [origin, ...origin.also ?? []].some(one => one.outside && isChangedOrigin(ts, one, checker, alsoIn));
}

function isChangedOrigin(ts: TS, origin: SharedOrigin, checker: ts.TypeChecker | undefined, alsoIn: ts.SourceFile): boolean {
  const holder = origin.holder;
  if (!holder) return true;
  const scopes: ts.Node[] = 'cls' in holder ? [holder.cls] : [...new Set([holder.declaration.getSourceFile(), alsoIn])];
  const isRootName = (e: ts.Expression): boolean => {
    if ('cls' in holder || !ts.isIdentifier(e)) return false;
    const decl = resolveIdentifier(ts, e);
    if (decl?.nameNode === holder.declaration) return true;
    if (decl && decl.kind !== 'import') return false;
    // Through an import (`import { carts as all } from './store.js'`): the variable it names.
    const target = checker && symbolOf(ts, checker, e);
    if (!target) return decl === undefined && e.text === (holder.declaration as ts.Identifier).text;
    const declaration = target.valueDeclaration;
    return !!declaration && ts.isVariableDeclaration(declaration) && declaration.name === holder.declaration;
  };
  const changed = changeLevels(ts, scopes, source =>
    'cls' in holder ? source.root.kind === ts.SyntaxKind.ThisKeyword && source.name === `this.${holder.member}` : isRootName(source.root));
  return changed.some(level => level === 'unknown' || (level.fresh ? level.at - 1 : level.at) >= origin.level.at);
}

/**
 * The levels of the state's objects that code in `scopes` changes (`unknown` where a change reaches
 * the state by a way the levels do not follow, such as a destructured local). `isState`: whether a
 * read starts at the state.
 */
function changeLevels(ts: TS, scopes: readonly ts.Node[], isState: (source: Source) => boolean): (Level | 'unknown')[] {
  const localLevels = new Map<ts.Node, Level | 'unknown' | undefined>();
  /** The deepest level of what `e` may evaluate to (`teams[t] ?? defaults`), when it is read from the state. */
  const levelOf = (e: ts.Expression): Level | 'unknown' | undefined => {
    let deepest: Level | 'unknown' | undefined;
    for (const value of alternatives(ts, e)) {
      const level = levelOfValue(value);
      if (level) deepest = level === 'unknown' || deepest === 'unknown' ? 'unknown' : !deepest || level.at > deepest.at ? level : deepest;
    }
    return deepest;
  };
  const levelOfValue = (e: ts.Expression): Level | 'unknown' | undefined => {
    const source = sourceOf(ts, e);
    if (isState(source)) return levelAfter(rootLevel(ts, source.root), source.steps);
    if (!ts.isIdentifier(source.root)) return undefined;
    const start = localLevel(source.root);
    return start === undefined || start === 'unknown' ? start : levelAfter(start, source.steps);
  };
  /** A local whose value was read from the state (`const vm = provisioned.find(...)`, `for (const vm of provisioned)`). */
  const localLevel = (id: ts.Identifier): Level | 'unknown' | undefined => {
    const declaration = resolveIdentifier(ts, id)?.declaration;
    if (!declaration || !ts.isVariableDeclaration(declaration)) return undefined;
    if (localLevels.has(declaration)) return localLevels.get(declaration);
    localLevels.set(declaration, undefined);
    const loop = declaration.parent.parent;
    const iterated = (ts.isForOfStatement(loop) || ts.isForInStatement(loop)) && loop.initializer === declaration.parent;
    const from = iterated ? loop.expression : declaration.initializer;
    // The deepest the local may sit: a change through it counts wherever it may land.
    let level = from && levelOf(from);
    // `for (const m of list)`: an element; `for (const k in record)`: a key.
    if (level && level !== 'unknown' && iterated) level = ts.isForInStatement(loop) ? undefined : levelAfter(level, ['element']);
    // `const { items } = cart`: somewhere below what the levels follow.
    if (level && !ts.isIdentifier(declaration.name)) level = 'unknown';
    localLevels.set(declaration, level);
    return level;
  };
  const operand = (node: ts.Node): ts.Expression | undefined => {
    if (ts.isDeleteExpression(node)) return node.expression;
    if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) return node.operand;
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) return node.left;
    return undefined;
  };
  /** The object a node changes: the owner of a written property, the receiver of a mutating method, the target of Object.assign. */
  const changedObject = (node: ts.Node): ts.Expression | undefined => {
    const target = operand(node);
    const written = target && skipOuter(ts, target);
    if (written && (ts.isPropertyAccessExpression(written) || ts.isElementAccessExpression(written))) return written.expression;
    if (!ts.isCallExpression(node)) return undefined;
    if (ts.isPropertyAccessExpression(node.expression) && MUTATORS.has(node.expression.name.text)) return node.expression.expression;
    if (node.expression.getText() === 'Object.assign' && node.arguments.length > 0) return node.arguments[0];
    return undefined;
  };
  const levels: (Level | 'unknown')[] = [];
  const visit = (node: ts.Node): void => {
    const object = changedObject(node);
    const level = object && levelOf(object);
    if (level) levels.push(level);
    node.forEachChild(visit);
  };
  for (const scope of scopes) visit(scope);
  return levels;
}

/**
 * `CATALOG[sku]`, `users.get(id)`, `this.carts.get(id)`, `carts.find(c => c.id === id)`: a
 * never-reassigned local read from outside by key (a pure expression), which gives the same object
 * when it runs again.
 */
export function isKeyedLookup(ts: TS, decl: LocalDecl, writes: number, checker: ts.TypeChecker | undefined): boolean {
  const declaration = decl.declaration;
  if (decl.kind !== 'const' || !ts.isVariableDeclaration(declaration) || !ts.isIdentifier(declaration.name) || !declaration.initializer) return false;
  if (writes > 0) return false;
  // `DOCS.find(d => d.id === id) ?? DOCS[0]`: every value it may take is such a lookup (or nothing).
  return alternatives(ts, declaration.initializer).every(value =>
    value.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(value) && value.text === 'undefined') || isLookup(ts, value, checker));
}

function isLookup(ts: TS, value: ts.Expression, checker: ts.TypeChecker | undefined): boolean {
  let e = value;
  let steps = 0;
  for (;;) {
    if (ts.isPropertyAccessExpression(e)) e = skipOuter(ts, e.expression);
    else if (ts.isElementAccessExpression(e) && isPureExpression(ts, e.argumentExpression)) e = skipOuter(ts, e.expression);
    else if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === 'get' && isPureCall(ts, e, checker)) e = skipOuter(ts, e.expression.expression);
    else if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && (e.expression.name.text === 'find' || e.expression.name.text === 'findLast') &&
             e.arguments.length === 1 && isPureCallback(ts, e.arguments[0]!, checker)) e = skipOuter(ts, e.expression.expression);
    else break;
    steps++;
  }
  return steps > 0 && (ts.isIdentifier(e) || e.kind === ts.SyntaxKind.ThisKeyword);
}

/** Methods that only read their receiver. */
const READING_METHODS = new Set([
  'map', 'filter', 'reduce', 'find', 'findIndex', 'some', 'every', 'includes', 'indexOf', 'join', 'slice', 'at', 'keys',
  'values', 'entries', 'toString', 'trim', 'toLowerCase', 'toUpperCase', 'split', 'startsWith', 'endsWith', 'padStart',
  'padEnd', 'replace', 'replaceAll', 'substring', 'charAt', 'toFixed', 'localeCompare', 'get', 'has', 'toISOString',
]);

/** The node a reference stands in once property reads (`note.tags[0]`) are taken with it. */
function accessChain(ts: TS, id: ts.Identifier): { node: ts.Node; accessed: boolean } {
  let node: ts.Node = id;
  let accessed = false;
  while (node.parent && (ts.isPropertyAccessExpression(node.parent) || ts.isElementAccessExpression(node.parent)) &&
         (node.parent as ts.PropertyAccessExpression).expression === node) {
    node = node.parent;
    accessed = true;
  }
  return { node, accessed };
}

/**
 * `note.title`, `${note.title}`, `notes.map(n => n.title)`: uses that read values only, which a copy
 * answers the same. Anything else (passing the object on, comparing it, writing through it) may
 * depend on its identity.
 */
export function isPlainRead(ts: TS, id: ts.Identifier, checker: ts.TypeChecker | undefined, depth = 0): boolean {
  // A string or a number has no identity to lose.
  if (checker && !holdsObjects(ts, checker, checker.getTypeAtLocation(id))) return true;
  const { node, accessed } = accessChain(ts, id);
  const parent = node.parent;
  if (!parent) return false;
  if (ts.isTemplateSpan(parent) || (ts.isCallExpression(parent) && ts.isPropertyAccessExpression(parent.expression) &&
      parent.expression.getText() === 'JSON.stringify' && parent.arguments[0] === node)) {
    return true;
  }
  // `const [item, price] = entries[index]`, `const entry = entries[index]`: the locals it declares
  // are read for their values only (a copy gives the same), or the read is an identity use.
  let value: ts.Node = node;
  while (ts.isNonNullExpression(value.parent) || ts.isParenthesizedExpression(value.parent) || ts.isAsExpression(value.parent) || ts.isSatisfiesExpression(value.parent)) value = value.parent;
  const declared = value.parent;
  if (ts.isVariableDeclaration(declared) && declared.initializer === value && (accessed || !ts.isIdentifier(declared.name))) {
    return !!checker && bindingIdentifiers(ts, declared.name).every(name => readForValues(ts, name, checker, depth));
  }
  if (!accessed) return isTruthTest(ts, node);
  // A method call at the end of the chain: only reading methods.
  if (ts.isCallExpression(parent) && parent.expression === node) {
    return ts.isPropertyAccessExpression(node) && READING_METHODS.has(node.name.text);
  }
  if (isWrite(ts, node)) return false;
  // The value read is used further: fine when it is a primitive; objects reached this way are shared too.
  if (!checker) return false;
  const type = checker.getTypeAtLocation(node);
  return !holdsObjects(ts, checker, type);
}

/** A local whose value is a primitive, or whose every use reads values only (followed a few declarations deep). */
function readForValues(ts: TS, name: ts.Identifier, checker: ts.TypeChecker, depth: number): boolean {
  if (!holdsObjects(ts, checker, checker.getTypeAtLocation(name))) return true;
  const decl = resolveIdentifier(ts, name);
  if (!decl || decl.nameNode !== name || depth >= 3) return false;
  let plain = true;
  forEachValueIdentifier(ts, decl.scope, ref => {
    if (plain && ref !== name && resolveIdentifier(ts, ref) === decl) plain = isPlainRead(ts, ref, checker, depth + 1);
  });
  return plain;
}

/** `if (x)`, `!x`, `x ? a : b`, `x === undefined`: whether there is one, which a copy answers the same. */
function isTruthTest(ts: TS, node: ts.Node): boolean {
  const parent = node.parent;
  if ((ts.isIfStatement(parent) || ts.isWhileStatement(parent) || ts.isDoStatement(parent)) && parent.expression === node) return true;
  if (ts.isConditionalExpression(parent) && parent.condition === node) return true;
  if (ts.isPrefixUnaryExpression(parent) && parent.operator === ts.SyntaxKind.ExclamationToken) return true;
  if (ts.isBinaryExpression(parent) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken].includes(parent.operatorToken.kind)) {
    const other = skipOuter(ts, parent.left === node ? parent.right : parent.left);
    return other.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(other) && other.text === 'undefined');
  }
  return false;
}

/** `x.a = 1`, `x.n++`, `delete x.a`: the node is written. */
function isWrite(ts: TS, node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isBinaryExpression(parent) && parent.left === node && parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
    return true;
  }
  return ts.isDeleteExpression(parent) || ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent);
}

/**
 * How the code after the question relies on the object itself, for the refusal: `changes` it
 * (writes through it, calls a method that is not a plain read), or `uses` it (passes it on,
 * compares it, walks it). `code`: the statement's first line, cut short.
 */
export function identityUse(ts: TS, id: ts.Identifier): { changes: boolean; code: string; line: number } {
  const { node } = accessChain(ts, id);
  const parent = node.parent;
  // `for (const job of small) job.done = true`: the change is made through the loop's element.
  if (ts.isForOfStatement(parent) && parent.expression === node && ts.isVariableDeclarationList(parent.initializer)) {
    const elements = new Set(parent.initializer.declarations.flatMap(d => bindingIdentifiers(ts, d.name)).map(n => resolveIdentifier(ts, n)));
    let through: ts.Identifier | undefined;
    forEachValueIdentifier(ts, parent.statement, ref => {
      if (!through && elements.has(resolveIdentifier(ts, ref)) && changesThrough(ts, ref)) through = ref;
    });
    if (through) return { ...identityUse(ts, through), changes: true };
  }
  let statement: ts.Node = node;
  while (statement.parent && !isStatement(ts, statement) && !isFunctionLike(ts, statement.parent)) statement = statement.parent;
  return { changes: changesThrough(ts, id), code: codeAt(statement), line: lineOf(id) };
}

/** `x.a = 1`, `x.items.push(y)`: a write through the reference (or a call of a method that is not a plain read). */
function changesThrough(ts: TS, id: ts.Identifier): boolean {
  const { node, accessed } = accessChain(ts, id);
  const parent = node.parent;
  return (accessed && isWrite(ts, node)) ||
    (ts.isCallExpression(parent) && parent.expression === node && ts.isPropertyAccessExpression(node) && !READING_METHODS.has(node.name.text));
}

function isStatement(ts: TS, node: ts.Node): boolean {
  return ts.isExpressionStatement(node) || ts.isVariableStatement(node) || ts.isReturnStatement(node) || ts.isIfStatement(node) ||
    ts.isIterationStatement(node, false) || ts.isSwitchStatement(node) || ts.isThrowStatement(node);
}

/** Arrays and objects: values with an identity a copy does not keep. */
function holdsObjects(ts: TS, checker: ts.TypeChecker, type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some(t => holdsObjects(ts, checker, t));
  return (type.flags & (ts.TypeFlags.Object | ts.TypeFlags.NonPrimitive | ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0;
}

/**
 * The calls after the question that may change state (not pure, not logging or the like, not the
 * next question), in order: a local of that state read after one of them (`attachDisk(vm.id)`
 * before `vm.attached`) would miss from a copy what it changes.
 */
export function changingCallsAfter(input: SharedInput, awaited: ts.Expression, isQuestion: (awaited: ts.Expression) => boolean): ts.CallExpression[] {
  const { ts, checker, fn } = input;
  const found: ts.CallExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.pos >= awaited.end && !isPureCall(ts, node, checker) && !isOutcomeNeutralCall(ts, node) &&
        !(ts.isAwaitExpression(node.parent) && isQuestion(node.parent)) && !isQuestion(node)) {
      found.push(node);
    }
    node.forEachChild(visit);
  };
  if (fn.body) visit(fn.body);
  return found;
}

/** `attachDisk(vm.id)`, line 95: the call, for a refusal. */
export function callUse(call: ts.CallExpression): { code: string; line: number } {
  return { code: codeAt(call), line: lineOf(call) };
}

/**
 * A node's first line, cut short, and before any `: ` or `; ` (a marker ends its first clause there).
 */
function codeAt(node: ts.Node): string {
  const first = node.getText().split('\n')[0]!.trim();
  const stop = Math.min(...[/: /, /; /].map(p => p.exec(first)?.index ?? first.length), 32);
  return stop < first.length ? `${first.slice(0, stop).trimEnd()}…` : first;
}

/** The locals of `fn` that `node` reads, but those it declares itself. */
export function localsReadBy(ts: TS, node: ts.Node, fn: ts.FunctionLikeDeclaration): LocalDecl[] {
  const read = new Set<LocalDecl>();
  forEachValueIdentifier(ts, node, id => {
    const d = resolveIdentifier(ts, id);
    if (d && !isWithinNode(d.nameNode, node) && (d.scope === fn || isWithinNode(d.scope, fn))) read.add(d);
  });
  return [...read];
}

/** The SDK's error classes: building one does nothing else. */
const SDK_ERRORS = new Set(['McpError', 'ProtocolError']);

/**
 * `if (!cart) return { isError: true, ... };` (or `throw new Error(...)`, after logging lines): a
 * guard that only computes, maybe logs, and leaves. Run again on resume, it narrows a record looked
 * up again as the first round narrowed it, and answers a record gone in between as it would have then.
 */
export function isPureExitGuard(ts: TS, st: ts.Statement, checker: ts.TypeChecker | undefined): st is ts.IfStatement {
  if (!ts.isIfStatement(st) || st.elseStatement || !isPureExpression(ts, st.expression, checker)) return false;
  const then = st.thenStatement;
  const body = ts.isBlock(then) ? then.statements : [then];
  const exit = body[body.length - 1];
  if (!exit || !(ts.isReturnStatement(exit) || ts.isThrowStatement(exit))) return false;
  if (exit.expression && !isPureExitValue(ts, exit.expression, checker)) return false;
  return body.slice(0, -1).every(line => ts.isExpressionStatement(line) && ts.isCallExpression(line.expression) && isLogging(ts, line.expression) &&
    line.expression.arguments.every(a => isPureExpression(ts, a, checker)));
}

/** A result or error built from pure parts: `{ isError: true, ... }`, `new Error(...)`. */
function isPureExitValue(ts: TS, e: ts.Expression, checker: ts.TypeChecker | undefined): boolean {
  const value = skipOuter(ts, e);
  if (ts.isNewExpression(value) && ts.isIdentifier(value.expression) && (PURE_CONSTRUCTORS.has(value.expression.text) || SDK_ERRORS.has(value.expression.text))) {
    return (value.arguments ?? []).every(a => isPureExpression(ts, a, checker));
  }
  return isPureExpression(ts, value, checker);
}

/**
 * The guards right after a declaration, before `until` (the question's statement): the `if`s that
 * follow it in its list and read one of `decls` (the declaration's locals).
 */
export function guardsAfter(ts: TS, st: ts.Statement, decls: ReadonlySet<LocalDecl>, until: ts.Node): ts.IfStatement[] {
  const list = statementList(ts, st);
  if (!list) return [];
  const guards: ts.IfStatement[] = [];
  for (const next of list.slice(list.indexOf(st) + 1)) {
    if (next.end > until.pos || !ts.isIfStatement(next)) break;
    let reads = false;
    forEachValueIdentifier(ts, next.expression, id => { const d = resolveIdentifier(ts, id); if (d && decls.has(d)) reads = true; });
    if (!reads) break;
    guards.push(next);
  }
  return guards;
}
