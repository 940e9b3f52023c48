import type * as ts from 'typescript';
import { bindingDecls, completesNormally, type FunctionFlow } from './cfg.js';
import { statementList } from './continuation.js';
import { formOf, isParallelCombinator, isPureExpression, listRoundOf, statementOf, type AnswerForm, type ListRound } from './flow.js';
import { jsonnessOfType } from './jsonType.js';
import { lineOf } from './places.js';
import { flowOf, liveLocals, type FlowFacts, type LiveLocalsResult } from './locals.js';
import { isPlainRead, readRoot } from './sharedState.js';
import { bindingIdentifiers, forEachValueIdentifier, isAssignedIn, isFunctionLike, isWithinNode, isWriteReference, resolveIdentifier, type LocalDecl } from './scope.js';
import { skipOuter } from './sdk.js';
import type { QuestionKind, TS } from './types.js';

/**
 * The rounds a handler is split into: one plan per handler, from one flow graph and one liveness
 * pass. Each round ends at a suspension (a question, or several asked together with Promise.all);
 * the next round resumes just after it. The plan says, for every suspension, what the resumed code
 * needs from the state; and, for every statement around a suspension, whether the rewrite gives it
 * two copies (the first round's, where the question asks and returns, and the resumed one, which
 * starts after the question) or keeps it once, entered by both (`shared`: loops, and anything whose
 * code after the question the first round could also reach). The printer only follows this plan.
 */

/** One question of a suspension, as the plan needs it (see QuestionPlan in analyze.ts). */
export interface RoundQuestion {
  kind: QuestionKind;
  /** The question's own call: the push call, or the asking helper's call. */
  call: ts.CallExpression | ts.NewExpression;
}

export interface Suspension<Q extends RoundQuestion = RoundQuestion> {
  /** The `step` the state of the round that asks carries; unique in the handler. */
  step: string;
  /** One per inputRequests key, in order. */
  questions: Array<{ question: Q; key: string }>;
  /** The awaited expression that ends the round: `await ask()`, `ask()` in `return ask()`, `await Promise.all([...])`. */
  awaited: ts.Expression;
  statement: ts.Statement;
  form: AnswerForm;
  /** `Promise.all` / `Promise.allSettled` around several questions. */
  combinator: 'all' | 'allSettled' | undefined;
  /**
   * One question per item of a list (`Promise.all(items.map(item => ask(item)))`): its one question
   * is built for every item, under the keys `<step>-0`, `<step>-1`, ...; the requests travel in the state.
   */
  list: ListRound | undefined;
  /** The locals the resumed code needs, each carried, rebuilt or declared again. */
  live: LiveLocalsResult;
  /** Inside a shared loop: the resumed round may pass this suspension's dispatch again (the next iteration). */
  inLoop: boolean;
  /**
   * The resumed round builds its questions again (to validate the answer against them and to ask again
   * when it is missing) instead of reading them from the state: they are built only from literals,
   * module constants holding a literal and the call's primitive arguments, which every retry brings
   * back unchanged (isStableRequest).
   */
  requestRebuilt: boolean;
}

export interface RoundsPlan<Q extends RoundQuestion = RoundQuestion> {
  fn: ts.FunctionLikeDeclaration;
  suspensions: Suspension<Q>[];
  /** Statements entered both in the first round and when resuming inside them (kept once). */
  shared: ReadonlySet<ts.Node>;
  flow: FunctionFlow;
  /** Some suspension sits in a shared loop: dispatch on a mutable copy of the state, cleared once resumed. */
  dynamic: boolean;
  /** Some question is asked inside a try with a finally: the finally must not run in the round that asks. */
  finallyFlag: boolean;
  /** for-of / for-in loops around questions: resumed by position, so they become index loops. */
  indexLoops: ts.Node[];
  /** Per suspension: notes for the report (round bounds, parallel questions); `review` when a person should look. */
  notes: Map<Suspension<Q>, Array<{ text: string; review: boolean }>>;
}

export interface RoundsProblem<Q> {
  /** The questions refused (all the questions of one round). */
  questions: Q[];
  reason: 'loop' | 'parallel' | 'unsupported-construct' | 'non-json-local' | 'shared-state-mutated';
  hint: string;
}

export interface RoundsInput<Q extends RoundQuestion> {
  ts: TS;
  checker: ts.TypeChecker | undefined;
  fn: ts.FunctionLikeDeclaration;
  questions: readonly Q[];
  /** The question kind of an awaited question (for the types of answers held in locals). */
  questionOf: (expr: ts.Expression) => QuestionKind | undefined;
  /** The arguments of an asking helper's call, which its result part evaluates again on resume. */
  reevaluated: (q: Q) => readonly ts.Node[];
  /** Steps already taken (preferred names are made unique against them). */
  stepFor: (q: Q, statement: ts.Statement, form: AnswerForm) => string;
  /**
   * What the question's request is built from: the push call's params (`null` when it has none, as
   * `listRoots()`), or `undefined` when it cannot be built again (an asking helper's request part).
   */
  requestSource: (q: Q) => ts.Node | null | undefined;
  /** The handler parameter that is the request context (it differs on every retry). */
  ctxParam: ts.ParameterDeclaration | undefined;
}

