import rule from '../../rules/require-request-state-integrity.js';
import { at, ruleTester, TYPED_FILE, typedRuleTester } from './ruleTester.js';

const header = `import { McpServer, createRequestStateCodec, inputRequired } from '@modelcontextprotocol/server';
const codec = createRequestStateCodec<{ step: string }>({ key: process.env.MCP_REQUEST_STATE_KEY! });
`;
const verifiedServer = `const server = new McpServer({ name: 'demo', version: '2.0.0' }, { requestState: { verify: codec.verify } });
`;

/** A tool returning `inputRequired({ requestState: <state> })`, on a server built with verify. */
function toolReturning(state: string, prelude = ''): string {
  return `${header}${verifiedServer}server.registerTool('delete', {}, async (ctx) => {
  ${prelude}return inputRequired({ requestState: ${state} });
});`;
}

const json = toolReturning('JSON.stringify({ step: "confirm" })');
const btoaJson = toolReturning('btoa(JSON.stringify({ step: "confirm" }))');
const bufferJson = toolReturning("Buffer.from(JSON.stringify({ step: 'confirm' })).toString('base64url')");
const template = toolReturning('`confirm:${ctx.mcpReq.id}`');
const viaLocal = toolReturning('state', 'const state = JSON.stringify({ step: "confirm" });\n  ');
const literal = toolReturning("'confirm'");

const handBuilt = `${header}${verifiedServer}server.registerTool('delete', {}, async () => ({
  resultType: 'input_required',
  requestState: JSON.stringify({ step: 'confirm' }),
}));`;

const namespaceImport = `import * as mcp from '@modelcontextprotocol/server';
const codec = mcp.createRequestStateCodec({ key: 'k'.repeat(32) });
const server = new mcp.McpServer({ name: 'demo', version: '2.0.0' }, { requestState: { verify: codec.verify } });
server.registerTool('delete', {}, async () => mcp.inputRequired({ requestState: 'step-2' }));`;

const mintedNoVerify = `${header}const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('delete', {}, async (ctx) => inputRequired({ requestState: await codec.mint({ step: 'confirm' }, ctx) }));`;

const lowLevelNoVerify = `import { Server, createRequestStateCodec, inputRequired } from '@modelcontextprotocol/server';
const codec = createRequestStateCodec({ key: process.env.MCP_REQUEST_STATE_KEY! });
const server = new Server({ name: 'demo', version: '2.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/call', async (request, ctx) => inputRequired({ requestState: await codec.mint({ step: 1 }, ctx) }));`;

// A server built from the file's own subclass of the SDK's class (at any depth).
const subclassVerified = `${header}class AppServer extends McpServer {}
const BranchServer = class extends AppServer {};
const server = new BranchServer({ name: 'demo', version: '2.0.0' }, { requestState: { verify: codec.verify } });
server.registerTool('delete', {}, async (ctx) => inputRequired({ requestState: await codec.mint({ step: 'confirm' }, ctx) }));`;
const subclassNoVerify = subclassVerified.replace(", { requestState: { verify: codec.verify } }", '');

// Handlers in their own module: the server (and its verify hook) is built elsewhere.
const handlersOnly = `import { inputRequired, type McpServer, type RequestStateCodec } from '@modelcontextprotocol/server';
export function register(server: McpServer, codec: RequestStateCodec<{ step: string }>) {
  server.registerTool('delete', {}, async (ctx) => inputRequired({ requestState: await codec.mint({ step: 'confirm' }, ctx) }));
}`;

/** The layout mrtr-migrate generates when a server's tools live in other files: the codec is imported from the project. */
const importedCodec = `import { inputRequired, type McpServer } from '@modelcontextprotocol/server';
import { requestStateCodec } from './requestState.js';
export function register(server: McpServer) {
  server.registerTool('delete', {}, async (ctx) => inputRequired({ requestState: await requestStateCodec.mint({ step: 'confirm' }, ctx) }));
}`;
/** The same from mrtr-migrate's runtime (--runtime package), which the server's file wires in. */
const runtimeCodec = importedCodec.replace("'./requestState.js'", "'mrtr-migrate/runtime'");
/** The same from a package: not a module of the project, so nothing says where it is verified. */
const packageCodec = importedCodec.replace("'./requestState.js'", "'some-codec-package'");

