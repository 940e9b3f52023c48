import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPipeline } from './pipeline.js';

/** Handler shapes found in real servers that the runnable fixtures do not show. */

const file = join(import.meta.dirname, '../../fixtures/__shape_snippet__.ts');
const CONFIRM = "{ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }";

describe('a declared handler result type', () => {
  it('gains InputRequiredResult, so the handler may return inputRequired(...), and type-checks', () => {
    const result = runPipeline(file, [
      "import { McpServer, type CallToolResult } from '@modelcontextprotocol/server';",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.registerTool('go', {}, async function (ctx): Promise<CallToolResult> {",
      `  const answer = await ctx.mcpReq.elicitInput(${CONFIRM});`,
      "  return { content: [{ type: 'text', text: answer.action }] };",
      '});',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain('async function (ctx): Promise<CallToolResult | InputRequiredResult> {');
    expect(result.text).toMatch(/^import \{[^}]*type InputRequiredResult[^}]*\} from '@modelcontextprotocol\/server';/);
  });
});

describe('a server built in another file', () => {
  it('is refused (server-not-found) with the file that constructs it, and nothing is edited', () => {
    const input = [
      "import { McpServer } from '@modelcontextprotocol/server';",
      'export function registerTools(server: McpServer): void {',
      "  server.registerTool('go', {}, async (ctx) => {",
      `    const answer = await ctx.mcpReq.elicitInput(${CONFIRM});`,
      "    return { content: [{ type: 'text', text: answer.action }] };",
      '  });',
      '}',
    ].join('\n');
    const result = runPipeline(file, input, process.cwd(), {
      'main.ts': [
        "import { McpServer } from '@modelcontextprotocol/server';",
        "import { registerTools } from './__shape_snippet__.js';",
        "registerTools(new McpServer({ name: 'n', version: '1' }));",
      ].join('\n'),
    });
    expect(result.sites.map(s => [s.status, s.reason])).toEqual([['refused', 'server-not-found']]);
    expect(result.sites[0]!.hint).toMatch(/constructed in another file \(main\.ts:3\)/);
    // Only the marker is added: the other file's construction is not touched through this one.
    expect(result.text.split('\n').filter(line => !line.includes('// mrtr-migrate:')).join('\n')).toBe(input);
  });
});

describe('a carried local read only through a spread', () => {
  it('is restored in the branch that spreads it (seen in the SDK form-elicitation example)', () => {
    const ask = (message: string) => `await ctx.mcpReq.elicitInput({ mode: 'form', message: '${message}', requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } })`;
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.registerTool('event', {}, async (ctx) => {",
      `  const basics = ${ask('Basics?')};`,
      "  if (basics.action !== 'accept' || !basics.content) return { content: [] };",
      `  const when = ${ask('When?')};`,
      "  return { content: [{ type: 'text', text: JSON.stringify({ ...basics.content, ...when.content }) }] };",
      '});',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated', 'migrated']);
    expect(result.typeErrors).toEqual([]);
    // The last round restores `basics` before reading its own answer.
    expect(result.text).toMatch(/const \{ basics \} = state;\s*const whenRequest = inputRequired\.elicit\([^\n]*\);\s*const whenResponse = elicitAnswerOf\(ctx\.mcpReq\.inputResponses, 'when', whenRequest\);/);
  });
});

describe('a local hoisted above a skipped prefix and again inside it', () => {
  it('is declared once, so every round assigns the binding the code after the questions reads (found by the property test)', () => {
    const ask = (name: string) => `const ${name} = await ctx.mcpReq.elicitInput({ mode: 'form', message: \`${name} \${total}?\`, requestedSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } });`;
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import * as z from 'zod/v4';",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.registerTool('sum', { inputSchema: z.object({ x: z.number() }) }, async ({ x }, ctx) => {",
      '  let total = x;',
      '  try {',
      `    ${ask('a')}`,
      '    total += Number(a.content?.n ?? 0);',
      '  } catch {',
      '    total -= 1;',
      '  }',
      '  try {',
      '    if (total % 2 === 0) {',
      `      ${ask('b')}`,
      '      total += Number(b.content?.n ?? 0);',
      '    } else {',
      `      ${ask('c')}`,
      '      total -= Number(c.content?.n ?? 0);',
      '    }',
      '  } catch {',
      '    total -= 1;',
      '  }',
      '  for (let i = 0; i < 2; i++) {',
      `    ${ask('d')}`,
      '    total *= Number(d.content?.n ?? 1);',
      '  }',
      "  return { content: [{ type: 'text', text: String(total) }] };",
      '});',
    ].join('\n'));
    expect(result.sites.map(s => s.status).filter(s => s === 'refused')).toEqual([]);
    expect(result.typeErrors).toEqual([]);
    expect(result.text.match(/let total\b/g)).toHaveLength(1);
  });
});

describe('an asking helper called on a receiver', () => {
  const confirmer = (call: string): string => [
    "import { McpServer, type ServerContext } from '@modelcontextprotocol/server';",
    "export const server = new McpServer({ name: 'n', version: '1' });",
    'class Confirmer {',
    '  async confirm(ctx: ServerContext): Promise<boolean> {',
    `    const answer = await ctx.mcpReq.elicitInput(${CONFIRM});`,
    "    return answer.action === 'accept';",
    '  }',
    '}',
    'export class Tools {',
    '  readonly confirmer = new Confirmer();',
    '  register(): void {',
    "    server.registerTool('t', {}, async (ctx) => {",
    `      const ok = await ${call};`,
    "      return { content: [{ type: 'text', text: String(ok) }] };",
    '    });',
    '  }',
    '}',
  ].join('\n');

  it('is split when the receiver is a chain of properties of `this`, and its parts are called on it', () => {
    const result = runPipeline(file, confirmer('this.confirmer.confirm(ctx)'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain('this.confirmer.confirmRequest()');
    expect(result.text).toContain('this.confirmer.confirmResult(elicitResultOf(');
  });

  it('stays whole, with the reason, when the receiver is read with `?.` or is a new object', () => {
    for (const [call, reason] of [['this.confirmer?.confirm(ctx)', /called with `\?\.`/], ['new Confirmer().confirm(ctx)', /called through `new Confirmer\(\)\.confirm`/]] as const) {
      const result = runPipeline(file, confirmer(call));
      expect(result.sites.map(s => s.status), call).toEqual(['refused']);
      expect(result.sites[0]!.hint, call).toMatch(reason);
    }
  });
});

describe('a sampling answer', () => {
  const asking = (params: string, read: string) => runPipeline(file, [
    "import { McpServer } from '@modelcontextprotocol/server';",
    "export const server = new McpServer({ name: 'n', version: '1' });",
    "server.registerTool('go', {}, async () => {",
    `  const reply = await server.server.createMessage(${params});`,
    `  return { content: [{ type: 'text', text: ${read} }] };`,
    '});',
  ].join('\n'));
  const MESSAGES = "messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5";

  it('is typed as the variant the push call\'s overload promised: without tools a single content block, with tools the tool-use result', () => {
    const plain = asking(`{ ${MESSAGES} }`, "reply.content.type === 'text' ? reply.content.text : ''");
    expect(plain.sites.map(s => s.status)).toEqual(['migrated']);
    expect(plain.text).toContain('const reply = replyResponse.result as CreateMessageResult;');
    expect(plain.typeErrors).toEqual([]);

    const tools = asking(`{ ${MESSAGES}, tools: [{ name: 'lookup', inputSchema: { type: 'object' } }] }`,
      "Array.isArray(reply.content) ? String(reply.content.length) : reply.content.type");
    expect(tools.sites.map(s => s.status)).toEqual(['migrated']);
    expect(tools.text).toContain('const reply = replyResponse.result as CreateMessageResultWithTools;');
    expect(tools.typeErrors).toEqual([]);
  });
});

describe('a module that loads modules with top-level await', () => {
  const handler = [
    "server.registerTool('go', {}, async (ctx) => {",
    `  const answer = await ctx.mcpReq.elicitInput(${CONFIRM});`,
    "  return { content: [{ type: 'text', text: answer.action }] };",
    '});',
  ];

  it('gets the codec after its imports, before the server that reads it, not after a later import()', () => {
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      ...handler,
      "const { readFileSync } = await import('node:fs');",
      'export const size = readFileSync.length;',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    // Placed after the import() the server would read the codec before its declaration ran (TS2448).
    expect(result.typeErrors).toEqual([]);
    const text = result.text;
    expect(text.indexOf('const requestStateCodec = {')).toBeLessThan(text.indexOf('export const server = new McpServer('));
    expect(text.indexOf("const { readFileSync } = await import('node:fs');")).toBeGreaterThan(text.indexOf('export const server = new McpServer('));
  });

  it('that binds the SDK with await import(): the values join it, the types come with an import type', () => {
    const result = runPipeline(file, [
      "import { readFileSync } from 'node:fs';",
      "const { McpServer } = await import('@modelcontextprotocol/server');",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      ...handler,
      'export const size = readFileSync.length;',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toMatch(/^const \{ McpServer, [^}]*ProtocolError[^}]*inputRequired[^}]*\} = await import\('@modelcontextprotocol\/server'\);$/m);
    expect(result.text).toContain("import { readFileSync } from 'node:fs';\nimport type { ElicitResult, InputRequest, InputResponseView, ServerContext } from '@modelcontextprotocol/server';\n");
    // The SDK is still loaded where the module loaded it: the type import is erased.
    expect(result.text).not.toMatch(/^import \{[^}]*\} from '@modelcontextprotocol\/server'/m);
  });
});

describe('a handler behind a wrapper', () => {
  const TOOL = (wrapped: string) => [
    'export function createServer() {',
    "  const server = new McpServer({ name: 'n', version: '1' });",
    `  server.registerTool('go', {}, ${wrapped}(async () => {`,
    `    const answer = await server.server.elicitInput(${CONFIRM});`,
    '    return answer.action;',
    '  }));',
    '  return server;',
    '}',
  ];

  it('written on one line keeps it, and JavaScript gets no types', () => {
    const result = runPipeline(join(import.meta.dirname, '../../fixtures/__shape_snippet__.mjs'), [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "function withErrors(fn) { return async (args) => { try { return { content: [{ type: 'text', text: await fn(args) }] }; } catch (e) { return { isError: true, content: [] }; } }; }",
      ...TOOL('withErrors'),
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain("function withErrors(fn) { return async (args) => { try { const result = await fn(args); if (isInputRequiredResult(result)) return result; return { content: [{ type: 'text', text: result }] }; } catch (e) { return { isError: true, content: [] }; } }; }");
    expect(result.text).toContain("server.registerTool('go', {}, withErrors(async (ctx) => {");
  });

  it('that returns the handler\'s result as it is only passes the context on', () => {
    const result = runPipeline(file, [
      "import { McpServer, type CallToolResult } from '@modelcontextprotocol/server';",
      'function logged<A>(fn: (args: A) => Promise<CallToolResult>) {',
      '  return async (args: A) => {',
      "    const label = ['call', 'of', 'go'].join(' ');",
      '    return await fn(args);',
      '  };',
      '}',
      ...TOOL('logged').map(l => l.replace('return answer.action;', "return { content: [{ type: 'text', text: answer.action }] };")),
    ].join('\n'));
    expect(result.sites.map(s => [s.status, s.hint])).toEqual([['migrated', undefined]]);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain('function logged<A>(fn: (args: A) => Promise<CallToolResult | InputRequiredResult>) {');
    expect(result.text).toContain('    return await fn(args);');
    expect(result.text).not.toContain('isInputRequiredResult');
  });

  it('whose types are written out keeps type-checking: a typed const, a declared result, a trailing comma', () => {
    const result = runPipeline(file, [
      "import { McpServer, type CallToolResult } from '@modelcontextprotocol/server';",
      "import * as z from 'zod/v4';",
      'function shaped(fn: (args: { id: string },) => Promise<string>) {',
      '  return async (args: { id: string }): Promise<CallToolResult> => {',
      '    const text: string = await fn(args);',
      "    return { content: [{ type: 'text', text }] };",
      '  };',
      '}',
      'export function createServer() {',
      "  const server = new McpServer({ name: 'n', version: '1' });",
      "  server.registerTool('go', { inputSchema: z.object({ id: z.string() }) }, shaped(async ({ id }) => {",
      `    const answer = await server.server.elicitInput(${CONFIRM});`,
      '    return `${id}: ${answer.action}`;',
      '  }));',
      '  return server;',
      '}',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain('function shaped(fn: (args: { id: string }, ctx: ServerContext,) => Promise<string | InputRequiredResult>) {');
    expect(result.text).toContain('  return async (args: { id: string }, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {');
    expect(result.text).toContain([
      '    const result = await fn(args, ctx);',
      '    if (isInputRequiredResult(result)) return result;',
      '    const text: string = result;',
    ].join('\n'));
  });

  it('as one expression with a multi-line template keeps the template\'s lines', () => {
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/server';",
      'const shaped = (fn: () => Promise<string>) => async () => ({',
      "  content: [{ type: 'text' as const, text: `Result:",
      '${await fn()}',
      '  (done)` }],',
      '});',
      'export function createServer() {',
      "  const server = new McpServer({ name: 'n', version: '1' });",
      "  server.registerTool('go', {}, shaped(async () => {",
      `    const answer = await server.server.elicitInput(${CONFIRM});`,
      '    return answer.action;',
      '  }));',
      '  return server;',
      '}',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain("    content: [{ type: 'text' as const, text: `Result:\n${result}\n  (done)` }],");
  });

  it('with arguments, gets the context after them, in the call and in its parameter\'s type', () => {
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import * as z from 'zod/v4';",
      'const shaped = (fn: (args: { id: string }) => Promise<string>) => async (args: { id: string }) => ({ content: [{ type: \'text\' as const, text: await fn(args) }] });',
      'export function createServer() {',
      "  const server = new McpServer({ name: 'n', version: '1' });",
      "  server.registerTool('go', { inputSchema: z.object({ id: z.string() }) }, shaped(async ({ id }) => {",
      `    const answer = await server.server.elicitInput(${CONFIRM});`,
      '    return `${id}: ${answer.action}`;',
      '  }));',
      '  return server;',
      '}',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain([
      'const shaped = (fn: (args: { id: string }, ctx: ServerContext) => Promise<string | InputRequiredResult>) => async (args: { id: string }, ctx: ServerContext) => {',
      '  const result = await fn(args, ctx);',
      '  if (isInputRequiredResult(result)) return result;',
      "  return { content: [{ type: 'text' as const, text: result }] };",
      '};',
    ].join('\n'));
    expect(result.text).toContain("shaped(async ({ id }, ctx: ServerContext) => {");
  });
});

describe('a v1 type read off the handler context', () => {
  it('names the v2 member the official stage maps the value to, and the stage\'s doubt about it is dropped', () => {
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';",
      "import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';",
      "type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;",
      "type Signal = Extra['signal'];",
      "type Notify = RequestHandlerExtra<ServerRequest, ServerNotification>[\"sendNotification\"];",
      'export function watch(signal: Signal, notify: Notify): boolean { void notify; return signal.aborted; }',
      "export const server = new McpServer({ name: 'n', version: '1' });",
    ].join('\n'));
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain("type Signal = Extra['mcpReq']['signal'];");
    expect(result.text).toContain('type Notify = ServerContext["mcpReq"]["notify"];');
    expect(result.text).not.toContain('mentions a context type');
  });
});

describe('a server built from a subclass of the SDK class', () => {
  it('is served on the 2026-07-28 era too: its stdio connect becomes serveStdio', () => {
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';",
      'class AppServer extends McpServer {}',
      "const server = new AppServer({ name: 'n', version: '1' });",
      "server.registerTool('go', {}, async (ctx) => {",
      `  const answer = await ctx.mcpReq.elicitInput(${CONFIRM});`,
      "  return { content: [{ type: 'text', text: answer.action }] };",
      '});',
      'await server.connect(new StdioServerTransport());',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain('serveStdio(() => server');
  });
});

describe('a v1 registration named by a constant', () => {
  it('is upgraded like one named by a literal (the official stage leaves server.tool(NAME, ...), which v2 lacks), and its question migrates', () => {
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { z } from 'zod';",
      "const NAME = 'greet';",
      "const TOOLS = { ask: 'ask_user' } as const;",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.tool(NAME, 'Greets', { who: z.string() }, async ({ who }) => ({ content: [{ type: 'text', text: who }] }));",
      'server.tool(TOOLS.ask, { q: z.string() }, async ({ q }) => {',
      "  const a = await server.server.elicitInput({ message: q, requestedSchema: { type: 'object', properties: {} } });",
      "  return { content: [{ type: 'text', text: a.action }] };",
      '});',
      'server.prompt(NAME, async () => ({ messages: [] }));',
    ].join('\n'));
    expect(result.typeErrors).toEqual([]);
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.text).toContain("server.registerTool(NAME, { description: 'Greets', inputSchema: z.object({ who: z.string() }) }, async ({ who }) =>");
    expect(result.text).toContain('server.registerTool(TOOLS.ask, { inputSchema: z.object({ q: z.string() }) }, async ({ q }, ctx) => {');
    expect(result.text).toContain('server.registerPrompt(NAME, {}, async () =>');
    expect(result.text).not.toContain('__mrtr_migrate_name_');
    expect(result.text).not.toContain('@mcp-codemod-error');
  });
});

describe('v1 registrations the official stage misreads or leaves (src/project/stageRepairs.ts)', () => {
  const V1 = ["import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';", "import { z } from 'zod';", "export const server = new McpServer({ name: 'n', version: '1' });"];

  it('a description held in a value stays the description, and a raw shape held in a value is wrapped in z.object', () => {
    const result = runPipeline(file, [
      ...V1,
      'const about = { name: "echo", text: "Echoes" };',
      'const shape = { who: z.string() };',
      'const Schema = z.object({ who: z.string() });',
      "server.tool(about.name, about.text, shape, async ({ who }) => ({ content: [{ type: 'text', text: who }] }));",
      // Four arguments whose second is a shape: the stage's own reading (shape, annotations) is right.
      "server.tool('shout', shape, { readOnlyHint: true }, async ({ who }) => ({ content: [{ type: 'text', text: who }] }));",
      "server.tool('typed', 'Typed', Schema.shape, async ({ who }) => ({ content: [{ type: 'text', text: who }] }));",
    ].join('\n'));
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain("server.registerTool(about.name, { description: about.text, inputSchema: z.object(shape) }, async ({ who }) =>");
    expect(result.text).toContain("server.registerTool('shout', { inputSchema: z.object(shape), annotations: { readOnlyHint: true } }, async ({ who }) =>");
    expect(result.text).toContain("server.registerTool('typed', { description: 'Typed', inputSchema: z.object(Schema.shape) }, async ({ who }) =>");
    // The stage's doubt ("Could not verify the schema argument") is settled by the checker: no marker left.
    expect(result.text).not.toContain('@mcp-codemod-error');
    expect(result.text).not.toContain('__mrtr_migrate_');
  });

  it('a local registrar called twice is upgraded once (it held its name twice: overlapping edits), its description written as a shorthand', () => {
    const result = runPipeline(file, [
      ...V1,
      'const command = (name: string, description: string, shape: z.ZodRawShape) =>',
      "  server.tool(name, description, shape, { destructiveHint: true }, async () => ({ content: [{ type: 'text', text: name }] }));",
      "command('stop', 'Stops', { id: z.string() });",
      "command('start', 'Starts', { id: z.string() });",
    ].join('\n'));
    expect(result.typeErrors).toEqual([]);
    expect(result.diagnostics.filter(d => d.code === 'sdk-upgrade/transform-failed')).toEqual([]);
    expect(result.text).toContain('  server.registerTool(name, { description, inputSchema: z.object(shape), annotations: { destructiveHint: true } }, async () =>');
  });

  it('a schema held in a value stays as it is, its doubt settled; without a zod import a raw shape keeps the marker', () => {
    const schema = runPipeline(file, [...V1, 'const Input = z.object({ who: z.string() });', "server.tool('greet', 'Greets', Input.shape, async ({ who }) => ({ content: [{ type: 'text', text: who }] }));", "server.registerTool('hi', { inputSchema: Input }, async ({ who }) => ({ content: [{ type: 'text', text: who }] }));"].join('\n'));
    expect(schema.text).toContain("server.registerTool('hi', { inputSchema: Input }, async ({ who }) =>");
    const noZod = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { shape } from './shapes.js';",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.tool('greet', 'Greets', shape, async () => ({ content: [{ type: 'text', text: 'hi' }] }));",
    ].join('\n'), process.cwd(), { 'shapes.ts': "import { z } from 'zod';\nexport const shape = { who: z.string() };\n" });
    expect(noZod.text).toContain("server.registerTool('greet', { description: 'Greets', inputSchema: shape }, async () =>");
    expect(noZod.text).toContain('@mcp-codemod-error Could not verify the schema argument is a schema object.');
  });

  it('a tool() bound to its server is called through the server, where every use of the alias is a call', () => {
    const result = runPipeline(file, [
      ...V1,
      '// Short calls for the tools below.',
      'const tool = server.tool.bind(server);',
      "tool('a', 'A', { x: z.string() }, async ({ x }) => ({ content: [{ type: 'text', text: x }] }));",
      'export class Tools {',
      '  constructor(private readonly mcp: McpServer) {}',
      '  add(name: string, text: string): void {',
      '    const register = (this.mcp.tool.bind(this.mcp)) as (...args: unknown[]) => unknown;',
      "    register(name, text, async () => ({ content: [{ type: 'text', text } as const] }));",
      '  }',
      '  keep(): unknown {',
      '    // Handed on as a value: not a call, so it stays (and v2 has no tool()).',
      '    const bound = this.mcp.tool.bind(this.mcp);',
      '    return [bound];',
      '  }',
      '}',
    ].join('\n'));
    expect(result.text).toContain("// Short calls for the tools below.\nserver.registerTool('a', { description: 'A', inputSchema: z.object({ x: z.string() }) }, async ({ x }) =>");
    expect(result.text).toContain("    this.mcp.registerTool(name, { description: text }, async () =>");
    expect(result.text).not.toContain('const tool =');
    expect(result.text).not.toContain('const register =');
    expect(result.text).toContain('const bound = this.mcp.tool.bind(this.mcp);');
  });

  const EXTRA = [
    "import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';",
    "import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';",
  ];

  it('a helper typed with a Pick of the context picks the same members where v2 keeps them, and reads them there', () => {
    const result = runPipeline(file, [
      ...V1,
      ...EXTRA,
      '/** What a progress report needs from a handler\'s extra. */',
      "type ProgressExtra = Pick<RequestHandlerExtra<ServerRequest, ServerNotification>, 'sendNotification' | '_meta' | 'signal' | 'sessionId'>;",
      'async function progress(extra: ProgressExtra, done: number): Promise<void> {',
      '  const token = extra._meta?.progressToken;',
      '  if (token === undefined || extra.signal.aborted) return;',
      "  await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done, message: extra.sessionId } });",
      '}',
      "function cancelled(extra?: Partial<Pick<RequestHandlerExtra<ServerRequest, ServerNotification>, 'signal' | 'requestId'>>): string {",
      '  return `${String(extra?.requestId)}: ${extra?.signal?.aborted === true}`;',
      '}',
      'async function whole(extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Promise<string> {',
      '  return String(extra.requestId);',
      '}',
      "server.tool('t', { x: z.string() }, async ({ x }, extra) => {",
      '  await progress(extra, 1);',
      "  return { content: [{ type: 'text', text: x + cancelled(extra) + (await whole(extra)) }] };",
      '});',
    ].join('\n'));
    expect(result.text).toContain("/** What a progress report needs from a handler's extra. */\ntype ProgressExtra = { mcpReq: Pick<ServerContext['mcpReq'], 'notify' | '_meta' | 'signal'> } & Pick<ServerContext, 'sessionId'>;\n");
    expect(result.text).toContain('  const token = extra.mcpReq._meta?.progressToken;\n  if (token === undefined || extra.mcpReq.signal.aborted) return;\n  await extra.mcpReq.notify({');
    expect(result.text).toContain('message: extra.sessionId } });');
    expect(result.text).toContain("function cancelled(extra?: { mcpReq?: Partial<Pick<ServerContext['mcpReq'], 'signal' | 'id'>> }): string {\n  return `${String(extra?.mcpReq?.id)}: ${extra?.mcpReq?.signal?.aborted === true}`;");
    // Each helper takes a v2 context now: the stage's doubts about handing it on are settled.
    expect(result.text).not.toContain('@mcp-codemod-error');
    expect(result.typeErrors).toEqual([]);
  });

  it('a Pick of the context read otherwise than extra.key stays as the stage left it, with its doubt', () => {
    const result = runPipeline(file, [
      ...V1,
      ...EXTRA,
      "type Extra = Pick<RequestHandlerExtra<ServerRequest, ServerNotification>, 'signal'>;",
      'function stopped(extra: Extra): boolean {',
      '  const { signal } = extra;',
      '  return signal.aborted;',
      '}',
      "server.tool('t', { x: z.string() }, async ({ x }, extra) => ({ content: [{ type: 'text', text: x + stopped(extra) }] }));",
    ].join('\n'));
    expect(result.text).toContain("type Extra = Pick<ServerContext, 'signal'>;");
    expect(result.text).toContain("@mcp-codemod-error Parameter annotation 'Extra' mentions a context type in a shape the codemod cannot remap");
    expect(result.typeErrors.join('\n')).toContain('does not satisfy the constraint');
  });

  /** A patch of tool() that wraps every handler, as public servers patch it to log, count or catch. */
  const patched = (wrapper: string) => [
    ...V1,
    'export const failures: string[] = [];',
    '// Catch what any tool throws, without touching the handlers.',
    'const originalTool = server.tool.bind(server);',
    '(server as any).tool = (name: string, ...rest: any[]) => {',
    '  const handler = rest[rest.length - 1];',
    `  rest[rest.length - 1] = ${wrapper};`,
    '  return (originalTool as any)(name, ...rest);',
    '};',
    "server.tool('drop', 'Drops a table after asking', { table: z.string() }, async ({ table }) => {",
    `  const answer = await server.server.elicitInput(${CONFIRM.replace("mode: 'form', ", '')});`,
    "  return { content: [{ type: 'text', text: `${table}: ${answer.action}` }] };",
    '});',
  ];
  const forwarding = 'async (...handlerArgs: any[]) => { try { return await handler(...handlerArgs); } catch (error) { failures.push(name); throw error; } }';

  it('a patch of tool() that forwards what it is given patches registerTool, which the registrations now call', () => {
    const result = runPipeline(file, patched(forwarding).join('\n'));
    expect(result.text).toContain('// Catch what any tool throws, without touching the handlers.\nconst originalTool = server.registerTool.bind(server);\n(server as any).registerTool = (name: string, ...rest: any[]) => {');
    expect(result.text).toContain('  return (originalTool as any)(name, ...rest);');
    expect(result.text).toContain("server.registerTool('drop', { description: 'Drops a table after asking', inputSchema: z.object({ table: z.string() }) }, async ({ table }, ctx) => {");
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
  });

  it('a patch that would drop the v2 context, read the arguments by position, or miss registerTool calls stays as it is, and the bound original is not inlined', () => {
    const dropsContext = runPipeline(file, patched('async (args: any) => handler(args)').join('\n'));
    const positional = runPipeline(file, [
      ...V1,
      'const originalTool = server.tool.bind(server);',
      '(server as any).tool = (name: string, description: string, schema: any, handler: any) => originalTool(name, description, schema, async (args: any) => handler(args));',
      "server.tool('t', 'T', { x: z.string() }, async ({ x }) => ({ content: [{ type: 'text', text: x }] }));",
    ].join('\n'));
    const direct = runPipeline(file, patched(forwarding).join('\n'), process.cwd(), {
      'more.ts': "import { server } from './__shape_snippet__.js';\nserver.registerTool('more', {}, async () => ({ content: [] }));\n",
    });
    for (const result of [dropsContext, positional, direct]) {
      // Calls through the server would reach the patch itself: the original stays bound, and v2 has no tool().
      expect(result.text).toContain('const originalTool = server.tool.bind(server);');
      expect(result.text).not.toContain('.registerTool = ');
      expect(result.typeErrors.join('\n')).toContain("Property 'tool' does not exist on type 'McpServer'");
    }
  });
});

