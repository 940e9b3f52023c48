import type * as ts from 'typescript';
import { afterQuestion, buildFlow, liveness, reaches, scopeLiveness, type FlowNode, type FunctionFlow } from './cfg.js';
import { isPureExpression } from './flow.js';
import { jsonnessOfInitializer, jsonnessOfType, liveObjectOf, type Jsonness } from './jsonType.js';
import { forEachValueIdentifier, isFunctionLike, isWithinNode, isWriteReference, resolveIdentifier, scopeDeclarations, type LocalDecl } from './scope.js';
import { lineOf } from './places.js';
import { secretValueOf } from './secrets.js';
import { fileTypeNames, printType, SDK_TYPE_NAMES } from './typeNames.js';
import { callUse, changingCallsAfter, guardsAfter, identityUse, isChangedState, isKeyedLookup, isPlainRead, isPureExitGuard, localsReadBy, sharedOrigin, type SharedOrigin } from './sharedState.js';
import { skipOuter } from './sdk.js';
import type { LiveLocal, QuestionKind, TS } from './types.js';

/**
 * The handler-local values a question splits: declared before it, referenced after it. Each one
 * either travels in requestState (it must survive JSON) or has a side-effect-free declaration that
 * can simply run again on resume.
 */

export interface LiveLocalsInput {
  ts: TS;
  checker: ts.TypeChecker | undefined;
  fn: ts.FunctionLikeDeclaration;
  statement: ts.Statement;
  awaited: ts.Expression;
  /** Whether the function's parameters are supplied again on every round (handlers: yes; helpers: no). */
  paramsResupplied: boolean;
  /** The question kind of an `await` of a question in this function, if `expr` is one. */
  questionOf: (expr: ts.Expression) => QuestionKind | undefined;
  /** Parts of the question evaluated again on resume (the arguments of an asking helper's call). */
  reevaluated?: readonly ts.Node[];
  /** The function's flow graph and liveness, shared by all its questions (built here when absent). */
  flow?: FlowFacts;
  /** Locals the resumed round needs besides what it reads (to enter the statements around the question again). */
  alsoLive?: readonly LocalDecl[];
}

export interface FlowFacts {
  graph: FunctionFlow;
  live: Map<FlowNode, Set<LocalDecl>>;
  /** Per node, the locals whose current binding is referenced later (see scopeLiveness). */
  inScope: Map<FlowNode, Set<LocalDecl>>;
}

/** Whether control can go from the write `id` to the question, in the round that asks it. */
function writeReaches(graph: FunctionFlow, id: ts.Identifier, awaited: ts.Expression): boolean {
  const suspend = graph.suspendOf.get(awaited);
  const from = graph.nodes.find(n => n.refs.includes(id));
  return !!suspend && !!from && reaches(from, suspend);
}

/** The flow graph of `fn` split at its questions, with the liveness of every node. */
export function flowOf(ts: TS, fn: ts.FunctionLikeDeclaration, questions: readonly ts.Node[]): FlowFacts {
  const graph = buildFlow(ts, fn, new Set(questions));
  return { graph, live: liveness(graph), inScope: scopeLiveness(graph) };
}

export interface LiveLocalsResult {
  locals: LiveLocal[];
  decls: Map<LiveLocal, LocalDecl>;
}

export const ANSWER_TYPES: Record<QuestionKind, string> = {
  elicitation: 'ElicitResult',
  sampling: 'CreateMessageResult',
  roots: 'ListRootsResult',
};

