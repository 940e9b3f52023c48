import { describe, expect, it } from 'vitest';
import type { FileAnalysis } from '../../src/analysis/index.js';
import { analyzeBoth } from './harness.js';

/** A v2 tool whose body is `body`; the (first) question is the site under test. */
function tool(body: string[], prelude: string[] = []): string {
  return [
    "import { McpServer } from '@modelcontextprotocol/server';",
    "import * as z from 'zod/v4';",
    'declare const db: { load(id: string): Promise<{ id: string; name: string }>; save(v: unknown): Promise<void> };',
    ...prelude,
    "const server = new McpServer({ name: 't', version: '1' });",
    "server.registerTool('t', { inputSchema: z.object({ id: z.string(), limit: z.number() }) }, async ({ id, limit }, ctx) => {",
    ...body.map(line => `  ${line}`),
    '});',
  ].join('\n');
}

const ASK = "await ctx.mcpReq.elicitInput({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } })";

/** `name:how:json` for the live locals of the first site. */
function live(analysis: FileAnalysis, index = 0): string[] {
  return analysis.sites[index]!.liveLocals.map(l => `${l.name}:${l.how}:${l.json}`);
}

describe('live locals', () => {
  it('only locals declared before the question and read after it', () => {
    const { typed, untyped } = analyzeBoth(tool([
      "const before = 'b';",
      "const unused = 'u';",
      "console.error(unused);",
      `const answer = ${ASK};`,
      "const after = 'a';",
      "return { content: [{ type: 'text', text: before + after + answer.action }] };",
    ]));
    expect(live(typed)).toEqual(['before:rebuild:yes']);
    expect(live(untyped)).toEqual(['before:rebuild:yes']);
  });

  it('parameters come back with every retry unless the handler reassigns them or writes their properties', () => {
    const unchanged = analyzeBoth(tool([`const a = ${ASK};`, "return { content: [{ type: 'text', text: id + limit + a.action }] };"]));
    expect(live(unchanged.typed)).toEqual([]);
    const reassigned = analyzeBoth(tool(['limit = Math.min(limit, 10);', `const a = ${ASK};`, "return { content: [{ type: 'text', text: `${limit}` + a.action }] };"]));
    expect(live(reassigned.typed)).toEqual(['limit:carry:yes']);
    expect(live(reassigned.untyped)).toEqual(['limit:carry:unknown']);
    expect(reassigned.typed.sites[0]!.liveLocals[0]!.isParameter).toBe(true);
    const propertyWrite = analyzeBoth(tool([]).replace('async ({ id, limit }, ctx) => {', [
      'async (args, ctx) => {',
      '  args.limit = 10;',
      `  const a = ${ASK};`,
      "  return { content: [{ type: 'text', text: args.id + a.action }] };",
    ].join('\n')));
    expect(live(propertyWrite.typed)).toEqual(['args:carry:yes']);
  });

  it('rebuilds literals, templates and functions; carries the locals a rebuilt template needs', () => {
    const { typed, untyped } = analyzeBoth(tool([
      'const row = await db.load(id);',
      'const label = `${row.name} (${id})`;',
      'const format = (n: number) => n.toFixed(1);',
      'function shout(s: string) { return s.toUpperCase(); }',
      `const a = ${ASK};`,
      "return { content: [{ type: 'text', text: shout(label) + format(limit) + a.action }] };",
    ]));
    expect(live(typed)).toEqual(['row:carry:yes', 'label:rebuild:yes', 'format:rebuild:yes', 'shout:rebuild:yes']);
    expect(live(untyped)).toEqual(['row:carry:unknown', 'label:rebuild:yes', 'format:rebuild:yes', 'shout:rebuild:yes']);
    expect(typed.sites[0]!.verdict).toMatchObject({ kind: 'migrate', review: true });
    expect(untyped.sites[0]!.verdict).toMatchObject({ kind: 'refuse', reason: 'unknown-local-type' });
  });

  it('carries mutable literals (arrays, objects) instead of rebuilding them', () => {
    const { typed, untyped } = analyzeBoth(tool([
      "const tags = ['a'];",
      'const opts = { verbose: true };',
      `const a = ${ASK};`,
      "tags.push(String(a.content?.tag));",
      "return { content: [{ type: 'text', text: tags.join(',') + String(opts.verbose) }] };",
    ]));
    expect(live(typed)).toEqual(['tags:carry:yes', 'opts:carry:yes']);
    expect(live(untyped)).toEqual(['tags:carry:yes', 'opts:carry:yes']);
  });

  it('`let x;` given a value only after the question is rebuilt; written before, it is carried', () => {
    const later = analyzeBoth(tool(['let note: string;', `const a = ${ASK};`, "note = a.action;", "return { content: [{ type: 'text', text: note }] };"]));
    expect(live(later.typed)).toEqual(['note:rebuild:yes']);
    const earlier = analyzeBoth(tool(['let note: string;', "note = 'x';", `const a = ${ASK};`, "return { content: [{ type: 'text', text: note + a.action }] };"]));
    expect(live(earlier.typed)).toEqual(['note:carry:yes']);
  });

  it('the local assigned the answer (`x = await ask()`) holds the answer, not a value from before', () => {
    const { typed, untyped } = analyzeBoth(tool([
      'let answer;',
      'try {',
      `  answer = ${ASK};`,
      '} catch {',
      "  return { content: [{ type: 'text', text: 'failed' }] };",
      '}',
      "return { content: [{ type: 'text', text: answer.action }] };",
    ]));
    expect(live(typed)).toEqual(['answer:rebuild:yes']);
    expect(live(untyped)).toEqual(['answer:rebuild:yes']);
    expect(typed.sites[0]!.verdict.kind).toBe('migrate');
  });

  it('an earlier answer read after a later question is JSON in both modes', () => {
    const { typed, untyped } = analyzeBoth(tool([
      `const first = ${ASK};`,
      `const second = ${ASK};`,
      "return { content: [{ type: 'text', text: first.action + second.action }] };",
    ]));
    expect(live(typed, 1)).toEqual(['first:carry:yes']);
    expect(live(untyped, 1)).toEqual(['first:carry:yes']);
    expect(typed.sites[1]!.liveLocals[0]!.type).toBe('ElicitResult');
  });

  it('reads in a catch block count as reads after a question in the try block', () => {
    const { typed } = analyzeBoth(tool([
      'const started = new Date();',
      'try {',
      `  const a = ${ASK};`,
      "  return { content: [{ type: 'text', text: a.action }] };",
      '} catch {',
      "  return { content: [{ type: 'text', text: started.toISOString() }] };",
      '}',
    ]));
    expect(live(typed)).toEqual(['started:carry:no']);
    expect(typed.sites[0]!.verdict).toMatchObject({ kind: 'refuse', reason: 'non-json-local' });
  });

  it('a write in the other branch of an if does not make the local written before the question', () => {
    const { typed } = analyzeBoth(tool([
      'let mode: string;',
      'if (limit > 1) {',
      "  mode = 'bulk';",
      '} else {',
      `  const a = ${ASK};`,
      '  mode = a.action;',
      '}',
      "return { content: [{ type: 'text', text: mode }] };",
    ]));
    expect(live(typed)).toEqual(['mode:rebuild:yes']);
  });

  it('names the non-JSON local and why', () => {
    const { typed } = analyzeBoth(tool(
      ['const cache = new Map<string, number>();', `const a = ${ASK};`, "return { content: [{ type: 'text', text: String(cache.size) + a.action }] };"],
    ));
    const local = typed.sites[0]!.liveLocals[0]!;
    expect(local).toMatchObject({ name: 'cache', how: 'carry', json: 'no' });
    expect(local.type).toBe('Map<string, number>');
    expect(local.why).toMatch(/Map/);
    expect(typed.sites[0]!.verdict).toMatchObject({ kind: 'refuse', reason: 'non-json-local' });
  });
});

