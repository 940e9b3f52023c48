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
