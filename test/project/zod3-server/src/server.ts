import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MoveInput, Shelf } from './schemas.js';

/** How often each side effect ran: the scripted session compares them between the two SDKs. */
export const effects = { moved: 0 };

export function createServer() {
  const server = new McpServer({ name: 'reading-list', version: '0.3.0' });

  server.registerTool(
    'move_book',
    { description: 'Moves a book to another shelf, asking first when it leaves the done shelf', inputSchema: MoveInput },
    async ({ id, shelf, reviewer }) => {
      if (shelf !== Shelf.Done) {
        const answer = await server.server.elicitInput({
          message: `Move ${id} back to ${shelf}?`,
          requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } }, required: ['sure'] },
        });
        if (answer.action !== 'accept' || answer.content?.sure !== true) {
          return { content: [{ type: 'text', text: `${id} stays where it is` }] };
        }
      }
      effects.moved++;
      return { content: [{ type: 'text', text: `${id} is now on ${shelf}${reviewer ? `, reviewed by ${reviewer}` : ''}` }] };
    },
  );

  server.tool('count', 'Counts the letters of a title', { title: z.string().min(1) }, async ({ title }) => ({
    content: [{ type: 'text', text: String(title.length) }],
  }));

  return server;
}