describe('a guard after a record looked up again on resume', () => {
  const shop = (guards: string[]) => [
    "import { McpServer } from '@modelcontextprotocol/server';",
    "import * as z from 'zod/v4';",
    'const carts = new Map<string, { items: string[]; paid: boolean }>();',
    "export const server = new McpServer({ name: 'n', version: '1' });",
    "server.registerTool('pay', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {",
    '  const cart = carts.get(id);',
    ...guards,
    `  const answer = await ctx.mcpReq.elicitInput(${CONFIRM});`,
    "  if (answer.action === 'accept') cart.paid = true;",
    "  return { content: [{ type: 'text', text: cart.items.join() }] };",
    '});',
  ].join('\n');

  it('runs again in every round when it only returns or throws, so the record is narrowed on resume too', () => {
    const result = runPipeline(file, shop([
      "  if (!cart) return { isError: true, content: [{ type: 'text', text: `no cart ${id}` }] };",
      "  if (cart.paid) throw new Error('paid already');",
    ]));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    const lines = result.text.split('\n');
    const firstRound = lines.findIndex(l => l.includes('if (state === undefined)'));
    expect(lines.findIndex(l => l.includes('const cart = carts.get(id);'))).toBeLessThan(firstRound);
    expect(lines.findIndex(l => l.includes('if (!cart) return'))).toBeLessThan(firstRound);
    expect(lines.findIndex(l => l.includes("if (cart.paid) throw new Error('paid already');"))).toBeLessThan(firstRound);
  });

  it('runs again with logging lines before the exit, and after the lookup where the lookup is written again on resume', () => {
    const result = runPipeline(file, shop([
      "  if (!cart) { console.warn('no cart', id); return { content: [] }; }",
    ]).replace('  const cart = carts.get(id);', "  console.log('pay', id);\n  const cart = carts.get(id);"));
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    // Once where the first round reads it, once where the resumed round looks the cart up again.
    expect(result.text.split('\n').filter(l => l.includes("if (!cart) { console.warn('no cart', id); return { content: [] }; }"))).toHaveLength(2);
  });

  it('is refused (shared-state-mutated) when a guard of the lookup does more than log and leave, so the lookup cannot run again', () => {
    const result = runPipeline(file, shop([
      '  if (!cart) { carts.delete(id); return { content: [] }; }',
    ]));
    expect(result.sites.map(s => [s.status, s.reason])).toEqual([['refused', 'shared-state-mutated']]);
    expect(result.sites[0]!.hint).toContain('Its lookup cannot run again on resume because the check after it (line 7) does more than return or throw.');
  });
});

