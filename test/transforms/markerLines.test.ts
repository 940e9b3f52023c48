import { describe, expect, it } from 'vitest';
import { remapMarkerLines } from '../../transforms/mrtr/markerLines.js';

const lines = (...l: string[]): string => l.join('\n');

describe('the lines a marker names', () => {
  const before = lines(
    'handler(async () => {',
    '  await ask();',
    '  await other();',
    '});',
  );

  it('are the lines of the file as written: after the markers above them and the rewritten code before them', () => {
    const after = lines(
      '// added by the rewrite',
      'handler(async () => {',
      '  // mrtr-migrate: blocked-by-sibling — another site in the same handler (line 3) is refused',
      '  await ask();',
      '  // mrtr-migrate: unsupported-construct — see lines 2, 3 and 4; also other.ts:3',
      '  await other();',
      '});',
    );
    expect(remapMarkerLines(before, after).split('\n')).toEqual([
      '// added by the rewrite',
      'handler(async () => {',
      '  // mrtr-migrate: blocked-by-sibling — another site in the same handler (line 6) is refused',
      '  await ask();',
      '  // mrtr-migrate: unsupported-construct — see lines 4, 6 and 7; also other.ts:3',
      '  await other();',
      '});',
    ]);
  });

  it('stay as they are in a marker that was there before, and where the line they name was rewritten', () => {
    const marked = lines('// mrtr-migrate: loop — the loop at line 2', ...before.split('\n'));
    const after = lines('// new line', '// mrtr-migrate: loop — the loop at line 2', 'handler(async () => {', '  await asked();', '  // mrtr-migrate: parallel — line 2', '  await other();', '});');
    expect(remapMarkerLines(marked, after).split('\n')).toEqual(after.split('\n').map(l => (l === '  // mrtr-migrate: parallel — line 2' ? '  // mrtr-migrate: parallel — line 3' : l)));
    // CRLF lines keep their endings.
    const crlf = after.replaceAll('\n', '\r\n');
    expect(remapMarkerLines(marked.replaceAll('\n', '\r\n'), crlf)).toBe(crlf.replace('parallel — line 2', 'parallel — line 3'));
  });
});
