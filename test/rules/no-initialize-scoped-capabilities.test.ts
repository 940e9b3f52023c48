import rule from '../../rules/no-initialize-scoped-capabilities.js';
import { at, ruleTester, TYPED_FILE, typedRuleTester } from './ruleTester.js';

// In the handler body: rewritten to a per-request read.
const v2Guard = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('deploy', {}, async (ctx) => {
  if (!server.server.getClientCapabilities()?.elicitation) return { content: [{ type: 'text', text: 'cannot ask' }] };
  return { content: [] };
});`;

// Reached from a handler through a helper: helpers are not rewritten.
const v1Helper = `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const server = new Server({ name: 'demo', version: '1.0.0' }, { capabilities: { tools: {} } });
function canSample() {
  return server.getClientCapabilities()?.sampling !== undefined;
}
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: String(canSample()) }] }));`;

// The context is destructured: there is no whole ctx to read the envelope from.
const destructured = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('deploy', {}, async ({ mcpReq }) => {
  const caps = server.server.getClientCapabilities();
  return { content: [{ type: 'text', text: String(caps?.sampling) + mcpReq.id }] };
});`;

const atStartup = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.server.oninitialized = () => {
  console.log(server.server.getClientCapabilities());
};`;

ruleTester.run('no-initialize-scoped-capabilities', rule, {
  valid: [
    `import { McpServer, CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('deploy', {}, async (ctx) => {
  const caps = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return { content: [{ type: 'text', text: String(caps) }] };
});`,
    `const browser = { getClientCapabilities: () => ({ webgl: true }) };
export const caps = browser.getClientCapabilities();`,
  ],
  invalid: [
    { code: v2Guard, errors: [{ messageId: 'migratable', ...at(v2Guard, 'server.server.getClientCapabilities') }] },
    { code: v1Helper, errors: [{ messageId: 'refused', ...at(v1Helper, 'server.getClientCapabilities') }] },
    { code: destructured, errors: [{ messageId: 'refused', ...at(destructured, 'server.server.getClientCapabilities') }] },
    { code: atStartup, errors: [{ messageId: 'refused', ...at(atStartup, 'server.server.getClientCapabilities') }] },
  ],
});

typedRuleTester.run('no-initialize-scoped-capabilities (typed)', rule, {
  valid: [],
  invalid: [{ filename: TYPED_FILE, code: v2Guard, errors: [{ messageId: 'migratable', ...at(v2Guard, 'server.server.getClientCapabilities') }] }],
});