/** Shared step names the SDK shim and common clients allow before failing the call. */
export const LEGACY_SHIM_MAX_ROUNDS = 8;
export const CLIENT_MAX_ROUNDS = 10;

export function planRounds<Q extends RoundQuestion>(input: RoundsInput<Q>): RoundsPlan<Q> | RoundsProblem<Q> {
  const { ts, fn } = input;
  const body = fn.body as ts.Block;

  // Suspensions: a question on its own, or the questions of one Promise.all.
  const groups: Array<{ awaited: ts.Expression; questions: Q[]; combinator: 'all' | 'allSettled' | undefined; list?: ListRound }> = [];
  for (const q of input.questions) {
    const list = listRoundOf(ts, q.call, fn);
    if (list && 'problem' in list) return { questions: [q], reason: 'parallel', hint: list.problem };
    if (list) {
      groups.push({ awaited: list.awaited, questions: [q], combinator: list.combinator, list });
      continue;
    }
    const parallel = parallelAround(ts, q.call, fn);
    if (parallel && 'problem' in parallel) {
      const together = input.questions.filter(o => o === q || sameCombinator(ts, o.call, q.call));
      return { questions: together, reason: 'parallel', hint: parallel.problem };
    }
    if (parallel) {
      const group = groups.find(g => g.awaited === parallel.awaited);
      if (group) group.questions.push(q);
      else groups.push({ awaited: parallel.awaited, questions: [q], combinator: parallel.combinator });
      continue;
    }
    groups.push({ awaited: awaitedOf(ts, q.call), questions: [q], combinator: undefined });
  }
  for (const g of groups) {
    if (g.combinator && !g.list) {
      const elements = (skipOuter(ts, (skipOuter(ts, g.awaited) as ts.AwaitExpression).expression) as ts.CallExpression).arguments[0] as ts.ArrayLiteralExpression;
      if (elements.elements.length !== g.questions.length) {
        return { questions: g.questions, reason: 'parallel', hint: 'Promise.all mixes questions with other promises; the other work would have to run in the round that asks and its result travel in requestState. Await it before or after the questions.' };
      }
      g.questions.sort((a, b) => a.call.getStart() - b.call.getStart());
    }
  }

  for (const g of groups) {
    const problem = placeProblem(ts, g.awaited, fn, input.checker);
    if (problem) return { questions: g.questions, reason: problem.reason, hint: problem.hint };
  }

  const flow = flowOf(ts, fn, groups.map(g => g.awaited));
  const statements = groups.map(g => statementOf(ts, g.awaited, fn)!);
  const sharing = sharedConstructs(ts, flow.graph, body, statements);
  if ('problem' in sharing) return { questions: groups[statements.indexOf(sharing.at)]!.questions, reason: 'unsupported-construct', hint: sharing.problem };
  const shared = sharing.shared;

  // Suspensions, with what each resumed round needs.
  const suspensions: Suspension<Q>[] = groups.map((g, i) => {
    const statement = statements[i]!;
    const form = formOf(ts, statement, g.awaited);
    return {
      step: '',
      questions: g.questions.map(q => ({ question: q, key: '' })),
      awaited: g.awaited,
      statement,
      form,
      combinator: g.combinator,
      list: g.list,
      live: { locals: [], decls: new Map() },
      inLoop: enclosing(ts, statement, body).some(c => shared.has(c) && ts.isIterationStatement(c, false)),
      requestRebuilt: !g.list && g.questions.every(q => {
        const source = input.requestSource(q);
        return source === null || (source !== undefined && isStableRequest(ts, input.checker, fn, source, input.ctxParam));
      }),
    };
  });
  for (const s of suspensions) {
    const structural = structuralLocals(ts, flow, body, s.statement, shared);
    s.live = liveLocals({
      ts, checker: input.checker, fn, statement: s.statement, awaited: s.awaited,
      paramsResupplied: true, questionOf: input.questionOf, flow,
      reevaluated: s.questions.flatMap(q => input.reevaluated(q.question)),
      alsoLive: structural,
    });
  }

  // Step names and inputRequests keys.
  const used = new Set<string>();
  for (const s of suspensions) {
    if (s.combinator && !s.list) {
      const names = parallelNames(ts, s);
      s.questions.forEach((q, i) => { q.key = uniqueName(names[i] ?? `${q.question.kind}${i + 1}`, used); });
      s.step = s.questions[0]!.key;
    } else {
      s.step = uniqueName(input.stepFor(s.questions[0]!.question, s.statement, s.form), used);
      s.questions[0]!.key = s.step;
    }
  }

  const notes = new Map<Suspension<Q>, Array<{ text: string; review: boolean }>>();
  for (const s of suspensions) {
    const list: Array<{ text: string; review: boolean }> = [];
    if (s.list) {
      list.push({ review: false, text: `the question asked for each item of \`${s.list.list.getText().slice(0, 40)}\` with Promise.${s.combinator} is asked in one round, one inputRequests key per item ('${s.step}-0', '${s.step}-1', ...), the answers read back in the items' order; with no items nothing is asked, as before` });
    } else if (s.combinator) {
      list.push({ review: false, text: `the ${s.questions.length} questions of Promise.${s.combinator} are asked in one round (inputRequests ${s.questions.map(q => `'${q.key}'`).join(', ')}) and answered together; on 2025-era connections the SDK's legacy shim sends them to the client at the same time, as Promise.${s.combinator} did` });
    }
    const bound = roundBound(ts, s.statement, body, shared);
    if (bound.loops.length > 0) {
      const total = bound.count === undefined ? undefined : bound.count;
      const exceeds = total === undefined || total + 1 > LEGACY_SHIM_MAX_ROUNDS;
      const how = total === undefined ? `no static bound (${bound.why})` : `at most ${total} time${total === 1 ? '' : 's'}`;
      list.push({ review: exceeds, text: `asked once per iteration of the loop at line ${bound.loops.map(l => lineOf(l)).join(', ')}: ${how}${exceeds
        ? `; a call may need more rounds than the SDK's legacy shim allows on 2025-era connections (${LEGACY_SHIM_MAX_ROUNDS}, ServerOptions.inputRequired.maxRounds) or a typical client's cap (${CLIENT_MAX_ROUNDS})`
        : ''}` });
    }
    notes.set(s, list);
  }

  const indexLoops = [...shared].filter(c => ts.isForOfStatement(c) || ts.isForInStatement(c));
  const finallyFlag = suspensions.some(s => enclosing(ts, s.statement, body).some(c => ts.isTryStatement(c) && !!c.finallyBlock && isWithin(s.statement, c.tryBlock)) ||
    enclosing(ts, s.statement, body).some(c => ts.isTryStatement(c) && !!c.finallyBlock && !!c.catchClause && isWithin(s.statement, c.catchClause)));
  return { fn, suspensions, shared, flow: flow.graph, dynamic: suspensions.some(s => s.inLoop), finallyFlag, indexLoops, notes };
}

