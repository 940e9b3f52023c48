import type * as ts from 'typescript';

/** How a reason names places: `tools.test.ts:12`, and at most three of a list. */

/** `tools.test.ts:12`: a node's file name and line. */
export function fileLine(node: ts.Node): string {
  const file = node.getSourceFile();
  return `${file.fileName.split('/').pop()}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
}

/** A node's line (1-based) in its file. */
export function lineOf(node: ts.Node): number {
  const file = node.getSourceFile();
  return file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
}

/** The first three of a list, and how many more: a reason names examples, the report's chain the rest. */
export function listed(items: readonly string[], separator = ', '): string {
  const shown = items.slice(0, 3).join(separator);
  return items.length > 3 ? `${shown}${separator}and ${items.length - 3} more` : shown;
}
