import rule from '../../rules/no-push-task-requests.js';
import { at, ruleTester, TYPED_FILE, typedRuleTester } from './ruleTester.js';

// The poll after a question asked as a task: tasks/get, then tasks/result, through extra.sendRequest (v1).
const v1Polls = `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, GetTaskResultSchema, GetTaskPayloadResultSchema } from '@modelcontextprotocol/sdk/types.js';
const server = new Server({ name: 'demo', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const taskId = String(request.params.arguments?.taskId);
  const status = await extra.sendRequest({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
  if (status.status !== 'completed') return { content: [{ type: 'text', text: status.status }] };
  const payload = await extra.sendRequest({ method: 'tasks/result', params: { taskId } }, GetTaskPayloadResultSchema);
  return { content: [{ type: 'text', text: JSON.stringify(payload) }] };
});`;

// v1's experimental task API on the low-level server of an McpServer.
const v1Experimental = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const mcp = new McpServer({ name: 'demo', version: '1.0.0' });
mcp.tool('cancel-survey', async () => {
  await mcp.server.experimental.tasks.cancelTask('survey-1');
  return { content: [] };
});`;

ruleTester.run('no-push-task-requests', rule, {
  valid: [
    // A question is another rule's; tasks/* methods of someone else's client are not the SDK's.
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const server = new McpServer({ name: 'demo', version: '1.0.0' });
server.tool('ask', async () => {
  const answer = await server.server.elicitInput({ message: 'Now?', requestedSchema: { type: 'object', properties: {} } });
  return { content: [{ type: 'text', text: answer.action }] };
});`,
    `const queue = { experimental: { tasks: { getTask: (id: string) => id } } };
export const status = queue.experimental.tasks.getTask('t1');`,
  ],
  invalid: [
    {
      code: v1Polls,
      errors: [
        { messageId: 'refused', ...at(v1Polls, "extra.sendRequest({ method: 'tasks/get'") },
        { messageId: 'refused', ...at(v1Polls, "extra.sendRequest({ method: 'tasks/result'") },
      ],
    },
    { code: v1Experimental, errors: [{ messageId: 'refused', ...at(v1Experimental, 'mcp.server.experimental') }] },
  ],
});

// Typed: the method read from the request's type (a const built apart), the task API through a typed parameter.
const v1Typed = `import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
const mcp = new McpServer({ name: 'demo', version: '1.0.0' });
const poll = { method: 'tasks/get' as const, params: { taskId: 't1' } };
export async function status(low: Server) {
  return low.experimental.tasks.getTaskResult('t1');
}
mcp.registerTool('status', {}, async (extra) => {
  const status = await extra.sendRequest(poll, GetTaskResultSchema);
  return { content: [{ type: 'text', text: status.status }] };
});`;

typedRuleTester.run('no-push-task-requests (typed)', rule, {
  valid: [],
  invalid: [{
    filename: TYPED_FILE,
    code: v1Typed,
    errors: [
      { messageId: 'refused', ...at(v1Typed, 'low.experimental') },
      { messageId: 'refused', ...at(v1Typed, 'extra.sendRequest') },
    ],
  }],
});