/**
 * Whether `source` evaluates to the same value on every retry of the call: pure, and reading only
 * literals, module-level `const`s holding a string, number or boolean literal, and parameters of
 * `fn` of a primitive type (by the checker) that `fn` never assigns: the call's own arguments, which
 * the state's digest binds. Objects are never read, since the handler may have changed them before it
 * asked.
 */
export function isStableRequest(ts: TS, checker: ts.TypeChecker | undefined, fn: ts.FunctionLikeDeclaration, source: ts.Node, ctxParam: ts.ParameterDeclaration | undefined): boolean {
  if (!ts.isExpression(source) || !isPureExpression(ts, source)) return false;
  let stable = true;
  forEachValueIdentifier(ts, source, id => {
    if (!stable || id.text === 'undefined') return;
    const decl = resolveIdentifier(ts, id);
    const declaration = decl?.declaration;
    if (decl?.kind === 'parameter') {
      const type = checker?.getTypeAtLocation(id);
      const primitive = !!type && (type.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike | ts.TypeFlags.BooleanLike)) !== 0 && !type.isUnion();
      stable = primitive && decl.scope === fn && !(ctxParam && isWithinNode(decl.nameNode, ctxParam)) && !isAssignedIn(ts, fn, decl);
    } else if (decl?.kind === 'const' && declaration && ts.isVariableDeclaration(declaration) && ts.isSourceFile(decl.scope) && declaration.initializer) {
      const init = skipOuter(ts, declaration.initializer);
      stable = ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init) || ts.isNumericLiteral(init) ||
        init.kind === ts.SyntaxKind.TrueKeyword || init.kind === ts.SyntaxKind.FalseKeyword;
    } else stable = false;
  });
  return stable;
}

export function isRoundsProblem<Q>(p: RoundsPlan<RoundQuestion & Q> | RoundsProblem<Q>): p is RoundsProblem<Q> {
  return 'reason' in p;
}

function uniqueName(preferred: string, used: Set<string>): string {
  let name = preferred;
  for (let i = 2; used.has(name); i++) name = `${preferred}${i}`;
  used.add(name);
  return name;
}

function isWithin(node: ts.Node, ancestor: ts.Node): boolean {
  return node.pos >= ancestor.pos && node.end <= ancestor.end && node.getSourceFile() === ancestor.getSourceFile();
}

/** `await q` around a question call (or the call itself when it is returned). */
function awaitedOf(ts: TS, call: ts.Node): ts.Expression {
  let node: ts.Node = call;
  while (node.parent && (ts.isParenthesizedExpression(node.parent) || ts.isAsExpression(node.parent) || ts.isNonNullExpression(node.parent) || ts.isSatisfiesExpression(node.parent))) node = node.parent;
  return node.parent && ts.isAwaitExpression(node.parent) ? node.parent : (node as ts.Expression);
}

