import type * as ts from 'typescript';
import { isFunctionLike } from './scope.js';
import type { TS } from './types.js';

/**
 * Questions inside a `switch` case (the low-level `tools/call` dispatch): the rewrite resumes in
 * the case's code, outside the switch, so the case's `break`s must be rewritten to leave that code.
 */

/** Unlabeled `break`s that leave `sw` itself (not a loop or switch nested in it, not a nested function). */
export function breaksOf(ts: TS, sw: ts.SwitchStatement): ts.BreakStatement[] {
  const found: ts.BreakStatement[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isBreakStatement(node) && !node.label) found.push(node);
    if (isFunctionLike(ts, node) || ts.isIterationStatement(node, false) || ts.isSwitchStatement(node)) return;
    node.forEachChild(visit);
  };
  sw.caseBlock.forEachChild(visit);
  return found;
}

/** Why the switch cases around a question cannot be split there, if they cannot. */
export function switchCaseProblem(ts: TS, awaited: ts.Node, boundary: ts.Node): string | undefined {
  let child: ts.Node = awaited;
  for (let node = awaited.parent; node && node !== boundary; child = node, node = node.parent) {
    if (!ts.isCaseClause(node) && !ts.isDefaultClause(node)) continue;
    if (ts.isCaseClause(node) && node.expression === child) return 'the question is asked in a case label; ask before the switch';
    // The resumed case keeps its finally blocks only as guarded copies, which keep `break` as written.
    const inFinally = breaksOf(ts, node.parent.parent).find(b => insideFinally(ts, b, node!));
    if (inFinally) return 'a `break` in a finally block leaves the switch that holds the question; move the break out of the finally';
  }
  return undefined;
}

function insideFinally(ts: TS, node: ts.Node, stop: ts.Node): boolean {
  for (let n: ts.Node | undefined = node; n && n !== stop; n = n.parent) {
    const parent: ts.Node | undefined = n.parent;
    if (parent && ts.isTryStatement(parent) && parent.finallyBlock === n) return true;
  }
  return false;
}

/**
 * Whether a write can reach a later question at `questionAt` (not in the write's statement list): a
 * `return`, `throw`, or a `break` out of a switch that holds the question, later in the same list, says no.
 * (`if (!found) { summary = 'none'; break; }` before a question in the same case.)
 */
export function exitsBeforeQuestion(ts: TS, write: ts.Node, questionAt: number): boolean {
  let child: ts.Node = write;
  for (let node = write.parent; node; child = node, node = node.parent) {
    if (questionAt >= node.pos && questionAt < node.end) return false;
    if (isFunctionLike(ts, node)) return false;
    const list = ts.isBlock(node) || ts.isCaseClause(node) || ts.isDefaultClause(node) ? node.statements : undefined;
    if (!list) continue;
    const later = list.slice(list.indexOf(child as ts.Statement) + 1);
    if (later.some(s => ts.isReturnStatement(s) || ts.isThrowStatement(s) || (ts.isBreakStatement(s) && !s.label && breakTargetHolds(ts, s, questionAt)))) return true;
  }
  return false;
}

function breakTargetHolds(ts: TS, b: ts.BreakStatement, questionAt: number): boolean {
  for (let n: ts.Node | undefined = b.parent; n && !isFunctionLike(ts, n); n = n.parent) {
    if (ts.isSwitchStatement(n) || ts.isIterationStatement(n, false)) return questionAt >= n.pos && questionAt < n.end;
  }
  return false;
}

/** Whether control may run off the end of a case into the next one (syntactic; unsure means yes). */
export function mayFallThrough(ts: TS, clause: ts.CaseOrDefaultClause): boolean {
  const list = clause.statements;
  return list.length === 0 || !endsInJump(ts, list[list.length - 1]!);
}

function endsInJump(ts: TS, s: ts.Statement): boolean {
  if (ts.isReturnStatement(s) || ts.isThrowStatement(s) || ts.isBreakStatement(s) || ts.isContinueStatement(s)) return true;
  if (ts.isBlock(s)) return s.statements.length > 0 && endsInJump(ts, s.statements[s.statements.length - 1]!);
  if (ts.isIfStatement(s)) return !!s.elseStatement && endsInJump(ts, s.thenStatement) && endsInJump(ts, s.elseStatement);
  if (ts.isTryStatement(s)) {
    if (s.finallyBlock && endsInJump(ts, s.finallyBlock)) return true;
    return endsInJump(ts, s.tryBlock) && (!s.catchClause || endsInJump(ts, s.catchClause.block));
  }
  return false;
}
