import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Tool } from '@demo/tools-lib';
import { z } from 'zod';

const notes = new Map<string, string>([['n1', 'buy milk']]);

/** Tools the library registers from their decorators. */
export class NoteTools {
  @Tool({
    name: 'read_note',
    description: 'Reads a note',
    parameters: z.object({ id: z.string().describe('The note id') }),
    outputSchema: z.object({ text: z.string(), length: z.number().int() }),
  })
  read({ id }: { id: string }) {
    return notes.get(id) ?? '';
  }
}

export function createServer() {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });

  server.registerTool(
    'delete_note',
    { description: 'Deletes a note after asking', inputSchema: { id: z.string() } },
    async ({ id }) => {
      const answer = await server.server.elicitInput({
        message: `Delete note ${id}?`,
        requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } }, required: ['sure'] },
      });
      if (answer.action !== 'accept' || answer.content?.sure !== true) {
        return { content: [{ type: 'text', text: `${id} kept` }] };
      }
      notes.delete(id);
      return { content: [{ type: 'text', text: `${id} deleted` }] };
    },
  );

  return server;
}
