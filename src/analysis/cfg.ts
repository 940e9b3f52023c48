import type * as ts from 'typescript';
import { assignmentTargetOf, forEachValueIdentifier, isFunctionLike, isWithinNode, isWriteReference, resolveIdentifier, type LocalDecl } from './scope.js';
import type { TS } from './types.js';

/**
 * The control-flow graph of one function body, in the spirit of TypeScript's generator lowering:
 * every `await` of a question splits its statement into the part that runs before the question
 * (up to a `suspend` node, where the round ends) and the part that runs when the answer comes
 * back (from a `resume` node). Nodes carry the locals they read and the ones they overwrite, so a
 * single backward liveness pass tells, for every resume point, which locals the resumed code needs.
 *
 * Edges model every way control moves: branches, loops (back edges), `break`/`continue` (labelled
 * or not), `return`/`throw`, and exceptions (from any node of a `try` block to its `catch`, or
 * through its `finally`). Liveness is conservative where JavaScript is: a node that may throw makes
 * the catch's needs live before it; a `finally` may continue to any target a jump through it had.
 */

export type FlowKind = 'entry' | 'exit' | 'plain' | 'suspend' | 'resume' | 'join';

export interface FlowNode {
  id: number;
  kind: FlowKind;
  /** The AST node this node evaluates (a statement, an expression, a declaration). */
  ast: ts.Node | undefined;
  /** Locals read (or possibly written without a definite overwrite). */
  uses: Set<LocalDecl>;
  /** Locals definitely overwritten. */
  defs: Set<LocalDecl>;
  /** The identifiers behind `uses` and `defs`. */
  refs: ts.Identifier[];
  /** Locals this node declares (a fresh binding: earlier references cannot see it). */
  declares: Set<LocalDecl>;
  succ: FlowNode[];
  /** Where an exception raised while evaluating this node goes (a catch, a finally, or the exit). */
  exc: FlowNode | undefined;
  /** For `suspend` and `resume`: the awaited question. */
  awaited?: ts.Expression;
  /** The entry of a catch clause (where a thrown exception is handled, unlike a finally's). */
  catches?: boolean;
}

export interface FunctionFlow {
  fn: ts.FunctionLikeDeclaration;
  nodes: FlowNode[];
  entry: FlowNode;
  exit: FlowNode;
  /** The `resume` node of each split point (an awaited question). */
  resumeOf: Map<ts.Expression, FlowNode>;
  suspendOf: Map<ts.Expression, FlowNode>;
  /** Per statement: its first node and the join node control reaches when it completes normally. */
  statementEntry: Map<ts.Node, FlowNode>;
  statementExit: Map<ts.Node, FlowNode>;
  /** Whether a local belongs to this function (declared in it, parameters included, not in nested functions). */
  isLocal(decl: LocalDecl): boolean;
}

interface JumpTargets {
  /** `break` without a label: the innermost loop or switch. */
  breakTo: FlowNode | undefined;
  continueTo: FlowNode | undefined;
  labels: Map<string, { breakTo: FlowNode; continueTo: FlowNode | undefined }>;
  throwTo: FlowNode;
  returnTo: FlowNode;
}

/**
 * Builds the graph of `fn`'s body. `splitPoints` are the awaited questions (the `await` expression,
 * or the call itself for `return ask()`); each gets a suspend/resume pair.
 */
