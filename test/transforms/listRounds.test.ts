import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPipeline } from './pipeline.js';

/**
 * A question per item, `await Promise.all(items.map(item => ask(item)))`: one round with a key per
 * item, asked only when there are items. The runnable fixture v2-parallel-list proves the behaviour
 * on both eras; these cover the statement shapes and the refusals around it.
 */

const file = join(import.meta.dirname, '../../fixtures/__shape_snippet__.ts');
const ask = (message: string) => `ctx.mcpReq.elicitInput({ mode: 'form', message: ${message}, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } })`;
const tool = (...body: string[]) => [
  "import { McpServer } from '@modelcontextprotocol/server';",
  "import * as z from 'zod/v4';",
  "export const server = new McpServer({ name: 'n', version: '1' });",
  "const TAGS: Record<string, { name: string; stale: boolean }[]> = { a: [{ name: 'x', stale: true }] };",
  "server.registerTool('go', { inputSchema: z.object({ ids: z.array(z.string()), repo: z.string() }) }, async ({ ids, repo }, ctx) => {",
  ...body.map(line => `  ${line}`),
  '});',
].join('\n');

describe('a question per item', () => {
  it('asks only when there are items, builds every request from the callback, and reads the answers back in order', () => {
    const result = runPipeline(file, tool(
      `const answers = await Promise.all(ids.map(id => ${ask('`Delete ${id}?`')}));`,
      "return { content: [{ type: 'text', text: answers.map(a => a.action).join(',') }] };",
    ));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain('let answers: ElicitResult[];');
    expect(result.text).toContain('answers = [];\n    if (ids.length > 0) {');
    expect(result.text).toContain("const answersRequests = ids.map(id => inputRequired.elicit({ mode: 'form', message: `Delete ${id}?`");
    expect(result.text).toContain('inputRequests: Object.fromEntries(answersRequests.map((request, index) => [`answers-${index}`, request] as const))');
    expect(result.text).toContain('const answersResponses = state.requests.map((request, index) => elicitAnswerOf(ctx.mcpReq.inputResponses, `answers-${index}`, request));');
    expect(result.text).toContain("answers = answersResponses.flatMap(response => response.kind === 'elicit' ? [elicitResultOf(response)] : []);");
    // The SDK type the lowered declaration names is imported once.
    expect(result.text.split('\n')[0]).toMatch(/^import \{[^}]*type ElicitResult[^}]*\} from '@modelcontextprotocol\/server';$/);
    expect(result.text.split('\n')[0]!.match(/ElicitResult\b/g)).toHaveLength(1);
  });

  it('holds a list that is not a plain name in a const, evaluated once where it was', () => {
    const result = runPipeline(file, tool(
      'const tags = TAGS[repo] ?? [];',
      `const verdicts = await Promise.all(tags.filter(t => t.stale).map(tag => ${ask('`Drop ${tag.name}?`')}));`,
      "return { content: [{ type: 'text', text: String(verdicts.length) }] };",
    ));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain('const tagList = tags.filter(t => t.stale);');
    expect(result.text).toContain('if (tagList.length > 0) {');
    expect(result.text).toContain('const verdictsRequests = tagList.map(tag => inputRequired.elicit(');
  });

  it('keeps an assignment (an empty list when there are no items) and a dropped Promise.all', () => {
    const assigned = runPipeline(file, tool(
      'let picked: Array<{ action: string }> = [{ action: "none" }];',
      `picked = await Promise.all(ids.map(id => ${ask('id')}));`,
      "return { content: [{ type: 'text', text: picked.map(p => p.action).join(',') }] };",
    ));
    expect(assigned.sites.map(s => s.status)).toEqual(['migrated']);
    expect(assigned.typeErrors).toEqual([]);
    expect(assigned.text).toMatch(/if \(ids\.length > 0\) \{\n\s+const pickedRequests = [^\n]+\n(?:[^\n]+\n){4}\s+\} else \{\n\s+picked = \[\];/);

    const dropped = runPipeline(file, tool(
      `await Promise.all(ids.map(async (id): Promise<{ action: string }> => await ${ask('id')}));`,
      "return { content: [{ type: 'text', text: 'asked' }] };",
    ));
    expect(dropped.sites.map(s => s.status)).toEqual(['migrated']);
    expect(dropped.typeErrors).toEqual([]);
    // The request is built, not awaited: the callback loses its async, its await and its return type.
    expect(dropped.text).toMatch(/const \w+Requests = ids\.map\(\(id\) => inputRequired\.elicit\(/);
    expect(dropped.text).not.toMatch(/async \(id\)|Promise<\{ action/);
  });
});

describe('a question per item and a question after it', () => {
  it('carries the answers as ElicitResult[] to the next round; building the requests is not a side effect', () => {
    const result = runPipeline(file, tool(
      `const answers = await Promise.all(ids.map(id => ${ask('id')}));`,
      `const sure = await ${ask("'Sure?'")};`,
      "return { content: [{ type: 'text', text: `${answers.length} ${sure.action}` }] };",
    ));
    expect(result.sites.map(s => s.status)).toEqual(['migrated', 'migrated']);
    expect(result.sites[1]!.notes).toEqual([]);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain("| { step: 'sure'; call: string; answers: ElicitResult[] };");
    // Declared above both branches: the round that asks `sure` mints it into the state.
    expect(result.text).toMatch(/if \(state\?\.step !== 'sure'\) \{\n\s+let answers: ElicitResult\[\];\n\s+if \(state !== undefined\) \{/);
  });
});

describe('a question per item in v1 code', () => {
  it('migrates after the SDK upgrade', () => {
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { z } from 'zod';",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.tool('go', { ids: z.array(z.string()) }, async ({ ids }) => {",
      "  const answers = await Promise.all(ids.map(id => server.server.elicitInput({ message: `Drop ${id}?`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } })));",
      "  return { content: [{ type: 'text', text: answers.map(a => a.action).join(',') }] };",
      '});',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toMatch(/const answersRequests = ids\.map\(id => inputRequired\.elicit\(\{ message: `Drop \$\{id\}\?`/);
  });
});

describe('a question per item in JavaScript', () => {
  it('is written without types', () => {
    const result = runPipeline(join(import.meta.dirname, '../../fixtures/__shape_snippet__.mjs'), [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import * as z from 'zod/v4';",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.registerTool('go', { inputSchema: z.object({ ids: z.array(z.string()) }) }, async ({ ids }, ctx) => {",
      `  const answers = await Promise.all(ids.map(id => ${ask('`Drop ${id}?`')}));`,
      "  return { content: [{ type: 'text', text: answers.map(a => a.action).join(',') }] };",
      '});',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain('  let answers;\n');
    expect(result.text).toContain('answers = [];\n    if (ids.length > 0) {');
    expect(result.text).toContain('Object.fromEntries(answersRequests.map((request, index) => [`answers-${index}`, request]))');
    expect(result.text.slice(result.text.indexOf("server.registerTool('go'"))).not.toMatch(/ElicitResult\b|as const/);
  });
});

describe('a question per item the rewrite refuses', () => {
  const refusal = (...body: string[]) => {
    const result = runPipeline(file, tool(...body, "return { content: [] };"));
    expect(result.sites).toHaveLength(1);
    return [result.sites[0]!.reason, result.sites[0]!.hint] as const;
  };

  it('names the obstacle', () => {
    expect(refusal(`const first = await Promise.race(ids.map(id => ${ask('id')}));`)).toEqual(['parallel', expect.stringMatching(/^Promise\.race settles with the first answer/)]);
    expect(refusal(`const all = await Promise.all(ids.map(async id => { const a = await ${ask('id')}; return a.action; }));`))
      .toEqual(['parallel', expect.stringMatching(/^the \.map\(\) callback does more than return its question/)]);
    expect(refusal(`const n = (await Promise.all(ids.map(id => ${ask('id')}))).length;`))
      .toEqual(['unsupported-construct', expect.stringMatching(/^the answers of a question per item are used inside a larger statement/)]);
    expect(refusal('const queue = { map<T>(f: (id: string) => T): T[] { return [f(repo)]; } };', `const all = await Promise.all(queue.map(id => ${ask('id')}));`))
      .toEqual(['parallel', expect.stringMatching(/^`queue` is not an array/)]);
    expect(refusal('declare function label(id: string): Promise<string>;', `const all = await Promise.all(ids.map(async id => ${ask('await label(id)')}));`))
      .toEqual(['parallel', expect.stringMatching(/^the question's arguments wait for `await label\(id\)` inside the \.map\(\) callback/)]);
    expect(refusal(`const all = await Promise.all(ids.map(id => ${ask('id')}, undefined));`))
      .toEqual(['parallel', expect.stringMatching(/is not a plain \.map\(\) with one callback/)]);
  });

  it('refuses a helper that works on its answer, or awaits other work first', () => {
    const helper = (body: string) => runPipeline(file, [
      "import { McpServer, type ServerContext } from '@modelcontextprotocol/server';",
      "import * as z from 'zod/v4';",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      'declare function lookUp(id: string): Promise<string>;',
      `async function confirm(ctx: ServerContext, id: string) { ${body} }`,
      "server.registerTool('go', { inputSchema: z.object({ ids: z.array(z.string()) }) }, async ({ ids }, ctx) => {",
      '  const all = await Promise.all(ids.map(id => confirm(ctx, id)));',
      "  return { content: [{ type: 'text', text: String(all.length) }] };",
      '});',
    ].join('\n')).sites.map(s => [s.status, s.reason, s.hint?.replace(/ \(where .*$/, '')]);
    expect(helper(`const answer = await ${ask('id')}; return answer.action === 'accept';`))
      .toEqual([['refused', 'parallel', expect.stringMatching(/through helper confirm\(\), which works on the answer before it returns/)]]);
    expect(helper(`const name = await lookUp(id); return await ${ask('name')};`))
      .toEqual([['refused', 'parallel', expect.stringMatching(/through helper confirm\(\), which awaits other work before its question/)]]);
  });
});

describe('a question per item through a helper that returns its answer', () => {
  it('builds each request with the helper\'s request part', () => {
    const result = runPipeline(file, [
      "import { McpServer, type ServerContext } from '@modelcontextprotocol/server';",
      "import * as z from 'zod/v4';",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      `async function confirm(ctx: ServerContext, id: string) { return await ${ask('`Drop ${id}?`')}; }`,
      "server.registerTool('go', { inputSchema: z.object({ ids: z.array(z.string()) }) }, async ({ ids }, ctx) => {",
      '  const all = await Promise.all(ids.map(id => confirm(ctx, id)));',
      "  return { content: [{ type: 'text', text: all.map(a => a.action).join(',') }] };",
      '});',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toMatch(/const allRequests = ids\.map\(id => confirmRequest\(id\)\);/);
  });
});