export function liveLocals(input: LiveLocalsInput): LiveLocalsResult {
  const { ts, fn, statement, awaited } = input;
  const visible = visibleBefore(ts, fn, statement, awaited);
  const references = referencesIn(ts, fn);
  const flow = input.flow ?? flowOf(ts, fn, [awaited]);
  const after = afterQuestion(flow.graph, flow.live, flow.inScope, awaited);
  // A question in a function nested in `fn` does not split `fn` (it is refused as a nested callback).
  if (!after) return { locals: [], decls: new Map() };

  // Read after the question (its value at the question is needed), or only referenced there (the
  // resumed code still needs the declaration in scope).
  const live = new Set<LocalDecl>([...after.live].filter(d => visible.has(d)));
  const referenced = new Set<LocalDecl>();
  /** The first read of each local after the question: its type there keeps the narrowing from before. */
  const firstRead = new Map<LocalDecl, ts.Identifier>();
  /** Every reference after the question, per local. */
  const refsAfter = new Map<LocalDecl, ts.Identifier[]>();
  const note = (id: ts.Identifier, decl: LocalDecl): void => {
    referenced.add(decl);
    const refs = refsAfter.get(decl) ?? [];
    if (!refs.includes(id)) refs.push(id);
    refsAfter.set(decl, refs);
    const known = firstRead.get(decl);
    // Prefer the reads that follow the question in the text (a loop's next iteration comes later).
    const rank = (n: ts.Identifier): number => (n.pos >= awaited.end ? n.pos : n.pos + 1e9);
    if (!isWriteReference(ts, id) && (!known || rank(id) < rank(known))) firstRead.set(decl, id);
  };
  for (const id of after.refs) {
    const decl = resolveIdentifier(ts, id);
    // References to a binding declared anew after the question (the next loop iteration's) do not count.
    if (decl && visible.has(decl) && (after.inScope.has(decl) || after.live.has(decl))) note(id, decl);
  }
  for (const decl of input.alsoLive ?? []) if (visible.has(decl)) live.add(decl);
  for (const node of input.reevaluated ?? []) {
    forEachValueIdentifier(ts, node, id => {
      const decl = resolveIdentifier(ts, id);
      if (decl && visible.has(decl)) {
        live.add(decl);
        note(id, decl);
      }
    });
  }

  // Parameters come back with every retry unless the handler reassigns them.
  const resupplied = (decl: LocalDecl): boolean => decl.kind === 'parameter' && input.paramsResupplied && !(references.get(decl)?.writes ?? 0);
  for (const decl of [...live]) if (resupplied(decl)) live.delete(decl);
  for (const decl of [...referenced]) if (resupplied(decl) || live.has(decl)) referenced.delete(decl);
  // Only referenced, never read for its value: declaring it again is all the resumed code needs.
  for (const decl of referenced) live.add(decl);
  const declaredOnly = referenced;

  /**
   * Why the local must be the original object after the question, not a copy: the code after it uses
   * its identity (changes it, passes it on), or calls something that may change the shared state it
   * was read from before reading it (`attachDisk(vm.id)` before `vm.attached`).
   */
  let changingCalls: ts.CallExpression[] | undefined;
  const needsOriginal = (decl: LocalDecl, isLive: (d: LocalDecl) => boolean): { shared: SharedOrigin; identity?: ts.Identifier; call?: ts.CallExpression } | undefined => {
    const reads = refsAfter.get(decl) ?? [];
    const identity = reads.find(id => !isPlainRead(ts, id, input.checker));
    if (identity) {
      const shared = sharedOrigin(input, decl, isLive);
      return shared && { shared, identity };
    }
    const lastRead = Math.max(...reads.filter(r => r.pos >= awaited.end).map(r => r.pos));
    changingCalls ??= changingCallsAfter(input, awaited, e => input.questionOf(e) !== undefined);
    const call = changingCalls.find(c => c.pos < lastRead);
    if (!call) return undefined;
    const shared = sharedOrigin(input, decl, isLive);
    return shared?.outside && isChangedState(ts, shared, input.checker, fn.getSourceFile()) ? { shared, call } : undefined;
  };

  /**
   * A guard right after a lookup that narrows it (`if (!cart) { audit(id); return ... }`) but cannot
   * run again on resume with the lookup: it does more than log and leave, or reads other locals.
   */
  const unrepeatable = new Map<LocalDecl, ts.IfStatement>();
  const unrepeatableGuard = (decl: LocalDecl): ts.IfStatement | undefined => {
    const st = decl.declaration.parent?.parent;
    if (!st || !ts.isVariableStatement(st)) return undefined;
    return guardsAfter(ts, st, new Set([decl]), statement).find(guard => {
      if (!isPureExitGuard(ts, guard, input.checker)) return true;
      return localsReadBy(ts, guard, fn).some(d => d !== decl && !resupplied(d) && !isKeyedLookup(ts, d, references.get(d)?.writes ?? 0, input.checker));
    });
  };

  // A rebuilt declaration needs what it refers to; carry or rebuild those too.
  const how = new Map<LocalDecl, 'carry' | 'rebuild' | 'declare'>();
  const secrets = new Map<LocalDecl, string>();
  const pending = [...live];
  // `x = await ask()`: that write gives x the answer, it does not run before the question.
  const answerTarget = answerAssignmentTarget(ts, statement, awaited);
  while (pending.length > 0) {
    const decl = pending.pop()!;
    let mode: 'carry' | 'rebuild' | 'declare' = rebuildable(ts, fn, decl, references, awaited.pos, answerTarget, write => writeReaches(flow.graph, write, awaited), after.live.has(decl)) ? 'rebuild' : declaredOnly.has(decl) ? 'declare' : 'carry';
    // `const item = CATALOG[sku]` used by identity after the question: look it up again by its key
    // on resume (what a hand-written MRTR handler does) rather than carry a copy.
    if (mode === 'carry' && isKeyedLookup(ts, decl, references.get(decl)?.writes ?? 0, input.checker) && needsOriginal(decl, d => live.has(d))) {
      const guard = unrepeatableGuard(decl);
      if (guard) unrepeatable.set(decl, guard);
      else mode = 'rebuild';
    }
    // `const store = app` / `const self = this`: another name for an object the server keeps, which
    // is the same object on resume. It is read again, not copied.
    if (mode === 'carry' && isServerObjectAlias(ts, fn, decl, references)) mode = 'rebuild';
    // A secret is better not minted into the state (it leaves the server with every round): read again on
    // resume when that is side-effect free, else carried and named in a review note.
    const secret = mode === 'carry' ? secretValueOf(ts, decl) : undefined;
    if (secret?.rereadable && (decl.kind === 'const' || decl.kind === 'let') && !(references.get(decl)?.writes ?? 0)) mode = 'rebuild';
    else if (secret) secrets.set(decl, secret.origin);
    how.set(decl, mode);
    if (mode !== 'rebuild') continue;
    forEachValueIdentifier(ts, rebuildSource(ts, decl), id => {
      const dep = resolveIdentifier(ts, id);
      // The rebuilt declaration reads it here: its type there (narrowed) is the one the state keeps.
      if (dep && dep !== decl && !firstRead.has(dep) && !isWriteReference(ts, id)) firstRead.set(dep, id);
      if (!dep || dep === decl || !visible.has(dep) || live.has(dep)) return;
      if (resupplied(dep)) return;
      live.add(dep);
      declaredOnly.delete(dep);
      pending.push(dep);
    });
  }

  const locals: LiveLocal[] = [];
  const decls = new Map<LiveLocal, LocalDecl>();
  for (const decl of [...live].sort((a, b) => a.nameNode.pos - b.nameNode.pos)) {
    const mode = how.get(decl)!;
    const described = describe(input, decl, firstRead.get(decl));
    const { type, typeProblem, typeImports } = described;
    let { jsonness } = described;
    const needed = mode === 'carry' && jsonness.json === 'yes' ? needsOriginal(decl, d => live.has(d) && d !== decl) : undefined;
    let sharedState: LiveLocal['sharedState'];
    if (needed?.shared.outside) {
      const { shared, identity, call } = needed;
      const use = identity ? identityUse(ts, identity) : { ...callUse(call!), changes: 'call' as const };
      const guard = unrepeatable.get(decl);
      sharedState = { origin: shared.name, via: shared.via, ...use, guardLine: guard && lineOf(guard) };
      jsonness = { json: 'no', why: `it holds objects of \`${shared.name}\`${shared.via ? ` (returned by ${shared.via})` : ''}, and a JSON copy would not reach them` };
    } else if (needed) {
      jsonness = { json: 'no', why: `it holds objects of \`${needed.shared.name}\`, and a JSON copy would lose their identity and any change made through it` };
    }
    const local: LiveLocal = {
      name: decl.name,
      type,
      json: mode === 'carry' ? jsonness.json : 'yes',
      how: mode,
      why: mode === 'carry' && jsonness.json !== 'yes' ? jsonness.why : undefined,
      secret: mode === 'carry' ? secrets.get(decl) : undefined,
      isParameter: decl.kind === 'parameter',
      liveObject: mode === 'carry' && jsonness.json === 'no' && !needed ? liveObjectOfDecl(input, decl) : undefined,
      sharedState,
      declaration: decl.declaration,
      typeProblem: mode !== 'rebuild' ? typeProblem : undefined,
      typeImports: mode !== 'rebuild' ? typeImports : [],
    };
    locals.push(local);
    decls.set(local, decl);
  }
  return { locals, decls };
}

