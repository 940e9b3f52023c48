import { describe, expect, it } from 'vitest';
import { outOfMemory, RunFlags } from '../../src/cli/isolate.js';

// The message itself; test/cli/edge-cases.test.ts runs the CLI out of memory for real.
describe('the out-of-memory message', () => {
  it('names the phase and says nothing was written before the write stage', () => {
    const text = outOfMemory('rewrite', false);
    expect(text).toMatch(/^mrtr-migrate: the run ran out of memory while rewriting \(the JavaScript heap limit is \d+ MB\) and was stopped\. Nothing was written\.$/m);
    expect(text).toMatch(/NODE_OPTIONS=--max-old-space-size=\d+/);
    expect(text).not.toContain('--no-verify');
  });

  it('points to --no-verify when the type check of the rewrites ran out', () => {
    expect(outOfMemory('verify', false)).toMatch(/while type-checking .*\n(.*\n)*.*--no-verify skips it/);
  });

  it('says files may have been written once the write stage had started', () => {
    expect(outOfMemory('write', true)).toMatch(/It had started writing: .*check `git status`/);
  });
});

describe('the flags the worker shares with the main thread', () => {
  it('are read in one thread as the other wrote them', () => {
    const worker = new RunFlags();
    const main = new RunFlags(worker.buffer);
    expect([main.writing, main.phase]).toEqual([false, undefined]);
    worker.phase = 'verify';
    worker.writing = true;
    expect([main.writing, main.phase]).toEqual([true, 'verify']);
    worker.writing = false;
    expect(main.writing).toBe(false);
  });
});
