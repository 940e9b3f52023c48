import { createTwoFilesPatch, structuredPatch } from 'diff';

/** Diffs on text without carriage returns: a CRLF file shows its real changes, not every line. */
const plain = (text: string) => text.replace(/\r\n/g, '\n');

export function unifiedDiff(file: string, before: string, after: string, context = 3): string {
  if (before === after) return '';
  // Each report format (terminal, Markdown, JSON, ...) prints the same diffs: each is computed once.
  const known = computed.get(file);
  if (known && known.before === before && known.after === after && known.context === context) return known.diff;
  const diff = createTwoFilesPatch(`a/${file}`, `b/${file}`, plain(before), plain(after), undefined, undefined, { context });
  if (computed.size >= 1000) computed.clear();
  computed.set(file, { before, after, context, diff });
  return diff;
}

/** The last diff computed for each file name (a bounded cache: a long-lived process forgets them). */
const computed = new Map<string, { before: string; after: string; context: number; diff: string }>();

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

/**
 * The diff of lines `start..end` of `before` (one handler): the change blocks that touch those lines,
 * shown with context from inside the range only, so a neighbouring handler's changes never leak in.
 * A change block that straddles the range's edge is shown whole.
 */
export function diffOfLines(file: string, before: string, after: string, lines: { start: number; end: number }): string {
  const blocks = hunks(before, after, 0);
  // jsdiff: a pure insertion (oldLines 0) goes before old line oldStart.
  const oldEnd = (h: Hunk) => h.oldStart + h.oldLines - 1;
  const touching = blocks.filter(h => (h.oldLines === 0 ? h.oldStart > lines.start && h.oldStart <= lines.end : h.oldStart <= lines.end && oldEnd(h) >= lines.start));
  if (touching.length === 0) return '';
  let start = lines.start;
  let end = lines.end;
  for (const h of touching) {
    if (h.oldLines === 0) continue;
    start = Math.min(start, h.oldStart);
    end = Math.max(end, oldEnd(h));
  }
  const shift = (included: (h: Hunk) => boolean) => blocks.filter(included).reduce((n, h) => n + h.newLines - h.oldLines, 0);
  const newStart = start + shift(h => (h.oldLines === 0 ? h.oldStart <= start : oldEnd(h) < start));
  const newEnd = end + shift(h => (h.oldLines === 0 ? h.oldStart <= end : oldEnd(h) <= end));
  const slice = (text: string, from: number, to: number) => plain(text).split('\n').slice(from - 1, to).join('\n') + '\n';
  const inside = hunks(slice(before, start, end), slice(after, newStart, newEnd), 2);
  const body = inside.map(h => `@@ -${h.oldStart + start - 1},${h.oldLines} +${h.newStart + newStart - 1},${h.newLines} @@\n${h.lines.join('\n')}`).join('\n');
  return `--- a/${file}\n+++ b/${file}\n${body}\n`;
}

/**
 * Maps a line of `after` to the line of `before` it came from: unchanged lines to themselves, a
 * changed line to its counterpart in the change block (or the block's last old line), an inserted
 * line to the line it was inserted before. Used to report every location in lines of the file as
 * it was on disk, whichever stage found it.
 */
export function lineMapper(before: string, after: string): (line: number) => number {
  const blocks = hunks(before, after, 0);
  if (blocks.length === 0) return line => line;
  return line => {
    let delta = 0;
    for (const h of blocks) {
      const newEnd = h.newStart + h.newLines - 1;
      if (h.newLines > 0 && line >= h.newStart && line <= newEnd) {
        return h.oldLines === 0 ? h.oldStart : h.oldStart + Math.min(line - h.newStart, h.oldLines - 1);
      }
      if (h.newLines === 0 ? h.newStart <= line : newEnd < line) delta += h.newLines - h.oldLines;
      else break;
    }
    return line - delta;
  };
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
