import fc from 'fast-check';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { comparable, runLegacy, runModern, runShim, runStdio, type Scenario } from '../equivalence/harness.js';
import { runPipeline } from '../transforms/pipeline.js';

/**
 * Property: for any handler of a small grammar (arithmetic on a carried total, side effects,
 * elicitation and sampling questions, early returns, if/else, counted loops with break and
 * continue, try/catch), the codemod either refuses every question with a marker, or produces a
 * module that type-checks and answers random sessions, valid and schema-invalid answers alike,
 * exactly like the push-style original: on the 2026-07-28 era over HTTP and stdio, and on the
 * 2025 era through the legacy shim.
 *
 * Runs MRTR_PROPERTY_RUNS cases (default 60) from MRTR_PROPERTY_SEED (default fixed, so CI runs the
 * same cases every time; pass another seed to explore); prints how many were rewritten and refused.
 */

const RUNS = Number(process.env.MRTR_PROPERTY_RUNS ?? 60);
const SEED = Number(process.env.MRTR_PROPERTY_SEED ?? 20261203);
/** The legacy shim re-enters a handler at most 8 times; a case that could ask more is not generated. */
const MAX_QUESTIONS = 8;
const CASES = resolve(import.meta.dirname, '.cases');

interface Code {
  lines: string[];
  /** The most questions one run of it can ask. */
  questions: number;
}

const counter = { next: 0 };
const fresh = (prefix: string): string => `${prefix}${counter.next++}`;

const indent = (lines: string[]): string[] => lines.map(l => `  ${l}`);
const seq = (parts: Code[]): Code => ({ lines: parts.flatMap(p => p.lines), questions: parts.reduce((n, p) => n + p.questions, 0) });

const simple: fc.Arbitrary<Code> = fc.oneof(
  fc.integer({ min: 1, max: 9 }).map(k => ({ lines: [`total += ${k};`], questions: 0 })),
  fc.integer({ min: 1, max: 5 }).map(k => ({ lines: [`total = total * 2 - ${k};`], questions: 0 })),
  fc.integer({ min: 0, max: 2 }).map(e => ({ lines: [`effects.e${e}++;`], questions: 0 })),
  fc.integer({ min: 0, max: 2 }).map(e => ({ lines: [`effects.e${e} += total;`], questions: 0 })),
  fc.integer({ min: 20, max: 60 }).map(k => ({ lines: [`if (total > ${k}) return { content: [{ type: 'text', text: \`big \${total}\` }] };`], questions: 0 })),
);

/** A form question; what follows it reads the answer in one of three ways. */
const elicit: fc.Arbitrary<Code> = fc.constantFrom('return', 'default', 'ternary').map(use => {
  const a = fresh('a');
  const ask = `const ${a} = await ctx.mcpReq.elicitInput({ mode: 'form', message: \`${a}: \${total}?\`, requestedSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0 }, note: { type: 'string' } }, required: ['n'] } });`;
  const lines = [ask];
  if (use === 'return') lines.push(`if (${a}.action !== 'accept') return { content: [{ type: 'text', text: \`${a} \${${a}.action} \${total}\` }] };`, `total += Number(${a}.content?.n ?? 0);`);
  else if (use === 'default') lines.push(`total += ${a}.action === 'accept' ? Number(${a}.content?.n ?? 0) : -1;`);
  else lines.push(`if (${a}.action === 'cancel') throw new Error(\`${a} cancelled at \${total}\`);`, `total += ${a}.content?.note === undefined ? 1 : 2;`);
  return { lines, questions: 1 };
});

const sample: fc.Arbitrary<Code> = fc.constant(null).map(() => {
  const s = fresh('s');
  return {
    lines: [
      `const ${s} = await ctx.mcpReq.requestSampling({ messages: [{ role: 'user', content: { type: 'text', text: \`${s}: \${total}\` } }], maxTokens: 20 });`,
      `total += ${s}.model.length;`,
    ],
    questions: 1,
  };
});

/** A question the rewrite refuses (Promise.race cannot be one round), so refusals are generated too. */
const race: fc.Arbitrary<Code> = fc.constant(null).map(() => {
  const r = fresh('r');
  return {
    lines: [
      `const ${r} = await Promise.race([ctx.mcpReq.elicitInput({ mode: 'form', message: \`${r}: \${total}?\`, requestedSchema: { type: 'object', properties: { n: { type: 'integer' } } } })]);`,
      `total += ${r}.action === 'accept' ? 1 : 0;`,
    ],
    questions: 1,
  };
});

const question = fc.oneof({ weight: 12, arbitrary: elicit }, { weight: 3, arbitrary: sample }, { weight: 1, arbitrary: race });

const statements: fc.Memo<Code> = fc.memo(depth => {
  const one: fc.Arbitrary<Code> = depth <= 1
    ? fc.oneof({ weight: 3, arbitrary: simple }, { weight: 2, arbitrary: question })
    : fc.oneof(
        { weight: 3, arbitrary: simple },
        { weight: 2, arbitrary: question },
        { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 2, max: 4 }), statements(depth - 1), statements(depth - 1)).map(([m, then, other]): Code => ({
          lines: [`if (total % ${m} === 0) {`, ...indent(then.lines), '} else {', ...indent(other.lines), '}'],
          questions: Math.max(then.questions, other.questions),
        })) },
        { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 3 }), statements(depth - 1), fc.constantFrom('', 'break', 'continue')).map(([times, body, exit]): Code => {
          const i = fresh('i');
          const jump = exit === '' ? [] : [`if (total % 3 === ${exit === 'break' ? 0 : 1}) ${exit};`];
          return { lines: [`for (let ${i} = 0; ${i} < ${times}; ${i}++) {`, ...indent([...jump, ...body.lines]), '}'], questions: times * body.questions };
        }) },
        { weight: 1, arbitrary: statements(depth - 1).map((body): Code => ({
          lines: ['try {', ...indent(body.lines), '} catch (error) {', '  effects.e2 += 100;', "  total -= error instanceof Error ? error.message.length : 1;", '}'],
          questions: body.questions,
        })) },
      );
  return fc.array(one, { minLength: 1, maxLength: 4 }).map(seq);
});

