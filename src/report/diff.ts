import { createTwoFilesPatch, structuredPatch } from 'diff';

/** Diffs on text without carriage returns: a CRLF file shows its real changes, not every line. */
const plain = (text: string) => text.replace(/\r\n/g, '\n');

export function unifiedDiff(file: string, before: string, after: string, context = 3): string {
  if (before === after) return '';
  return createTwoFilesPatch(`a/${file}`, `b/${file}`, plain(before), plain(after), undefined, undefined, { context });
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export function hunks(before: string, after: string, context = 3): Hunk[] {
  if (before === after) return [];
  return structuredPatch('a', 'b', plain(before), plain(after), undefined, undefined, { context }).hunks;
}

/** The hunks that touch lines `start..end` of `before`, as a unified diff body (the diff of one handler). */
export function diffOfLines(file: string, before: string, after: string, lines: { start: number; end: number }): string {
  const touching = hunks(before, after, 2).filter(h => h.oldStart <= lines.end && h.oldStart + Math.max(h.oldLines, 1) - 1 >= lines.start);
  if (touching.length === 0) return '';
  const body = touching.map(h => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.join('\n')}`).join('\n');
  return `--- a/${file}\n+++ b/${file}\n${body}\n`;
}

export interface SideBySideRow {
  kind: 'context' | 'change' | 'separator';
  oldLine: number | undefined;
  oldText: string | undefined;
  newLine: number | undefined;
  newText: string | undefined;
}

/** Rows for a two-column diff: removed and added lines of a change paired up, context on both sides. */
export function sideBySide(before: string, after: string, context = 3): SideBySideRow[] {
  const rows: SideBySideRow[] = [];
  for (const hunk of hunks(before, after, context)) {
    if (rows.length > 0) rows.push({ kind: 'separator', oldLine: undefined, oldText: undefined, newLine: undefined, newText: undefined });
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    let removed: string[] = [];
    let added: string[] = [];
    const flush = () => {
      for (let i = 0; i < Math.max(removed.length, added.length); i++) {
        rows.push({
          kind: 'change',
          oldLine: i < removed.length ? oldLine + i : undefined,
          oldText: removed[i],
          newLine: i < added.length ? newLine + i : undefined,
          newText: added[i],
        });
      }
      oldLine += removed.length;
      newLine += added.length;
      removed = [];
      added = [];
    };
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === '-') removed.push(text);
      else if (mark === '+') added.push(text);
      else if (mark === ' ') {
        flush();
        rows.push({ kind: 'context', oldLine, oldText: text, newLine, newText: text });
        oldLine++;
        newLine++;
      }
    }
    flush();
  }
  return rows;
}