ruleTester.run('require-request-state-integrity', rule, {
  valid: [
    importedCodec,
    runtimeCodec,
    toolReturning('await codec.mint({ step: "confirm" }, ctx)'),
    toolReturning('state', 'const state = await codec.mint({ step: "confirm" }, ctx);\n  '),
    // Shorthand property, minted by a codec stored on a class.
    `${header}${verifiedServer}class Tools { codec = codec; async run(ctx: any) { const requestState = await this.codec.mint({ step: 'a' }, ctx); return inputRequired({ requestState }); } }`,
    // Options held in a const.
    `${header}const options = { requestState: { verify: codec.verify } };
const server = new McpServer({ name: 'demo', version: '2.0.0' }, options);
server.registerTool('t', {}, async (ctx) => inputRequired({ requestState: await codec.mint({ step: 'a' }, ctx) }));`,
    // Options the rule cannot see into are given the benefit of the doubt.
    `${header}export function build(options: any) {
  const server = new McpServer({ name: 'demo', version: '2.0.0' }, options);
  server.registerTool('t', {}, async (ctx) => inputRequired({ requestState: await codec.mint({ step: 'a' }, ctx) }));
}`,
    // A state that comes from elsewhere (a parameter) may be signed there.
    toolReturning('signed', 'const signed = ctx.mcpReq.requestState<string>()!;\n  '),
    // Only questions, no state: nothing to protect.
    `import { inputRequired } from '@modelcontextprotocol/server';
export const ask = () => inputRequired({ inputRequests: { ok: inputRequired.listRoots() } });`,
    // Not the SDK's inputRequired.
    `function inputRequired(x: { requestState: string }) { return x; }
export const r = inputRequired({ requestState: JSON.stringify({ a: 1 }) });`,
    { code: handlersOnly, options: [{ allowVerifyElsewhere: true }] },
    subclassVerified,
  ],
  invalid: [
    { code: json, errors: [{ messageId: 'unprotectedState', ...at(json, 'JSON.stringify') }] },
    { code: btoaJson, errors: [{ messageId: 'unprotectedState', ...at(btoaJson, 'btoa(') }] },
    { code: bufferJson, errors: [{ messageId: 'unprotectedState', ...at(bufferJson, 'Buffer.from') }] },
    { code: template, errors: [{ messageId: 'unprotectedState', ...at(template, '`confirm:') }] },
    { code: viaLocal, errors: [{ messageId: 'unprotectedState', ...at(viaLocal, 'state }') }] },
    { code: literal, errors: [{ messageId: 'unprotectedState', ...at(literal, "'confirm'") }] },
    { code: handBuilt, errors: [{ messageId: 'unprotectedState', ...at(handBuilt, 'JSON.stringify') }] },
    { code: namespaceImport, errors: [{ messageId: 'unprotectedState', ...at(namespaceImport, "'step-2'") }] },
    { code: mintedNoVerify, errors: [{ messageId: 'serverWithoutVerify', ...at(mintedNoVerify, 'new McpServer') }] },
    { code: lowLevelNoVerify, errors: [{ messageId: 'serverWithoutVerify', ...at(lowLevelNoVerify, 'new Server') }] },
    { code: subclassNoVerify, errors: [{ messageId: 'serverWithoutVerify', ...at(subclassNoVerify, 'new BranchServer') }] },
    { code: handlersOnly, errors: [{ messageId: 'noVerifiedServer', ...at(handlersOnly, 'requestState:') }] },
    { code: packageCodec, errors: [{ messageId: 'noVerifiedServer', ...at(packageCodec, 'requestState:') }] },
  ],
});

typedRuleTester.run('require-request-state-integrity (typed)', rule, {
  valid: [{ filename: TYPED_FILE, code: toolReturning('await codec.mint({ step: "confirm" }, ctx)') }],
  invalid: [{ filename: TYPED_FILE, code: json, errors: [{ messageId: 'unprotectedState', ...at(json, 'JSON.stringify') }] }],
});
