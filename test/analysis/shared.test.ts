import { describe, expect, it } from 'vitest';
import { analyzeSnippet } from './harness.js';

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
    expect(site.verdict).toMatchObject({ kind: 'refuse', reason: 'non-json-local' });
    expect(site.verdict.kind === 'refuse' && site.verdict.hint).toContain('shared with `notes`');
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

  it('refuses a local that aliases an element of another live local', () => {
    const site = verdictOf(`const all = { notes: [{ n: 1 }] };
const first = all.notes.find(x => x.n === 1)!;
const answer = await ctx.mcpReq.elicitInput({ mode: 'form', ...ask });
first.n = 2;
return { content: [{ type: 'text', text: String(all.notes[0]!.n) + answer.action }] };`);
    expect(site.verdict).toMatchObject({ kind: 'refuse', reason: 'non-json-local' });
  });
});
