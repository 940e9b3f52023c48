import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sdkOfFileName, sdkOfModule } from '../../src/analysis/sdk.js';
import { analyzeBoth, analyzeSnippet } from './harness.js';

/** `line api` of each reported site. */
const found = (analysis: { sites: { line: number; api: string }[] }): string[] => analysis.sites.map(s => `${s.line} ${s.api}`);

const V1 = [
  "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
  "import { z } from 'zod';",
  "const mcp = new McpServer({ name: 't', version: '1' });",
].join('\n');

describe('which modules and files are the SDK', () => {
  it('maps import specifiers to SDK generations', () => {
    expect(sdkOfModule('@modelcontextprotocol/sdk/server/mcp.js')).toBe('v1');
    expect(sdkOfModule('@modelcontextprotocol/sdk')).toBe('v1');
    expect(sdkOfModule('@modelcontextprotocol/server')).toBe('v2');
    expect(sdkOfModule('@modelcontextprotocol/server/stdio')).toBe('v2');
    expect(sdkOfModule('@modelcontextprotocol/sdk-extras')).toBeUndefined();
    expect(sdkOfModule('@anthropic-ai/sdk')).toBeUndefined();
    expect(sdkOfModule('openai')).toBeUndefined();
  });

  it('maps declaration files to SDK generations', () => {
    expect(sdkOfFileName('/p/node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.d.ts')).toBe('v1');
    expect(sdkOfFileName('/p/node_modules/@modelcontextprotocol/server/dist/mcp-BCJHyo7l.d.mts')).toBe('v2');
    expect(sdkOfFileName('C:\\p\\node_modules\\@modelcontextprotocol\\server\\dist\\index.d.cts')).toBe('v2');
    expect(sdkOfFileName('/p/node_modules/@anthropic-ai/sdk/index.d.ts')).toBeUndefined();
  });

  it('knows the SDK\'s own workspace packages by their names, the shared core among them (the SDK repository\'s examples)', () => {
    const root = mkdtempSync(join(tmpdir(), 'mrtr-workspace-'));
    try {
      for (const [folder, name] of [['server', '@modelcontextprotocol/server'], ['core-internal', '@modelcontextprotocol/core-internal'], ['other', '@acme/other']] as const) {
        mkdirSync(join(root, 'packages', folder, 'src', 'shared'), { recursive: true });
        writeFileSync(join(root, 'packages', folder, 'package.json'), JSON.stringify({ name }));
      }
      // ctx.mcpReq.elicitInput is declared in the core's protocol.ts there.
      expect(sdkOfFileName(join(root, 'packages', 'core-internal', 'src', 'shared', 'protocol.ts'))).toBe('v2');
      expect(sdkOfFileName(join(root, 'packages', 'server', 'src', 'shared', 'mcp.ts'))).toBe('v2');
      expect(sdkOfFileName(join(root, 'packages', 'other', 'src', 'shared', 'index.ts'))).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('look-alike receivers are never sites', () => {
  it('model provider clients and app classes with MCP method names', () => {
    const { typed, untyped } = analyzeBoth([
      V1,
      'declare const anthropic: { messages: { create(p: object): Promise<unknown> } };',
      'class Assistant { async createMessage(p: object) { return p; } async elicitInput(p: object) { return p; } async listRoots() { return []; } }',
      'const assistant = new Assistant();',
      "mcp.registerTool('t', { inputSchema: { q: z.string() } }, async ({ q }, extra) => {",
      '  await anthropic.messages.create({ q });',
      '  await assistant.createMessage({ q });',
      '  await assistant.elicitInput({ q });',
      '  await assistant.listRoots();',
      "  return { content: [{ type: 'text', text: q + extra.requestId }] };",
      '});',
    ].join('\n'));
    expect(found(typed)).toEqual([]);
    expect(found(untyped)).toEqual([]);
    expect(typed.handlers).toHaveLength(1);
  });

  it('a handler-local `server` shadowing the MCP server', () => {
    const { typed, untyped } = analyzeBoth([
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "const server = new McpServer({ name: 't', version: '1' });",
      "server.registerTool('t', {}, async () => {",
      '  const server = { server: { createMessage: async (p: object) => p } };',
      '  await server.server.createMessage({});',
      "  return { content: [] };",
      '});',
    ].join('\n'));
    expect(found(typed)).toEqual([]);
    expect(found(untyped)).toEqual([]);
  });

  it('a non-handler function whose parameter is called `extra` or `ctx`', () => {
    const { typed, untyped } = analyzeBoth([
      'export async function relay(extra: any, ctx: any) {',
      "  await extra.sendRequest({ method: 'elicitation/create', params: {} }, null);",
      "  await ctx.mcpReq.elicitInput({ message: 'x', requestedSchema: {} });",
      '}',
    ].join('\n'));
    expect(found(typed)).toEqual([]);
    expect(found(untyped)).toEqual([]);
  });

  it('a server passed to a parameter typed with an object type written in place (the generated clientCapabilitiesOf)', () => {
    const { typed, untyped } = analyzeBoth([
      "import { McpServer, type ClientCapabilities } from '@modelcontextprotocol/server';",
      "const mcp = new McpServer({ name: 't', version: '1' });",
      'function capabilitiesOf(server: { getClientCapabilities(): ClientCapabilities | undefined }) {',
      '  return server.getClientCapabilities();',
      '}',
      "mcp.registerTool('t', {}, async () => ({ content: [{ type: 'text', text: String(capabilitiesOf(mcp.server)?.elicitation) }] }));",
    ].join('\n'));
    expect(found(typed)).toEqual([]);
    expect(found(untyped)).toEqual([]);
  });

  it('`sendRequest` / `send` for methods that are not questions', () => {
    const { typed, untyped } = analyzeBoth([
      V1,
      "import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';",
      "mcp.registerTool('t', {}, async (extra) => {",
      "  await extra.sendRequest({ method: 'ping' }, EmptyResultSchema);",
      "  return { content: [] };",
      '});',
    ].join('\n'));
    expect(found(typed)).toEqual([]);
    expect(found(untyped)).toEqual([]);
  });
});

describe('SDK receivers are found however they are reached', () => {
  it('through a type annotation alone (both modes) and through a declared factory (checker only)', () => {
    const { typed, untyped } = analyzeBoth([
      "import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      'declare const annotated: McpServer;',
      'declare function makeServer(): McpServer;',
      'const made = makeServer();',
      'export async function probe() {',
      '  await annotated.server.listRoots();',
      '  await made.server.listRoots();',
      '}',
    ].join('\n'));
    expect(found(typed)).toEqual(['6 server.listRoots', '7 server.listRoots']);
    expect(found(untyped)).toEqual(['6 server.listRoots']);
  });

  it('through a namespace import and a factory function returning the construction', () => {
    const { typed, untyped } = analyzeBoth([
      "import * as mcpSdk from '@modelcontextprotocol/sdk/server/mcp.js';",
      "function createServer() { return new mcpSdk.McpServer({ name: 't', version: '1' }); }",
      'const server = createServer();',
      "server.registerTool('t', {}, async () => {",
      '  const { roots } = await server.server.listRoots();',
      "  return { content: [{ type: 'text', text: String(roots.length) }] };",
      '});',
    ].join('\n'));
    expect(found(typed)).toEqual(['5 server.listRoots']);
    expect(found(untyped)).toEqual(['5 server.listRoots']);
    expect(typed.sites[0]!.verdict.kind).toBe('migrate');
  });

  it('through `let server; server = new McpServer()` and CommonJS `require`', () => {
    const untyped = analyzeSnippet([
      "const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');",
      'let server;',
      "server = new McpServer({ name: 't', version: '1' });",
      "server.registerTool('t', {}, async (extra) => {",
      "  const answer = await server.server.createMessage({ messages: [], maxTokens: 1 });",
      "  return { content: [answer.content] };",
      '});',
    ].join('\n'), { typed: false, fileName: '__snippet__.cjs' });
    expect(found(untyped)).toEqual(['5 server.createMessage']);
    expect(untyped.sites[0]!.context.type).toBe('handler');
  });

  it('the v1 `sendRequest` destructured from `extra`, with and without a checker', () => {
    const { typed, untyped } = analyzeBoth([
      V1,
      "import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';",
      "mcp.registerTool('t', {}, async (extra) => {",
      '  const { sendRequest } = extra;',
      "  const answer = await sendRequest({ method: 'elicitation/create', params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } } }, ElicitResultSchema);",
      "  return { content: [{ type: 'text', text: answer.action }] };",
      '});',
    ].join('\n'));
    expect(found(typed)).toEqual(['7 extra.sendRequest']);
    expect(found(untyped)).toEqual(['7 extra.sendRequest']);
    expect(typed.sites[0]!.verdict).toMatchObject({ kind: 'migrate' });
  });

  it('a framework-registered method (NestJS-style, MRTR-039): found by type only, and no request is known to be live', () => {
    const { typed, untyped } = analyzeBoth([
      "import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      'interface ToolContext { mcpServer: McpServer }',
      'declare function Tool(options: { name: string }): (target: object, key: string) => void;',
      'export class GreetingTools {',
      "  @Tool({ name: 'greet' })",
      '  async greet(payload: { name: string }, ctx: ToolContext) {',
      "    const answer = await ctx.mcpServer.server.elicitInput({ message: `Greet ${payload.name}?`, requestedSchema: { type: 'object', properties: {} } });",
      "    return { content: [{ type: 'text', text: answer.action }] };",
      '  }',
      '}',
    ].join('\n'));
    expect(found(typed)).toEqual(['7 server.elicitInput']);
    expect(typed.sites[0]!.verdict).toMatchObject({ kind: 'refuse', reason: 'caller-not-found' });
    expect(found(untyped)).toEqual([]);
  });

  it('a handler\'s context parameter typed in place: the SDK passes its own context whatever the type says', () => {
    const { typed, untyped } = analyzeBoth([
      "import { McpServer } from '@modelcontextprotocol/server';",
      "const mcp = new McpServer({ name: 't', version: '1' });",
      "mcp.registerTool('t', {}, async (ctx: { mcpReq: { elicitInput(p: object): Promise<{ action: string }> } }) => {",
      "  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'ok?', requestedSchema: { type: 'object', properties: {} } });",
      "  return { content: [{ type: 'text', text: answer.action }] };",
      '});',
    ].join('\n'));
    expect(found(typed)).toEqual(['4 ctx.mcpReq.elicitInput']);
    expect(found(untyped)).toEqual(['4 ctx.mcpReq.elicitInput']);
  });

  it("the v2 context's members through a parameter typed in place with the SDK's member types", () => {
    const { typed, untyped } = analyzeBoth([
      "import type { ServerContext } from '@modelcontextprotocol/server';",
      "export async function ask(ctx: { mcpReq: ServerContext['mcpReq'] }) {",
      "  return ctx.mcpReq.requestSampling({ messages: [], maxTokens: 1 });",
      '}',
    ].join('\n'));
    expect(found(typed)).toEqual(['3 ctx.mcpReq.requestSampling']);
    expect(found(untyped)).toEqual(['3 ctx.mcpReq.requestSampling']);
  });

  it('the v2 context through a typed helper parameter', () => {
    const { typed, untyped } = analyzeBoth([
      "import type { ServerContext } from '@modelcontextprotocol/server';",
      'export async function ask(ctx: ServerContext) {',
      "  return ctx.mcpReq.requestSampling({ messages: [], maxTokens: 1 });",
      '}',
    ].join('\n'));
    expect(found(typed)).toEqual(['3 ctx.mcpReq.requestSampling']);
    expect(found(untyped)).toEqual(['3 ctx.mcpReq.requestSampling']);
    // Exported, but called from nowhere this file shows.
    expect(typed.sites[0]!.context).toMatchObject({ type: 'no-request', why: 'caller-not-found' });
  });
});