/** `await Promise.all([ask(), ask()])` around a question, or why such a group cannot be one round. */
function parallelAround(ts: TS, call: ts.Node, fn: ts.Node): { awaited: ts.Expression; combinator: 'all' | 'allSettled' } | { problem: string } | undefined {
  let node: ts.Node = call;
  while (node.parent && (ts.isParenthesizedExpression(node.parent) || ts.isAsExpression(node.parent))) node = node.parent;
  const list = node.parent;
  if (!list || !ts.isArrayLiteralExpression(list)) {
    if (list && ts.isCallExpression(list) && isParallelCombinator(ts, list)) return { problem: 'the questions are passed to Promise.all without an array literal; write Promise.all([ask(...), ask(...)]).' };
    return undefined;
  }
  const combinatorCall = list.parent;
  if (!combinatorCall || !ts.isCallExpression(combinatorCall) || !isParallelCombinator(ts, combinatorCall) || combinatorCall.arguments[0] !== list) return undefined;
  const name = ((skipOuter(ts, combinatorCall.expression) as ts.PropertyAccessExpression).name.text);
  if (name !== 'all' && name !== 'allSettled') {
    return { problem: `Promise.${name} settles with the first answer, which one round of inputRequests cannot express (the client answers all of them); ask one question, or all with Promise.all.` };
  }
  if (list.elements.some(e => ts.isSpreadElement(e))) return { problem: 'Promise.all spreads a list of questions; the number of questions must be fixed to ask them in one round.' };
  const awaited = awaitedOf(ts, combinatorCall);
  if (!ts.isAwaitExpression(awaited) || statementOf(ts, awaited, fn) === undefined) return { problem: 'the Promise.all of questions is not awaited where it is made; await it in its own statement.' };
  return { awaited, combinator: name };
}

/** Whether two question calls are elements of the same Promise.race / Promise.any array. */
function sameCombinator(ts: TS, a: ts.Node, b: ts.Node): boolean {
  const listOf = (n: ts.Node): ts.Node | undefined => {
    let node = n;
    while (node.parent && (ts.isParenthesizedExpression(node.parent) || ts.isAsExpression(node.parent))) node = node.parent;
    return node.parent && ts.isArrayLiteralExpression(node.parent) ? node.parent : undefined;
  };
  const list = listOf(a);
  return !!list && list === listOf(b);
}

/** The destructured names of `const [a, b] = await Promise.all([...])`, as inputRequests keys. */
function parallelNames(ts: TS, s: Suspension): string[] {
  const st = s.statement;
  if (ts.isVariableStatement(st)) {
    const name = st.declarationList.declarations[0]?.name;
    if (name && ts.isArrayBindingPattern(name)) {
      return name.elements.map(e => (ts.isBindingElement(e) && ts.isIdentifier(e.name) ? e.name.text : ''));
    }
  }
  return [];
}

/**
 * Why a round cannot end where this question is, if it cannot: places a resumed round cannot be
 * re-entered (a loop condition, a finally block, a loop over something that is not an array).
 */
function placeProblem(ts: TS, awaited: ts.Expression, fn: ts.FunctionLikeDeclaration, checker: ts.TypeChecker | undefined): { reason: 'loop' | 'unsupported-construct' | 'non-json-local' | 'shared-state-mutated'; hint: string } | undefined {
  const statement = statementOf(ts, awaited, fn);
  if (!statement) return { reason: 'unsupported-construct', hint: 'the question is not in a statement the rewrite can split.' };
  const conditional = conditionalProblem(ts, awaited, statement);
  if (conditional) return { reason: 'unsupported-construct', hint: conditional };
  let child: ts.Node = awaited;
  for (let node = awaited.parent; node && node !== fn; child = node, node = node.parent) {
    if (ts.isWithStatement(node)) return { reason: 'unsupported-construct', hint: 'the question is inside a `with` statement.' };
    if (ts.isTryStatement(node) && node.finallyBlock === child) {
      return { reason: 'unsupported-construct', hint: 'the question is inside a finally block: the try\'s pending outcome (a return value or an exception) would have to travel in requestState. Ask before the try, or after it.' };
    }
    if (ts.isIterationStatement(node, false)) {
      const header = loopHeaderHolding(ts, node, child);
      if (header) return { reason: 'loop', hint: `the question is asked in the loop's ${header}, which every iteration evaluates again; ask inside the loop body and break instead.` };
      if ((ts.isForOfStatement(node) && node.awaitModifier)) return { reason: 'loop', hint: 'the question is asked inside a `for await` loop over an async iterator, which cannot be resumed at its position; collect the items into an array first.' };
      if (ts.isForOfStatement(node) || ts.isForInStatement(node)) {
        const problem = iterableProblem(ts, node, checker);
        if (problem) return { reason: 'loop', hint: problem };
        const shared = ts.isForOfStatement(node) ? sharedElements(ts, node, fn, checker) : undefined;
        if (shared) return { reason: shared.outside ? 'shared-state-mutated' : 'non-json-local', hint: shared.hint };
      }
      if (ts.isForStatement(node) && node.initializer && !ts.isVariableDeclarationList(node.initializer)) {
        return { reason: 'loop', hint: 'the for loop around the question starts with an expression; declare its variable in the loop (`for (let i = 0; ...)`) so a resumed round can restore it.' };
      }
    }
    if (ts.isVariableStatement(node) && isUsing(ts, node.declarationList)) {
      return { reason: 'unsupported-construct', hint: 'a `using` declaration holds a resource across the question, which cannot travel in requestState.' };
    }
  }
  for (let node: ts.Node | undefined = statement.parent; node && node !== fn; node = node.parent) {
    if (ts.isBlock(node) || ts.isCaseClause(node) || ts.isDefaultClause(node)) {
      for (const st of node.statements) {
        if (ts.isVariableStatement(st) && isUsing(ts, st.declarationList) && st.end <= awaited.pos) {
          return { reason: 'unsupported-construct', hint: 'a `using` declaration before the question holds a resource the resumed round would not have.' };
        }
      }
    }
  }
  return undefined;
}

