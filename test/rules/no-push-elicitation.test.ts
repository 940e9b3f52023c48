import rule from '../../rules/no-push-elicitation.js';
import { at, ruleTester, TYPED_FILE, typedRuleTester } from './ruleTester.js';

const v1Straight = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const server = new McpServer({ name: 'demo', version: '1.0.0' });
server.tool('confirm', async (extra) => {
  const answer = await server.server.elicitInput({ message: 'Continue?', requestedSchema: { type: 'object', properties: {} } });
  return { content: [{ type: 'text', text: answer.action }] };
});`;

const v1SendRequest = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
const server = new McpServer({ name: 'demo', version: '1.0.0' });
server.tool('confirm', async (extra) => {
  const answer = await extra.sendRequest(
    { method: 'elicitation/create', params: { message: 'Continue?', requestedSchema: { type: 'object', properties: {} } } },
    ElicitResultSchema,
  );
  return { content: [{ type: 'text', text: answer.action }] };
});`;

const v2Straight = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('confirm', {}, async (ctx) => {
  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Continue?', requestedSchema: { type: 'object', properties: {} } });
  return { content: [{ type: 'text', text: answer.action }] };
});`;

// The audit log write runs before the question: rewritten, but flagged for review.
const v2SideEffect = `import { McpServer } from '@modelcontextprotocol/server';
declare const audit: { write(entry: string): Promise<void> };
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('confirm', {}, async (ctx) => {
  await audit.write('asked');
  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Continue?', requestedSchema: { type: 'object', properties: {} } });
  return { content: [{ type: 'text', text: answer.action }] };
});`;

// Request options: dropped by the rewrite, which the message says (review); a task option stays refused.
const v2Options = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('confirm', {}, async (ctx) => {
  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Continue?', requestedSchema: { type: 'object', properties: {} } }, { timeout: 60_000, relatedRequestId: ctx.mcpReq.id });
  return { content: [{ type: 'text', text: answer.action }] };
});`;
const v1RelatedTask = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const server = new McpServer({ name: 'demo', version: '1.0.0' });
server.tool('confirm', async (extra) => {
  const answer = await server.server.elicitInput({ message: 'Continue?', requestedSchema: { type: 'object', properties: {} } }, { relatedTask: { taskId: 'nightly' } });
  return { content: [{ type: 'text', text: answer.action }] };
});`;

// A question per item of an array: one round per iteration, migratable.
const v2Loop = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('confirm-each', {}, async (ctx) => {
  for (const item of ['a', 'b']) {
    await ctx.mcpReq.elicitInput({ mode: 'form', message: item, requestedSchema: { type: 'object', properties: {} } });
  }
  return { content: [] };
});`;

// A question per item of a live stream: a resumed round cannot go back to its position (refused).
const v2StreamLoop = `import { McpServer } from '@modelcontextprotocol/server';
declare function feed(): AsyncIterable<string>;
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('confirm-each', {}, async (ctx) => {
  for await (const item of feed()) {
    await ctx.mcpReq.elicitInput({ mode: 'form', message: item, requestedSchema: { type: 'object', properties: {} } });
  }
  return { content: [] };
});`;

