import { diffArrays } from 'diff';
import { ts } from 'ts-morph';
import type { TS } from '../analysis/types.js';
import { literalRanges, newlineOf } from '../../transforms/mrtr/text.js';

/**
 * The official v1-to-v2 stage re-prints a `server.tool(...)` call as `server.registerTool(...)` and
 * indents the callback's body two levels deeper than it was, so every line of every v1 handler shows
 * as changed in the diff. This puts back the indentation of lines the stage only moved: runs of lines
 * equal to the original's but for their indentation, all shifted by the same amount. Lines that start
 * inside a multi-line string or template literal keep their text, as does every other line.
 */
export function restoreIndentation(fileName: string, original: string, upgraded: string): string {
  if (original === upgraded) return upgraded;
  const newline = newlineOf(upgraded);
  const before = original.split(/\r?\n/);
  const after = upgraded.split(/\r?\n/);
  const literal = linesInsideLiterals(fileName, upgraded);
  const indent = (line: string): string => /^[ \t]*/.exec(line)![0];
  const changes = diffArrays(before.map(l => l.trim()), after.map(l => l.trim()));
  let oldLine = 0;
  let newLine = 0;
  const out = [...after];
  const added = new Set<number>();
  /** What restoreRun took off each line it restored (by new line index). */
  const shifts = new Map<number, string>();
  /** Lines the stage rewrote (`extra.sendRequest` → `ctx.mcpReq.send`) or added (a marker above them). */
  const rewritten: Array<{ oldStart: number; oldCount: number; newStart: number; newCount: number }> = [];
  let removedAt: [number, number] | undefined;
  for (const change of changes) {
    const count = change.count ?? change.value.length;
    if (change.added) for (let i = 0; i < count; i++) added.add(newLine + i);
    if (change.added) rewritten.push({ oldStart: removedAt?.[0] ?? oldLine, oldCount: removedAt?.[1] ?? 0, newStart: newLine, newCount: count });
    removedAt = change.removed ? [oldLine, count] : undefined;
    if (change.added) newLine += count;
    else if (change.removed) oldLine += count;
    else {
      restoreRun(before.slice(oldLine, oldLine + count), newLine);
      oldLine += count;
      newLine += count;
    }
  }
  // A rewritten line inside a block the stage moved deeper moves back with it, by the shift of the
  // restored lines around it: where it replaced as many lines, when it is that much deeper than the
  // line it replaced; otherwise (a marker above it) when it is that much deeper than the shallowest
  // line the block replaced.
  for (const { oldStart, oldCount, newStart, newCount } of rewritten) {
    const around = shifts.get(newStart - 1) ?? shifts.get(newStart + newCount);
    if (!around) continue;
    const replaced = before.slice(oldStart, oldStart + oldCount).filter(line => line.trim() !== '');
    const shallowest = Math.min(...replaced.map(line => indent(line).length), Infinity);
    for (let i = 0; i < newCount; i++) {
      const now = after[newStart + i]!;
      if (literal.has(newStart + i) || now.trim() === '') continue;
      if (oldCount === newCount) {
        const was = before[oldStart + i]!;
        if (was.trim() !== '' && indent(now) === indent(was) + around) out[newStart + i] = indent(was) + now.trimStart();
      } else if (indent(now).endsWith(around) && indent(now).length - around.length >= (replaced.length > 0 ? shallowest : 0)) {
        out[newStart + i] = indent(now).slice(0, -around.length) + now.trimStart();
      }
    }
  }
  // A closing line the stage wrote (`}),` of a raw shape it wrapped into `z.object({...})`, `});` of
  // a registration it re-printed) lines up with the line its call starts on, the outermost call
  // closing there, as the lines it replaced did.
  for (const [close, open] of callsClosing(fileName, upgraded)) {
    if (added.has(close) && /^[)\]}]+[,;]?$/.test(out[close]!.trim()) && indent(out[close]!).length > indent(out[open]!).length) {
      out[close] = indent(out[open]!) + out[close]!.trim();
    }
  }
  return out.join(newline);

  /**
   * A run of lines equal but for indentation: a line the stage indented deeper takes its old
   * indentation back when a neighbour in the run moved by the same amount (a block moved together,
   * not a lone brace the diff paired with another).
   */
  function restoreRun(old: string[], start: number): void {
    const extra = old.map((was, i) => {
      const now = after[start + i]!;
      if (was.trim() === '' || literal.has(start + i)) return undefined;
      const [a, b] = [indent(was), indent(now)];
      return b.length > a.length && b.startsWith(a) ? b.slice(a.length) : '';
    });
    const neighbour = (i: number, step: number): string | undefined => {
      for (let j = i + step; j >= 0 && j < old.length; j += step) if (extra[j] !== undefined) return extra[j];
      return undefined;
    };
    // A line with a word on it is its own evidence; a lone brace needs a neighbour that moved alike.
    extra.forEach((moved, i) => {
      if (moved && (/\w/.test(old[i]!) || neighbour(i, -1) === moved || neighbour(i, 1) === moved)) {
        out[start + i] = old[i]!;
        shifts.set(start + i, moved);
      }
    });
  }
}

/** Calls over several lines, by the line (0-based) they end on: the line the outermost of them starts on. */
function callsClosing(fileName: string, text: string): Map<number, number> {
  const found = new Map<number, number>();
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => file.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const [start, end] = [lineOf(node.getStart(file)), lineOf(node.getEnd())];
      if (end > start && !found.has(end)) found.set(end, start);
    }
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

/** Lines (0-based) that start inside a multi-line string or template literal. */
function linesInsideLiterals(fileName: string, text: string): Set<number> {
  const lines = new Set<number>();
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  for (const [start, end] of literalRanges(ts as unknown as TS, file as unknown as import('typescript').SourceFile)) {
    const last = file.getLineAndCharacterOfPosition(end).line;
    for (let line = file.getLineAndCharacterOfPosition(start).line + 1; line <= last; line++) lines.add(line);
  }
  return lines;
}
