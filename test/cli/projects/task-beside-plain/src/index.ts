import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { registerDraftStatus } from './status.js';

const desk = new McpServer({ name: 'writing-desk', version: '0.2.0' });

// Drafts a long essay as a task the client runs in the background; the tool reports the task.
desk.tool('draft_essay', 'Draft an essay on a topic', { topic: z.string() }, async ({ topic }, extra) => {
  const draft = await extra.sendRequest(
    {
      method: 'sampling/createMessage',
      params: {
        task: { ttl: 600000 },
        messages: [{ role: 'user', content: { type: 'text', text: `Draft an essay about ${topic}.` } }],
        maxTokens: 4000,
      },
    },
    CreateMessageResultSchema,
  );
  return { content: [{ type: 'text', text: draft.content.type === 'text' ? draft.content.text : 'no text' }] };
});

// A plain question beside it: migrates whatever the task does.
desk.tool('title_for', 'Suggest a title', { topic: z.string() }, async ({ topic }) => {
  const reply = await desk.server.createMessage({
    messages: [{ role: 'user', content: { type: 'text', text: `One title for an essay about ${topic}.` } }],
    maxTokens: 40,
  });
  return { content: [{ type: 'text', text: reply.content.type === 'text' ? reply.content.text : 'untitled' }] };
});

// The poll of such a task, in a module of its own.
registerDraftStatus(desk);

await desk.connect(new StdioServerTransport());