/** `using` / `await using` (their flags overlap `const`'s). */
function isUsing(ts: TS, list: ts.VariableDeclarationList): boolean {
  const scoped = list.flags & ts.NodeFlags.BlockScoped;
  return scoped === ts.NodeFlags.Using || scoped === ts.NodeFlags.AwaitUsing;
}

function loopHeaderHolding(ts: TS, loop: ts.IterationStatement, child: ts.Node): string | undefined {
  if (ts.isWhileStatement(loop) || ts.isDoStatement(loop)) return loop.expression === child ? 'condition' : undefined;
  if (ts.isForStatement(loop)) {
    if (loop.condition === child) return 'condition';
    if (loop.incrementor === child) return 'incrementor';
    return undefined;
  }
  if ((ts.isForOfStatement(loop) || ts.isForInStatement(loop)) && loop.initializer === child) return 'binding';
  return undefined;
}

/**
 * A resumed for-of loop starts again at its position in the array, so the iterable must be an
 * array that comes back the same (a parameter, a local, or a value held in the state).
 */
function iterableProblem(ts: TS, loop: ts.ForOfStatement | ts.ForInStatement, checker: ts.TypeChecker | undefined): string | undefined {
  const e = skipOuter(ts, loop.expression);
  if (ts.isForInStatement(loop)) {
    if (!checker) return undefined;
    const json = jsonnessOfType(ts, checker, checker.getTypeAtLocation(loop.expression));
    return json.json === 'yes' ? undefined : `the for-in loop around the question walks an object that is not plain JSON (${json.why}); a resumed round walks the keys it had at the start, held in requestState.`;
  }
  if (checker) {
    const type = checker.getTypeAtLocation(loop.expression);
    const isArray = (t: ts.Type): boolean => checker.isArrayType(t) || checker.isTupleType(t) || t.getSymbol()?.getName() === 'ReadonlyArray';
    if (!(type.isUnion() ? type.types.every(isArray) : isArray(type))) {
      return `the loop around the question iterates \`${loop.expression.getText().slice(0, 60)}\` (${checker.typeToString(type)}), not an array; a resumed round restarts the loop at its position, which only an array has. Collect the items into an array first.`;
    }
    return undefined;
  }
  if (ts.isArrayLiteralExpression(e) || ts.isIdentifier(e) || ts.isPropertyAccessExpression(e)) return undefined;
  if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && ts.isIdentifier(e.expression.expression) &&
      e.expression.expression.text === 'Object' && ['keys', 'values', 'entries'].includes(e.expression.name.text)) return undefined;
  return `the loop around the question iterates \`${loop.expression.getText().slice(0, 60)}\`; without type information it is not known to be an array, the only iterable a resumed round can restart at its position.`;
}

/** `pages`, `args.pages`, `this.pages`: the same array when read again (no call in between). */
export function isStableReference(ts: TS, e: ts.Expression): boolean {
  const x = skipOuter(ts, e);
  if (ts.isIdentifier(x) || x.kind === ts.SyntaxKind.ThisKeyword) return true;
  return ts.isPropertyAccessExpression(x) && !x.questionDotToken && isStableReference(ts, x.expression);
}

/**
 * `for (const note of notes.filter(...)) note.tags.push(tag)`: a resumed round walks the array the
 * first round held, which travels in requestState as JSON, so its elements come back as copies of
 * the module's objects and changes made through them would not reach the originals.
 */
