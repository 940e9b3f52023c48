import rule from '../../rules/no-push-sampling.js';
import { at, ruleTester, TYPED_FILE, typedRuleTester } from './ruleTester.js';

const v1CreateMessage = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const server = new McpServer({ name: 'demo', version: '1.0.0' });
server.tool('summarize', { text: z.string() }, async ({ text }, extra) => {
  const reply = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 200 });
  return { content: [reply.content] };
});`;

const v1SendRequest = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
const server = new McpServer({ name: 'demo', version: '1.0.0' });
server.tool('haiku', async (extra) => {
  const reply = await extra.sendRequest(
    { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'haiku' } }], maxTokens: 50 } },
    CreateMessageResultSchema,
  );
  return { content: [reply.content] };
});`;

const v2RequestSampling = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('haiku', {}, async (ctx) => {
  const reply = await ctx.mcpReq.requestSampling({ messages: [{ role: 'user', content: { type: 'text', text: 'haiku' } }], maxTokens: 50 });
  return { content: [reply.content] };
});`;

// No request is live at startup: reported, and refused.
const v2AtStartup = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
await server.server.createMessage({ messages: [], maxTokens: 10 });`;

// An mcp-framework tool: the framework owns the handler, so it is reported and refused, naming the framework.
const frameworkTool = `import { MCPTool } from 'mcp-framework';
export default class Summarize extends MCPTool {
  name = 'summarize';
  description = 'Summarizes';
  schema = {};
  async execute(input: { text: string }) {
    return this.samplingRequest({ messages: [{ role: 'user', content: { type: 'text', text: input.text } }], maxTokens: 100 });
  }
}`;

const lookalikes = [
  `import Anthropic from '@anthropic-ai/sdk';
const anthropic = new Anthropic();
export async function run() { return anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [] }); }`,
  `import OpenAI from 'openai';
const openai = new OpenAI();
export async function run() { return openai.chat.completions.create({ model: 'gpt-4o', messages: [] }); }`,
  `class ChatApp { async createMessage(text: string) { return { text }; } }
const app = new ChatApp();
export async function post() { await app.createMessage('hello'); }`,
  // Migrated: sampling rides an input request.
  `import { McpServer, inputRequired } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('haiku', {}, async () => inputRequired({ inputRequests: { poem: inputRequired.createMessage({ messages: [], maxTokens: 50 }) } }));`,
];

ruleTester.run('no-push-sampling', rule, {
  valid: lookalikes,
  invalid: [
    { code: v1CreateMessage, errors: [{ messageId: 'migratable', ...at(v1CreateMessage, 'server.server.createMessage') }] },
    { code: v1SendRequest, errors: [{ messageId: 'migratable', ...at(v1SendRequest, 'extra.sendRequest') }] },
    { code: v2RequestSampling, errors: [{ messageId: 'migratable', ...at(v2RequestSampling, 'ctx.mcpReq.requestSampling') }] },
    { code: v2AtStartup, errors: [{ messageId: 'refused', ...at(v2AtStartup, 'server.server.createMessage') }] },
    {
      code: frameworkTool,
      errors: [{
        messageId: 'refused',
        ...at(frameworkTool, 'this.samplingRequest'),
        data: {
          call: 'this.samplingRequest()',
          reason: 'framework',
          hint: 'execute() of Summarize (extends MCPTool) is called by mcp-framework for tools/call; mcp-framework calls execute() and builds its result, and has no input_required result for it to return: migrate when mcp-framework supports MRTR, or by hand.',
        },
      }],
    },
  ],
});

typedRuleTester.run('no-push-sampling (typed)', rule, {
  valid: [
    {
      filename: TYPED_FILE,
      code: `interface ModelClient { createMessage(body: { prompt: string }): Promise<string> }
export async function run(server: ModelClient) { return server.createMessage({ prompt: 'hi' }); }`,
    },
  ],
  invalid: [
    { filename: TYPED_FILE, code: v2RequestSampling, errors: [{ messageId: 'migratable', ...at(v2RequestSampling, 'ctx.mcpReq.requestSampling') }] },
  ],
});
