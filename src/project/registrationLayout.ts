import { ts } from 'ts-morph';
import type { TS } from '../analysis/types.js';
import { applyEdits, indentUnit, newlineOf, trailingCommas, type Edit } from '../../transforms/mrtr/text.js';

const REGISTRATIONS = new Set(['registerTool', 'registerPrompt', 'registerResource']);

/** Where a relayout added lines: `count` after line `head` (1-based), one more after line `close`. */
export interface AddedLines {
  head: number;
  count: number;
  close: number;
}

/**
 * The official stage re-prints a v1 registration written one argument per line,
 *
 *   server.tool(
 *     'book_room',
 *     'Book a room.',
 *     { room: z.string() },
 *     async ({ room }) => {
 *       ...
 *     },
 *   );
 *
 * as one line, `server.registerTool('book_room', { description: ..., inputSchema: ... }, async ({ room }) => {`,
 * and closes it with `});` at the call's indentation; restoreIndentation gives the body its lines back,
 * so the body sits two levels under a call whose `});` is one level up. This writes such a call one
 * argument per line again, as it was: the body and the lines around it stay as they are, the handler
 * closes one level in and the call at its own level. A config object too long for the file's longest
 * line gets a line per property. `original`: the file before the stage, for its trailing commas (as
 * trailingCommas finds them) and its line length.
 */
export function restoreRegistrationLayout(fileName: string, original: string, text: string): { text: string; added: AddedLines[] } {
  const sourceFile = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const newline = newlineOf(text);
  const comma = trailingCommas(ts as unknown as TS, ts.createSourceFile(fileName, original, ts.ScriptTarget.Latest, true) as never) ? ',' : '';
  const longest = Math.max(80, ...original.split(/\r?\n/).map(l => l.length));
  const unit = indentUnit(text);
  const edits: Edit[] = [];
  const added: AddedLines[] = [];
  const lineOf = (pos: number) => sourceFile.getLineAndCharacterOfPosition(pos).line;
  const lineText = (line: number) => text.slice(sourceFile.getPositionOfLineAndCharacter(line, 0)).split(/\r?\n/)[0]!;
  const indentOf = (line: number) => /^[ \t]*/.exec(lineText(line))![0];

  const visit = (node: ts.Node): void => {
    node.forEachChild(visit);
    if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression) || !REGISTRATIONS.has(node.expression.name.text)) return;
    const handler = node.arguments.at(-1);
    if (!handler || !(ts.isArrowFunction(handler) || ts.isFunctionExpression(handler)) || !handler.body || !ts.isBlock(handler.body)) return;
    const body = handler.body;
    const head = lineOf(node.getStart(sourceFile));
    const close = lineOf(body.getEnd() - 1);
    // The whole head on one line, and the handler's `}` right before the call's `)`, on a line of its own.
    if (lineOf(body.getStart(sourceFile)) !== head || lineOf(node.getEnd()) !== close || close === head) return;
    if (text.slice(body.getEnd(), node.getEnd()).trim() !== ')' || lineText(close).trim().indexOf('})') !== 0) return;
    const first = body.statements[0];
    if (!first || lineOf(first.getStart(sourceFile)) === head) return;
    const callIndent = indentOf(head);
    const bodyIndent = indentOf(lineOf(first.getStart(sourceFile)));
    if (indentOf(close) !== callIndent || !bodyIndent.startsWith(callIndent)) return;
    // The body two levels under the call: it was written as an argument on a line of its own.
    if (bodyIndent !== callIndent + unit + unit) return;
    const args = node.arguments.slice(0, -1);
    // Nothing but the arguments between the parentheses (no comment that rebuilding would drop).
    const open = node.arguments.pos;
    const between = text.slice(open, handler.getStart(sourceFile));
    if (between.replace(args.map(a => a.getText(sourceFile)).join(', '), '').trim() !== (args.length > 0 ? ',' : '')) return;
    if (args.some(a => a.getText(sourceFile).includes('\n'))) return;

    const argIndent = callIndent + unit;
    const lines = [text.slice(sourceFile.getPositionOfLineAndCharacter(head, 0) + callIndent.length, open)];
    for (const arg of args) lines.push(...argumentLines(arg, argIndent, unit, comma, longest, sourceFile));
    lines.push(`${argIndent}${text.slice(handler.getStart(sourceFile), body.getStart(sourceFile) + 1)}`);
    const headStart = sourceFile.getPositionOfLineAndCharacter(head, 0) + callIndent.length;
    edits.push({ start: headStart, end: body.getStart(sourceFile) + 1, text: lines.join(newline) });
    edits.push({ start: sourceFile.getPositionOfLineAndCharacter(close, 0), end: node.getEnd(), text: `${argIndent}}${comma}${newline}${callIndent})` });
    added.push({ head: head + 1, count: lines.length - 1, close: close + 1 });
  };
  visit(sourceFile);
  // The edits of a registration in another's handler do not overlap its own (its head, its `})`).
  return edits.length === 0 ? { text, added } : { text: applyEdits(text, edits), added };
}

/** An argument on its line; a config object longer than the file's longest line gets a line per property. */
function argumentLines(arg: ts.Expression, indent: string, unit: string, comma: string, longest: number, sourceFile: ts.SourceFile): string[] {
  const one = `${indent}${arg.getText(sourceFile)},`;
  if (one.length <= longest || !ts.isObjectLiteralExpression(arg) || arg.properties.length < 2) return [one];
  return [`${indent}{`, ...arg.properties.map((p, i) => `${indent}${unit}${p.getText(sourceFile)}${i < arg.properties.length - 1 ? ',' : comma}`), `${indent}},`];
}

/** A line number of the file before the relayout, in the file after it. */
export function lineAfterRelayout(line: number, added: readonly AddedLines[]): number {
  let shift = 0;
  for (const a of added) {
    if (line > a.close) shift += a.count + 1;
    else if (line > a.head) shift += a.count;
  }
  return line + shift;
}
