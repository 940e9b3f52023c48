import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../src/analysis/index.js';
import { analyzeSnippet, snippetsProgram, ts } from './harness.js';

/**
 * Objects a handler shares with the outside (module state, its own arguments, another local): a
 * JSON copy in requestState would lose their identity, so such locals are looked up again by key
 * on resume, or the site is refused.
 */

const header = `import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
interface Note { id: string; title: string; tags: string[] }
const notes: Note[] = [];
const byId: Record<string, Note> = {};
const server = new McpServer({ name: 'n', version: '1' });
const ask = { message: 'ok?', requestedSchema: { type: 'object' as const, properties: {} } };
`;

function verdictOf(body: string) {
  const text = `${header}server.registerTool('t', { inputSchema: z.object({ id: z.string(), items: z.array(z.object({ n: z.number() })) }) }, async (args, ctx) => {\n${body}\n});\n`;
  const analysis = analyzeSnippet(text, { typed: true });
  expect(analysis.sites).toHaveLength(1);
  return analysis.sites[0]!;
}

describe('shared objects across a question', () => {
  it('carries a copy when the code after the question only reads values from it', () => {
    const site = verdictOf(`const note = notes.find(n => n.id === args.id)!;
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
return { content: [{ type: 'text', text: note.title + note.tags.join(',') + answer.action }] };`);
    expect(site.verdict.kind).toBe('migrate');
    expect(site.liveLocals.find(l => l.name === 'note')?.how).toBe('carry');
  });

  it('refuses a filtered list of module objects used by identity after the question', () => {
    const site = verdictOf(`const matching = notes.filter(n => n.tags.includes(args.id));
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
for (const note of matching) notes.splice(notes.indexOf(note), 1);
return { content: [{ type: 'text', text: answer.action }] };`);
    expect(site.verdict).toMatchObject({ kind: 'refuse', reason: 'shared-state-mutated' });
    expect(site.verdict.kind === 'refuse' && site.verdict.hint).toMatch(/^`matching` holds objects of `notes`, used by identity after the question \(`for \(const note of matching\) not…`, line 11\); a copy in requestState would not reach them: /);
  });

  it('looks a keyed lookup up again when the object is written through after the question', () => {
    const site = verdictOf(`const note = byId[args.id]!;
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
note.tags.push(answer.action);
return { content: [{ type: 'text', text: note.title }] };`);
    expect(site.verdict.kind).toBe('migrate');
    expect(site.liveLocals.find(l => l.name === 'note')?.how).toBe('rebuild');
  });

  it('treats objects taken from the arguments as shared: they come back as new objects each round', () => {
    const site = verdictOf(`const picked = args.items.filter(item => item.n > 0);
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
const index = args.items.indexOf(picked[0]!);
return { content: [{ type: 'text', text: String(index) + answer.action }] };`);
    expect(site.verdict).toMatchObject({ kind: 'refuse', reason: 'non-json-local' });
  });

  it('looks up again a local that reads a property of another live local, so both stay one object', () => {
    const site = verdictOf(`const all = { items: [] as number[] };
const alias = all.items;
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
alias.push(1);
return { content: [{ type: 'text', text: String(all.items.length) + answer.action }] };`);
    expect(site.verdict.kind).toBe('migrate');
    expect(site.liveLocals.map(l => [l.name, l.how])).toEqual([['all', 'carry'], ['alias', 'rebuild']]);
  });

  it('finds again an element of another live local by the same pure test, so it is an element of the restored copy', () => {
    const site = verdictOf(`const all = { notes: [{ n: 1 }] };
const first = all.notes.find(x => x.n === 1)!;
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
first.n = 2;
return { content: [{ type: 'text', text: String(all.notes[0]!.n) + answer.action }] };`);
    expect(site.verdict.kind).toBe('migrate');
    expect(site.liveLocals.map(l => [l.name, l.how])).toEqual([['all', 'carry'], ['first', 'rebuild']]);
  });

  it('refuses a local aliasing an element of another live local that cannot be found again by a pure expression', () => {
    const site = verdictOf(`const all = { notes: [{ n: 1 }] };
const first = all.notes.pop()!;
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
first.n = 2;
all.notes.push(first);
return { content: [{ type: 'text', text: String(all.notes[0]!.n) + answer.action }] };`);
    expect(site.verdict).toMatchObject({ kind: 'refuse', reason: 'non-json-local' });
    expect(site.verdict.kind === 'refuse' && site.verdict.hint).toContain('it holds objects of `all`, and a JSON copy would lose their identity');
  });

  it('looks up again what a pure find gives (the callback only compares), and what the class keeps under `this`', () => {
    const found = verdictOf(`const note = notes.find(n => n.id === args.id);
if (!note) return { content: [] };
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
note.tags.push(answer.action);
return { content: [] };`);
    expect(found.verdict.kind).toBe('migrate');
    expect(found.liveLocals.map(l => [l.name, l.how])).toEqual([['note', 'rebuild']]);
    const text = `${header}class Board {
  notes = new Map<string, Note>();
  register(): void {
    server.registerTool('t', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {
      const note = this.notes.get(id)!;
      const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
      note.title = answer.action;
      return { content: [] };
    });
  }
}
`;
    const site = analyzeSnippet(text, { typed: true }).sites[0]!;
    expect(site.verdict.kind).toBe('migrate');
    expect(site.liveLocals.map(l => [l.name, l.how])).toEqual([['note', 'rebuild']]);
  });

  it('refuses (shared-state-mutated) objects a class keeps under `this` that no pure expression finds again', () => {
    const text = `${header}class Board {
  notes: Note[] = [];
  register(): void {
    server.registerTool('t', {}, async (ctx) => {
      const last = this.notes.pop();
      const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
      if (last) this.notes.unshift(last);
      return { content: [{ type: 'text', text: answer.action }] };
    });
  }
}
`;
    const site = analyzeSnippet(text, { typed: true }).sites[0]!;
    expect(site.verdict).toMatchObject({ kind: 'refuse', reason: 'shared-state-mutated' });
    expect(site.verdict.kind === 'refuse' && site.verdict.hint).toMatch(/^`last` holds objects of `this\.notes`, used by identity after the question \(`this\.notes\.unshift\(last\);`, line 14\); /);
  });

  it('refuses (shared-state-mutated) what a project function returns of module state, and names the function', () => {
    const site = verdictOf(`const note = noteOf(args.id);
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
note.title = answer.action;
return { content: [] };
}); function noteOf(id: string): Note { return byId[id] ?? { id, title: '', tags: [] }; } ((_: unknown) => {`);
    expect(site.verdict).toMatchObject({ kind: 'refuse', reason: 'shared-state-mutated' });
    expect(site.verdict.kind === 'refuse' && site.verdict.hint).toMatch(/^`note` holds objects noteOf\(\) returns from `byId`, changed after the question \(`note\.title = answer\.action;`, line 11\); /);
  });

  it('refuses (shared-state-mutated) a new array of module objects (Object.values, spread), not one of strings', () => {
    const values = verdictOf(`const all = Object.values(byId);
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
for (const note of all) note.title = answer.action;
return { content: [] };`);
    expect(values.verdict).toMatchObject({ kind: 'refuse', reason: 'shared-state-mutated' });
    const spread = verdictOf(`const listed = [...notes];
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
listed[0]!.title = answer.action;
return { content: [] };`);
    expect(spread.verdict).toMatchObject({ kind: 'refuse', reason: 'shared-state-mutated' });
    const strings = verdictOf(`const tags = [...notes.flatMap(n => n.tags)];
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
tags.push(answer.action);
return { content: [{ type: 'text', text: tags.join() }] };`);
    expect(strings.verdict.kind).toBe('migrate');
  });

  it('treats a Map imported from another module as module state', () => {
    const { program, sourceFiles } = snippetsProgram({
      'shared-import/store.ts': "export interface Cart { paid: boolean }\nexport const carts = new Map<string, Cart>();\nexport function cartCount(): number { return carts.size; }\n",
      'shared-import/tools.ts': `import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { carts } from './store.js';
const server = new McpServer({ name: 'n', version: '1' });
const ask = { message: 'ok?', requestedSchema: { type: 'object' as const, properties: {} } };
server.registerTool('t', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {
  const all = [...carts.values()];
  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
  for (const cart of all) cart.paid = answer.action === 'accept';
  return { content: [] };
});
`,
    });
    const site = analyzeFile({ ts, sourceFile: sourceFiles[1]!, program }).sites[0]!;
    expect(site.verdict).toMatchObject({ kind: 'refuse', reason: 'shared-state-mutated' });
    expect(site.verdict.kind === 'refuse' && site.verdict.hint).toMatch(/^`all` holds objects of `carts`, changed after the question \(`cart\.paid = answer\.action === 'a…`, line 9\); /);
  });

  describe('read after a call that may change the state it came from', () => {
    const backend = `interface Vm { id: string; attached: boolean }
const provisioned: Vm[] = [];
function createVm(id: string): Vm { const vm = { id, attached: false }; provisioned.push(vm); return vm; }
function attachDisk(id: string): void { const vm = provisioned.find(v => v.id === id); if (vm) vm.attached = true; }
const CATALOG: readonly Vm[] = [{ id: 'base', attached: false }];
function template(id: string): Vm { return CATALOG.find(v => v.id === id) ?? CATALOG[0]!; }
`;
    const handler = (body: string) => analyzeSnippet(`${header}${backend}server.registerTool('t', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {\n${body}\n});\n`, { typed: true }).sites[0]!;

    it('refuses what a function stored in module state and returned, when a later call may change it before it is read', () => {
      const site = handler(`const vm = createVm(id);
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
if (answer.action === 'accept') attachDisk(vm.id);
return { content: [{ type: 'text', text: vm.attached ? 'attached' : 'detached' }] };`);
      expect(site.verdict).toMatchObject({ kind: 'refuse', reason: 'shared-state-mutated' });
      expect(site.verdict.kind === 'refuse' && site.verdict.hint).toMatch(/^`vm` holds objects createVm\(\) returns from `provisioned`, which `attachDisk\(vm\.id\)` \(line 17\) may change; it is read after that call, and a copy in requestState would not see the change: /);
    });

    it('looks a record of that state up again when a pure lookup gives it', () => {
      const site = handler(`const vm = provisioned.find(v => v.id === id);
if (!vm) return { content: [] };
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
if (answer.action === 'accept') attachDisk(vm.id);
return { content: [{ type: 'text', text: vm.attached ? 'attached' : 'detached' }] };`);
      expect(site.verdict.kind).toBe('migrate');
      expect(site.liveLocals.map(l => [l.name, l.how])).toEqual([['vm', 'rebuild']]);
    });

    it('carries a copy of state nothing changes (a catalogue), and of state no later call may change', () => {
      const catalogue = handler(`const vm = template(id);
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
attachDisk(id);
return { content: [{ type: 'text', text: vm.id + answer.action }] };`);
      expect(catalogue.verdict.kind).toBe('migrate');
      expect(catalogue.liveLocals.map(l => [l.name, l.how])).toEqual([['vm', 'carry']]);
      const logged = handler(`const vm = createVm(id);
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
console.log(answer.action);
return { content: [{ type: 'text', text: String(vm.attached) }] };`);
      expect(logged.verdict.kind).toBe('migrate');
    });
  });

  describe('a change to the container, not to the objects it holds', () => {
    // The module holds only the function the handler calls: every change in the module counts.
    const handler = (fn: string, after: string) => analyzeSnippet(`${header}interface Member { name: string; role: string }
const teams: Record<string, Member[]> = { core: [{ name: 'ada', role: 'lead' }] };
const archived = new Set<Member[]>();
const defaults: Member[] = [];
${fn}
server.registerTool('t', { inputSchema: z.object({ team: z.string() }) }, async ({ team }, ctx) => {
const members = teams[team] ?? defaults;
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
if (answer.action !== 'accept') return { content: [] };
${after}
return { content: [{ type: 'text', text: members.map(m => m.name + m.role).join(', ') + members.length }] };
});\n`, { typed: true }).sites[0]!;

    it('carries the objects when the code after the question deletes, replaces or clears entries', () => {
      const cases = [
        ['function disband(team: string): void { delete teams[team]; }', 'disband(team);'],
        ['function replace(team: string): void { teams[team] = []; archived.clear(); }', 'replace(team);'],
        ['function archive(team: string): void { archived.add(teams[team] ?? defaults); }', 'archive(team);'],
      ];
      for (const [fn, after] of cases) {
        const site = handler(fn!, after!);
        expect(site.verdict.kind, fn).toBe('migrate');
        expect(site.liveLocals.map(l => [l.name, l.how]), fn).toEqual([['members', 'carry']]);
      }
    });

    it('refuses when a later call changes the objects themselves: Object.assign into one, a push into the list, a sort', () => {
      const assigned = handler("function promoteAll(team: string): void { for (const m of teams[team] ?? []) Object.assign(m, { role: 'lead' }); }", 'promoteAll(team);');
      expect(assigned.verdict).toMatchObject({ kind: 'refuse', reason: 'shared-state-mutated' });
      expect(assigned.verdict.kind === 'refuse' && assigned.verdict.hint).toMatch(/^`members` holds objects of `teams`, which `promoteAll\(team\)` \(line \d+\) may change; /);
      const pushed = handler("function enlist(team: string): void { (teams[team] ?? defaults).push({ name: 'new', role: 'member' }); }", 'enlist(team);');
      expect(pushed.verdict).toMatchObject({ kind: 'refuse', reason: 'shared-state-mutated' });
      const sorted = handler('function rank(team: string): void { teams[team]?.sort((a, b) => a.name.localeCompare(b.name)); }', 'rank(team);');
      expect(sorted.verdict).toMatchObject({ kind: 'refuse', reason: 'shared-state-mutated' });
    });
  });

  it('sees state changed in the handler\'s module through an import, not only in the module that declares it', () => {
    const store = "export interface Cart { id: string; paid: boolean }\nexport const carts: Cart[] = [];\nexport function cartOf(id: string): Cart { return carts.find(c => c.id === id) ?? carts[0]!; }\n";
    const tools = (pay: string) => `import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { cartOf, carts as all, type Cart } from './store.js';
export type Paid = Cart['paid'];
const server = new McpServer({ name: 'n', version: '1' });
const ask = { message: 'ok?', requestedSchema: { type: 'object' as const, properties: {} } };
function pay(id: string): void { ${pay} }
server.registerTool('t', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {
  const cart = cartOf(id);
  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
  if (answer.action === 'accept') pay(id);
  return { content: [{ type: 'text', text: String(cart.paid) }] };
});
`;
    const verdictWith = (pay: string) => {
      const { program, sourceFiles } = snippetsProgram({ 'shared-import-change/store.ts': store, 'shared-import-change/tools.ts': tools(pay) });
      return analyzeFile({ ts, sourceFile: sourceFiles[1]!, program }).sites[0]!.verdict;
    };
    expect(verdictWith('const cart = all.find(c => c.id === id); if (cart) cart.paid = true;')).toMatchObject({ kind: 'refuse', reason: 'shared-state-mutated' });
    expect(verdictWith('console.log(all.length, id);')).toMatchObject({ kind: 'migrate' });
  });
});