export function buildFlow(ts: TS, fn: ts.FunctionLikeDeclaration, splitPoints: ReadonlySet<ts.Node>): FunctionFlow {
  const nodes: FlowNode[] = [];
  const make = (kind: FlowKind, ast?: ts.Node): FlowNode => {
    const node: FlowNode = { id: nodes.length, kind, ast, uses: new Set(), defs: new Set(), refs: [], declares: new Set(), succ: [], exc: undefined };
    nodes.push(node);
    return node;
  };
  const link = (from: FlowNode | undefined, to: FlowNode): void => {
    if (from && !from.succ.includes(to)) from.succ.push(to);
  };
  const isLocal = (decl: LocalDecl): boolean => decl.scope === fn || (isWithinNode(decl.scope, fn) && ownFunction(ts, decl.scope) === fn);

  const entry = make('entry', fn);
  const exit = make('exit', fn);
  const resumeOf = new Map<ts.Expression, FlowNode>();
  const suspendOf = new Map<ts.Expression, FlowNode>();
  const statementEntry = new Map<ts.Node, FlowNode>();
  const statementExit = new Map<ts.Node, FlowNode>();
  let throwTo: FlowNode = exit;

  /** Reads and definite writes of the identifiers in `node` (skipping `skip`), added to `into`. */
  const effects = (node: ts.Node, into: FlowNode, skip?: ts.Node): void => {
    forEachValueIdentifier(ts, node, id => {
      if (skip && id.pos >= skip.pos && id.end <= skip.end) return;
      const decl = resolveIdentifier(ts, id);
      if (!decl || !isLocal(decl)) return;
      into.refs.push(id);
      // A write inside a closure may never happen: it reads (keeps alive), it does not overwrite.
      if (isDefiniteWrite(ts, id) && !insideFunction(ts, id, node)) into.defs.add(decl);
      else into.uses.add(decl);
    });
  };
  const declare = (node: FlowNode, decl: LocalDecl): void => {
    node.defs.add(decl);
    // `var` is one binding for the whole function; `let` / `const` make a new one each time they run.
    if (decl.kind !== 'var') node.declares.add(decl);
  };
  const plain = (ast: ts.Node, cur: FlowNode | undefined): FlowNode => {
    const node = make('plain', ast);
    node.exc = throwTo;
    link(cur, node);
    return node;
  };

  /** The split point inside `node` (not inside a nested function), if any. */
  const splitIn = (node: ts.Node): ts.Node | undefined => {
    let found: ts.Node | undefined;
    const visit = (n: ts.Node): void => {
      if (found) return;
      if (splitPoints.has(n)) {
        found = n;
        return;
      }
      if (isFunctionLike(ts, n) || ts.isClassLike(n)) return;
      n.forEachChild(visit);
    };
    visit(node);
    return found;
  };

  /**
   * Evaluates `expr` (and the declaration around it, `bind`) from `cur`. Around a split point: the
   * identifiers before it and inside the question's call run before the suspension; the rest of the
   * expression runs again on resume (with the answer in place of the await) and binds its targets.
   */
  const expression = (expr: ts.Node, cur: FlowNode | undefined, bind?: ts.VariableDeclaration): FlowNode => {
    const split = splitIn(expr);
    if (!split) {
      const node = plain(bind ?? expr, cur);
      effects(expr, node);
      if (bind) for (const decl of bindingDecls(ts, bind.name, isLocal)) declare(node, decl);
      return node;
    }
    const before = plain(expr, cur);
    forEachValueIdentifier(ts, expr, id => {
      if (id.end > split.pos && !(id.pos >= split.pos && id.end <= split.end)) return;
      const decl = resolveIdentifier(ts, id);
      if (decl && isLocal(decl)) {
        before.uses.add(decl);
        before.refs.push(id);
      }
    });
    const suspend = make('suspend', split);
    suspend.awaited = split as ts.Expression;
    link(before, suspend);
    const resume = make('resume', split);
    resume.awaited = split as ts.Expression;
    resume.exc = throwTo;
    link(suspend, resume);
    effects(expr, resume, split);
    if (bind) for (const decl of bindingDecls(ts, bind.name, isLocal)) declare(resume, decl);
    suspendOf.set(split as ts.Expression, suspend);
    resumeOf.set(split as ts.Expression, resume);
    return resume;
  };

  const statements = (list: readonly ts.Statement[], cur: FlowNode | undefined, jumps: JumpTargets): FlowNode | undefined => {
    for (const s of list) cur = statement(s, cur, jumps);
    return cur;
  };

  /** Returns the node control continues from after `s` (undefined when it cannot complete). */
  const statement = (s: ts.Statement, cur: FlowNode | undefined, jumps: JumpTargets): FlowNode | undefined => {
    const start = make('join', s);
    link(cur, start);
    statementEntry.set(s, start);
    const done = make('join', s);
    statementExit.set(s, done);
    const after = body(s, start, jumps, done);
    link(after, done);
    return done;
  };

  const body = (s: ts.Statement, cur: FlowNode, jumps: JumpTargets, done: FlowNode): FlowNode | undefined => {
    if (ts.isBlock(s)) return statements(s.statements, cur, jumps);
    if (ts.isVariableStatement(s)) {
      let at: FlowNode = cur;
      for (const d of s.declarationList.declarations) {
        if (d.initializer) at = expression(d.initializer, at, d);
        else {
          at = plain(d, at);
          for (const decl of bindingDecls(ts, d.name, isLocal)) declare(at, decl);
        }
      }
      return at;
    }
    if (ts.isExpressionStatement(s)) return expression(s.expression, cur);
    if (ts.isReturnStatement(s)) {
      const at = s.expression ? expression(s.expression, cur) : cur;
      link(at, jumps.returnTo);
      return undefined;
    }
    if (ts.isThrowStatement(s)) {
      const at = expression(s.expression, cur);
      link(at, jumps.throwTo);
      return undefined;
    }
    if (ts.isIfStatement(s)) {
      const cond = expression(s.expression, cur);
      const join = make('join', s);
      link(statement(s.thenStatement, cond, jumps), join);
      if (s.elseStatement) link(statement(s.elseStatement, cond, jumps), join);
      else link(cond, join);
      return join;
    }
    if (ts.isLabeledStatement(s)) {
      const inner = s.statement;
      const labels = new Map(jumps.labels);
      const continueTo = ts.isIterationStatement(inner, false) ? make('join', inner) : undefined;
      labels.set(s.label.text, { breakTo: done, continueTo });
      const labelled = { ...jumps, labels };
      if (continueTo) {
        statementEntry.set(inner, cur);
        statementExit.set(inner, done);
        return loop(inner as ts.IterationStatement, cur, labelled, done, continueTo);
      }
      return statement(inner, cur, labelled);
    }
    if (ts.isIterationStatement(s, false)) return loop(s, cur, jumps, done, make('join', s));
    if (ts.isSwitchStatement(s)) {
      const disc = expression(s.expression, cur);
      const inner = { ...jumps, breakTo: done };
      let fall: FlowNode | undefined;
      let hasDefault = false;
      for (const clause of s.caseBlock.clauses) {
        const clauseStart = make('join', clause);
        statementEntry.set(clause, clauseStart);
        link(disc, clauseStart);
        link(fall, clauseStart);
        let at: FlowNode | undefined = clauseStart;
        if (ts.isCaseClause(clause)) at = expression(clause.expression, at);
        else hasDefault = true;
        fall = statements(clause.statements, at, inner);
      }
      link(fall, done);
      if (!hasDefault) link(disc, done);
      return undefined;
    }
    if (ts.isTryStatement(s)) return tryStatement(s, cur, jumps, done);
    if (ts.isBreakStatement(s) || ts.isContinueStatement(s)) {
      const target = s.label
        ? (ts.isBreakStatement(s) ? jumps.labels.get(s.label.text)?.breakTo : jumps.labels.get(s.label.text)?.continueTo)
        : (ts.isBreakStatement(s) ? jumps.breakTo : jumps.continueTo);
      if (target) link(cur, target);
      return undefined;
    }
    if (ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) {
      // Declared (hoisted) at entry; the closure reads its free variables when it is called.
      const node = plain(s, cur);
      effects(s, node);
      return node;
    }
    if (ts.isEmptyStatement(s) || ts.isDebuggerStatement(s)) return cur;
    const node = plain(s, cur);
    effects(s, node);
    return node;
  };

  const loop = (s: ts.IterationStatement, cur: FlowNode, jumps: JumpTargets, done: FlowNode, continueTo: FlowNode): FlowNode | undefined => {
    const inner: JumpTargets = { ...jumps, breakTo: done, continueTo };
    if (ts.isWhileStatement(s)) {
      const head = make('join', s);
      link(cur, head);
      link(continueTo, head);
      const cond = expression(s.expression, head);
      link(cond, done);
      link(statement(s.statement, cond, inner), continueTo);
      return undefined;
    }
    if (ts.isDoStatement(s)) {
      const head = make('join', s);
      link(cur, head);
      link(statement(s.statement, head, inner), continueTo);
      const cond = expression(s.expression, continueTo);
      link(cond, head);
      link(cond, done);
      return undefined;
    }
    if (ts.isForStatement(s)) {
      let at: FlowNode = cur;
      if (s.initializer) {
        if (ts.isVariableDeclarationList(s.initializer)) {
          for (const d of s.initializer.declarations) {
            if (d.initializer) at = expression(d.initializer, at, d);
            else {
              at = plain(d, at);
              for (const decl of bindingDecls(ts, d.name, isLocal)) declare(at, decl);
            }
          }
        } else at = expression(s.initializer, at);
      }
      const head = make('join', s);
      link(at, head);
      const cond = s.condition ? expression(s.condition, head) : head;
      if (s.condition) link(cond, done);
      link(statement(s.statement, cond, inner), continueTo);
      const incr = s.incrementor ? expression(s.incrementor, continueTo) : continueTo;
      link(incr, head);
      return undefined;
    }
    // for-of / for-in: the iterable is evaluated once; each iteration binds the next element. The
    // iterable's identifiers are read on every iteration too, as a resumed loop reads its position in it.
    const forIn = s as ts.ForOfStatement | ts.ForInStatement;
    const iterable = expression(forIn.expression, cur);
    const head = make('join', s);
    link(iterable, head);
    link(continueTo, head);
    const next = plain(forIn.initializer, head);
    effects(forIn.expression, next);
    if (ts.isVariableDeclarationList(forIn.initializer)) {
      for (const d of forIn.initializer.declarations) for (const decl of bindingDecls(ts, d.name, isLocal)) declare(next, decl);
    } else effects(forIn.initializer, next);
    link(head, done);
    link(statement(forIn.statement, next, inner), continueTo);
    return undefined;
  };

  /**
   * try/catch/finally: any node of the try block may throw into the catch (or the finally); any
   * jump out of the try or catch goes through the finally, which then continues to any of them.
   */
  const tryStatement = (s: ts.TryStatement, cur: FlowNode, jumps: JumpTargets, done: FlowNode): FlowNode | undefined => {
    const finallyEntry = s.finallyBlock ? make('join', s.finallyBlock) : undefined;
    const catchEntry = s.catchClause ? make('join', s.catchClause) : undefined;
    if (catchEntry) catchEntry.catches = true;
    const outerThrow = throwTo;
    /** Targets a jump out of the try/catch continues to after the finally. */
    const pending = new Set<FlowNode>();
    const through = (target: FlowNode | undefined): FlowNode | undefined => {
      if (!target || !finallyEntry) return target;
      pending.add(target);
      return finallyEntry;
    };
    const inner: JumpTargets = {
      breakTo: through(jumps.breakTo),
      continueTo: through(jumps.continueTo),
      labels: new Map([...jumps.labels].map(([k, v]) => [k, { breakTo: through(v.breakTo)!, continueTo: through(v.continueTo) }])),
      returnTo: through(jumps.returnTo)!,
      throwTo: catchEntry ?? through(jumps.throwTo)!,
    };
    throwTo = inner.throwTo;
    const tryEnd = statements(s.tryBlock.statements, cur, inner);
    let catchEnd: FlowNode | undefined;
    if (s.catchClause && catchEntry) {
      throwTo = through(outerThrow)!;
      const caught = plain(s.catchClause, catchEntry);
      const variable = s.catchClause.variableDeclaration;
      if (variable) for (const decl of bindingDecls(ts, variable.name, isLocal)) declare(caught, decl);
      catchEnd = statements(s.catchClause.block.statements, caught, { ...inner, throwTo: through(outerThrow)! });
    }
    throwTo = outerThrow;
    if (!finallyEntry || !s.finallyBlock) {
      link(tryEnd, done);
      link(catchEnd, done);
      return undefined;
    }
    link(tryEnd, finallyEntry);
    link(catchEnd, finallyEntry);
    pending.add(done);
    pending.add(outerThrow);
    const finallyEnd = statements(s.finallyBlock.statements, finallyEntry, jumps);
    for (const target of pending) link(finallyEnd, target);
    return undefined;
  };

  const fnBody = fn.body;
  const jumps: JumpTargets = { breakTo: undefined, continueTo: undefined, labels: new Map(), throwTo: exit, returnTo: exit };
  if (fnBody && ts.isBlock(fnBody)) link(statements(fnBody.statements, entry, jumps), exit);
  else if (fnBody) link(expression(fnBody, entry), exit);
  return { fn, nodes, entry, exit, resumeOf, suspendOf, statementEntry, statementExit, isLocal };
}