describe('an asking helper whose parameters are not plain names', () => {
  const run = (helper: string[], call: string) => runPipeline(file, [
    "import { McpServer, type ServerContext } from '@modelcontextprotocol/server';",
    "import * as z from 'zod/v4';",
    "export const server = new McpServer({ name: 'n', version: '1' });",
    ...helper,
    "server.registerTool('go', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {",
    `  const text = await ${call};`,
    "  return { content: [{ type: 'text', text }] };",
    '});',
  ].join('\n'));
  const ask = "const r = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Sure?', requestedSchema: { type: 'object', properties: {} } });";

  it('is split with a rest parameter: each part that reads it takes every argument from its position on', () => {
    const result = run([
      'async function pick(ctx: ServerContext, first: string, ...others: string[]): Promise<string> {',
      `  ${ask}`,
      "  return r.action + first + others.join(',');",
      '}',
    ], "pick(ctx, id, 'b', 'c')");
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain('function pickResult(r: ElicitResult, first: string, ...others: string[]): string {');
    expect(result.text).toContain("const text = pickResult(elicitResultOf(textResponse), id, 'b', 'c');");
  });

  it('keeps the earlier parameter a kept default reads, and a destructured one as written', () => {
    const result = run([
      'async function tag(ctx: ServerContext, { id, title }: { id: string; title?: string }, label = title ?? id): Promise<string> {',
      `  ${ask}`,
      '  return r.action + label;',
      '}',
    ], 'tag(ctx, { id })');
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain('function tagResult(r: ElicitResult, { id, title }: { id: string; title?: string }, label = title ?? id): string {');
    expect(result.text).toContain('const text = tagResult(elicitResultOf(textResponse), { id }, undefined);');
  });

  it('is refused when a default the result part reads would give another value on resume', () => {
    const result = run([
      'async function stamp(ctx: ServerContext, at = Date.now()): Promise<string> {',
      `  ${ask}`,
      '  return r.action + at;',
      '}',
    ], 'stamp(ctx)');
    expect(result.sites.map(s => [s.status, s.reason])).toEqual([['refused', 'unsupported-construct']]);
    expect(result.sites[0]!.hint).toMatch(/^helper stamp\(\)'s parameter `at` defaults to `Date\.now\(\)`, which would be evaluated again when the answer comes back; pass it from the callers/);
  });
});

describe('a file that declares a name the rewrite imports from the SDK', () => {
  const tool = (extra: string[], local = '', text = 'answer.action') => runPipeline(file, [
    "import { McpServer } from '@modelcontextprotocol/server';",
    ...extra,
    "export const server = new McpServer({ name: 'n', version: '1' });",
    "server.registerTool('go', {}, async (ctx) => {",
    local,
    `  const answer = await ctx.mcpReq.elicitInput(${CONFIRM});`,
    `  return { content: [{ type: 'text', text: ${text} }] };`,
    '});',
  ].join('\n'), undefined, { 'schemas.ts': "export const inputRequired = ['name'];\nexport const ServerContext = 'ctx';\n" });
  const ownLines = (text: string, lines: string[]): void => {
    for (const line of lines) expect(text.split('\n')).toContain(line);
  };

  it('imports the SDK\'s under an alias and keeps every line of its own as written', () => {
    for (const [extra, local, alias, own] of [
      [['interface ElicitResult { ok: boolean }', 'export const checked: ElicitResult = { ok: true };'], '', 'ElicitResult as SdkElicitResult', ['interface ElicitResult { ok: boolean }', 'export const checked: ElicitResult = { ok: true };']],
      [["import { inputRequired } from './schemas.js';", 'export const needed = inputRequired;'], '', 'inputRequired as sdkInputRequired', ["import { inputRequired } from './schemas.js';"]],
      [[], "  const inputRequired = ['name'];", 'inputRequired as sdkInputRequired', ["    const inputRequired = ['name'];", '  const { inputRequired } = state;']],
    ] as const) {
      const result = tool([...extra], local, local ? "answer.action + inputRequired.join(',')" : 'answer.action');
      expect(result.sites.map(s => s.status)).toEqual(['migrated']);
      expect(result.typeErrors).toEqual([]);
      expect(result.text).toMatch(new RegExp(`import \\{[^}]*\\b${alias.replace(/ /g, '\\s+')}\\b[^}]*\\} from '@modelcontextprotocol/server';`));
      ownLines(result.text, [...own]);
      expect(result.text).not.toMatch(/ElicitResul\$|inputRequire\$/);
    }
  });

  it('aliases in a handler the rewrite lowers first (a question in a loop)', () => {
    const input = readFileSync(join(import.meta.dirname, '../../fixtures/v2-loop-until-valid/input.ts'), 'utf8');
    const own = 'type ElicitResult = { accepted: boolean };\nexport const lastResult: ElicitResult = { accepted: false };\n';
    const result = runPipeline(file, input.replace("import * as z from 'zod/v4';\n", `import * as z from 'zod/v4';\n${own}`));
    expect(result.sites.every(s => s.status.startsWith('migrated'))).toBe(true);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain(own);
    expect(result.text).toMatch(/type ElicitResult as SdkElicitResult/);
    expect(result.text).not.toMatch(/ElicitResul\$/);
  });

  it('keeps shorthand properties, destructuring and exports of its own name as they were', () => {
    const result = tool([
      "import { ServerContext } from './schemas.js';",
      'const holder = { ServerContext };',
      'const { ServerContext: again } = holder;',
      'function take({ ServerContext }: { ServerContext: string }): string { return ServerContext; }',
      'export { ServerContext, again, take };',
    ]);
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    ownLines(result.text, [
      "import { ServerContext } from './schemas.js';",
      'const holder = { ServerContext };',
      'function take({ ServerContext }: { ServerContext: string }): string { return ServerContext; }',
      'export { ServerContext, again, take };',
    ]);
  });

  it('uses the name the file imports the SDK\'s under, without importing it again', () => {
    const result = tool(["import type { ElicitResult as Answer } from '@modelcontextprotocol/server';", 'export type Reply = Answer;']);
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    // The schema that checks answers, `schemas.ElicitResult`, is a property, not the type.
    expect(result.text).not.toMatch(/(?<!schemas\.|')\bElicitResult\b(?! as Answer)/);
  });

  it('is refused where its own name stands beside the SDK\'s own import of it', () => {
    const result = tool(["import type { ElicitResult } from '@modelcontextprotocol/server';", 'export type Reply = ElicitResult;'], "  const inputRequired = 1; type ElicitResult = string; void (null as unknown as ElicitResult);");
    expect(result.sites.map(s => [s.status, s.reason])).toEqual([['refused', 'unsupported-construct']]);
    expect(result.sites[0]!.hint).toBe("the file declares `ElicitResult` (line 6) beside its import of the SDK's `ElicitResult`, which it hides there; rename the file's own, then run again.");
  });

  it('is refused where the file imports or exports such a name as itself, which could not be put back as written', () => {
    const result = tool(["import { inputRequired as inputRequired } from './schemas.js';", 'export const needed = inputRequired;']);
    expect(result.sites.map(s => [s.status, s.reason])).toEqual([['refused', 'unsupported-construct']]);
    expect(result.sites[0]!.hint).toBe('the file imports `inputRequired as inputRequired` (line 2), and `inputRequired` is a name the rewrite imports from the SDK; write it `inputRequired`, then run again.');
  });

  it('is refused in JavaScript, where the rewrite does not alias', () => {
    const js = file.replace(/\.ts$/, '.js');
    const result = runPipeline(js, [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "const inputRequired = ['name'];",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.registerTool('go', {}, async (ctx) => {",
      `  const answer = await ctx.mcpReq.elicitInput(${CONFIRM});`,
      "  return { content: [{ type: 'text', text: answer.action + inputRequired.length }] };",
      '});',
    ].join('\n'));
    expect(result.sites.map(s => [s.status, s.reason])).toEqual([['refused', 'unsupported-construct']]);
    expect(result.sites[0]!.hint).toBe('the file declares `inputRequired` (line 2), a name the rewrite imports from the SDK, which it aliases in TypeScript only; rename it, then run again.');
  });

  it('is migrated when it imports that name from the SDK itself', () => {
    const result = tool(["import type { ElicitResult } from '@modelcontextprotocol/server';", 'export type Answer = ElicitResult;']);
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
  });
});

describe('a local set before a conditional question and read after the next question', () => {
  it('is declared above the branches of the first question, so the round that asks the second can carry it', () => {
    const ask = (message: string) => `ctx.mcpReq.elicitInput({ mode: 'form', message: '${message}', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } })`;
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import * as z from 'zod/v4';",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.registerTool('go', { inputSchema: z.object({ ask: z.boolean() }) }, async ({ ask }, ctx) => {",
      "  let answer: string = 'none';",
      '  if (ask) {',
      `    answer = (await ${ask('First?')}).action;`,
      '  }',
      `  const sure = await ${ask('Sure?')};`,
      "  return { content: [{ type: 'text', text: answer + sure.action }] };",
      '});',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated', 'migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toMatch(/if \(state\?\.step !== 'sure'\) \{\n\s+let answer: string;\n/);
    expect(result.text).toContain("requestState: await requestStateCodec.mint({ step: 'sure', call, answer }, ctx)");
  });
});

describe('a name the rewrite needs that the file imports from another SDK package', () => {
  it('is used as it is, not imported again (it was TS2300, a duplicate identifier)', () => {
    const ask = (message: string) => `ctx.mcpReq.elicitInput({ mode: 'form', message: '${message}', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } })`;
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import type { ElicitResult } from '@modelcontextprotocol/client';",
      "export const server = new McpServer({ name: 'n', version: '1' });",
      'const label = (answer: ElicitResult): string => answer.action;',
      "server.registerTool('go', {}, async (ctx) => {",
      `  const first = await ${ask('First?')};`,
      `  const second = await ${ask('Second?')};`,
      "  return { content: [{ type: 'text', text: `${label(first)} ${label(second)}` }] };",
      '});',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated', 'migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text.match(/\bElicitResult\b(?!Of)/g)!.length).toBeGreaterThan(2);
    expect(result.text.split('\n').filter(l => l.startsWith('import') && /\bElicitResult\b/.test(l))).toEqual(["import type { ElicitResult } from '@modelcontextprotocol/client';"]);
  });
});

describe('a server whose own requestState hook is a verify method', () => {
  const server = (verify: string[]) => runPipeline(file, [
    "import { McpServer, createRequestStateCodec, inputRequired, type CallToolResult, type InputRequiredResult } from '@modelcontextprotocol/server';",
    "const own = createRequestStateCodec<{ city: string }>({ key: 'travel-desk-demo-key-0123456789abcdef', ttlSeconds: 300 });",
    'export const server = new McpServer({ name: \'n\', version: \'1\' }, {',
    '  requestState: {',
    ...verify,
    '  },',
    '});',
    "server.registerTool('book', {}, async (ctx): Promise<CallToolResult | InputRequiredResult> => {",
    '  const state = ctx.mcpReq.requestState<{ city: string }>();',
    "  if (!state) return inputRequired({ inputRequests: {}, requestState: await own.mint({ city: 'Porto' }, ctx) });",
    "  return { content: [{ type: 'text', text: state.city }] };",
    '});',
    "server.registerTool('go', {}, async (ctx) => {",
    `  const answer = await ctx.mcpReq.elicitInput(${CONFIRM});`,
    "  return { content: [{ type: 'text', text: answer.action }] };",
    '});',
  ].join('\n'));

  it('keeps the method as a function, with its body as it was', () => {
    const result = server([
      '    async verify(requestState: string, ctx) {',
      '      // The desk\'s own check.',
      '      return own.verify(requestState, ctx);',
      '    },',
    ]);
    expect(result.sites.map(s => [s.handler?.name, s.status])).toEqual([['go', 'migrated']]);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain([
      '    verify: keepRequestStateHook(async function verify(requestState: string, ctx) {',
      '      // The desk\'s own check.',
      '      return own.verify(requestState, ctx);',
      '    }),',
    ].join('\n'));
    expect(result.diagnostics.map(d => d.message)).toContain("the server's own requestState hook (its verify method, line 5) still verifies the states of its own handlers; the rewritten handlers' states are verified beside it (keepRequestStateHook) and reach only them.");
  });

  it('is refused where the method reads this, which a function would not have', () => {
    const result = server([
      '    async verify(requestState: string, ctx) {',
      "      console.error('verifying with', Object.keys(this));",
      '      return own.verify(requestState, ctx);',
      '    },',
    ]);
    expect(result.sites.map(s => [s.status, s.reason])).toEqual([['refused', 'unsupported-construct']]);
    expect(result.sites[0]!.hint).toBe("the server's verify method (line 5) reads `this` (line 6), which the rewrite cannot keep beside its codec; write the hook as a function, then run again.");
  });
});

describe('a server whose options the rewrite cannot read whole', () => {
  const server = (options: string[], construct: string) => runPipeline(file, [
    "import { McpServer, createRequestStateCodec, type ServerOptions } from '@modelcontextprotocol/server';",
    "const own = createRequestStateCodec<{ city: string }>({ key: 'travel-desk-demo-key-0123456789abcdef', ttlSeconds: 300 });",
    ...options,
    `export const server = ${construct};`,
    "server.registerTool('go', {}, async (ctx) => {",
    `  const answer = await ctx.mcpReq.elicitInput(${CONFIRM});`,
    "  return { content: [{ type: 'text', text: answer.action }] };",
    '});',
  ].join('\n'));

  it('is refused where they may hold a requestState option the rewrite\'s would replace', () => {
    for (const [options, construct, shown] of [
      [['const options = { requestState: { verify: own.verify } };'], "new McpServer({ name: 'n', version: '1' }, options)", '`options`'],
      [['const base = { requestState: { verify: own.verify } };'], "new McpServer({ name: 'n', version: '1' }, { ...base, capabilities: {} })", '`...base`'],
      [['declare const options: ServerOptions;'], "new McpServer({ name: 'n', version: '1' }, options)", '`options`'],
    ] as const) {
      const result = server([...options], construct);
      expect(result.sites.map(s => [s.status, s.reason])).toEqual([['refused', 'unsupported-construct']]);
      expect(result.sites[0]!.hint).toBe(`the server's options (line 4) take ${shown}, which may hold a requestState option that the rewrite's would replace; write requestState in the options literal of the construction, then run again.`);
    }
  });

  it('is migrated where what they take has no requestState', () => {
    const result = server(["const options = { capabilities: { tools: {} } };"], "new McpServer({ name: 'n', version: '1' }, { ...options })");
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain('{ ...options, requestState: { verify: requestStateCodec.verify } }');
  });
});
