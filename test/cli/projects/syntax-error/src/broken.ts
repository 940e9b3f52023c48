import { McpServer } from '@modelcontextprotocol/server';

export const broken = new McpServer({ name: 'broken', version: '1.0.0' });

broken.registerTool('half', { description: 'half written' }, async (_args, ctx) => {
  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Which?', requestedSchema: { type: 'object', properties: {} } };
  return { content: [{ type: 'text', text: String(answer.action) }] };
});