function sharedElements(ts: TS, loop: ts.ForOfStatement, fn: ts.FunctionLikeDeclaration, checker: ts.TypeChecker | undefined): { hint: string; outside: boolean } | undefined {
  if (isStableReference(ts, loop.expression)) return undefined;
  const root = readRoot(ts, loop.expression);
  if (!ts.isIdentifier(root)) return undefined;
  const decl = resolveIdentifier(ts, root);
  const outside = !decl || !(decl.scope === fn || isInsideNode(decl.scope, fn)) || decl.kind === 'parameter';
  if (!outside || decl?.kind === 'import' || decl?.kind === 'function' || decl?.kind === 'class') return undefined;
  const init = loop.initializer;
  if (!ts.isVariableDeclarationList(init)) return undefined;
  // `for (const [team, change] of Object.entries(limits))`: each name the element is taken apart into.
  const names = new Set(init.declarations.flatMap(d => bindingIdentifiers(ts, d.name)).map(n => n.text));
  let identity: ts.Identifier | undefined;
  forEachValueIdentifier(ts, loop.statement, id => {
    if (!identity && names.has(id.text) && resolveIdentifier(ts, id)?.declaration.parent === init && !isPlainRead(ts, id, checker)) identity = id;
  });
  if (!identity) return undefined;
  const whose = decl?.kind === 'parameter' ? `objects of the argument \`${root.text}\`, which each round receives anew` : `objects shared with \`${root.text}\` outside the handler`;
  const hint = `the loop walks \`${loop.expression.getText().slice(0, 60)}\`, ${whose}; a resumed round walks a JSON copy of them (held in requestState), so what the loop does through \`${identity.text}\` would not reach the originals. Collect what the loop needs (ids, say) into an array of plain values first.`;
  return { hint, outside: decl?.kind !== 'parameter' };
}

function isInsideNode(node: ts.Node, ancestor: ts.Node): boolean {
  for (let n: ts.Node | undefined = node; n; n = n.parent) if (n === ancestor) return true;
  return false;
}

const SHORT_CIRCUIT = new Set<number>();

/**
 * `force || (await confirm()).action === 'accept'`, `cond ? await ask() : fallback`, `name ?? await
 * ask()`: the rewrite spills the conditional into statements, which works when it is the whole value
 * of its statement and the question sits directly in its conditional part.
 */
function conditionalProblem(ts: TS, awaited: ts.Expression, statement: ts.Statement): string | undefined {
  const conditionals = conditionalsAround(ts, awaited, statement);
  if (conditionals.length === 0) return undefined;
  if (conditionals.length > 1) return 'the question sits in nested conditional expressions; split them into if statements.';
  const conditional = conditionals[0]!;
  if (!conditionalValuePosition(ts, conditional, statement)) {
    return 'the question is inside a conditional expression (?:, &&, ||, ??) within a larger expression; give the conditional its own statement (`const x = a ?? await ask(...)`), or write an if.';
  }
  if (ts.isBinaryExpression(conditional) && conditional.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      !ts.isIdentifier(skipOuter(ts, conditional.left))) {
    return 'the question is assigned with ||=, &&= or ??= to a property; assign it to a local first.';
  }
  return undefined;
}

/** The conditional expressions (?:, &&, ||, ??, ||=, &&=, ??=) the question is a conditional part of, innermost first. */
function conditionalsAround(ts: TS, awaited: ts.Expression, statement: ts.Statement): ts.Expression[] {
  if (SHORT_CIRCUIT.size === 0) {
    for (const k of [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken,
      ts.SyntaxKind.AmpersandAmpersandEqualsToken, ts.SyntaxKind.BarBarEqualsToken, ts.SyntaxKind.QuestionQuestionEqualsToken]) SHORT_CIRCUIT.add(k);
  }
  const found: ts.Expression[] = [];
  let child: ts.Node = awaited;
  for (let node = awaited.parent; node && child !== statement; child = node, node = node.parent) {
    if (ts.isConditionalExpression(node) && node.condition !== child) found.push(node);
    if (ts.isBinaryExpression(node) && SHORT_CIRCUIT.has(node.operatorToken.kind) && node.right === child) found.push(node);
    if (node === statement) break;
  }
  return found;
}

/** The one conditional expression around a question that the rewrite spills into statements, if any. */
export function conditionalOf(ts: TS, awaited: ts.Expression, statement: ts.Statement): ts.Expression | undefined {
  return conditionalsAround(ts, awaited, statement)[0];
}

