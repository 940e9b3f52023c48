import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPipeline } from './pipeline.js';

/**
 * Capability guards are rewritten in every copy of the handler's code the rewrite makes: phase 0,
 * the resume branch, and the catch / finally blocks it rebuilds or guards.
 */

const FILE = join(import.meta.dirname, '..', '..', 'fixtures', 'guards-inline.ts');

const occurrences = (text: string, needle: string): number => text.split(needle).length - 1;

describe('capability guards', () => {
  it('are rewritten in the catch and finally copies of a try around a question', () => {
    const result = runPipeline(FILE, `import { McpServer } from '@modelcontextprotocol/server';
export const effects = { n: 0 };
export function createServer(): McpServer {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('t', {}, async (ctx) => {
    try {
      const a = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'ok?', requestedSchema: { type: 'object', properties: {} } });
      if (a.action !== 'accept') throw new Error('no');
      return { content: [{ type: 'text', text: 'yes' }] };
    } catch (error) {
      const canSample = server.server.getClientCapabilities()?.sampling !== undefined;
      return { content: [{ type: 'text', text: String(error) + canSample }] };
    } finally {
      if (server.server.getClientCapabilities()?.roots) effects.n++;
    }
  });
  return server;
}
`);
    expect(result.sites.map(s => `${s.line} ${s.kind} ${s.status}`)).toEqual(['7 elicitation migrated', '11 capability-guard migrated', '14 capability-guard migrated']);
    expect(result.typeErrors).toEqual([]);
    // The try is kept once (its catch and finally are not copied): each guard is rewritten where it is; the only
    // initialize-scoped read left is the helper's fallback.
    expect(occurrences(result.text, 'clientCapabilitiesOf(ctx, server.server)')).toBe(2);
    expect(occurrences(result.text, 'getClientCapabilities()')).toBe(2);
    expect(result.text).toContain('server.getClientCapabilities();\n}');
  });

  it('in a handler without a question: only the read changes, the handler gets a context, no codec is added', () => {
    const result = runPipeline(FILE, `import { McpServer } from '@modelcontextprotocol/server';
export function createServer(): McpServer {
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool('status', {}, async () => ({ content: [{ type: 'text', text: String(server.server.getClientCapabilities()?.elicitation) }] }));
  return server;
}
`);
    expect(result.sites.map(s => `${s.line} ${s.kind} ${s.status}`)).toEqual(['4 capability-guard migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain("server.registerTool('status', {}, async (ctx) => ({ content: [{ type: 'text', text: String(clientCapabilitiesOf(ctx, server.server)?.elicitation) }] }));");
    expect(result.text).not.toContain('createRequestStateSeal');
    expect(result.text).toContain("import { McpServer, CLIENT_CAPABILITIES_META_KEY, type ClientCapabilities } from '@modelcontextprotocol/server';");
    expect(runPipeline(FILE, result.text).text).toBe(result.text);
  });
});
