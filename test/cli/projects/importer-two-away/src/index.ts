import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export const greenhouse = new McpServer({ name: 'greenhouse', version: '2.0.1' });

// Opens the vents once the user agrees.
greenhouse.registerTool('open_vents', { description: 'Open the roof vents' }, async () => {
  const answer = await greenhouse.server.elicitInput({
    message: 'Open the vents now?',
    requestedSchema: { type: 'object', properties: { open: { type: 'boolean' } }, required: ['open'] },
  });
  return { content: [{ type: 'text', text: answer.action === 'accept' && answer.content?.open === true ? 'Vents open.' : 'Vents shut.' }] };
});