/** Whether `id` sits in a function nested inside `node`. */
function insideFunction(ts: TS, id: ts.Node, node: ts.Node): boolean {
  for (let n = id.parent; n && n !== node; n = n.parent) if (isFunctionLike(ts, n)) return true;
  return false;
}

/** The function a scope node belongs to (itself when it is one). */
function ownFunction(ts: TS, node: ts.Node): ts.Node | undefined {
  for (let n: ts.Node | undefined = node; n; n = n.parent) if (isFunctionLike(ts, n)) return n;
  return undefined;
}

export function bindingDecls(ts: TS, name: ts.BindingName, isLocal: (d: LocalDecl) => boolean): LocalDecl[] {
  const out: LocalDecl[] = [];
  const visit = (n: ts.BindingName): void => {
    if (ts.isIdentifier(n)) {
      const decl = resolveIdentifier(ts, n);
      if (decl && isLocal(decl)) out.push(decl);
      return;
    }
    for (const element of n.elements) if (ts.isBindingElement(element)) visit(element.name);
  };
  visit(name);
  return out;
}

/** `x = ...` or `[x, y] = ...`: the old value is gone (not `x += 1`, `x++`). */
function isDefiniteWrite(ts: TS, id: ts.Identifier): boolean {
  if (!isWriteReference(ts, id)) return false;
  const node = assignmentTargetOf(ts, id);
  const parent = node.parent;
  if (parent && ts.isBinaryExpression(parent) && parent.left === node) return parent.operatorToken.kind === ts.SyntaxKind.EqualsToken;
  return !!parent && (ts.isForOfStatement(parent) || ts.isForInStatement(parent));
}

