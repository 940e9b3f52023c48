import rule from '../../rules/no-push-roots.js';
import { at, ruleTester } from './ruleTester.js';

const v1ListRoots = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const server = new McpServer({ name: 'demo', version: '1.0.0' });
server.tool('workspace', async (extra) => {
  const { roots } = await server.server.listRoots();
  return { content: [{ type: 'text', text: roots.map(r => r.uri).join('\\n') }] };
});`;

const v1SendRequest = `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListRootsResultSchema } from '@modelcontextprotocol/sdk/types.js';
const server = new Server({ name: 'demo', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const result = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
  return { content: [{ type: 'text', text: String(result.roots.length) }] };
});`;

const v2Send = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('workspace', {}, async (ctx) => {
  const result = await ctx.mcpReq.send({ method: 'roots/list' });
  return { content: [{ type: 'text', text: JSON.stringify(result) }] };
});`;

// Fire-and-forget: the promise outlives the request.
const notAwaited = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('refresh', {}, async (ctx) => {
  void server.server.listRoots();
  return { content: [] };
});`;

ruleTester.run('no-push-roots', rule, {
  valid: [
    `const fs = { listRoots: () => ['/'] };
export const roots = fs.listRoots();`,
    `import { McpServer, inputRequired } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('workspace', {}, async () => inputRequired({ inputRequests: { roots: inputRequired.listRoots() } }));`,
  ],
  invalid: [
    { code: v1ListRoots, errors: [{ messageId: 'migratable', ...at(v1ListRoots, 'server.server.listRoots') }] },
    { code: v1SendRequest, errors: [{ messageId: 'migratable', ...at(v1SendRequest, 'extra.sendRequest') }] },
    { code: v2Send, errors: [{ messageId: 'migratable', ...at(v2Send, 'ctx.mcpReq.send') }] },
    { code: notAwaited, errors: [{ messageId: 'refused', ...at(notAwaited, 'server.server.listRoots') }] },
  ],
});
