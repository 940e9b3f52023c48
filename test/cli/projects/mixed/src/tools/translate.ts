import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

export const translator = new McpServer({ name: 'translator', version: '2.0.0' }, { capabilities: { tools: {} } });

translator.registerTool(
  'translate',
  { description: 'Translate with the client model', inputSchema: z.object({ text: z.string(), to: z.string() }) },
  async ({ text, to }, ctx) => {
    const reply = await ctx.mcpReq.requestSampling({
      messages: [{ role: 'user', content: { type: 'text', text: `Translate to ${to}: ${text}` } }],
      maxTokens: 300,
    });
    return { content: [{ type: 'text', text: reply.content.type === 'text' ? reply.content.text : '' }] };
  },
);
