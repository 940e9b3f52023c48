import { diffArrays } from 'diff';

const MARKER = /^\s*\/\/ mrtr-migrate: /;
/** `line 40`, `lines 12, 30`, `line 8 and 9`: lines of the same file (another file's are written `file.ts:40`). */
const LINES = /\b(lines?) (\d+(?:(?:, | and )\d+)*)/g;

/**
 * A refusal's reason names lines of the file as the analysis read it (`another site in the same
 * handler (line 40) is refused`); the report keeps those, the lines of the file before the run. In
 * the file, the marker is read beside the rewritten text, whose lines moved (markers above them,
 * rewritten handlers before them): each line a marker this run added names is written as the line
 * it is at in `after`. A line the rewrite changed (not found unchanged) keeps its number.
 */
export function remapMarkerLines(before: string, after: string): string {
  // Most files have no marker that names a line: no diff for them.
  if (!after.split('\n').some(line => MARKER.test(line) && new RegExp(LINES.source).test(line))) return after;
  const old = before.split(/\r?\n/);
  // Split at \n only, so that joining again keeps every line's own ending.
  const now = after.split('\n');
  const moved = new Map<number, number>();
  const added = new Set<number>();
  let i = 0;
  let j = 0;
  for (const change of diffArrays(old, now.map(l => l.replace(/\r$/, '')))) {
    const count = change.count ?? change.value.length;
    if (change.added) {
      for (let k = 0; k < count; k++) added.add(j + k);
      j += count;
    } else if (change.removed) {
      i += count;
    } else {
      for (let k = 0; k < count; k++) moved.set(i + k + 1, j + k + 1);
      i += count;
      j += count;
    }
  }
  let changed = false;
  const out = now.map((line, index) => {
    if (!added.has(index) || !MARKER.test(line)) return line;
    const remapped = line.replace(LINES, (_, word: string, numbers: string) =>
      `${word} ${numbers.replace(/\d+/g, n => String(moved.get(Number(n)) ?? n))}`);
    if (remapped !== line) changed = true;
    return remapped;
  });
  return changed ? out.join('\n') : after;
}
