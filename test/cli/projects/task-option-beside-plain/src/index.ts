import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';

const atlas = new McpServer({ name: 'atlas-notes', version: '0.9.0' });

// Summarises the atlas as a task the client runs in the background (the task call option of v1).
atlas.registerTool('summarise_atlas', { description: 'Summarise every map' }, async (extra) => {
  const summary = await extra.sendRequest(
    { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the atlas.' } }], maxTokens: 2000 } },
    CreateMessageResultSchema,
    { task: { ttl: 900000 } },
  );
  return { content: [{ type: 'text', text: summary.model }] };
});

// A plain question beside it, in the same file.
atlas.registerTool('name_map', { description: 'Suggest a map name' }, async () => {
  const reply = await atlas.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'A name for a map?' } }], maxTokens: 20 });
  return { content: [{ type: 'text', text: reply.content.type === 'text' ? reply.content.text : 'unnamed' }] };
});
