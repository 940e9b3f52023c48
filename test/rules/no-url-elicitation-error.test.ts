import rule from '../../rules/no-url-elicitation-error.js';
import { at, ruleTester, TYPED_FILE, typedRuleTester } from './ruleTester.js';

const v1Throw = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
const server = new McpServer({ name: 'demo', version: '1.0.0' });
server.tool('connect', async () => {
  throw new UrlElicitationRequiredError([{ mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e1' }]);
});`;

const v2Throw = `import { McpServer, UrlElicitationRequiredError } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('pay', {}, async () => {
  throw new UrlElicitationRequiredError([{ mode: 'url', message: 'Pay', url: 'https://example.com/pay', elicitationId: 'p1' }]);
});`;

// A pushed URL question with a throwaway id: rewritten as inputRequired.elicitUrl().
const v2UrlMode = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('pay', {}, async (ctx) => {
  await ctx.mcpReq.elicitInput({ mode: 'url', message: 'Pay', url: 'https://example.com/pay', elicitationId: 'p1' });
  return { content: [] };
});`;

// Its id is used again (the payment is looked up under it): refused.
const v2UrlModeTracked = `import { McpServer } from '@modelcontextprotocol/server';
declare const payments: { settled(id: string): boolean };
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('pay', {}, async (ctx) => {
  const id = 'p1';
  await ctx.mcpReq.elicitInput({ mode: 'url', message: 'Pay', url: 'https://example.com/pay', elicitationId: id });
  return { content: [{ type: 'text', text: String(payments.settled(id)) }] };
});`;

// Several URLs in one error: one question per round, so it stays refused.
const v2TwoUrls = `import { McpServer, UrlElicitationRequiredError } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('link', {}, async () => {
  throw new UrlElicitationRequiredError([
    { mode: 'url', message: 'Sign in to A', url: 'https://a.example.com', elicitationId: 'a' },
    { mode: 'url', message: 'Sign in to B', url: 'https://b.example.com', elicitationId: 'b' },
  ]);
});`;

const DECLINE_NOTE = "the URL travels as an inputRequired.elicitUrl() question; accepted, the handler runs again from the top, as the 2025 client's retry after -32042 did; " +
  'declined or cancelled, the call fails with the error\'s message (2026-07-28 has no -32042 error), where the 2025 client would have stopped with the -32042 error';

ruleTester.run('no-url-elicitation-error', rule, {
  valid: [
    // An application error class of the same name is not the SDK's.
    `class UrlElicitationRequiredError extends Error {}
export function fail() { throw new UrlElicitationRequiredError('x'); }`,
    `import { McpServer, inputRequired } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('pay', {}, async () => inputRequired({ inputRequests: { pay: inputRequired.elicitUrl({ message: 'Pay', url: 'https://example.com/pay' }) } }));`,
  ],
  invalid: [
    { code: v1Throw, errors: [{ messageId: 'migratableForReview', ...at(v1Throw, 'new UrlElicitationRequiredError') }] },
    {
      code: v2Throw,
      errors: [{ messageId: 'migratableForReview', ...at(v2Throw, 'new UrlElicitationRequiredError'), data: { call: 'new UrlElicitationRequiredError()', notes: DECLINE_NOTE } }],
    },
    { code: v2TwoUrls, errors: [{ messageId: 'refused', ...at(v2TwoUrls, 'new UrlElicitationRequiredError') }] },
    { code: v2UrlMode, errors: [{ messageId: 'migratable', ...at(v2UrlMode, 'ctx.mcpReq.elicitInput') }] },
    { code: v2UrlModeTracked, errors: [{ messageId: 'refused', ...at(v2UrlModeTracked, 'ctx.mcpReq.elicitInput') }] },
  ],
});

typedRuleTester.run('no-url-elicitation-error (typed)', rule, {
  valid: [],
  invalid: [{ filename: TYPED_FILE, code: v2Throw, errors: [{ messageId: 'migratableForReview', ...at(v2Throw, 'new UrlElicitationRequiredError') }] }],
});
