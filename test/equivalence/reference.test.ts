import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { comparable, FIXTURES, loadCase, runLegacy, runModern, runShim, scriptProblems } from './harness.js';

/**
 * Proves the harness on a hand-migrated module: reference/v2-elicit-straight.output.ts follows
 * the SDK guide's idiom and must answer the fixture's scripted session exactly like the legacy
 * input on both eras. It is also the shape the generated output.ts is compared against by eye.
 */
const fixture = loadCase(join(FIXTURES, 'v2-elicit-straight'));
const reference = join(import.meta.dirname, 'reference', 'v2-elicit-straight.output.ts');

describe('hand-migrated reference for v2-elicit-straight', () => {
  it('matches the legacy transcript on the 2026-07-28 era', async () => {
    const legacy = await runLegacy(fixture.input, fixture.scenario);
    const modern = await runModern(reference, fixture.scenario);
    expect(scriptProblems(legacy, fixture.scenario)).toEqual([]);
    expect(scriptProblems(modern, fixture.scenario)).toEqual([]);
    expect(comparable(modern)).toStrictEqual(comparable(legacy));
  });

  it('matches the legacy transcript on the 2025 era through the legacy shim', async () => {
    const legacy = await runLegacy(fixture.input, fixture.scenario);
    const shim = await runShim(reference, fixture.scenario);
    expect(scriptProblems(shim, fixture.scenario)).toEqual([]);
    expect(comparable(shim)).toStrictEqual(comparable(legacy));
  });

  it('the harness tells a push-style module apart on the 2026-07-28 era', async () => {
    // The unmigrated input cannot ask on the modern era: the SDK refuses push-style requests there,
    // so no question reaches the client and the results differ. A harness that passed this would
    // be comparing nothing.
    const legacy = await runLegacy(fixture.input, fixture.scenario);
    const modern = await runModern(fixture.input, fixture.scenario);
    expect(modern.questions.flat()).toEqual([]);
    expect(comparable(modern)).not.toStrictEqual(comparable(legacy));
    expect(scriptProblems(modern, fixture.scenario).length).toBe(fixture.scenario.calls.length);
  });
});
