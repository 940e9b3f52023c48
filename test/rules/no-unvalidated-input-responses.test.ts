import rule from '../../rules/no-unvalidated-input-responses.js';
import { at, ruleTester, TYPED_FILE, typedRuleTester } from './ruleTester.js';

const wrap = (body: string, imports = 'McpServer, inputRequired'): string => `import { ${imports} } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('delete', {}, async (ctx) => {
  ${body}
  return { content: [] };
});`;

const bracketCast = wrap("const answer = ctx.mcpReq.inputResponses?.['confirm'] as { action: string };");
const dotRead = wrap('const answer = ctx.mcpReq.inputResponses!.confirm;');
const contentRead = wrap("const content = (ctx.mcpReq.inputResponses?.confirm as { content?: { ok: boolean } })?.content;");
const contentReadFixed = wrap("const content = acceptedContent(ctx.mcpReq.inputResponses, 'confirm');", 'McpServer, inputRequired, acceptedContent');
const alias = wrap('const responses = ctx.mcpReq.inputResponses ?? {};\n  const answer = responses.confirm;');
const destructuredName = wrap("const { inputResponses } = ctx.mcpReq;\n  const answer = inputResponses?.['confirm'];");
const destructuredEntries = wrap('const { confirm } = ctx.mcpReq.inputResponses ?? {};');
const castRecord = wrap('const all = ctx.mcpReq.inputResponses as Record<string, { action: string }>;');

// No import from the server package yet: the suggestion adds one.
const noImport = `export async function read(ctx: { mcpReq: { inputResponses?: Record<string, unknown> } }) {
  return (ctx.mcpReq.inputResponses?.confirm as { content?: object })?.content;
}`;
const noImportFixed = `import { acceptedContent } from '@modelcontextprotocol/server';
export async function read(ctx: { mcpReq: { inputResponses?: Record<string, unknown> } }) {
  return acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
}`;

ruleTester.run('no-unvalidated-input-responses', rule, {
  valid: [
    wrap("const ok = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', schema);", 'McpServer, acceptedContent, inputRequired'),
    wrap("const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');\n  if (view.kind === 'elicit') console.log(view.action);", 'McpServer, inputResponse, inputRequired'),
    wrap("const responses = ctx.mcpReq.inputResponses;\n  const ok = acceptedContent(responses, 'confirm');", 'McpServer, acceptedContent, inputRequired'),
    wrap("const keys = Object.keys(ctx.mcpReq.inputResponses ?? {});\n  const has = ctx.mcpReq.inputResponses?.hasOwnProperty('confirm');"),
    // Other objects' properties of the same name as an entry.
    `export const confirm = { inputs: { confirm: true } }.inputs.confirm;`,
  ],
  invalid: [
    { code: bracketCast, errors: [{ messageId: 'castEntry', ...at(bracketCast, 'ctx.mcpReq.inputResponses') }] },
    { code: dotRead, errors: [{ messageId: 'directRead', ...at(dotRead, 'ctx.mcpReq.inputResponses') }] },
    {
      code: contentRead,
      errors: [{
        messageId: 'castEntry',
        ...at(contentRead, 'ctx.mcpReq.inputResponses'),
        suggestions: [{ messageId: 'useAcceptedContent', data: { responses: 'ctx.mcpReq.inputResponses', key: 'confirm' }, output: contentReadFixed }],
      }],
    },
    { code: alias, errors: [{ messageId: 'directRead', ...at(alias, 'responses.confirm') }] },
    { code: destructuredName, errors: [{ messageId: 'directRead', ...at(destructuredName, "inputResponses?.['confirm']") }] },
    { code: destructuredEntries, errors: [{ messageId: 'directRead', ...at(destructuredEntries, 'confirm }') }] },
    { code: castRecord, errors: [{ messageId: 'castResponses', ...at(castRecord, 'ctx.mcpReq.inputResponses') }] },
    {
      code: noImport,
      errors: [{
        messageId: 'castEntry',
        ...at(noImport, 'ctx.mcpReq.inputResponses'),
        suggestions: [{ messageId: 'useAcceptedContent', data: { responses: 'ctx.mcpReq.inputResponses', key: 'confirm' }, output: noImportFixed }],
      }],
    },
  ],
});

typedRuleTester.run('no-unvalidated-input-responses (typed)', rule, {
  valid: [],
  invalid: [{ filename: TYPED_FILE, code: dotRead, errors: [{ messageId: 'directRead', ...at(dotRead, 'ctx.mcpReq.inputResponses') }] }],
});
