import { describe, expect, it } from 'vitest';
import type { FileAnalysis } from '../../src/analysis/index.js';
import { afterQuestion, buildFlow, completesNormally, liveness, scopeLiveness } from '../../src/analysis/cfg.js';
import type { RoundsPlan } from '../../src/analysis/rounds.js';
import { analyzeSnippet, ts } from './harness.js';

/**
 * The rounds plan of a handler (src/analysis/rounds.ts) and the flow graph under it (cfg.ts), on
 * parsed source only: no program, no type-check, no process. Locals are written with literal
 * initializers (or are parameters, which every round gets again) so their JSON-ness is known
 * without a checker.
 */

const ASK = (message = 'ok?') => `ctx.mcpReq.elicitInput({ mode: 'form', message: ${JSON.stringify(message)}, requestedSchema: { type: 'object', properties: {} } })`;

/** A v2 tool with `items: string[]` and `limit: number` arguments whose body is `body`. */
function tool(body: string[], prelude: string[] = []): string {
  return [
    "import { McpServer } from '@modelcontextprotocol/server';",
    "import * as z from 'zod/v4';",
    ...prelude,
    "const server = new McpServer({ name: 't', version: '1' });",
    "server.registerTool('t', { inputSchema: z.object({ items: z.array(z.string()), limit: z.number() }) }, async ({ items, limit }, ctx) => {",
    ...body.map(line => `  ${line}`),
    '});',
  ].join('\n');
}

function analysis(body: string[], prelude: string[] = []): FileAnalysis {
  return analyzeSnippet(tool(body, prelude), { typed: false });
}

function roundsOf(body: string[], prelude: string[] = []): RoundsPlan {
  const a = analysis(body, prelude);
  const plan = a.plans[0]?.rounds;
  if (!plan) throw new Error(`no plan: ${a.sites.map(s => JSON.stringify(s.verdict)).join('; ')}`);
  return plan;
}

/** `name:how` of what the resumed round of each suspension needs. */
const needs = (plan: RoundsPlan): string[][] => plan.suspensions.map(s => s.live.locals.map(l => `${l.name}:${l.how}`));
const sharedKinds = (plan: RoundsPlan): string[] => [...plan.shared].map(n => ts.SyntaxKind[n.kind]).sort();
const verdicts = (a: FileAnalysis): string[] => a.sites.map(s => (s.verdict.kind === 'refuse' ? `refuse:${s.verdict.reason}` : s.verdict.review ? 'review' : 'migrate'));

describe('the flow graph', () => {
  const fnOf = (body: string): ts.FunctionLikeDeclaration => {
    const sf = ts.createSourceFile('f.ts', `async function f(p: number) {\n${body}\n}`, ts.ScriptTarget.Latest, true);
    return sf.statements[0] as ts.FunctionDeclaration;
  };
  const awaitsOf = (fn: ts.Node): ts.AwaitExpression[] => {
    const found: ts.AwaitExpression[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isAwaitExpression(n)) found.push(n);
      n.forEachChild(visit);
    };
    visit(fn);
    return found;
  };
  /** Names live just after the n-th await of `body`. */
  const liveAfter = (body: string, n = 0): string[] => {
    const fn = fnOf(body);
    const awaited = awaitsOf(fn)[n]!;
    const flow = buildFlow(ts, fn, new Set([awaited]));
    const after = afterQuestion(flow, liveness(flow), scopeLiveness(flow), awaited)!;
    return [...after.live].map(d => d.name).sort();
  };

  it('a local read after the question is live; one overwritten first is not', () => {
    expect(liveAfter('const a = 1; let b = 2; const x = await q(); b = 3; return a + b + x;')).toEqual(['a']);
  });

  it('a loop makes what the next iteration reads live, and the accumulator read after the loop', () => {
    expect(liveAfter('const out = []; let i = 0; while (i < p) { const x = await q(i); out.push(x); i++; } return out;')).toEqual(['i', 'out', 'p']);
  });

  it('a catch block reading a local makes it live anywhere in the try', () => {
    expect(liveAfter('const note = "n"; try { await q(); } catch { return note; } return 0;')).toEqual(['note']);
  });

  it('a finally block runs after every way out of the try, an exception included: what it reads is live', () => {
    expect(liveAfter('let status = "started"; try { await q(); status = "done"; return 1; } finally { log(status); }')).toEqual(['status']);
    expect(liveAfter('let status = "started"; try { await q(); return 1; } finally { log(status); } ')).toEqual(['status']);
    expect(liveAfter('let status = "started"; try { status = "asking"; } finally { log(status); } await q(); return 1;')).toEqual([]);
  });

  it('a branch that does not read a local does not keep it live (state minimality)', () => {
    expect(liveAfter('const thread = ["m"]; if (p > 0) { const a = await q(); return a; } return thread;')).toEqual([]);
  });

  it('a binding declared again in the next iteration is not the one in scope at the question', () => {
    const fn = fnOf('for (let i = 0; i < 3; i++) { const k = i; await q(k); }');
    const awaited = awaitsOf(fn)[0]!;
    const flow = buildFlow(ts, fn, new Set([awaited]));
    const after = afterQuestion(flow, liveness(flow), scopeLiveness(flow), awaited)!;
    expect([...after.inScope].map(d => d.name).sort()).toEqual(['i']);
  });

  it('knows which statements can complete when a question ends the round', () => {
    const fn = fnOf('if (p) { await q(); } else { return 1; }\nif (p) { await q(); }\ntry { await q(); } finally {}');
    const flow = buildFlow(ts, fn, new Set(awaitsOf(fn)));
    const [askOrReturn, askOrGoOn, tryAsk] = (fn.body as ts.Block).statements;
    expect(completesNormally(flow, askOrReturn!)).toBe(false);
    expect(completesNormally(flow, askOrGoOn!)).toBe(true);
    expect(completesNormally(flow, tryAsk!)).toBe(false);
  });
});

