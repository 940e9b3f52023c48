import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const board = new McpServer(
  { name: 'notice-board', version: '0.4.0' },
  { capabilities: { resources: { subscribe: true }, logging: {} } },
);

const followers = new Set<string>();
let level = 'info';

board.registerResource('notices', 'board://notices', { mimeType: 'text/plain' }, async uri => ({
  contents: [{ uri: uri.href, text: `${followers.size} following, level ${level}` }],
}));

// The low-level handlers are registered by a schema that names their method only.
board.server.setRequestHandler(
  z.object({ method: z.literal('resources/subscribe') }).passthrough(),
  async (request: any) => {
    followers.add(request.params.uri);
    return {};
  },
);

board.server.setRequestHandler(z.object({ method: z.literal('resources/unsubscribe') }).loose(), async (request: any) => {
  followers.delete(request.params.uri);
  return {};
});

board.server.setRequestHandler(
  z.object({ method: z.literal('logging/setLevel') }).passthrough(),
  async (request: any) => {
    level = request.params.level;
    return {};
  },
);

// Pins a notice once the user confirms it: the question beside them migrates.
board.registerTool('pin_notice', { description: 'Pin a notice', inputSchema: { text: z.string() } }, async ({ text }) => {
  const answer = await board.server.elicitInput({
    message: `Pin "${text}" for everyone?`,
    requestedSchema: { type: 'object', properties: { pin: { type: 'boolean' } }, required: ['pin'] },
  });
  if (answer.action !== 'accept' || answer.content?.pin !== true) return { content: [{ type: 'text', text: 'Not pinned.' }] };
  return { content: [{ type: 'text', text: `Pinned: ${text}` }] };
});

await board.connect(new StdioServerTransport());
