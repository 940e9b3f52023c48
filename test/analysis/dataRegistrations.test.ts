import { describe, expect, it } from 'vitest';
import { verdictNotation } from '../helpers/expectations.js';
import { analyzeBoth } from './harness.js';
import type { FileAnalysis } from '../../src/analysis/index.js';

/** Handlers registered through a list of entries iterated into registerTool (src/analysis/dataRegistrations.ts). */

const HEAD = [
  "import { McpServer } from '@modelcontextprotocol/server';",
  "export const server = new McpServer({ name: 'n', version: '1' });",
  'const ask = async () => {',
  "  const answer = await server.server.elicitInput({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } });",
  "  return { content: [{ type: 'text' as const, text: answer.action }] };",
  '};',
];
const LOOP = ['for (const { id, run } of entries) server.registerTool(id, {}, run);'];

function summary(analysis: FileAnalysis): string[] {
  return analysis.sites.map(s => `${s.line} ${verdictNotation(s.verdict)} ${s.context.type === 'handler' ? s.context.handler.name ?? '?' : ''}`.trim());
}

describe('a list of registrations iterated into registerTool', () => {
  it('registers each function an entry holds, under the name the entry writes, whether pushed or written in the list', () => {
    for (const list of [['const entries = [{ id: "go", run: ask }];'], ['const entries: { id: string; run: () => Promise<unknown> }[] = [];', 'entries.push({ id: "go", run: ask });']]) {
      const { typed, untyped } = analyzeBoth([...HEAD, ...list, ...LOOP].join('\n'));
      expect(summary(typed)).toEqual(['4 migrate go']);
      expect(summary(untyped)).toEqual(['4 migrate go']);
    }
  });

  it('is not followed where an entry may come from elsewhere or one function is registered twice: the caller is not found', () => {
    const open = [
      ['export const entries = [{ id: "go", run: ask }];'], // exported: other modules may push
      ['const entries = [{ id: "go", run: ask }];', 'export { entries as all };'],
      ['const entries = [{ id: "go", run: ask }];', 'register(entries);', 'declare function register(e: unknown): void;'], // handed on
      ['const more = { id: "b", run: ask };', 'const entries = [{ id: "go", run: ask }, { ...more }];'], // a spread entry
      ['const entries = [{ id: "go", run: ask }, { id: "again", run: ask }];'], // one function, two names
    ];
    for (const list of open) {
      const { typed } = analyzeBoth([...HEAD, ...list, ...LOOP].join('\n'));
      expect(summary(typed), list.join(' ')).toEqual(['4 refuse:caller-not-found']);
    }
  });

  it('is not followed where the list declares an element type whose function member the rewrite cannot widen', () => {
    const { typed } = analyzeBoth([...HEAD, 'type Handler = () => Promise<unknown>;', 'const entries: { id: string; run: Handler }[] = [{ id: "go", run: ask }];', ...LOOP].join('\n'));
    expect(summary(typed)).toEqual(['4 refuse:caller-not-found']);
  });
});

describe('entries whose factory makes the handler, given to a registrar at its calls', () => {
  const ENTRY = [
    'type Entry = { id: string; factory: (deps: { s: typeof server }) => () => Promise<unknown> };',
    'const go: Entry = { id: "go", factory: ({ s }) => async () => { const a = await s.server.elicitInput({ mode: "form", message: "Go?", requestedSchema: { type: "object", properties: {} } }); return { content: [{ type: "text" as const, text: a.action }] }; } };',
  ];
  const REGISTRAR = ['function registerAll(list: Entry[]) {', '  for (const entry of list) server.registerTool(entry.id, {}, entry.factory({ s: server }));', '}'];
  const HEAD_ONLY = HEAD.slice(0, 2);

  it('registers what each entry\'s factory returns, under the entry\'s name, where every call of the registrar writes its list', () => {
    for (const calls of [['registerAll([go]);'], ['registerAll([go]);', 'registerAll([]);']]) {
      // Typed only: without types nothing shows that the factory's `s` is a server.
      const { typed } = analyzeBoth([...HEAD_ONLY, ...ENTRY, ...REGISTRAR, ...calls].join('\n'));
      expect(summary(typed), calls.join(' ')).toEqual(['4 migrate go']);
    }
  });

  it('is not followed where a list may come from elsewhere or the factory type cannot be widened: the caller is not found', () => {
    const open: Array<[string[], string[]]> = [
      [REGISTRAR.map((l, i) => (i === 0 ? `export ${l}` : l)), ['registerAll([go]);']], // other modules may call it
      [REGISTRAR, ['registerAll([go]);', 'export { registerAll };']],
      [REGISTRAR, ['const all = [go];', 'registerAll(all);']], // a list the call does not write out
      [REGISTRAR, ['registerAll([go]);', 'setTimeout(registerAll, 1, [go]);']], // handed on as a value
      [REGISTRAR, ['registerAll([{ ...go }]);']],
    ];
    for (const [registrar, calls] of open) {
      const { typed } = analyzeBoth([...HEAD_ONLY, ...ENTRY, ...registrar, ...calls].join('\n'));
      expect(summary(typed), [...registrar, ...calls].join(' ')).toEqual(['4 refuse:caller-not-found']);
    }
    const unwidenable = ['type Make = () => Promise<unknown>;', ENTRY[0]!.replace('=> () => Promise<unknown>', '=> Make'), ENTRY[1]!];
    const { typed } = analyzeBoth([...HEAD_ONLY, ...unwidenable, ...REGISTRAR, 'registerAll([go]);'].join('\n'));
    expect(summary(typed)).toEqual(['5 refuse:caller-not-found']);
  });
});

