import { describe, expect, it } from 'vitest';
import { diffOfLines, lineMapper } from '../../src/report/diff.js';

const lines = (...items: string[]) => items.join('\n') + '\n';

// Two handlers back to back: both rewritten, their changes a line apart.
const before = lines(
  "server.registerTool('a', {}, async ctx => {", //  1
  '  const x = await ask();', //                     2
  '  return x;', //                                  3
  '});', //                                          4
  "server.registerTool('b', {}, async ctx => {", //  5
  '  const y = await ask();', //                     6
  '  return y;', //                                  7
  '});', //                                          8
);
const after = lines(
  "server.registerTool('a', {}, async ctx => {",
  '  const state = read();',
  '  if (state) return state.x;',
  '  return inputRequired(x);',
  '});',
  "server.registerTool('b', {}, async ctx => {",
  '  const state = read();',
  '  if (state) return state.y;',
  '  return inputRequired(y);',
  '});',
);

describe('diffOfLines (the diff of one handler)', () => {
  it("shows only the handler's own changes, even when the previous handler's are within context", () => {
    const diff = diffOfLines('s.ts', before, after, { start: 5, end: 8 });
    expect(diff).toBe([
      '--- a/s.ts',
      '+++ b/s.ts',
      '@@ -5,4 +6,5 @@',
      " server.registerTool('b', {}, async ctx => {",
      '-  const y = await ask();',
      '-  return y;',
      '+  const state = read();',
      '+  if (state) return state.y;',
      '+  return inputRequired(y);',
      ' });',
      '',
    ].join('\n'));
    expect(diffOfLines('s.ts', before, after, { start: 1, end: 4 })).not.toContain('state.y');
  });

  it('counts lines inserted before the handler in its new line numbers, and leaves them out', () => {
    const withHeader = lines('// header added by the rewrite', 'type S = {};', ...after.trimEnd().split('\n'));
    const diff = diffOfLines('s.ts', before, withHeader, { start: 5, end: 8 });
    expect(diff).toContain('@@ -5,4 +8,5 @@');
    expect(diff).not.toContain('header');
  });

  it('is empty for a handler the rewrite did not touch', () => {
    const onlyFirst = after.split('\n').slice(0, 5).join('\n') + '\n' + before.split('\n').slice(4).join('\n');
    expect(diffOfLines('s.ts', before, onlyFirst, { start: 5, end: 8 })).toBe('');
  });
});

describe('lineMapper (lines of a later text back to the file on disk)', () => {
  it('maps unchanged, changed, inserted and shifted lines', () => {
    const toOriginal = lineMapper(before, after);
    expect(toOriginal(1)).toBe(1);
    expect(toOriginal(2)).toBe(2); // changed: its counterpart
    expect(toOriginal(4)).toBe(3); // an extra changed line: the block's last old line
    expect(toOriginal(5)).toBe(4); // shifted by one
    expect(toOriginal(6)).toBe(5);
    expect(toOriginal(10)).toBe(8);
  });

  it('maps lines after a deletion and an insertion', () => {
    const deleted = lineMapper(lines('a', 'b', 'c', 'd'), lines('a', 'b', 'd'));
    expect([1, 2, 3].map(deleted)).toEqual([1, 2, 4]);
    const inserted = lineMapper(lines('a', 'b'), lines('a', 'x', 'y', 'b'));
    expect([1, 2, 3, 4].map(inserted)).toEqual([1, 2, 2, 2]);
  });

  it('is the identity for equal texts, and ignores CRLF', () => {
    expect(lineMapper('a\r\nb\r\n', 'a\nb\n')(2)).toBe(2);
  });
});
