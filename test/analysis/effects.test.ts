import { describe, expect, it } from 'vitest';
import { analyzeSnippet } from './harness.js';

/** Side effects the analysis lists before the (only) question of a v2 tool with `body`. */
function effects(body: string[], prelude: string[] = [], index = 0, typed = false): { effects: string[]; verdict: unknown } {
  const text = [
    "import { McpServer } from '@modelcontextprotocol/server';",
    'declare const db: { write(v: string): Promise<void>; read(id: string): Promise<string> };',
    'let calls = 0;',
    'const registry: Record<string, string> = {};',
    ...prelude,
    "const server = new McpServer({ name: 't', version: '1' });",
    "server.registerTool('t', {}, async (ctx) => {",
    ...body,
    '});',
  ].join('\n');
  const site = analyzeSnippet(text, { typed }).sites[index]!;
  return { effects: site.sideEffectsBefore, verdict: site.verdict };
}

const ASK = "  const a = await ctx.mcpReq.elicitInput({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } });";
const END = "  return { content: [{ type: 'text', text: a.action }] };";

describe('side effects before the question', () => {
  it('none for local computation, pure library calls and logging', () => {
    const body = [
      "  const parts = 'a,b'.split(',');",
      '  const local: string[] = [];',
      '  const joined = parts.map(p => p.trim()).join(JSON.stringify({ n: Math.max(1, 2) }));',
      "  const o = { k: 1 };",
      '  o.k = 2;',
      '  console.error(joined, o, local);',
      ASK, END,
    ];
    const result = effects(body, [], 0, true);
    expect(result.effects).toEqual([]);
    expect(result.verdict).toMatchObject({ kind: 'migrate', review: false });
    // Without types the callback's `p` could be anything with a `trim` of its own.
    expect(effects(body).effects).toEqual(["call: `parts.map(p => p.trim()).join(JSON.stringify({ n: Math.max(1, 2) }))`"]);
  });

  it('calls to other code, module-level writes, updates and deletes are listed, and make the site `review`', () => {
    const result = effects([
      "  await db.write('started');",
      '  calls++;',
      "  registry.last = 'x';",
      "  delete registry.old;",
      ASK, END,
    ]);
    expect(result.effects).toEqual([
      "call: `db.write('started')`",
      'update outside the handler: `calls++`',
      "assignment outside the handler: `registry.last = 'x'`",
      'delete: `delete registry.old`',
    ]);
    expect(result.verdict).toMatchObject({ kind: 'migrate', review: true });
    expect((result.verdict as { notes: string[] }).notes[0]).toMatch(/if the client never retries/);
  });

  it('none for changes to a collection the handler made itself; changes to one it did not make, or a comparator, are listed', () => {
    const own = effects([
      '  const seen: string[] = [];',
      '  const counts = new Map<string, number>();',
      "  seen.push('a');",
      "  counts.set('a', 1);",
      '  seen.sort();',
      ASK, END,
    ]);
    expect(own.effects).toEqual([]);
    expect(own.verdict).toMatchObject({ kind: 'migrate', review: false });
    const shared = effects([
      '  const mine: string[] = [];',
      "  log.push('a');",
      '  const alias = log;',
      "  alias.push('b');",
      '  mine.sort((x, y) => { calls++; return x.localeCompare(y); });',
      ASK, END,
    ], ['const log: string[] = [];']);
    expect(shared.effects).toEqual([
      "call: `log.push('a')`",
      "call: `alias.push('b')`",
      'call: `mine.sort((x, y) => { calls++; return x.localeCompare(y); })`',
    ]);
  });

  it('counts what runs in enclosing conditions and in the question\'s own arguments', () => {
    const inCondition = effects([
      "  if (await db.read('flag')) {",
      '  ' + ASK,
      '  ' + END,
      '  }',
      "  return { content: [] };",
    ]);
    expect(inCondition.effects).toEqual(["call: `db.read('flag')`"]);
    const inArguments = effects([
      "  const a = await ctx.mcpReq.elicitInput({ message: await db.read('prompt'), requestedSchema: { type: 'object', properties: {} } });",
      END,
    ]);
    expect(inArguments.effects).toEqual(["call: `db.read('prompt')`"]);
  });

  it('does not count code after the question, inside callbacks that are not called, or a previous question', () => {
    const result = effects([
      "  const later = () => db.write('never called here');",
      "  const first = await ctx.mcpReq.elicitInput({ message: 'first', requestedSchema: { type: 'object', properties: {} } });",
      ASK,
      "  await db.write(first.action + a.action);",
      '  later();',
      END,
    ], [], 1);
    expect(result.effects).toEqual([]);
    expect(result.verdict).toMatchObject({ kind: 'migrate', review: false });
  });

  it('constructions other than value types are effects', () => {
    const result = effects(['  const when = new Date();', "  const client = new WebSocket('wss://example.com');", ASK, END],
      ['declare class WebSocket { constructor(url: string); }']);
    expect(result.effects).toEqual(["construction: `new WebSocket('wss://example.com')`"]);
  });
});