describe('the entries or values of an object iterated into registerTool', () => {
  it('registers each function under the key it is held by, or each entry\'s function under the name it writes', () => {
    const byKey = ['const tools = { go: ask, noop: async () => ({ content: [] }) };', 'for (const [id, run] of Object.entries(tools)) server.registerTool(id, {}, run);'];
    const byMember = ['const tools = { first: { id: "go", run: ask } };', 'for (const [, { id, run }] of Object.entries(tools)) server.registerTool(id, {}, run);'];
    const byValue = ['const tools = { first: { id: "go", run: ask } };', 'for (const tool of Object.values(tools)) server.registerTool(tool.id, {}, tool.run);'];
    const pairMember = ['const tools = { go: { run: ask } };', 'for (const [id, tool] of Object.entries(tools)) server.registerTool(id, {}, tool.run);'];
    const typed = ['const tools: Record<string, () => Promise<{ content: { type: "text"; text: string }[] }>> = { go: ask };', 'for (const [id, run] of Object.entries(tools)) server.registerTool(id, {}, run);'];
    for (const lines of [byKey, byMember, byValue, pairMember, typed]) {
      const analysis = analyzeBoth([...HEAD, ...lines].join('\n'));
      expect(summary(analysis.typed), lines.join(' ')).toEqual(['4 migrate go']);
      expect(summary(analysis.untyped), lines.join(' ')).toEqual(['4 migrate go']);
    }
  });

  it('is not followed where an entry may come from elsewhere or be replaced: the caller is not found', () => {
    const LOOP_PAIRS = 'for (const [id, run] of Object.entries(tools)) server.registerTool(id, {}, run);';
    const open = [
      ['export const tools = { go: ask };', LOOP_PAIRS],
      ['const tools: Record<string, unknown> = { go: ask };', 'tools.more = ask;', LOOP_PAIRS],
      ['const more = {};', 'const tools = { go: ask, ...more };', LOOP_PAIRS],
      ['const tools = { go: ask };', 'Object.assign(tools, {});', LOOP_PAIRS],
      ['const tools = { go: ask };', 'for (const [id, run] of Object.keys(tools)) server.registerTool(id, {}, run as never);'], // keys hold no function
      ['type Run = () => Promise<unknown>;', 'const tools: Record<string, Run> = { go: ask };', LOOP_PAIRS], // a type the rewrite cannot widen
      ['const tools = { go: ask };', 'for (const run of Object.values(tools)) server.registerTool("go", {}, run);'], // a plain head read whole: not followed
    ];
    for (const lines of open) {
      const { typed } = analyzeBoth([...HEAD, ...lines].join('\n'));
      expect(summary(typed), lines.join(' ')).toEqual(['4 refuse:caller-not-found']);
    }
  });
});

describe('the entries or values of a Map iterated into registerTool', () => {
  const LOOP_PAIRS = 'for (const [id, run] of tools) server.registerTool(id, {}, run);';
  it('registers each function under the key it is held by, whether written into the Map or set on it before it is read', () => {
    const written = ['const tools = new Map([["go", ask], ["noop", async () => ({ content: [] })]]);', LOOP_PAIRS];
    const set = ['const tools = new Map<string, () => Promise<{ content: { type: "text"; text: string }[] }>>();', 'tools.set("go", ask);', 'for (const [id, run] of tools.entries()) server.registerTool(id, {}, run);'];
    const declared = ['const tools: Map<string, () => Promise<{ content: { type: "text"; text: string }[] }>> = new Map([["go", ask]]);', 'if (tools.has("go") && tools.size > 0) ' + LOOP_PAIRS];
    const values = ['const tools = new Map([["first", { id: "go", run: ask }]]);', 'for (const { id, run } of tools.values()) server.registerTool(id, {}, run);'];
    for (const lines of [written, set, declared, values]) {
      const analysis = analyzeBoth([...HEAD, ...lines].join('\n'));
      expect(summary(analysis.typed), lines.join(' ')).toEqual(['4 migrate go']);
      expect(summary(analysis.untyped), lines.join(' ')).toEqual(['4 migrate go']);
    }
  });

  it('is not followed where an entry may come from elsewhere, be removed or be set too late: the caller is not found', () => {
    const open = [
      ['export const tools = new Map([["go", ask]]);', LOOP_PAIRS], // other modules may set
      ['const tools = new Map([["go", ask]]);', LOOP_PAIRS, 'tools.set("late", async () => ({ content: [] }));'], // set after it is read
      ['const tools = new Map([["go", ask]]);', 'function more() { tools.set("more", ask); }', LOOP_PAIRS], // set where it may run any time
      ['const tools = new Map([["go", ask]]);', 'tools.delete("go");', LOOP_PAIRS],
      ['const tools = new Map([["go", ask]]);', 'register(tools);', 'declare function register(m: unknown): void;', LOOP_PAIRS], // handed on
      ['const name = "go";', 'const tools = new Map([[name, ask]]);', LOOP_PAIRS], // a key not written as a string
      ['const start: [string, typeof ask][] = [["go", ask]];', 'const tools = new Map(start);', LOOP_PAIRS], // entries from another list
      ['type Run = () => Promise<unknown>;', 'const tools = new Map<string, Run>([["go", ask]]);', LOOP_PAIRS], // a type the rewrite cannot widen
      ['class Map<K, V> { constructor(_: [K, V][]) {} *[Symbol.iterator](): Iterator<[K, V]> {} }', 'const tools = new Map([["go", ask]]);', LOOP_PAIRS], // not the global Map
    ];
    for (const lines of open) {
      const { typed } = analyzeBoth([...HEAD, ...lines].join('\n'));
      expect(summary(typed), lines.join(' ')).toEqual(['4 refuse:caller-not-found']);
    }
  });
});

