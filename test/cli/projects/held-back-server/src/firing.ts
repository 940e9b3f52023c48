import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export function registerFiring(kiln: McpServer): void {
  kiln.tool('start_firing', 'Start a firing schedule', { cone: z.number() }, async ({ cone }) => {
    const ok = await kiln.server.elicitInput({
      message: `Fire to cone ${cone}? The kiln stays hot for hours.`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
    });
    return { content: [{ type: 'text', text: `cone ${cone}: ${ok.action}` }] };
  });
}
