import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { decisive, REASON_ORDER } from '../../src/analysis/reasons.js';
import { ROOT } from './harness.js';

/** The reason codes of a markdown table's rows (`| \`loop\` | ... |`), in order. */
function tableReasons(file: string): string[] {
  return [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^\| `([a-z-]+)` \|/gm)].map(m => m[1]!).filter(r => (REASON_ORDER as string[]).includes(r));
}

it('the README and the rule docs list every reason, the decisive first, as the analysis ranks them', () => {
  const listed = REASON_ORDER.filter(r => r !== 'ignored');
  expect(tableReasons('README.md')).toEqual(listed);
  // sdk-version is the CLI's, for the installed server it reads; the rules never give it.
  expect(tableReasons('docs/rules/no-push-elicitation.md')).toEqual(listed.filter(r => r !== 'sdk-version'));
});

it('the decisive item is the first of the best rank', () => {
  const items = [{ n: 1, r: 'unsupported-construct' }, { n: 2, r: 'relay' }, { n: 3, r: 'relay' }, { n: 4, r: 'handler-kind' }] as const;
  expect(decisive(items, i => i.r)?.n).toBe(4);
  expect(decisive(items.slice(0, 3), i => i.r)?.n).toBe(2);
  expect(decisive([], () => 'loop')).toBeUndefined();
});
