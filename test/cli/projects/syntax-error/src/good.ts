import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

export const server = new McpServer({ name: 'good', version: '1.0.0' }, { capabilities: { tools: {} } });

server.registerTool(
  'greet',
  { description: 'Greet someone by a name the user gives', inputSchema: z.object({ formal: z.boolean() }) },
  async ({ formal }, ctx) => {
    const greeting = formal ? 'Good day' : 'Hi';
    const answer = await ctx.mcpReq.elicitInput({
      mode: 'form',
      message: 'Who should I greet?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    const name = answer.action === 'accept' ? String(answer.content?.name ?? 'friend') : 'friend';
    return { content: [{ type: 'text', text: `${greeting}, ${name}!` }] };
  },
);
