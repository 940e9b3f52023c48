import type * as ts from 'typescript';
import type { TS } from './types.js';

/** Statement lists: what control flow is built on (see cfg.ts for the flow itself). */

/** The statement list a statement sits in, when it sits in one. */
export function statementList(ts: TS, statement: ts.Node): readonly ts.Statement[] | undefined {
  const parent = statement.parent;
  if (!parent) return undefined;
  if (ts.isBlock(parent) || ts.isSourceFile(parent) || ts.isModuleBlock(parent) || ts.isCaseClause(parent) || ts.isDefaultClause(parent)) {
    return parent.statements;
  }
  return undefined;
}
