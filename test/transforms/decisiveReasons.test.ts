import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPipeline } from './pipeline.js';

/**
 * Where several obstacles stand in a site's way, the marker gives the one that decides (a handler
 * kind that cannot ask, fire-and-forget, a caller outside requests, ...), above the statement the
 * site is on, and no other (src/analysis/reasons.ts).
 */

const file = join(import.meta.dirname, '../../fixtures/__decisive_snippet__.ts');
const HEAD = [
  "import { McpServer } from '@modelcontextprotocol/server';",
  "import * as z from 'zod/v4';",
  "export const server = new McpServer({ name: 'd', version: '1' }, { capabilities: { resources: { subscribe: true } } });",
];

/** Each refused site as `<line> <reason>`, and the marker written above that line. */
function refusals(lines: string[]): Array<{ site: string; marker: string | undefined }> {
  const result = runPipeline(file, [...HEAD, ...lines].join('\n'));
  const out = result.text.split('\n');
  return result.sites.filter(s => s.status === 'refused').map(s => {
    const statement = [...HEAD, ...lines][s.line - 1]!.trim();
    const at = out.findIndex(l => l.trim() === statement);
    return { site: `${s.line} ${s.reason}`, marker: at > 0 && out[at - 1]!.includes('mrtr-migrate:') ? out[at - 1]!.trim() : undefined };
  });
}

describe('the decisive reason', () => {
  it('for a helper only a resources/subscribe handler reaches, through an instance method: the handler kind, not how it is called', () => {
    expect(refusals([
      'class Gate {',
      '  async allow(uri: string): Promise<boolean> {',
      "    const reply = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: uri } }], maxTokens: 5 });",
      "    return reply.content.type === 'text';",
      '  }',
      '}',
      'const gate = new Gate();',
      "server.server.setRequestHandler('resources/subscribe', async (request) => {",
      '  await gate.allow(request.params.uri);',
      '  return {};',
      '});',
    ])).toEqual([{ site: '6 handler-kind', marker: '// mrtr-migrate: handler-kind — allow() runs in a resources/subscribe handler, which cannot return input_required' }]);
  });

  it('for a question started with void after the answer, in a helper that may return first: fire-and-forget, and its handler is blocked by it', () => {
    const found = refusals([
      'async function rateLater(name: string): Promise<void> {',
      '  if (!name) return;',
      "  const rating = await server.server.elicitInput({ mode: 'form', message: `Rate ${name}?`, requestedSchema: { type: 'object', properties: {} } });",
      '  console.error(rating.action);',
      '}',
      "server.registerTool('ship', { inputSchema: z.object({ name: z.string() }) }, async ({ name }, ctx) => {",
      "  const go = await ctx.mcpReq.elicitInput({ mode: 'form', message: `Ship ${name}?`, requestedSchema: { type: 'object', properties: {} } });",
      "  if (go.action !== 'accept') return { content: [] };",
      '  void rateLater(name);',
      "  return { content: [{ type: 'text', text: 'shipped' }] };",
      '});',
    ]);
    expect(found.map(f => f.site)).toEqual(['6 fire-and-forget', '10 blocked-by-sibling']);
    // Not 'may return before its question': the helper's shape matters only once a request waits for it.
    expect(found[0]!.marker).toBe('// mrtr-migrate: fire-and-forget — helper rateLater() is started at line 14 and never awaited, so the request may be gone when it asks');
    expect(found[1]!.marker).toMatch(/^\/\/ mrtr-migrate: blocked-by-sibling — .*is refused \(fire-and-forget\)/);
  });

  it('for a helper one handler awaits and another starts with .then() and leaves: fire-and-forget, before the helper\'s own shape', () => {
    const found = refusals([
      'async function pickModel(topic: string): Promise<string> {',
      "  const hint = topic.trim();",
      "  if (hint === '') return 'default';",
      "  const reply = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: hint } }], maxTokens: 5 });",
      "  return reply.content.type === 'text' ? reply.content.text : 'default';",
      '}',
      "server.registerTool('plan', { inputSchema: z.object({ topic: z.string() }) }, async ({ topic }) => {",
      "  return { content: [{ type: 'text', text: await pickModel(topic) }] };",
      '});',
      "server.registerTool('warm', { inputSchema: z.object({ topic: z.string() }) }, async ({ topic }) => {",
      '  pickModel(topic).then(model => console.error(model));',
      "  return { content: [{ type: 'text', text: 'warming' }] };",
      '});',
    ]);
    expect(found.map(f => f.site)).toEqual(['7 fire-and-forget']);
    expect(found[0]!.marker).toBe('// mrtr-migrate: fire-and-forget — helper pickModel() is started at line 15 and never awaited, so the request may be gone when it asks');
  });

  it('for a handler whose registrar mints a token before calling it and that carries a Date: the minting that would repeat, not the Date', () => {
    const found = refusals([
      'const minted: string[] = [];',
      'function withToken(name: string, run: (args: { path: string }) => Promise<{ content: { type: "text"; text: string }[] }>) {',
      '  server.registerTool(name, { inputSchema: z.object({ path: z.string() }) }, async (args) => {',
      '    minted.push(`t${minted.length}`);',
      '    return run(args);',
      '  });',
      '}',
      "withToken('purge', async ({ path }) => {",
      '  const since = new Date();',
      "  const go = await server.server.elicitInput({ mode: 'form', message: `Purge ${path}?`, requestedSchema: { type: 'object', properties: {} } });",
      "  return { content: [{ type: 'text', text: `${go.action} since ${since.toISOString()}` }] };",
      '});',
    ]);
    expect(found.map(f => f.site)).toEqual(['13 unsupported-construct']);
    expect(found[0]!.marker).toMatch(/^\/\/ mrtr-migrate: unsupported-construct — withToken\(\) runs `minted\.push\(`t\$\{minted\.length\}`\);` before it calls the handler, which would run again in every/);
  });

  it('for a helper only oninitialized calls: no live request; for one no caller the analysis sees reaches: caller not found', () => {
    expect(refusals([
      'async function roots(): Promise<string[]> {',
      '  const { roots: found } = await server.server.listRoots();',
      '  return found.map(r => r.uri);',
      '}',
      'server.server.oninitialized = async () => { console.error(await roots()); };',
      'async function stray(): Promise<void> {',
      '  await server.server.listRoots();',
      '}',
      'export const later = [stray];',
    ])).toEqual([
      { site: '5 no-live-request', marker: '// mrtr-migrate: no-live-request — roots is only called outside requests' },
      { site: '10 caller-not-found', marker: '// mrtr-migrate: caller-not-found — no caller of stray() leads to a request handler the analysis can see' },
    ]);
  });
});
