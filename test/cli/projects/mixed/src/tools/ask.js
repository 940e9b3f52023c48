import { McpServer } from '@modelcontextprotocol/server';

export const asker = new McpServer({ name: 'asker', version: '2.0.0' }, { capabilities: { tools: {} } });

// A question in an exported function nothing in the project calls: can only be flagged.
export async function warmUp() {
  await asker.server.elicitInput({ mode: 'form', message: 'Ready?', requestedSchema: { type: 'object', properties: {} } });
}