describe('a closure handed to a constructor', () => {
  const ASK_BODY = "const a = await server.server.elicitInput({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } }); return { content: [{ type: 'text' as const, text: a.action }] };";
  const REPLY = 'Promise<{ content: { type: "text"; text: string }[] }>';

  it('is a handler where the constructor registers it, under the name its own construction gives', () => {
    const lines = [...HEAD.slice(0, 2), `class Registration { constructor(s: McpServer, id: string, run: () => ${REPLY}) { s.registerTool(id, {}, run); } }`, `new Registration(server, 'go', async () => { ${ASK_BODY} });`];
    const { typed, untyped } = analyzeBoth(lines.join('\n'));
    expect(summary(typed)).toEqual(['4 migrate go']);
    expect(summary(untyped)).toEqual(['4 migrate go']);
  });

  it('is not said to run at startup where the instance keeps it: its caller is not found (a Promise executor does run at once)', () => {
    const kept = [...HEAD.slice(0, 2), `class Definition { constructor(readonly id: string, readonly run: () => ${REPLY}) {} }`, `export const go = new Definition('go', async () => { ${ASK_BODY} });`];
    const [site] = analyzeBoth(kept.join('\n')).typed.sites;
    expect(site?.verdict).toMatchObject({ kind: 'refuse', reason: 'caller-not-found' });
    expect(site?.verdict.kind === 'refuse' && site.verdict.hint).toMatch(/^the function is handed to new Definition\(\) \(__snippet__\.ts:4\), which keeps it/);
    const executor = [...HEAD.slice(0, 2), `export const ready = new Promise(async () => { ${ASK_BODY} });`];
    expect(summary(analyzeBoth(executor.join('\n')).typed)).toEqual(['3 refuse:no-live-request']);
  });
});

describe('entries built by a class that keeps what its constructor is given', () => {
  const ASK_BODY = "const a = await server.server.elicitInput({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } }); return { content: [{ type: 'text' as const, text: a.action }] };";
  const REPLY = 'Promise<{ content: { type: "text"; text: string }[] }>';
  const LIST = [`const tools = [new Tool('go', async () => { ${ASK_BODY} })];`, 'for (const t of tools) server.registerTool(t.id, {}, t.run);'];

  it('registers the function each construction hands the member the loop reads, under the name it hands', () => {
    for (const cls of [`class Tool { constructor(readonly id: string, readonly run: () => ${REPLY}) {} }`, `class Tool { constructor(public id: string, public run: () => ${REPLY}) {} }`]) {
      const { typed, untyped } = analyzeBoth([...HEAD.slice(0, 2), cls, ...LIST].join('\n'));
      expect(summary(typed), cls).toEqual(['4 migrate go']);
      expect(summary(untyped), cls).toEqual(['4 migrate go']);
    }
  });

  it('is not followed where the member may hold another function: the caller is not found', () => {
    const open = [
      [`class Tool { constructor(public id: string, public run: () => ${REPLY}) {} }`, ...LIST, 'tools[0]!.run = async () => ({ content: [] });'], // replaced
      [`class Tool { constructor(readonly id: string, private readonly run: () => ${REPLY}) {} }`, ...LIST.map(l => l.replace('t.run', '(t as any).run'))], // private
      [`class Base {}`, `class Tool extends Base { constructor(readonly id: string, readonly run: () => ${REPLY}) { super(); } }`, ...LIST], // a base class may define it too
      [`type Run = () => ${REPLY};`, 'class Tool { constructor(readonly id: string, readonly run: Run) {} }', ...LIST.map(l => l.replace('const tools =', 'const tools: Tool[] ='))], // a type the rewrite cannot widen
    ];
    for (const lines of open) {
      const sites = summary(analyzeBoth([...HEAD.slice(0, 2), ...lines].join('\n')).typed);
      expect(sites.map(s => s.replace(/^\d+ /, '')), lines.join(' ')).toEqual(['refuse:caller-not-found']);
    }
  });
});