function liveObjectOfDecl(input: LiveLocalsInput, decl: LocalDecl): string | undefined {
  const { ts, checker } = input;
  const symbol = checker?.getSymbolAtLocation(decl.nameNode);
  return symbol && liveObjectOf(ts, checker!, checker!.getTypeOfSymbolAtLocation(symbol, decl.nameNode));
}

/** Locals in scope at the question and declared before it (function declarations hoist). */
function visibleBefore(ts: TS, fn: ts.FunctionLikeDeclaration, statement: ts.Statement, awaited: ts.Expression): Set<LocalDecl> {
  const visible = new Set<LocalDecl>();
  for (let node: ts.Node | undefined = statement.parent; node; node = node.parent) {
    for (const decl of scopeDeclarations(ts, node).values()) {
      const insideStatement = decl.nameNode.pos >= statement.pos && decl.nameNode.end <= statement.end;
      if (insideStatement) continue;
      if (decl.kind === 'parameter' || decl.kind === 'function' || decl.nameNode.end <= awaited.pos) visible.add(decl);
    }
    if (node === fn) break;
  }
  return visible;
}

interface RefCounts {
  reads: number;
  writes: number;
  /** Start offsets of the writes. */
  writeAt: number[];
  writeNodes: ts.Identifier[];
}

