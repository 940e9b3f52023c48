import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RefusalReason } from '../../src/analysis/types.js';
import { runPipeline } from './pipeline.js';

/**
 * Refusal fixtures: fixtures/refuse-<reason>/input.ts is a server module whose push-style sites are
 * all refused with <reason>. A refusal changes nothing but the marker line above each refused
 * statement (`// mrtr-migrate: <reason> — <hint>`), so output.ts minus its marker lines is input.ts
 * byte for byte. fixtures.test.ts covers the same folders for golden output, idempotency and
 * type-checking.
 */

const root = resolve(import.meta.dirname, '..', '..', 'fixtures');

/** Every reason the analysis can give; the Record type makes a new RefusalReason fail to compile here. */
const REASONS: Record<RefusalReason, true> = {
  'non-json-local': true,
  'shared-state-mutated': true,
  'unknown-local-type': true,
  'no-live-request': true,
  'caller-not-found': true,
  'fire-and-forget': true,
  'detached-task': true,
  'handler-kind': true,
  loop: true,
  parallel: true,
  'nested-callback': true,
  'server-not-found': true,
  'blocked-by-sibling': true,
  'unsupported-construct': true,
  'untyped-receiver': true,
  relay: true,
  'task-augmented': true,
  framework: true,
  ignored: true,
  'sdk-version': true,
};
/**
 * A suppressed site gets no marker (its ignore comment says why): fixtures/v2-ignore-comments covers
 * it. Nor does a site the run does not rewrite for the installed server (its one line says why):
 * test/project/serverVersion.test.ts covers it.
 */
const WITHOUT_MARKER: RefusalReason[] = ['ignored', 'sdk-version'];
const isReason = (value: string): value is RefusalReason => Object.hasOwn(REASONS, value);

const cases = readdirSync(root)
  .filter(name => name.startsWith('refuse-') && existsSync(join(root, name, 'input.ts')))
  .sort();

const MARKER = 'mrtr-migrate:';
/** `<indent>// mrtr-migrate: <reason> — <hint>` */
const MARKER_LINE = /^[ \t]*\/\/ mrtr-migrate: ([a-z-]+) — (\S.*)$/;

interface Marker {
  line: string;
  reason: string;
  hint: string;
}

function markersOf(text: string): Marker[] {
  return text.split('\n').filter(line => line.includes(MARKER)).map(line => {
    const match = MARKER_LINE.exec(line.replace(/\r$/, ''));
    expect(match, `malformed marker line: ${line}`).not.toBeNull();
    return { line, reason: match![1]!, hint: match![2]! };
  });
}

/** The reason a blocked-by-sibling hint says the blocking site was refused with. */
function blockingReason(hint: string): string | undefined {
  return /\bis refused \(([a-z-]+)\)/.exec(hint)?.[1];
}

it('has a refusal fixture for every refusal reason', () => {
  expect(cases).toEqual(Object.keys(REASONS).filter(r => !WITHOUT_MARKER.includes(r as RefusalReason)).map(reason => `refuse-${reason}`).sort());
});

describe.each(cases)('%s', name => {
  const reason = name.slice('refuse-'.length);
  const inputPath = join(root, name, 'input.ts');
  const outputPath = join(root, name, 'output.ts');
  const input = () => readFileSync(inputPath, 'utf8');
  const output = () => {
    expect(existsSync(outputPath), `${outputPath} is missing: run npx tsx scripts/update-fixtures.ts ${name}`).toBe(true);
    return readFileSync(outputPath, 'utf8');
  };

  it('names a refusal reason', () => {
    expect(isReason(reason), `${reason} is not a RefusalReason`).toBe(true);
    expect(input()).not.toContain(MARKER);
  });

  it('output.ts is input.ts plus marker lines only', () => {
    const stripped = output().split('\n').filter(line => !line.includes(MARKER)).join('\n');
    expect(stripped).toBe(input());
  });

  it(`every marker names ${reason}`, () => {
    const markers = markersOf(output());
    expect(markers.length).toBeGreaterThan(0);
    if (reason !== 'blocked-by-sibling') {
      for (const marker of markers) expect(marker.reason, marker.line).toBe(reason);
      return;
    }
    const blocked = markers.filter(m => m.reason === 'blocked-by-sibling');
    const blockers = markers.filter(m => m.reason !== 'blocked-by-sibling');
    expect(blocked.length).toBeGreaterThan(0);
    expect(blockers.length).toBeGreaterThan(0);
    for (const marker of blocked) {
      const blocker = blockingReason(marker.hint);
      expect(blocker, marker.line).toBeDefined();
      expect(isReason(blocker!) && blocker !== 'blocked-by-sibling', marker.line).toBe(true);
      expect(blockers.map(m => m.reason), marker.line).toContain(blocker);
    }
    for (const marker of blockers) expect(isReason(marker.reason), marker.line).toBe(true);
  });

  it('the pipeline refuses every site, with the reason of the folder', () => {
    const result = runPipeline(inputPath, input());
    expect(result.sites.length).toBeGreaterThan(0);
    const summary = result.sites.map(site => ({ line: site.line, status: site.status, reason: site.reason }));
    for (const site of summary) expect(site.status, JSON.stringify(summary)).toBe('refused');
    const reasons = new Set(result.sites.map(site => site.reason));
    if (reason === 'blocked-by-sibling') {
      expect(reasons.has('blocked-by-sibling')).toBe(true);
      const blockers = [...reasons].filter(r => r !== 'blocked-by-sibling');
      expect(blockers.length).toBeGreaterThan(0);
      for (const site of result.sites.filter(s => s.reason === 'blocked-by-sibling')) {
        expect(blockers).toContain(blockingReason(site.hint ?? ''));
      }
    } else {
      expect([...reasons]).toEqual([reason]);
    }
    // One marker per refused statement: the markers carry exactly the reasons the report gives.
    expect(new Set(markersOf(result.text).map(m => m.reason))).toEqual(reasons);
    expect(result.text).toBe(output());
  });
});
