import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, columns: 100, written, write: (text: string) => written.push(text) > 0 };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('progress on stderr', () => {
  it('draws a bar in place on a terminal once the run lasts, and clears it at the end', () => {
    vi.useFakeTimers();
    const tty = stream(true);
    const progress = createProgress(tty, { enabled: true, ci: false });
    progress.update({ phase: 'rewrite', done: 0, total: 200, file: 'src/a.ts' });
    expect(tty.written).toEqual([]);
    vi.advanceTimersByTime(1000);
    progress.update({ phase: 'rewrite', done: 99, total: 200, file: 'src/b.ts' });
    expect(tty.written[0]).toMatch(/^\r\x1b\[K\[█+░+\] rewriting 100\/200 src\/b\.ts$/);
    progress.done();
    expect(tty.written.at(-1)).toBe('\r\x1b[K');
  });

  it('prints one plain line per phase when not a terminal, or in CI', () => {
    for (const [isTTY, ci] of [[false, false], [true, true]] as const) {
      const out = stream(isTTY);
      const progress = createProgress(out, { enabled: true, ci });
      for (let i = 0; i < 3; i++) progress.update({ phase: 'read', done: i, total: 3 });
      progress.update({ phase: 'verify', done: 0, total: 1 });
      expect(out.written).toEqual(['mrtr-migrate: reading 3 file(s)\n', 'mrtr-migrate: type-checking 1 file(s)\n']);
    }
  });
});
