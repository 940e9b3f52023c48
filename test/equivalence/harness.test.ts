import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';

import {
  comparable,
  FIXTURES,
  invalidAnswers,
  loadCase,
  normaliseError,
  normaliseQuestion,
  normaliseResult,
  normaliseUrlRefusal,
  ROOT,
  runLegacy,
  runModern,
  runShim,
  runStdio,
  scriptProblems,
  type Scenario,
} from './harness.js';

/** The harness's own guarantees: what it normalises, and that it notices what it must. */

describe('normalisation is minimal', () => {
  it('drops only the progress token the legacy shim stamps on a question', () => {
    expect(normaliseQuestion('elicitation/create', { _meta: { progressToken: 3 }, mode: 'form', message: 'm' })).toEqual({
      method: 'elicitation/create',
      params: { mode: 'form', message: 'm' },
    });
    expect(normaliseQuestion('elicitation/create', { _meta: { progressToken: 3, 'app/trace': 'x' }, message: 'm' })).toEqual({
      method: 'elicitation/create',
      params: { _meta: { 'app/trace': 'x' }, message: 'm' },
    });
    // A missing mode is not filled in: that difference must show.
    expect(normaliseQuestion('elicitation/create', { message: 'm' })).toEqual({ method: 'elicitation/create', params: { message: 'm' } });
  });

  it('treats roots/list params that only carried the progress token as no params', () => {
    expect(normaliseQuestion('roots/list', { _meta: { progressToken: 0 } })).toEqual({ method: 'roots/list' });
    expect(normaliseQuestion('roots/list', undefined)).toEqual({ method: 'roots/list' });
    expect(normaliseQuestion('sampling/createMessage', { _meta: { progressToken: 1 } })).toEqual({ method: 'sampling/createMessage', params: {} });
  });

  it('drops result _meta on every era and the cache defaults only on the modern era', () => {
    const modern = { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } }, ttlMs: 0, cacheScope: 'private', contents: [] };
    expect(normaliseResult(modern, 'modern')).toEqual({ contents: [] });
    expect(normaliseResult(modern, 'legacy')).toEqual({ ttlMs: 0, cacheScope: 'private', contents: [] });
    expect(normaliseResult({ ttlMs: 60_000, cacheScope: 'public', contents: [] }, 'modern')).toEqual({ ttlMs: 60_000, cacheScope: 'public', contents: [] });
  });

  it("drops v1's code prefix from error messages and keeps the code", () => {
    const v1 = Object.assign(new Error('MCP error -32603: Release notes were cancelled.'), { code: -32603 });
    const v2 = Object.assign(new Error('Release notes were cancelled.'), { code: -32603 });
    expect(normaliseError(v1)).toEqual(normaliseError(v2));
    expect(normaliseError(new Error('plain'))).toEqual({ code: null, message: 'plain' });
  });
});

describe('URL-mode elicitation', () => {
  it('drops the elicitationId of URL-mode questions only', () => {
    const url = { mode: 'url', elicitationId: 'e-1', url: 'https://example.com/a', message: 'm' };
    expect(normaliseQuestion('elicitation/create', url)).toEqual({ method: 'elicitation/create', params: { mode: 'url', url: 'https://example.com/a', message: 'm' } });
    // A form question never has one; if it had, it would be compared.
    expect(normaliseQuestion('elicitation/create', { mode: 'form', elicitationId: 'x', message: 'm' })).toEqual({
      method: 'elicitation/create',
      params: { mode: 'form', elicitationId: 'x', message: 'm' },
    });
  });

  it('reads a failed call after a declined or cancelled URL as the message the user saw, keeping the action', () => {
    const legacy = { error: { code: -32042, message: 'URL elicitation required' } };
    const tool = { result: { content: [{ type: 'text', text: 'URL elicitation required' }], isError: true } };
    const prompt = { error: { code: -32603, message: 'URL elicitation required' } };
    for (const outcome of [legacy, tool, prompt]) {
      expect(normaliseUrlRefusal(outcome, 'decline')).toEqual({ urlElicitationNotCompleted: { action: 'decline', message: 'URL elicitation required' } });
    }
    expect(normaliseUrlRefusal(legacy, 'cancel')).not.toEqual(normaliseUrlRefusal(tool, 'decline'));
  });

  it('leaves every other outcome as it is', () => {
    const legacy = { error: { code: -32042, message: 'URL elicitation required' } };
    const tool = { result: { content: [{ type: 'text', text: 'URL elicitation required' }], isError: true } };
    // Not after a declined URL: nothing changes.
    expect(normaliseUrlRefusal(legacy, undefined)).toBe(legacy);
    expect(normaliseUrlRefusal(tool, 'accept')).toBe(tool);
    // Other shapes: a successful result, more content, another error code.
    const ok = { result: { content: [{ type: 'text', text: 'URL elicitation required' }] } };
    const more = { result: { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], isError: true } };
    const invalid = { error: { code: -32602, message: 'URL elicitation required' } };
    for (const outcome of [ok, more, invalid]) expect(normaliseUrlRefusal(outcome, 'decline')).toBe(outcome);
  });
});

