import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFixture, type FixtureResult } from './pipeline.js';

/**
 * Fixture pairs, run again: the rewrite of fixtures/<case>/output.ts, with the support module beside it,
 * changes nothing, and output.ts type-checks there against the real v2 SDK (a JavaScript output has no
 * TypeScript syntax left). fixtures.test.ts checks that output.ts is the rewrite of input.ts.
 */

const root = resolve(import.meta.dirname, '..', '..', 'fixtures');
const extensionOf = (name: string) => ['.ts', '.mjs', '.cjs', '.js'].find(ext => existsSync(join(root, name, `input${ext}`)));
const cases = readdirSync(root).filter(name => extensionOf(name) !== undefined);

describe.each(cases)('%s', name => {
  const input = join(root, name, `input${extensionOf(name)}`);
  const output = join(root, name, `output${extensionOf(name)}`);
  const module = readdirSync(join(root, name)).find(file => /^requestState\.[cm]?[jt]s$/.test(file));
  // The second run over output.ts is also its type check (the same text, in the same folder).
  let second: FixtureResult | undefined;
  const again = () => (second ??= runFixture(input, readFileSync(output, 'utf8'), module ? { [module]: readFileSync(join(root, name, module), 'utf8') } : {}));

  it('is idempotent', () => {
    expect(again().text).toBe(readFileSync(output, 'utf8'));
    expect(again().module).toBeUndefined();
    expect(again().sites.filter(s => s.status !== 'refused' && s.status !== 'ignored')).toEqual([]);
  });

  it('output.ts type-checks against @modelcontextprotocol/server (a JavaScript output: has no TypeScript syntax left)', () => {
    expect(again().typeErrors).toEqual([]);
  });
});