describe('secrets read before the question and used after it', () => {
  const uses = "return { content: [{ type: 'text', text: String(secret.length) + a.action }] };";
  it('are read again on resume when the read has no side effects (environment, the request\'s authInfo)', () => {
    for (const init of ['process.env.PAYMENT_API_KEY', "process.env['SERVICE_TOKEN'] ?? ''", "ctx.http?.authInfo?.token ?? ''", '`Bearer ${process.env.UPSTREAM_TOKEN}`']) {
      const { typed } = analyzeBoth(tool([`const secret = ${init};`, `const a = ${ASK};`, uses.replace('secret.length', 'String(secret).length')]));
      expect(live(typed), init).toEqual(['secret:rebuild:yes']);
      expect(typed.sites[0]!.verdict.kind, init).toBe('migrate');
    }
  });

  it('are carried, sealed, and named in a review note when reading them again is a call (a vault, getSecret()) or only their name tells', () => {
    const cases: Array<[string[], string]> = [
      [["declare const vault: { read(path: string): Promise<string> };"], "await vault.read('payments/key')"],
      [['declare function getSecret(name: string): Promise<string>;'], "await getSecret('payments')"],
      [["declare const config: { load(): Promise<{ apiKey: string }> };"], '(await config.load()).apiKey'],
    ];
    for (const [prelude, init] of cases) {
      const { typed, untyped } = analyzeBoth(tool([`const secret = ${init};`, `const a = ${ASK};`, uses], prelude));
      expect(typed.sites[0]!.verdict, init).toMatchObject({ kind: 'migrate', review: true });
      expect((typed.sites[0]!.verdict as { notes: string[] }).notes, init).toContainEqual(expect.stringMatching(/^`secret` holds a secret \(.+\) and travels in requestState: sealed, so the client cannot read it, but it leaves the server with every round/));
      expect(live(typed), init).toEqual(['secret:carry:yes']);
      // Without types nothing shows the secret is JSON: that, not the secret, stops the rewrite.
      expect(untyped.sites[0]!.verdict, init).toMatchObject({ kind: 'refuse', reason: 'unknown-local-type' });
    }
    const byName = analyzeBoth(tool(['const row = await db.load(id);', 'const sessionToken = row.name;', `const a = ${ASK};`, "return { content: [{ type: 'text', text: sessionToken + a.action }] };"]));
    expect(byName.typed.sites[0]!.verdict).toMatchObject({ kind: 'migrate', review: true, notes: expect.arrayContaining([expect.stringContaining('(its name, `sessionToken`) and travels in requestState')]) });
  });

  it('facts about secrets and values computed from them by other calls are carried', () => {
    const { typed } = analyzeBoth(tool([
      'const row = await db.load(id);',
      'const tokenCount = row.name.length;',
      "const fingerprint = hash(process.env.PAYMENT_API_KEY ?? '');",
      `const a = ${ASK};`,
      "return { content: [{ type: 'text', text: `${tokenCount} ${fingerprint}` + a.action }] };",
    ], ['declare function hash(s: string): string;']));
    expect(live(typed)).toEqual(['tokenCount:carry:yes', 'fingerprint:carry:yes']);
    expect(typed.sites[0]!.verdict.kind).toBe('migrate');
  });
});