// A local whose type only the checker knows: untyped it cannot be shown to survive JSON (refused);
// typed it is a number, and the call that produced it runs before the question (for review).
const countBeforeQuestion = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
async function countFiles(): Promise<number> { return 3; }
server.registerTool('archive', {}, async (ctx) => {
  const n = await countFiles();
  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: \`Archive \${n}?\`, requestedSchema: { type: 'object', properties: {} } });
  return { content: [{ type: 'text', text: \`\${answer.action} \${n}\` }] };
});`;

// Low-level dispatch: the question sits in a switch case, which is rewritten as its own resume branch.
const v2SwitchCase = `import { Server } from '@modelcontextprotocol/server';
const server = new Server({ name: 'demo', version: '2.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/call', async (request) => {
  let text = '';
  switch (request.params.name) {
    case 'confirm': {
      const answer = await server.elicitInput({ mode: 'form', message: 'Continue?', requestedSchema: { type: 'object', properties: {} } });
      text = answer.action;
      break;
    }
    default:
      text = 'unknown';
  }
  return { content: [{ type: 'text', text }] };
});`;

// A `break` in a finally block inside the case: the resumed case cannot keep it.
const v2SwitchBreakInFinally = `import { Server } from '@modelcontextprotocol/server';
const server = new Server({ name: 'demo', version: '2.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/call', async (request) => {
  switch (request.params.name) {
    case 'confirm':
      try {
        await server.elicitInput({ mode: 'form', message: 'Continue?', requestedSchema: { type: 'object', properties: {} } });
      } finally {
        break;
      }
  }
  return { content: [] };
});`;

const lookalikes = [
  // An app class with its own elicitInput.
  `class Wizard { async elicitInput(q: string) { return q; } }
const wizard = new Wizard();
export async function run() { await wizard.elicitInput('name?'); }`,
  // The migrated form: nothing pushed.
  `import { McpServer, inputRequired, acceptedContent } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('confirm', {}, async (ctx) => {
  const ok = acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
  if (!ok) return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: 'Continue?', requestedSchema: { type: 'object', properties: {} } }) } });
  return { content: [] };
});`,
  // Same method name on an object that is not an MCP server.
  `const server = { elicitInput: async (p: unknown) => p };
export async function ask() { await server.elicitInput({ message: 'hi' }); }`,
];

// The SDK guide's dual-era handler: the push runs on 2025-era connections only, beside its own inputRequired path.
const v2DualEra = `import { McpServer, inputRequired, type McpRequestContext } from '@modelcontextprotocol/server';
export function createServer(reqCtx: McpRequestContext) {
  const server = new McpServer({ name: 'demo', version: '2.0.0' });
  server.registerTool('confirm', {}, async (ctx) => {
    if (reqCtx.era === 'legacy') {
      const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Continue?', requestedSchema: { type: 'object', properties: {} } });
      return { content: [{ type: 'text', text: answer.action }] };
    }
    if (!ctx.mcpReq.inputResponses?.['go']) return inputRequired({ inputRequests: { go: inputRequired.elicit({ message: 'Continue?', requestedSchema: { type: 'object', properties: {} } }) } });
    return { content: [] };
  });
  return server;
}`;
// The same modern test as a guard clause first; the push after it runs on 2025-era connections only.
const v2DualEraGuard = `import { McpServer, inputRequired, type McpRequestContext } from '@modelcontextprotocol/server';
export function createServer(reqCtx: McpRequestContext) {
  const server = new McpServer({ name: 'demo', version: '2.0.0' });
  server.registerTool('confirm', {}, async (ctx) => {
    if (reqCtx.era !== 'legacy') {
      return inputRequired({ inputRequests: { go: inputRequired.elicit({ message: 'Continue?', requestedSchema: { type: 'object', properties: {} } }) } });
    }
    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Continue?', requestedSchema: { type: 'object', properties: {} } });
    return { content: [{ type: 'text', text: answer.action }] };
  });
  return server;
}`;
// An era test with no inputRequired path beside it: the 2026-07-28 era is not served, the push is a site.
const v2LegacyOnly = `import { McpServer, type McpRequestContext } from '@modelcontextprotocol/server';
export function createServer(reqCtx: McpRequestContext) {
  const server = new McpServer({ name: 'demo', version: '2.0.0' });
  server.registerTool('confirm', {}, async (ctx) => {
    if (reqCtx.era === 'legacy') {
      const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Continue?', requestedSchema: { type: 'object', properties: {} } });
      return { content: [{ type: 'text', text: answer.action }] };
    }
    return { content: [] };
  });
  return server;
}`;
// \`era\` of the project's own object is not the connection's era.
const v2OwnEra = `import { McpServer, inputRequired } from '@modelcontextprotocol/server';
const settings = { era: 'legacy' as 'legacy' | 'modern' };
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('confirm', {}, async (ctx) => {
  if (settings.era === 'legacy') {
    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Continue?', requestedSchema: { type: 'object', properties: {} } });
    return { content: [{ type: 'text', text: answer.action }] };
  }
  return inputRequired({ inputRequests: { go: inputRequired.elicit({ message: 'Continue?', requestedSchema: { type: 'object', properties: {} } }) } });
});`;

ruleTester.run('no-push-elicitation', rule, {
  valid: [...lookalikes, v2DualEra, v2DualEraGuard],
  invalid: [
    { code: v1Straight, errors: [{ messageId: 'migratable', ...at(v1Straight, 'server.server.elicitInput') }] },
    { code: v1SendRequest, errors: [{ messageId: 'migratable', ...at(v1SendRequest, 'extra.sendRequest') }] },
    { code: v2Straight, errors: [{ messageId: 'migratable', ...at(v2Straight, 'ctx.mcpReq.elicitInput') }] },
    { code: v2SideEffect, errors: [{ messageId: 'migratableForReview', ...at(v2SideEffect, 'ctx.mcpReq.elicitInput') }] },
    { code: v2Loop, errors: [{ messageId: 'migratable', ...at(v2Loop, 'ctx.mcpReq.elicitInput') }] },
    { code: v2LegacyOnly, errors: [{ messageId: 'migratable', ...at(v2LegacyOnly, 'ctx.mcpReq.elicitInput') }] },
    { code: v2StreamLoop, errors: [{ messageId: 'refused', ...at(v2StreamLoop, 'ctx.mcpReq.elicitInput') }] },
    {
      code: v2Options,
      errors: [{
        messageId: 'migratableForReview', ...at(v2Options, 'ctx.mcpReq.elicitInput'),
        data: {
          call: 'ctx.mcpReq.elicitInput()',
          notes: 'timeout dropped: there is no per-question wait any more; the client answers in its own time and retries, and the requestState TTL bounds how long a round may take (a timeout error the old code caught can no longer happen); ' +
            'relatedRequestId dropped: the question now travels in the result of the call itself, so it is related to that call by construction',
        },
      }],
    },
    { code: v1RelatedTask, errors: [{ messageId: 'refused', ...at(v1RelatedTask, 'server.server.elicitInput') }] },
    { code: v2SwitchCase, errors: [{ messageId: 'migratable', ...at(v2SwitchCase, 'server.elicitInput') }] },
    { code: v2SwitchBreakInFinally, errors: [{ messageId: 'refused', ...at(v2SwitchBreakInFinally, 'server.elicitInput') }] },
    { code: countBeforeQuestion, errors: [{ messageId: 'refused', ...at(countBeforeQuestion, 'ctx.mcpReq.elicitInput') }] },
  ],
});

typedRuleTester.run('no-push-elicitation (typed)', rule, {
  valid: [
    // Typed as an app class: the checker rules it out whatever the variable is called.
    {
      filename: TYPED_FILE,
      code: `class Assistant { async elicitInput(q: { message: string }) { return q; } }
export async function run(server: Assistant) { await server.elicitInput({ message: 'name?' }); }`,
    },
    { filename: TYPED_FILE, code: v2DualEra },
    { filename: TYPED_FILE, code: v2DualEraGuard },
  ],
  invalid: [
    { filename: TYPED_FILE, code: v2OwnEra, errors: [{ messageId: 'migratable', ...at(v2OwnEra, 'ctx.mcpReq.elicitInput') }] },
    { filename: TYPED_FILE, code: countBeforeQuestion, errors: [{ messageId: 'migratableForReview', ...at(countBeforeQuestion, 'ctx.mcpReq.elicitInput') }] },
    { filename: TYPED_FILE, code: v1Straight, errors: [{ messageId: 'migratable', ...at(v1Straight, 'server.server.elicitInput') }] },
    { filename: TYPED_FILE, code: v2SwitchCase, errors: [{ messageId: 'migratable', ...at(v2SwitchCase, 'server.elicitInput') }] },
  ],
});