/** Whether `e` is the whole value of `statement`: initializer, assigned value, condition, return value, or the statement itself. */
export function conditionalValuePosition(ts: TS, e: ts.Expression, statement: ts.Statement): boolean {
  let node: ts.Node = e;
  while (node.parent && ts.isParenthesizedExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (!parent) return false;
  if (ts.isExpressionStatement(parent) && parent === statement) return true;
  if (ts.isIfStatement(parent) && parent === statement && parent.expression === node) return true;
  if (ts.isReturnStatement(parent) && parent === statement) return true;
  if (ts.isVariableDeclaration(parent) && parent.initializer === node && ts.isIdentifier(parent.name) &&
      ts.isVariableStatement(statement) && statement.declarationList.declarations.length === 1) return true;
  if (ts.isBinaryExpression(parent) && parent.right === node && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isIdentifier(skipOuter(ts, parent.left)) && ts.isExpressionStatement(parent.parent) && parent.parent === statement) return true;
  return false;
}

/** The statements enclosing `statement` (not itself), innermost first, up to `body`. */
export function enclosing(ts: TS, statement: ts.Node, body: ts.Node): ts.Statement[] {
  const out: ts.Statement[] = [];
  for (let n = statement.parent; n && n !== body; n = n.parent) {
    if (isFunctionLike(ts, n)) break;
    if (ts.isStatement(n) && !isBranchBlock(ts, n)) out.push(n);
  }
  return out;
}

/** A block that is the body of an if branch, loop, try, catch or finally (part of that statement, not one of its own). */
function isBranchBlock(ts: TS, node: ts.Node): boolean {
  if (!ts.isBlock(node)) return false;
  const p = node.parent;
  return !!p && (ts.isIfStatement(p) || ts.isIterationStatement(p, false) || ts.isTryStatement(p) || ts.isCatchClause(p) || isFunctionLike(ts, p));
}

/**
 * Which statements around the questions are kept once and entered by both the first and the
 * resumed round. A loop always (its next iterations are shared). Any other statement when the code
 * after the question inside it is also reached without asking: the first round could skip the
 * question (it is conditional) and go on, so two copies would repeat that code. And every statement
 * around a shared one.
 */
function sharedConstructs(ts: TS, flow: FunctionFlow, body: ts.Block, statements: ts.Statement[]): { shared: Set<ts.Node> } | { problem: string; at: ts.Statement } {
  const shared = new Set<ts.Node>();
  for (const statement of statements) {
    const chain = enclosing(ts, statement, body);
    let child: ts.Node = statement;
    let mustShare = false;
    for (const construct of chain) {
      const inCatch = ts.isTryStatement(construct) && !!construct.catchClause && isWithin(child, construct.catchClause);
      if (!mustShare) {
        if (ts.isIterationStatement(construct, false)) mustShare = true;
        // The rest of a catch block is repeated instead: a catch cannot be entered without its exception.
        else if (!inCatch && codeAfterReachable(ts, flow, construct, child)) mustShare = true;
        // A try with its question in the try block is kept once (its catch and finally not repeated)
        // when the statements before it can run in every round.
        else if (ts.isTryStatement(construct) && isWithin(child, construct.tryBlock) && prefixRunsEveryRound(ts, construct)) mustShare = true;
        // Its finally reads what the try block writes after the question: one copy sees both.
        else if (ts.isTryStatement(construct) && isWithin(child, construct.tryBlock) && finallyReadsLaterWrite(ts, construct, statement)) mustShare = true;
      }
      if (mustShare && inCatch) {
        return { at: statement, problem: 'the question is inside a loop within a catch block; a resumed round cannot enter a catch block without its exception. Move the loop out of the catch.' };
      }
      if (mustShare && ts.isSwitchStatement(construct)) {
        const clause = construct.caseBlock.clauses.find(c => isWithin(child, c));
        if (!clause || ts.isDefaultClause(clause) || !isPureExpression(ts, clause.expression)) {
          return { at: statement, problem: 'the question is in a switch case the resumed round must enter again (it asks in a loop there, or the case goes on after a question it may skip), and only a case with a constant label can be entered again; move the question out of the `default` case or give the case a literal label.' };
        }
      }
      if (mustShare) shared.add(construct);
      child = construct;
    }
  }
  return { shared };
}

/** A local the finally block reads and the try block writes after `statement`. */
function finallyReadsLaterWrite(ts: TS, t: ts.TryStatement, statement: ts.Statement): boolean {
  if (!t.finallyBlock) return false;
  const read = new Set<LocalDecl>();
  forEachValueIdentifier(ts, t.finallyBlock, id => {
    const decl = resolveIdentifier(ts, id);
    if (decl) read.add(decl);
  });
  let found = false;
  forEachValueIdentifier(ts, t.tryBlock, id => {
    if (!found && id.pos >= statement.pos && isWriteReference(ts, id)) {
      const decl = resolveIdentifier(ts, id);
      if (decl && read.has(decl)) found = true;
    }
  });
  return found;
}

/** Statements before `s` in its list: side-effect-free declarations only (they may run again when resuming). */
function prefixRunsEveryRound(ts: TS, s: ts.Statement): boolean {
  const list = statementList(ts, s);
  if (!list) return true;
  return list.slice(0, list.indexOf(s)).every(st => ts.isVariableStatement(st) && !(st.declarationList.flags & ts.NodeFlags.Let) &&
    st.declarationList.declarations.every(d => !!d.initializer && isPureExpression(ts, d.initializer)));
}

/**
 * Whether, inside `construct`, code after `child` (the statement on the question's path) runs when
 * the first round reaches `child` and does not ask: then that code belongs to both rounds.
 */
function codeAfterReachable(ts: TS, flow: FunctionFlow, construct: ts.Statement, child: ts.Node): boolean {
  if (!completesNormally(flow, child)) return false;
  const list = statementList(ts, child);
  if (list && list.indexOf(child as ts.Statement) < list.length - 1) return true;
  // The last statement of a switch case that falls through: the next case runs too.
  if (ts.isSwitchStatement(construct) && list) {
    const clause = child.parent as ts.CaseOrDefaultClause;
    const clauses = construct.caseBlock.clauses;
    return clauses.indexOf(clause) < clauses.length - 1;
  }
  return false;
}

/**
 * Locals the resumed round needs to enter the shared statements around a question, beyond what it
 * reads after it: declared before a shared statement in its list (the resumed round skips that
 * code) and read when the statement is entered (so the first round computes them and the state
 * brings them back).
 */
function structuralLocals(ts: TS, flow: FlowFacts, body: ts.Block, statement: ts.Statement, shared: ReadonlySet<ts.Node>): LocalDecl[] {
  const out: LocalDecl[] = [];
  for (const construct of enclosing(ts, statement, body)) {
    // The resumed round enters a shared if at its question, past its condition: what it needs there is
    // what is live at the question. Loops (the next iterations) and switches are entered from the top.
    if (!shared.has(construct) || ts.isIfStatement(construct)) continue;
    const list = statementList(ts, construct);
    if (!list) continue;
    const entry = flow.graph.statementEntry.get(construct);
    const liveAtEntry = entry ? flow.live.get(entry) ?? new Set<LocalDecl>() : new Set<LocalDecl>();
    for (const st of list.slice(0, list.indexOf(construct as ts.Statement))) {
      for (const decl of declaredDecls(ts, st, flow.graph)) if (liveAtEntry.has(decl)) out.push(decl);
    }
  }
  return out;
}

/** The locals a statement of a list declares at that level. */
export function declaredDecls(ts: TS, st: ts.Statement, flow: FunctionFlow): LocalDecl[] {
  if (ts.isVariableStatement(st)) return st.declarationList.declarations.flatMap(d => bindingDecls(ts, d.name, flow.isLocal));
  if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name) {
    const decl = resolveIdentifier(ts, st.name);
    return decl && flow.isLocal(decl) ? [decl] : [];
  }
  return [];
}

