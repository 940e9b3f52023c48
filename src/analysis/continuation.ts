import type * as ts from 'typescript';
import { mayFallThrough } from './switchCase.js';
import type { TS } from './types.js';

/**
 * What runs after a question, and what ran before it, within one function. Structured: after a
 * question inside an `if` branch comes the rest of the branch, then the code after the `if`;
 * inside a `try` block, the rest of the block, the `catch` and `finally`, then the code after.
 */

/** The statement list a statement sits in, when it sits in one. */
export function statementList(ts: TS, statement: ts.Node): readonly ts.Statement[] | undefined {
  const parent = statement.parent;
  if (!parent) return undefined;
  if (ts.isBlock(parent) || ts.isSourceFile(parent) || ts.isModuleBlock(parent) || ts.isCaseClause(parent) || ts.isDefaultClause(parent)) {
    return parent.statements;
  }
  return undefined;
}

function siblingsAfter(ts: TS, statement: ts.Node): ts.Statement[] {
  const list = statementList(ts, statement);
  if (!list) return [];
  const index = list.indexOf(statement as ts.Statement);
  return list.slice(index + 1);
}

function siblingsBefore(ts: TS, statement: ts.Node): ts.Statement[] {
  const list = statementList(ts, statement);
  if (!list) return [];
  const index = list.indexOf(statement as ts.Statement);
  return list.slice(0, index);
}

/**
 * Nodes that may run after the question held by `statement`, up to the end of the function body.
 * (The statement itself is not included; callers add the part of it that follows the await.)
 */
export function codeAfter(ts: TS, statement: ts.Statement, body: ts.Node): ts.Node[] {
  const after: ts.Node[] = [...siblingsAfter(ts, statement)];
  let child: ts.Node = statement;
  for (let node: ts.Node | undefined = statement.parent; node && node !== body; child = node, node = node.parent) {
    if (ts.isTryStatement(node)) {
      if (child === node.tryBlock && node.catchClause) after.push(node.catchClause);
      if (child !== node.finallyBlock && node.finallyBlock) after.push(node.finallyBlock);
    } else if (ts.isCaseClause(node) || ts.isDefaultClause(node)) {
      // Later cases run only by falling through into them.
      const clauses = node.parent.clauses;
      for (let i = clauses.indexOf(node); i + 1 < clauses.length && mayFallThrough(ts, clauses[i]!); i++) after.push(clauses[i + 1]!);
    } else if (ts.isIterationStatement(node, false)) {
      after.push(node); // the loop may go round again
    }
    if (ts.isStatement(node)) after.push(...siblingsAfter(ts, node));
  }
  return after;
}

/** Nodes that run before the question on the way to it: earlier siblings, enclosing conditions. */
export function codeBefore(ts: TS, statement: ts.Statement, body: ts.Node): ts.Node[] {
  const before: ts.Node[] = [...siblingsBefore(ts, statement)];
  let child: ts.Node = statement;
  for (let node: ts.Node | undefined = statement.parent; node && node !== body; child = node, node = node.parent) {
    if (ts.isIfStatement(node) && child !== node.expression) before.push(node.expression);
    if (ts.isSwitchStatement(node)) before.push(node.expression);
    if (ts.isCaseClause(node) || ts.isDefaultClause(node)) {
      // Earlier cases that fall through into this one run before the question too.
      const clauses = node.parent.clauses;
      for (let i = clauses.indexOf(node) - 1; i >= 0 && mayFallThrough(ts, clauses[i]!); i--) before.push(clauses[i]!);
    }
    if (ts.isTryStatement(node) && child !== node.tryBlock) before.push(node.tryBlock);
    if (ts.isStatement(node)) before.push(...siblingsBefore(ts, node));
  }
  return before;
}
