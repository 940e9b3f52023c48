#!/usr/bin/env node
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { deleteNote, findNote, listNotes, streamNotes } from './store.js';

const server = new McpServer({ name: 'notes', version: '1.4.0' });

server.tool('list-notes', 'List every note title', {}, async () => {
  const titles = listNotes().map(note => `- ${note.title}`);
  return { content: [{ type: 'text', text: titles.join('\n') || 'No notes.' }] };
});

// Deleting asks the user first: a note cannot be restored.
server.tool('delete-note', 'Delete a note after the user confirms', { id: z.string() }, async ({ id }) => {
  const note = findNote(id);
  if (!note) return { content: [{ type: 'text', text: `No note ${id}.` }], isError: true };
  const title = note.title;
  const answer = await server.server.elicitInput({
    message: `Delete the note "${title}"? This cannot be undone.`,
    requestedSchema: {
      type: 'object',
      properties: { confirm: { type: 'boolean', title: 'Delete it' } },
      required: ['confirm'],
    },
  });
  if (answer.action !== 'accept' || answer.content?.confirm !== true) {
    return { content: [{ type: 'text', text: `Kept "${title}".` }] };
  }
  deleteNote(id);
  return { content: [{ type: 'text', text: `Deleted "${title}".` }] };
});

server.tool('confirm-each', 'Delete notes as the store streams them, asking for each one', {}, async () => {
  const deleted: string[] = [];
  for await (const { id } of streamNotes()) {
    const answer = await server.server.elicitInput({
      message: `Delete note ${id}?`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    if (answer.action === 'accept' && answer.content?.confirm === true) {
      deleteNote(id);
      deleted.push(id);
    }
  }
  return { content: [{ type: 'text', text: `Deleted ${deleted.length} note(s).` }] };
});

async function main(): Promise<void> {
  const transport = new StdioServerTransport();
  await server.connect(transport);
  console.error('notes server running on stdio');
}

main().catch(error => {
  console.error(error);
  process.exit(1);
});