/** Per function: every question of a handler asks for its references again (read only, not changed). */
const referenceCounts = new WeakMap<ts.FunctionLikeDeclaration, Map<LocalDecl, RefCounts>>();

/** How often each local of the function is read and written. */
function referencesIn(ts: TS, fn: ts.FunctionLikeDeclaration): Map<LocalDecl, RefCounts> {
  let counts = referenceCounts.get(fn);
  if (!counts) referenceCounts.set(fn, (counts = countReferences(ts, fn)));
  return counts;
}

function countReferences(ts: TS, fn: ts.FunctionLikeDeclaration): Map<LocalDecl, RefCounts> {
  const counts = new Map<LocalDecl, RefCounts>();
  forEachValueIdentifier(ts, fn, id => {
    const decl = resolveIdentifier(ts, id);
    if (!decl) return;
    let c = counts.get(decl);
    if (!c) counts.set(decl, (c = { reads: 0, writes: 0, writeAt: [], writeNodes: [] }));
    if (isWriteReference(ts, id)) {
      c.writes++;
      c.writeAt.push(id.pos);
      c.writeNodes.push(id);
    }
    else c.reads++;
  });
  // Property writes through a parameter (`args.x = 1`) change what a retry would see.
  forEachValueIdentifier(ts, fn, id => {
    const decl = resolveIdentifier(ts, id);
    if (decl?.kind !== 'parameter') return;
    let node: ts.Node = id;
    while (node.parent && (ts.isPropertyAccessExpression(node.parent) || ts.isElementAccessExpression(node.parent)) &&
           (node.parent as ts.PropertyAccessExpression).expression === node) {
      node = node.parent;
    }
    if (node !== id && node.parent && ts.isBinaryExpression(node.parent) && node.parent.left === node &&
        node.parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      counts.get(decl)!.writes++;
      counts.get(decl)!.writeAt.push(id.pos);
      counts.get(decl)!.writeNodes.push(id);
    }
  });
  return counts;
}