describe('scripts', () => {
  const fixture = loadCase(join(FIXTURES, 'v2-elicit-straight'));

  it('flags scripted answers that are not valid results', () => {
    const scenario: Scenario = {
      description: 'bad answers',
      client: { capabilities: { roots: {} } },
      calls: [
        {
          method: 'tools/call',
          params: { name: 'x' },
          answers: [
            { method: 'roots/list', result: { roots: [{ uri: 'https://example.com/repo' }] } },
            { method: 'elicitation/create', result: { action: 'maybe' } },
          ],
        },
      ],
    };
    expect(invalidAnswers(scenario)).toEqual([
      'calls[0].answers[0]: not a valid roots/list result',
      'calls[0].answers[1]: not a valid elicitation/create result',
    ]);
  });

  it('records a question nobody scripted, refuses it with cancel, and reports it', async () => {
    const scenario = structuredClone(fixture.scenario);
    scenario.calls[0]!.answers = [];
    const run = await runLegacy(fixture.input, scenario);
    expect(run.questions[0]).toHaveLength(1);
    expect(run.results[0]).toEqual({ result: { content: [{ type: 'text', text: 'Kept 2 stale record(s) (cancel).' }] } });
    expect(scriptProblems(run, scenario)).toEqual([expect.stringContaining('call 1 (tools/call "purge_records"): unexpected question')]);
  });

  it('reports scripted answers nobody asked for', async () => {
    const scenario = structuredClone(fixture.scenario);
    scenario.calls[1]!.answers.push({ method: 'elicitation/create', result: { action: 'decline' } });
    const run = await runLegacy(fixture.input, scenario);
    expect(scriptProblems(run, scenario)).toEqual(['call 2 (tools/call "purge_records"): 1 scripted answer(s) never asked for, next: elicitation/create']);
  });

  it('records effects per call', async () => {
    const run = await runLegacy(fixture.input, fixture.scenario);
    expect(run.effects).toEqual([{ deleted: 2, purgeRuns: 1 }, { deleted: 0, purgeRuns: 1 }, { deleted: 0, purgeRuns: 1 }]);
  });
});

describe('a wrong migration is told apart on both eras', () => {
  const fixture = loadCase(join(FIXTURES, 'v2-elicit-straight'));
  const reference = readFileSync(join(import.meta.dirname, 'reference', 'v2-elicit-straight.output.ts'), 'utf8');
  // Mutants live under the ignored test-output/ so the SDK packages resolve from node_modules.
  const mutantDir = join(ROOT, 'test-output', 'equivalence-mutants');

  function mutant(name: string, from: string, to: string): string {
    expect(reference).toContain(from);
    mkdirSync(mutantDir, { recursive: true });
    const file = join(mutantDir, `${name}.ts`);
    writeFileSync(file, reference.replace(from, to));
    return file;
  }

  const mutants = {
    // Code after the question also runs on round 1: the effect happens twice.
    'effect-on-every-round': ['return askConfirm(ids, owners);\n', 'effects.purgeRuns++;\n          return askConfirm(ids, owners);\n'],
    // The question changed.
    'question-reworded': ["title: 'Delete permanently'", "title: 'Delete'"],
    // The answer is ignored: the deletion happens whatever the user said.
    'answer-ignored': ["answer.content?.confirm !== true", 'false'],
  } as const;

  for (const [name, [from, to]] of Object.entries(mutants)) {
    it(`${name}`, async () => {
      const file = mutant(name, from, to);
      const legacy = comparable(await runLegacy(fixture.input, fixture.scenario));
      expect(comparable(await runModern(file, fixture.scenario))).not.toStrictEqual(legacy);
      expect(comparable(await runShim(file, fixture.scenario))).not.toStrictEqual(legacy);
    });
  }
});

