import rule from '../../rules/no-secrets-in-request-state.js';
import { at, ruleTester, TYPED_FILE, typedRuleTester } from './ruleTester.js';

const header = `import { McpServer, createRequestStateCodec, inputRequired } from '@modelcontextprotocol/server';
const codec = createRequestStateCodec({ key: process.env.MCP_REQUEST_STATE_KEY! });
const server = new McpServer({ name: 'demo', version: '2.0.0' }, { requestState: { verify: codec.verify } });
`;
const tool = (body: string): string => `${header}server.registerTool('deploy', {}, async (ctx) => {
  ${body}
});`;

const tokenFromAuth = tool("return inputRequired({ requestState: await codec.mint({ step: 'confirm', token: ctx.http?.authInfo?.token }, ctx) });");
const apiKeyShorthand = tool("const apiKey = process.env.DEPLOY_API_KEY;\n  return inputRequired({ requestState: await codec.mint({ step: 'confirm', apiKey }, ctx) });");
const authInfoWhole = tool("return inputRequired({ requestState: await codec.mint({ step: 'confirm', auth: ctx.http?.authInfo }, ctx) });");
const viaLocalPayload = tool("const payload = { step: 'confirm', user: { name: 'a', password: 'hunter2' } };\n  return inputRequired({ requestState: await codec.mint(payload, ctx) });");
const inPlainState = tool("const session_key = 'abc';\n  return inputRequired({ requestState: JSON.stringify({ step: 'confirm', value: session_key }) });");
const headerRead = `import { createRequestStateCodec } from '@modelcontextprotocol/server';
const codec = createRequestStateCodec({ key: 'k'.repeat(32) });
export const mintFor = (req: { headers: Record<string, string> }) => codec.mint({ forward: req.headers['authorization'] });`;
const vaultRead = tool("declare const vault: { read(path: string): Promise<string> };\n  const upstream = await vault.read('registry/push');\n  return inputRequired({ requestState: await codec.mint({ step: 'confirm', upstream }, ctx) });");
const secretCall = tool("return inputRequired({ requestState: await codec.mint({ step: 'confirm', upstream: await getAccessToken() }, ctx) });\n  async function getAccessToken() { return 't'; }");

ruleTester.run('no-secrets-in-request-state', rule, {
  valid: [
    // Facts about tokens are not tokens; a principal id and a digest are fine.
    tool("return inputRequired({ requestState: await codec.mint({ step: 'confirm', maxTokens: 200, tokenCount: 3, clientId: ctx.http?.authInfo?.clientId, digest: hash(ctx.http?.authInfo?.token) }, ctx) });"),
    tool("declare const catalog: { read(id: string): Promise<string> };\n  const entry = await catalog.read('x');\n  return inputRequired({ requestState: await codec.mint({ step: 'confirm', entry }, ctx) });"),
    tool("const ids = ['a'];\n  return inputRequired({ requestState: await codec.mint({ step: 'confirm', ids }, ctx) });"),
    // `mint` on something else, in a file that does not use the MCP SDK.
    `declare const nft: { mint(x: object): void };
nft.mint({ token: 'abc', owner: 'me' });`,
  ],
  invalid: [
    { code: tokenFromAuth, errors: [{ messageId: 'secretInState', ...at(tokenFromAuth, 'token: ctx') }] },
    { code: apiKeyShorthand, errors: [{ messageId: 'secretInState', ...at(apiKeyShorthand, 'apiKey }') }] },
    { code: authInfoWhole, errors: [{ messageId: 'authInfoInState', ...at(authInfoWhole, 'ctx.http?.authInfo') }] },
    { code: viaLocalPayload, errors: [{ messageId: 'secretInState', ...at(viaLocalPayload, 'password') }] },
    { code: inPlainState, errors: [{ messageId: 'secretInState', ...at(inPlainState, 'session_key }') }] },
    { code: headerRead, errors: [{ messageId: 'secretInState', ...at(headerRead, "req.headers['authorization']") }] },
    { code: vaultRead, errors: [{ messageId: 'secretInState', ...at(vaultRead, "vault.read('registry/push')") }] },
    { code: secretCall, errors: [{ messageId: 'secretInState', ...at(secretCall, 'getAccessToken()') }] },
  ],
});

typedRuleTester.run('no-secrets-in-request-state (typed)', rule, {
  valid: [],
  invalid: [{ filename: TYPED_FILE, code: tokenFromAuth, errors: [{ messageId: 'secretInState', ...at(tokenFromAuth, 'token: ctx') }] }],
});