/**
 * Re-running the declaration gives the same value and does nothing else: function declarations,
 * and never-reassigned variables initialised with function values, literals or pure expressions of
 * such, and declarations without initializer that are assigned only after the question.
 */
function rebuildable(ts: TS, fn: ts.FunctionLikeDeclaration, decl: LocalDecl, references: Map<LocalDecl, RefCounts>, questionAt: number, answerTarget: ts.Identifier | undefined, reachesQuestion: (write: ts.Identifier) => boolean, readAfter: boolean): boolean {
  const writes = references.get(decl)?.writes ?? 0;
  // A write the flow graph leads from to the question gives the local a value before it.
  const writtenBefore = (references.get(decl)?.writeNodes ?? []).some(w => w.pos !== answerTarget?.pos && reachesQuestion(w));
  if (decl.kind === 'function') return true;
  if (decl.kind === 'class') {
    const cls = decl.declaration as ts.ClassDeclaration;
    return cls.members.every(m => !ts.isClassStaticBlockDeclaration(m) && !(m.name && ts.isComputedPropertyName(m.name)));
  }
  if (decl.kind !== 'const' && decl.kind !== 'let' && decl.kind !== 'var') return false;
  const declaration = decl.declaration;
  if (!ts.isVariableDeclaration(declaration)) return false;
  // The element of a for-of loop: the loop's position gives it again (the loop is resumed by index).
  const loop = declaration.parent.parent;
  if ((ts.isForOfStatement(loop) || ts.isForInStatement(loop)) && loop.initializer === declaration.parent) return writes === 0;
  if (declaration.initializer && writes === 0 && isElementOfLocal(ts, declaration.initializer, fn, questionAt)) return true;
  if (!ts.isIdentifier(declaration.name)) return false;
  // `let x;` whose value at the question is not needed (given its value only after it, or assigned
  // again before it is read): declaring it again is all resume needs.
  if (!declaration.initializer) return !writtenBefore || !readAfter;
  if (writes > 0) return false;
  return isRebuildableValue(ts, declaration.initializer);
}

/**
 * `items[index]`: an element of an array the handler holds (a parameter, or a local that is itself
 * carried or rebuilt), read again at the same index. It is the same element in every round.
 */
function isElementOfLocal(ts: TS, init: ts.Expression, fn: ts.FunctionLikeDeclaration, questionAt: number): boolean {
  const e = skipOuter(ts, init);
  if (!ts.isElementAccessExpression(e) || e.questionDotToken) return false;
  const key = skipOuter(ts, e.argumentExpression);
  if (!ts.isIdentifier(key) && !ts.isNumericLiteral(key) && !ts.isStringLiteral(key)) return false;
  const target = skipOuter(ts, e.expression);
  if (!ts.isIdentifier(target)) return false;
  const decl = resolveIdentifier(ts, target);
  if (!decl || !(decl.scope === fn || isWithinNode(decl.scope, fn))) return false;
  // Neither the array nor the index may change between the read and the question.
  const watched = new Set([decl, ts.isIdentifier(key) ? resolveIdentifier(ts, key) : undefined].filter(Boolean));
  let changed = false;
  forEachValueIdentifier(ts, fn, id => {
    if (!changed && id.pos > init.end && id.end < questionAt && isWriteReference(ts, id) && watched.has(resolveIdentifier(ts, id))) changed = true;
  });
  return !changed;
}

