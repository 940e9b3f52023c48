import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'workspace', version: '2.0.0' });
  server.tool('pick-root', 'Ask which workspace root to use', { hint: z.string().optional() }, async ({ hint }) => {
    const roots = await server.server.listRoots();
    const chosen = roots.roots.find(root => !hint || root.uri.includes(hint)) ?? roots.roots[0];
    return { content: [{ type: 'text', text: chosen ? chosen.uri : 'no roots' }] };
  });
  return server;
}

createServer(async (req, res) => {
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void transport.close());
  await server.connect(transport);
  await transport.handleRequest(req, res);
}).listen(3000);