/**
 * Backward liveness over the graph: the locals each node may read before they are overwritten.
 * A node's exception target adds what the handler there needs before the node (the throw may
 * happen before the node's own writes).
 */
export function liveness(flow: FunctionFlow, gen: (n: FlowNode) => ReadonlySet<LocalDecl> = n => n.uses, kill: (n: FlowNode) => ReadonlySet<LocalDecl> = n => n.defs): Map<FlowNode, Set<LocalDecl>> {
  const liveIn = new Map<FlowNode, Set<LocalDecl>>();
  for (const n of flow.nodes) liveIn.set(n, new Set());
  const preds = new Map<FlowNode, FlowNode[]>();
  const addPred = (to: FlowNode, from: FlowNode): void => {
    const list = preds.get(to);
    if (list) list.push(from);
    else preds.set(to, [from]);
  };
  for (const n of flow.nodes) {
    for (const s of n.succ) addPred(s, n);
    if (n.exc) addPred(n.exc, n);
  }
  // Nodes are built in source order and popped from the end: the last first, as a backward problem
  // converges fastest.
  const work = [...flow.nodes];
  const queued = new Set(work);
  while (work.length > 0) {
    const n = work.pop()!;
    queued.delete(n);
    const out = new Set<LocalDecl>();
    for (const s of n.succ) for (const d of liveIn.get(s)!) out.add(d);
    const next = new Set(gen(n));
    const killed = kill(n);
    for (const d of out) if (!killed.has(d)) next.add(d);
    if (n.exc) for (const d of liveIn.get(n.exc)!) next.add(d);
    const old = liveIn.get(n)!;
    if (next.size === old.size && [...next].every(d => old.has(d))) continue;
    liveIn.set(n, next);
    for (const p of preds.get(n) ?? []) {
      if (!queued.has(p)) {
        queued.add(p);
        work.push(p);
      }
    }
  }
  return liveIn;
}