/** The identifier in `x = await ask(...)`, the question's own statement. */
function answerAssignmentTarget(ts: TS, statement: ts.Statement, awaited: ts.Expression): ts.Identifier | undefined {
  if (!ts.isExpressionStatement(statement)) return undefined;
  let e = statement.expression;
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  if (!ts.isBinaryExpression(e) || e.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return undefined;
  let right = e.right;
  while (ts.isParenthesizedExpression(right)) right = right.expression;
  const left = skipOuter(ts, e.left);
  return right === awaited && ts.isIdentifier(left) ? left : undefined;
}

/**
 * `const x = <name>` where the name is bound outside the handler and cannot be bound again (a const,
 * an import, a function or class), or `const self = this`.
 */
function isServerObjectAlias(ts: TS, fn: ts.FunctionLikeDeclaration, decl: LocalDecl, references: Map<LocalDecl, RefCounts>): boolean {
  const declaration = decl.declaration;
  if (decl.kind !== 'const' || !ts.isVariableDeclaration(declaration) || !ts.isIdentifier(declaration.name) || !declaration.initializer) return false;
  if ((references.get(decl)?.writes ?? 0) > 0) return false;
  const e = skipOuter(ts, declaration.initializer);
  if (e.kind === ts.SyntaxKind.ThisKeyword) return ts.isArrowFunction(fn);
  if (!ts.isIdentifier(e)) return false;
  const root = resolveIdentifier(ts, e);
  if (!root || root.scope === fn || isWithinNode(root.scope, fn)) return false;
  return root.kind === 'const' || root.kind === 'import' || root.kind === 'function' || root.kind === 'class';
}

/** Values that are the same each time they are computed and that nothing can mutate unnoticed. */
function isRebuildableValue(ts: TS, init: ts.Expression): boolean {
  const e = skipOuter(ts, init);
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return true;
  if (ts.isStringLiteralLike(e) || ts.isNumericLiteral(e) || e.kind === ts.SyntaxKind.TrueKeyword ||
      e.kind === ts.SyntaxKind.FalseKeyword || e.kind === ts.SyntaxKind.NullKeyword) {
    return true;
  }
  if (ts.isTemplateExpression(e)) return e.templateSpans.every(span => isPureExpression(ts, span.expression) && !containsObjectLiteral(ts, span.expression));
  return false;
}

function containsObjectLiteral(ts: TS, node: ts.Node): boolean {
  if (ts.isObjectLiteralExpression(node) || ts.isArrayLiteralExpression(node)) return true;
  return !!node.forEachChild(child => (containsObjectLiteral(ts, child) ? true : undefined));
}

function rebuildSource(ts: TS, decl: LocalDecl): ts.Node {
  const declaration = decl.declaration;
  if (!ts.isVariableDeclaration(declaration)) return declaration;
  const loop = declaration.parent.parent;
  if ((ts.isForOfStatement(loop) || ts.isForInStatement(loop)) && loop.initializer === declaration.parent) return loop.expression;
  return declaration.initializer ?? declaration;
}

interface Description {
  type: string | undefined;
  jsonness: Jsonness;
  typeProblem?: string | undefined;
  typeImports: string[];
}

function describe(input: LiveLocalsInput, decl: LocalDecl, firstRead: ts.Identifier | undefined): Description {
  const { ts, checker } = input;
  const declaration = decl.declaration;
  const init = ts.isVariableDeclaration(declaration) && ts.isIdentifier(declaration.name) ? declaration.initializer : undefined;
  const answer = init && answerKind(ts, init, input.questionOf);
  if (answer) return { type: ANSWER_TYPES[answer], jsonness: { json: 'yes' }, typeImports: [ANSWER_TYPES[answer]] };
  if (decl.kind === 'function' || decl.kind === 'class') {
    return { type: undefined, jsonness: { json: 'no', why: `${decl.kind} values cannot travel as JSON` }, typeImports: [] };
  }
  const syntactic = (): Description => {
    const jsonness = jsonnessOfInitializer(ts, init, e => answerKind(ts, e, input.questionOf) !== undefined);
    return { type: jsonness.json === 'yes' ? syntacticType(ts, init) : undefined, jsonness, typeImports: [] };
  };
  if (!checker) return syntactic();
  const symbol = checker.getSymbolAtLocation(decl.nameNode);
  if (!symbol) return syntactic();
  const declared = checker.getTypeOfSymbolAtLocation(symbol, decl.nameNode);
  // `if (!key) return ...; await ask(); key.id`: the state keeps the narrowed type.
  // Only for const: a restored let gets the state's type as its declared type, and may be reassigned.
  const narrowed = firstRead && decl.kind === 'const' ? checker.getTypeAtLocation(firstRead) : declared;
  const type = narrowed.flags & ts.TypeFlags.Any || !checker.isTypeAssignableTo(narrowed, declared) ? declared : narrowed;
  // The error type (an unresolved import): fall back to the initializer's shape.
  if (type.flags & ts.TypeFlags.Any && (type as { intrinsicName?: string }).intrinsicName === 'error') {
    const fallback = syntactic();
    if (fallback.jsonness.json !== 'yes') fallback.jsonness = { json: 'unknown', why: 'its type could not be resolved (is the package that declares it installed?)' };
    return fallback;
  }
  const sourceFile = input.fn.getSourceFile();
  // The type the user wrote reads better than the checker's expansion of it, where it names only
  // what module scope sees (`const params: ElicitRequestFormParams = ...`).
  const written = ts.isVariableDeclaration(declaration) && declaration.type && type === declared ? declaration.type : undefined;
  const named = written && typeNameability(ts, checker, written, sourceFile);
  if (named && named.problem === undefined && named.imports.length === 0) {
    return { type: written.getText(sourceFile), jsonness: jsonnessOfType(ts, checker, type), typeImports: [] };
  }
  const names = fileTypeNames(ts, checker, sourceFile);
  const printed = printType(ts, checker, type, sourceFile, names);
  const node = checker.typeToTypeNode(type, sourceFile, ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.UseAliasDefinedOutsideCurrentScope);
  const { problem, imports } = node ? typeNameability(ts, checker, node, sourceFile) : { problem: undefined, imports: [] };
  return { type: printed.text, jsonness: jsonnessOfType(ts, checker, type), typeProblem: problem, typeImports: [...new Set([...imports, ...printed.sdkImports])] };
}

/** A type from the shape of a JSON initializer, for code analysed without a checker. */
function syntacticType(ts: TS, init: ts.Expression | undefined): string | undefined {
  const e = init && skipOuter(ts, init);
  if (!e) return undefined;
  if (ts.isStringLiteralLike(e) || ts.isTemplateExpression(e)) return 'string';
  if (ts.isNumericLiteral(e)) return 'number';
  if (e.kind === ts.SyntaxKind.TrueKeyword || e.kind === ts.SyntaxKind.FalseKeyword) return 'boolean';
  return undefined;
}

/**
 * The state type is declared at module scope, so every named type in a carried local's type (the
 * type node written or printed for it) must
 * be visible there: declared at top level, imported, global, or exported by the SDK (imported then).
 */
function typeNameability(ts: TS, checker: ts.TypeChecker, node: ts.TypeNode, sourceFile: ts.SourceFile): { problem: string | undefined; imports: string[] } {
  const inScope = new Set(checker.getSymbolsInScope(sourceFile, ts.SymbolFlags.Type | ts.SymbolFlags.Namespace | ts.SymbolFlags.Alias).map(s => s.getName()));
  const names = new Set<string>();
  const visit = (n: ts.Node): void => {
    if (ts.isTypeReferenceNode(n)) {
      let name: ts.EntityName = n.typeName;
      while (ts.isQualifiedName(name)) name = name.left;
      names.add(name.text);
    }
    n.forEachChild(visit);
  };
  visit(node);
  const imports: string[] = [];
  for (const name of names) {
    if (inScope.has(name)) continue;
    if (SDK_TYPE_NAMES.has(name)) {
      imports.push(name);
      continue;
    }
    return { problem: `its type uses \`${name}\`, which is not visible at module scope (declared inside a function?)`, imports: [] };
  }
  return { problem: undefined, imports };
}

function answerKind(ts: TS, init: ts.Expression, questionOf: (e: ts.Expression) => QuestionKind | undefined): QuestionKind | undefined {
  const e = skipOuter(ts, init);
  return questionOf(e);
}

export { isFunctionLike };