const handler = statements(3).filter(body => body.questions >= 1 && body.questions <= MAX_QUESTIONS);

function moduleText(body: Code): string {
  return [
    "import { McpServer } from '@modelcontextprotocol/server';",
    "import * as z from 'zod/v4';",
    '',
    'export const effects = { e0: 0, e1: 0, e2: 0 };',
    '',
    'export function createServer(): McpServer {',
    "  const server = new McpServer({ name: 'generated', version: '1.0.0' }, { capabilities: { tools: {} } });",
    "  server.registerTool('compute', { inputSchema: z.object({ x: z.number() }) }, async ({ x }, ctx) => {",
    '    let total = x;',
    ...body.lines.map(l => `    ${l}`),
    "    return { content: [{ type: 'text', text: `total ${total}` }] };",
    '  });',
    '  return server;',
    '}',
    '',
  ].join('\n');
}

/** The user: valid and schema-invalid form answers, declines and cancels. */
const elicitAnswer = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 9 }).map(n => ({ action: 'accept', content: { n } })) },
  { weight: 1, arbitrary: fc.constantFrom({ n: -1 }, { n: 'x' }, { note: 'n missing' }, { n: 1.5 }).map(content => ({ action: 'accept', content })) },
  { weight: 1, arbitrary: fc.constantFrom('decline', 'cancel').map(action => ({ action })) },
).map(result => ({ method: 'elicitation/create' as const, result }));

/** The model. */
const sampleAnswer = fc.constantFrom('m', 'model-b')
  .map(model => ({ method: 'sampling/createMessage' as const, result: { role: 'assistant', content: { type: 'text', text: 'ok' }, model, stopReason: 'endTurn' } }));

/** One call's answers, taken per method so that every question a run can ask has one. */
const answers = fc.tuple(fc.array(elicitAnswer, { minLength: MAX_QUESTIONS, maxLength: MAX_QUESTIONS }), fc.array(sampleAnswer, { minLength: MAX_QUESTIONS, maxLength: MAX_QUESTIONS }))
  .map(([forms, samples]) => [...forms, ...samples]);

const session: fc.Arbitrary<Scenario> = fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), answers), { minLength: 1, maxLength: 3 })
  .map(calls => ({
    description: 'generated',
    client: { capabilities: { elicitation: { form: {} }, sampling: {} } },
    calls: calls.map(([x, list]) => ({ method: 'tools/call' as const, params: { name: 'compute', arguments: { x } }, answers: list, answerOrder: 'per-method' as const })),
  }) as Scenario);

const tally = { cases: 0, rewritten: 0, refused: 0, sessions: 0, reasons: new Map<string, number>(), failed: undefined as string | undefined };

afterAll(() => {
  // A failing case stays on disk to be looked at (input.ts, output.ts).
  if (tally.failed) console.log(`property: failing case in ${tally.failed}`);
  else rmSync(CASES, { recursive: true, force: true });
  const reasons = [...tally.reasons].map(([r, n]) => `${r} ${n}`).join(', ');
  console.log(`property: ${tally.cases} generated handlers, ${tally.rewritten} rewritten, ${tally.refused} refused${reasons ? ` (${reasons})` : ''}; ${tally.sessions} sessions compared on 2026 HTTP, 2026 stdio and the 2025 shim`);
});

it(`${RUNS} generated handlers: refused with a marker, or answering like the push-style original on both eras`, async () => {
  await fc.assert(
    fc.asyncProperty(handler, fc.array(session, { minLength: 2, maxLength: 2 }), async (body, sessions) => {
      const dir = join(CASES, `case-${tally.cases++}`);
      mkdirSync(dir, { recursive: true });
      const input = join(dir, 'input.ts');
      const text = moduleText(body);
      writeFileSync(input, text);
      tally.failed = dir;
      const result = runPipeline(input, text);
      writeFileSync(join(dir, 'output.ts'), result.text);
      const statuses = result.sites.map(s => s.status);
      if (statuses.every(s => s === 'refused')) {
        tally.refused++;
        for (const site of result.sites) tally.reasons.set(site.reason!, (tally.reasons.get(site.reason!) ?? 0) + 1);
        for (const site of result.sites) expect(result.text).toContain(`// mrtr-migrate: ${site.reason} — `);
        tally.failed = undefined;
        return;
      }
      expect(statuses.filter(s => s === 'refused'), 'a handler is rewritten whole or not at all').toEqual([]);
      expect(result.typeErrors, `type errors in ${dir}/output.ts`).toEqual([]);
      tally.rewritten++;
      const output = join(dir, 'output.ts');
      for (const [i, scenario] of sessions.entries()) {
        tally.sessions++;
        writeFileSync(join(dir, `scenario-${i}.json`), JSON.stringify(scenario, null, 2));
        const legacy = comparable(await runLegacy(input, scenario));
        for (const run of [runModern, runStdio, runShim]) expect(comparable(await run(output, scenario)), `${run.name} on ${dir}/scenario-${i}.json`).toStrictEqual(legacy);
      }
      tally.failed = undefined;
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
});