/**
 * Whether control can run from the start of `s` to its end when every question ends the round
 * (the first round, or any round past its resume point): suspend nodes do not continue.
 */
export function completesNormally(flow: FunctionFlow, s: ts.Node): boolean {
  const start = flow.statementEntry.get(s);
  const end = flow.statementExit.get(s);
  if (!start || !end) return true;
  const seen = new Set<FlowNode>([start]);
  const stack = [start];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n === end) return true;
    if (n.kind === 'suspend') continue;
    // An exception caught inside the statement may lead to its end too (a finally rethrows it); the
    // code evaluated before a question (its arguments, and the asking round's mint) can throw.
    const caught: FlowNode[] = n.exc?.catches && n.exc.ast && isWithinNode(n.exc.ast, s) ? [n.exc] : [];
    for (const next of [...n.succ, ...caught]) {
      // Stay inside the statement: a loop around it could lead back to its start, never to its end.
      if (next !== end && next.ast && !isWithinNode(next.ast, s)) continue;
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return false;
}

/** Whether `to` can be reached from `from` (another round's code included). */
export function reaches(from: FlowNode, to: FlowNode): boolean {
  return reachableFrom(from).has(to);
}

/** Nodes reachable from `start` (itself included), across rounds: suspend nodes continue to their resume. */
export function reachableFrom(start: FlowNode): Set<FlowNode> {
  const seen = new Set<FlowNode>([start]);
  const stack = [start];
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const next of n.exc ? [...n.succ, n.exc] : n.succ) {
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return seen;
}