/**
 * How many times the question may be asked in one call: the product of the iteration counts of the
 * shared loops around it, where each is known from the code (a counted for loop with literal
 * bounds, a for-of over an array literal).
 */
function roundBound(ts: TS, statement: ts.Statement, body: ts.Block, shared: ReadonlySet<ts.Node>): { loops: ts.Node[]; count: number | undefined; why: string } {
  const loops = enclosing(ts, statement, body).filter(c => ts.isIterationStatement(c, false) && shared.has(c)) as ts.IterationStatement[];
  let count: number | undefined = 1;
  let why = '';
  for (const loop of loops) {
    const n = iterations(ts, loop);
    if (n === undefined) {
      count = undefined;
      why = ts.isForOfStatement(loop) || ts.isForInStatement(loop) ? `once per item of \`${loop.expression.getText().slice(0, 40)}\`` : 'the loop ends on a condition the rewrite cannot count';
      break;
    }
    count *= n;
  }
  return { loops, count, why };
}

function iterations(ts: TS, loop: ts.IterationStatement): number | undefined {
  if (ts.isForOfStatement(loop)) {
    const e = skipOuter(ts, loop.expression);
    return ts.isArrayLiteralExpression(e) && !e.elements.some(x => ts.isSpreadElement(x)) ? e.elements.length : undefined;
  }
  if (!ts.isForStatement(loop) || !loop.initializer || !ts.isVariableDeclarationList(loop.initializer) || !loop.condition || !loop.incrementor) return undefined;
  const decl = loop.initializer.declarations[0];
  if (!decl || !ts.isIdentifier(decl.name) || !decl.initializer) return undefined;
  const from = constantNumber(ts, decl.initializer);
  const cond = skipOuter(ts, loop.condition);
  if (from === undefined || !ts.isBinaryExpression(cond) || !ts.isIdentifier(cond.left) || cond.left.text !== decl.name.text) return undefined;
  const to = constantNumber(ts, cond.right);
  const incr = skipOuter(ts, loop.incrementor);
  const steps = (ts.isPostfixUnaryExpression(incr) || ts.isPrefixUnaryExpression(incr)) && incr.operator === ts.SyntaxKind.PlusPlusToken;
  if (to === undefined || !steps) return undefined;
  if (cond.operatorToken.kind === ts.SyntaxKind.LessThanToken) return Math.max(0, to - from);
  if (cond.operatorToken.kind === ts.SyntaxKind.LessThanEqualsToken) return Math.max(0, to - from + 1);
  return undefined;
}

/** A numeric literal, or a `const` of one declared in the file. */
function constantNumber(ts: TS, e: ts.Expression): number | undefined {
  const x = skipOuter(ts, e);
  if (ts.isNumericLiteral(x)) return Number(x.text);
  if (ts.isIdentifier(x)) {
    const decl = resolveIdentifier(ts, x);
    if (decl?.kind === 'const' && ts.isVariableDeclaration(decl.declaration) && decl.declaration.initializer) {
      const init = skipOuter(ts, decl.declaration.initializer);
      if (ts.isNumericLiteral(init)) return Number(init.text);
    }
  }
  return undefined;
}

export { isPureExpression };
