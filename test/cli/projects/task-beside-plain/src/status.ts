import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

// Reports how far the client has got with a draft it runs as a task for this server.
export function registerDraftStatus(desk: McpServer): void {
  desk.tool('draft_status', 'How far a draft has got', { taskId: z.string() }, async ({ taskId }, extra) => {
    const task = await extra.sendRequest({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
    return { content: [{ type: 'text', text: task.statusMessage ? `${task.status}: ${task.statusMessage}` : task.status }] };
  });
}