export interface AfterQuestion {
  /** Locals whose value at the question is read after it. */
  live: Set<LocalDecl>;
  /** Locals whose binding at the question is referenced (read or written) after it. */
  inScope: Set<LocalDecl>;
  /** Every reference (read or write) to a local in code that may run after the question. */
  refs: ts.Identifier[];
}

/** For every node: the locals whose current binding is referenced from there on (before a new one is declared). */
export function scopeLiveness(flow: FunctionFlow): Map<FlowNode, Set<LocalDecl>> {
  const referenced = new Map<FlowNode, Set<LocalDecl>>();
  return liveness(flow, n => {
    let set = referenced.get(n);
    // A declaration's own binding is not a reference to an earlier one.
    if (!set) referenced.set(n, (set = new Set([...n.uses, ...[...n.defs].filter(d => !n.declares.has(d))])));
    return set;
  }, n => n.declares);
}

/**
 * What the code after the question `awaited` needs (from its resume node on); undefined when the
 * question is not a split point of this function (it sits in a nested function).
 */
export function afterQuestion(flow: FunctionFlow, live: Map<FlowNode, Set<LocalDecl>>, inScope: Map<FlowNode, Set<LocalDecl>>, awaited: ts.Node): AfterQuestion | undefined {
  const resume = flow.resumeOf.get(awaited as ts.Expression);
  if (!resume) return undefined;
  const refs: ts.Identifier[] = [];
  for (const n of reachableFrom(resume)) refs.push(...n.refs);
  // The resume node's own references come after the answer (its declarations bind the answer).
  const scoped = new Set([...(inScope.get(resume) ?? [])].filter(d => !resume.declares.has(d)));
  for (const d of [...resume.uses, ...resume.defs]) if (!resume.declares.has(d)) scoped.add(d);
  return { live: new Set(live.get(resume)), inScope: scoped, refs };
}
