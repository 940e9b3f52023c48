import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MARKER_MAX, markerText } from '../../transforms/mrtr/index.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');

/** Every file of every fixture's expected output (output.ts, or the files of an output folder). */
function outputFiles(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return outputFiles(path);
    return /(^|[\\/])output([\\/.])/.test(relative(FIXTURES, path)) ? [path] : [];
  });
}

describe('refusal markers', () => {
  it('are one line of at most 160 characters, their indentation included, in every fixture output', () => {
    const files = outputFiles(FIXTURES);
    const markers = files.flatMap(file => readFileSync(file, 'utf8').split('\n')
      .filter(line => /\/\/ mrtr-migrate: [a-z-]+ — /.test(line))
      .map(line => ({ file: relative(FIXTURES, file), marker: line.replace(/\r$/, '') })));
    // The refuse-* fixtures alone hold more than twenty: the check reads real outputs.
    expect(markers.length).toBeGreaterThan(20);
    expect(markers.filter(m => m.marker.length > MARKER_MAX)).toEqual([]);
  });

  it('keep the hint where it fits, else its first clause, else its first words and an ellipsis', () => {
    expect(markerText('loop', 'the question is asked inside a loop; ask once for all items.')).toBe('// mrtr-migrate: loop — the question is asked inside a loop; ask once for all items.');
    const finallyHint = "the question is inside a finally block: the try's pending outcome (a return value or an exception) would have to travel in requestState. Ask before the try, or after it.";
    expect(markerText('unsupported-construct', finallyHint)).toBe('// mrtr-migrate: unsupported-construct — the question is inside a finally block');
    const long = `${'word '.repeat(40)}and more; advice.`;
    const cut = markerText('parallel', long);
    expect(cut.length).toBeLessThanOrEqual(MARKER_MAX);
    expect(cut).toMatch(/^\/\/ mrtr-migrate: parallel — (word )+word…$/);
    // Indented, the line keeps to the same length: the first clause of a hint that fits at the margin.
    const subscribe = 'a resources/subscribe handler cannot return input_required; only tools/call, prompts/get and resources/read can ask the client.';
    expect(markerText('handler-kind', subscribe)).toBe(`// mrtr-migrate: handler-kind — ${subscribe}`);
    expect(markerText('handler-kind', subscribe, '  ')).toBe('// mrtr-migrate: handler-kind — a resources/subscribe handler cannot return input_required');
  });
});
