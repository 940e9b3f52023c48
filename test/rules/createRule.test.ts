import { describe, expect, it } from 'vitest';
import { createRule } from '../../rules/utils/createRule.js';

type Options = [{ flag?: boolean; nested?: { a?: number; b?: number } }];

/** A rule that hands back the options it was created with. */
function ruleSeeing(seen: unknown[]) {
  return createRule<Options, 'x'>({
    name: 'probe',
    meta: {
      type: 'problem',
      docs: { description: 'probe', recommended: 'strict', requiresTypeChecking: false },
      messages: { x: 'x' },
      schema: [{ type: 'object' }],
      defaultOptions: [{ flag: false, nested: { a: 1, b: 2 } }],
    },
    create(_context, options) {
      seen.push(options);
      return {};
    },
  });
}

const contextWith = (options: unknown[]) => ({ options }) as never;

describe('createRule', () => {
  it('gives the frozen defaults when the user passes no options, the same object for every file', () => {
    const seen: unknown[] = [];
    const rule = ruleSeeing(seen);
    rule.create(contextWith([]));
    rule.create(contextWith([]));
    expect(seen[0]).toEqual([{ flag: false, nested: { a: 1, b: 2 } }]);
    expect(seen[1]).toBe(seen[0]);
    expect(Object.isFrozen((seen[0] as Options)[0].nested)).toBe(true);
  });

  it("merges the user's options over the defaults, key by key, without touching the defaults", () => {
    const seen: unknown[] = [];
    const rule = ruleSeeing(seen);
    rule.create(contextWith([{ flag: true, nested: { b: 5 } }]));
    rule.create(contextWith([]));
    expect(seen[0]).toEqual([{ flag: true, nested: { a: 1, b: 5 } }]);
    expect(seen[1]).toEqual([{ flag: false, nested: { a: 1, b: 2 } }]);
  });

  it('names its docs page and keeps the defaults on the module', () => {
    const rule = ruleSeeing([]);
    expect(rule.meta.docs?.url).toMatch(/docs\/rules\/probe\.md$/);
    expect(rule.defaultOptions).toEqual([{ flag: false, nested: { a: 1, b: 2 } }]);
  });
});
