import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { z } from 'zod';
import './auth.js';

declare global {
  namespace Express {
    interface Request {
      auth?: AuthInfo;
    }
  }
}

export const notes = new McpServer({ name: 'gated-notes', version: '0.9.0' });

notes.tool('add_note', 'Add a note', { text: z.string() }, async ({ text }) => {
  const ok = await notes.server.elicitInput({
    message: `Save "${text}"?`,
    requestedSchema: { type: 'object', properties: { save: { type: 'boolean' } } },
  });
  return { content: [{ type: 'text', text: ok.action }] };
});