describe('the rounds plan', () => {
  it('straight-line: nothing shared, the locals read after the question carried or rebuilt', () => {
    const plan = roundsOf([
      "const label = 'x';",
      'const seen: string[] = [];',
      `const a = await ${ASK()};`,
      "return { content: [{ type: 'text', text: label + seen.length + a.action }] };",
    ]);
    expect(sharedKinds(plan)).toEqual([]);
    expect(plan.suspensions.map(s => s.step)).toEqual(['a']);
    expect(needs(plan)).toEqual([['label:rebuild', 'seen:carry']]);
  });

  it('a for-of loop: kept once, resumed by index; its element is rebuilt, the accumulator carried', () => {
    const plan = roundsOf([
      'const kept: string[] = [];',
      'for (const item of items) {',
      `  const a = await ${ASK()};`,
      "  if (a.action === 'accept') kept.push(item);",
      '}',
      "return { content: [{ type: 'text', text: kept.join() }] };",
    ]);
    expect(sharedKinds(plan)).toEqual(['ForOfStatement']);
    expect(plan.dynamic).toBe(true);
    expect(plan.indexLoops.map(n => ts.SyntaxKind[n.kind])).toEqual(['ForOfStatement']);
    expect(needs(plan)).toEqual([['kept:carry', 'item:rebuild']]);
    expect(plan.notes.get(plan.suspensions[0]!)!.map(n => n.text).join()).toMatch(/no static bound \(once per item of `items`\)/);
  });

  it('a counted loop: bounded rounds, for review only past the shim\'s 8', () => {
    const small = analysis(['for (let i = 0; i < 3; i++) {', `  await ${ASK()};`, '}', 'return { content: [] };']);
    expect(small.sites[0]!.verdict).toMatchObject({ kind: 'migrate', review: false });
    expect((small.sites[0]!.verdict as { notes: string[] }).notes.join()).toMatch(/at most 3 times$/);
    const large = analysis(['const MAX = 12;', 'for (let i = 1; i <= MAX; i++) {', `  await ${ASK()};`, '}', 'return { content: [] };']);
    expect(large.sites[0]!.verdict).toMatchObject({ kind: 'migrate', review: true });
    expect((large.sites[0]!.verdict as { notes: string[] }).notes.join()).toMatch(/at most 12 times; .*legacy shim.*\(8, ServerOptions\.inputRequired\.maxRounds\)/);
  });

  it('while, do and for-in loops; nested and labelled loops with break and continue', () => {
    expect(sharedKinds(roundsOf(['let n = 0;', 'while (n < limit) {', '  n++;', `  await ${ASK()};`, '}', 'return { content: [] };']))).toEqual(['WhileStatement']);
    expect(sharedKinds(roundsOf(['let n = 0;', 'do {', `  await ${ASK()};`, '  n++;', '} while (n < limit);', 'return { content: [] };']))).toEqual(['DoStatement']);
    const forIn = roundsOf(["const record = { a: 1, b: 2 };", 'for (const key in record) {', `  await ${ASK()};`, '}', 'return { content: [] };']);
    expect(sharedKinds(forIn)).toEqual(['ForInStatement']);
    const nested = roundsOf([
      'let found = 0;',
      'outer: for (const a of items) {',
      '  for (let i = 0; i < limit; i++) {',
      `    const answer = await ${ASK()};`,
      "    if (answer.action === 'cancel') break outer;",
      "    if (answer.action === 'decline') continue outer;",
      '    found++;',
      '  }',
      '}',
      "return { content: [{ type: 'text', text: String(found) }] };",
    ]);
    expect(sharedKinds(nested)).toEqual(['ForOfStatement', 'ForStatement', 'LabeledStatement']);
    // `a` is not read inside the inner loop: the resumed round does not need it.
    expect(needs(nested)).toEqual([['found:carry', 'i:carry']]);
  });

  it('Promise.all and allSettled of questions: one suspension, one key per question', () => {
    const all = roundsOf([`const [name, email] = await Promise.all([${ASK('name?')}, ${ASK('email?')}]);`, "return { content: [{ type: 'text', text: name.action + email.action }] };"]);
    expect(all.suspensions.map(s => [s.step, s.combinator, s.questions.map(q => q.key)])).toEqual([['name', 'all', ['name', 'email']]]);
    expect(all.notes.get(all.suspensions[0]!)!.map(n => n.text).join()).toMatch(/legacy shim sends them to the client at the same time/);
    const settled = roundsOf([`const results = await Promise.allSettled([${ASK()}, ${ASK()}]);`, "return { content: [{ type: 'text', text: String(results.length) }] };"]);
    expect(settled.suspensions.map(s => [s.combinator, s.questions.map(q => q.key)])).toEqual([['allSettled', ['elicitation1', 'elicitation2']]]);
  });

  it('questions in a catch block: the try is written twice (no catch is entered without its exception)', () => {
    const plan = roundsOf([
      'let result = 0;',
      'try { result = limit * 2; } catch {',
      `  const retry = await ${ASK()};`,
      "  if (retry.action !== 'accept') return { content: [] };",
      '  result = 1;',
      '}',
      "return { content: [{ type: 'text', text: String(result) }] };",
    ]);
    expect(sharedKinds(plan)).toEqual([]);
  });

  it('a try with its question in the try block is kept once when nothing before it must be skipped', () => {
    expect(sharedKinds(roundsOf(['try {', `  const a = await ${ASK()};`, "  return { content: [{ type: 'text', text: a.action }] };", '} catch {', '  return { content: [] };', '}']))).toEqual(['TryStatement']);
    // A statement with effects before it would have to be skipped in the resumed round: two copies then.
    expect(sharedKinds(roundsOf(['console.error(limit);', 'try {', `  const a = await ${ASK()};`, "  return { content: [{ type: 'text', text: a.action }] };", '} catch {', '  return { content: [] };', '}']))).toEqual([]);
  });

  it('an if is kept once only when the code after its question runs also without asking', () => {
    expect(sharedKinds(roundsOf(['if (limit > 1) {', `  await ${ASK()};`, '}', 'return { content: [] };']))).toEqual([]);
    expect(sharedKinds(roundsOf(['if (limit > 1) {', `  if (limit > 2) await ${ASK()};`, '  console.error(limit);', '}', 'return { content: [] };']))).toEqual(['IfStatement']);
  });

  it('questions in conditional expressions that are the whole value of their statement', () => {
    expect(verdicts(analysis([`const a = limit > 0 && (await ${ASK()}).action === 'accept';`, "return { content: [{ type: 'text', text: String(a) }] };"]))).toEqual(['migrate']);
    expect(verdicts(analysis([`if (limit > 0 || (await ${ASK()}).action === 'accept') return { content: [] };`, 'return { content: [] };']))).toEqual(['migrate']);
    expect(verdicts(analysis([`const a = limit > 0 ? await ${ASK()} : undefined;`, "return { content: [{ type: 'text', text: String(a?.action) }] };"]))).toEqual(['migrate']);
    const nested = analysis([`const a = limit > 0 && (limit > 1 || (await ${ASK()}).action === 'accept');`, "return { content: [{ type: 'text', text: String(a) }] };"]);
    expect(verdicts(nested)).toEqual(['refuse:unsupported-construct']);
    expect(nested.sites[0]!.verdict).toMatchObject({ hint: expect.stringMatching(/nested conditional expressions/) });
  });

  it('refuses what a resumed round cannot re-enter, with the reason', () => {
    const refusal = (body: string[], prelude: string[] = []): string => {
      const site = analysis(body, prelude).sites[0]!;
      return site.verdict.kind === 'refuse' ? `${site.verdict.reason}: ${site.verdict.hint}` : 'migrate';
    };
    expect(refusal(['for await (const row of rows()) {', `  await ${ASK()};`, '}', 'return { content: [] };'], ['declare function rows(): AsyncIterable<number>;']))
      .toMatch(/^loop: .*`for await`/);
    expect(refusal([`while ((await ${ASK()}).action === 'accept') {}`, 'return { content: [] };'])).toMatch(/^loop: .*loop's condition/);
    expect(refusal(['try { return { content: [] }; } finally {', `  await ${ASK()};`, '}'])).toMatch(/^unsupported-construct: .*finally block/);
    expect(refusal([`const first = await Promise.race([${ASK()}, ${ASK()}]);`, "return { content: [{ type: 'text', text: first.action }] };"])).toMatch(/^parallel: Promise\.race/);
    expect(refusal([`await Promise.all(items.map(async () => { const a = await ${ASK()}; return a.action; }));`, 'return { content: [] };'])).toMatch(/^parallel: the \.map\(\) callback does more than return its question/);
    expect(refusal([`await Promise.all(items.map(() => ${ASK()}));`, 'return { content: [] };'])).toBe('migrate');
  });
});

describe('questions built again on resume instead of carried in the state', () => {
  const rebuilt = (ask: string, body: string[] = [], prelude: string[] = [], typed = true): boolean[] => {
    const a = analyzeSnippet(tool([...body, `const a = await ${ask};`, "return { content: [{ type: 'text', text: a.action }] };"], prelude), { typed });
    const plan = a.plans[0]?.rounds;
    if (!plan) throw new Error(`no plan: ${a.sites.map(s => JSON.stringify(s.verdict)).join('; ')}`);
    return plan.suspensions.map(s => s.requestRebuilt);
  };
  const form = (message: string) => `ctx.mcpReq.elicitInput({ mode: 'form', message: ${message}, requestedSchema: { type: 'object', properties: {} } })`;

  it('from literals, primitive arguments and module constants holding a literal', () => {
    expect(rebuilt(form("'Go?'"))).toEqual([true]);
    expect(rebuilt(form('`Up to ${limit}?`'))).toEqual([true]);
    expect(rebuilt(form('PROMPT'), [], ["const PROMPT = 'Go?';"])).toEqual([true]);
    expect(rebuilt('ctx.mcpReq.send({ method: \'roots/list\' })')).toEqual([true]);
  });

  it('not from anything a round may see otherwise: locals, objects, the context, reassigned arguments', () => {
    expect(rebuilt(form('`${n}?`'), ['const n = limit + 1;'])).toEqual([false]);
    expect(rebuilt(form('`${items.length}?`'))).toEqual([false]);
    expect(rebuilt(form('`${items[0]}?`'))).toEqual([false]);
    expect(rebuilt(form('String(limit)'))).toEqual([false]);
    expect(rebuilt(form('`${ctx.mcpReq.method}?`'))).toEqual([false]);
    expect(rebuilt(form('`${limit}?`'), ['limit = 2;'])).toEqual([false]);
    expect(rebuilt(form('COUNTS.prompt'), [], ["const COUNTS = { prompt: 'Go?' };"])).toEqual([false]);
    expect(rebuilt(form('prompt'), [], ["let prompt = 'Go?';"])).toEqual([false]);
  });

  it('not from arguments whose type is unknown (no checker)', () => {
    expect(rebuilt(form('`Up to ${limit}?`'), [], [], false)).toEqual([false]);
    expect(rebuilt(form("'Go?'"), [], [], false)).toEqual([true]);
  });
});

describe('state minimality around a shared if', () => {
  it('does not carry a local that the resumed round, entering the if past its condition, assigns before it reads it', () => {
    const plan = roundsOf([
      'const done: string[] = [];',
      'for (const item of items) {',
      '  let label = item.length > 3 ? undefined : item;',
      '  if (label === undefined) {',
      '    try {',
      `      const a = await ${ASK()};`,
      "      if (a.action !== 'accept') continue;",
      '      label = item.toUpperCase();',
      '    } catch {',
      '      continue;',
      '    }',
      '  }',
      '  done.push(label);',
      '}',
      "return { content: [{ type: 'text', text: done.join() }] };",
    ]);
    expect(sharedKinds(plan)).toEqual(['ForOfStatement', 'IfStatement', 'TryStatement']);
    expect(needs(plan)[0]!.filter(n => n.startsWith('label:'))).toEqual(['label:declare']);
  });
});