/** A folder of a fixture's mutants under `dir`, with the fixture's support module, which its output imports. */
function mutantFolder(dir: string, fixtureDir: string): string {
  const folder = join(dir, basename(fixtureDir));
  mkdirSync(folder, { recursive: true });
  for (const file of readdirSync(fixtureDir)) if (/^requestState\.[cm]?[jt]s$/.test(file)) copyFileSync(join(fixtureDir, file), join(folder, file));
  return folder;
}

describe('capability guards: calls of another client, and the era where an initialize-scoped guard is wrong', () => {
  const fixture = loadCase(join(FIXTURES, 'v2-capability-guard'));
  const mutantDir = join(ROOT, 'test-output', 'equivalence-mutants');

  it('runs calls that name their own client in a session of that client', async () => {
    const run = await runLegacy(fixture.input, fixture.scenario);
    const status = fixture.scenario.calls.flatMap((call, i) => (call.params.name === 'oncall_status' ? [run.results[i]] : []));
    expect(status).toEqual([
      { result: { content: [{ type: 'text', text: 'On call: Dana. Confirmations: available.' }] } },
      { result: { content: [{ type: 'text', text: 'On call: Dana. Confirmations: not available in this client.' }] } },
    ]);
  });

  it('a guard left on getClientCapabilities() passes under createMcpHandler but takes the fallback over serveStdio', async () => {
    const output = readFileSync(fixture.output!, 'utf8');
    const unrewritten = output.replaceAll('clientCapabilitiesOf(ctx, server.server)', 'server.server.getClientCapabilities()');
    expect(unrewritten).not.toEqual(output);
    const file = join(mutantFolder(mutantDir, fixture.dir), 'guard-initialize-scoped.ts');
    writeFileSync(file, unrewritten);
    const legacy = comparable(await runLegacy(fixture.input, fixture.scenario));
    // createMcpHandler backfills getClientCapabilities() from each request's envelope...
    expect(comparable(await runModern(file, fixture.scenario))).toStrictEqual(legacy);
    // ...serveStdio does not: the capable client is refused the rollback as if it could not confirm.
    const stdio = await runStdio(file, fixture.scenario);
    expect(comparable(stdio)).not.toStrictEqual(legacy);
    expect(stdio.results[0]).toEqual({ result: { isError: true, content: [{ type: 'text', text: expect.stringContaining('needs a confirmation this client cannot give') }] } });
  });
});

describe('a wrong URL-elicitation migration is told apart on both eras', () => {
  const fixture = loadCase(join(FIXTURES, 'v2-url-elicitation'));
  const output = readFileSync(fixture.output!, 'utf8');
  const mutantDir = join(ROOT, 'test-output', 'equivalence-mutants');

  const mutants = {
    // A declined URL is treated as completed: the handler runs again and asks again.
    'decline-as-accept': ["if (urlResponse.action !== 'accept') throw new Error(state.message);", ''],
    // The failure the user sees after declining says something else.
    'other-message': ["message: 'URL elicitation required' }", "message: 'Not connected' }"],
    // The URL points elsewhere.
    'other-url': ['state=${connectionId}`', 'connection=${connectionId}`'],
  } as const;

  for (const [name, [from, to]] of Object.entries(mutants)) {
    it(`${name}`, async () => {
      expect(output).toContain(from);
      const file = join(mutantFolder(mutantDir, fixture.dir), `url-${name}.ts`);
      writeFileSync(file, output.replace(from, to));
      const legacy = comparable(await runLegacy(fixture.input, fixture.scenario));
      expect(comparable(await runModern(file, fixture.scenario))).not.toStrictEqual(legacy);
      expect(comparable(await runShim(file, fixture.scenario))).not.toStrictEqual(legacy);
    });
  }
});
