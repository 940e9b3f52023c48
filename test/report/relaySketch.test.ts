import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { RELAY_SKETCH_IMPORTS, relaySketch } from '../../src/report/relaySketch.js';
import { REPO, tempProject } from '../project/tempProject.js';

/**
 * The pass-through the report shows for a relay, run as written: a gateway whose tool body is the
 * sketch, between a client on the 2026-07-28 era and an upstream server that asks a question.
 */
const MODULE = `import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
${RELAY_SKETCH_IMPORTS}

const pin = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

export async function run(): Promise<{ asked: unknown[]; text: unknown }> {
  const upstreamServing = createMcpHandler(() => {
    const server = new McpServer({ name: 'upstream', version: '1.0.0' });
    server.registerTool('drop_table', { inputSchema: z.object({ table: z.string() }) }, async ({ table }, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.['confirm'] as { action?: string } | undefined;
      if (!answer) {
        const confirm = inputRequired.elicit({ mode: 'form', message: \`Drop \${table}?\`, requestedSchema: { type: 'object', properties: {} } });
        return inputRequired({ inputRequests: { confirm }, requestState: 'upstream-state' });
      }
      return { content: [{ type: 'text', text: \`\${table}: \${answer.action}, state \${ctx.mcpReq.requestState<string>()}\` }] };
    });
    return server;
  });
  const upstream = new Client({ name: 'gateway', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, inputRequired: { autoFulfill: false }, ...pin });
  await upstream.connect(new StreamableHTTPClientTransport(new URL('http://upstream.test/mcp'), { fetch: (url, init) => upstreamServing.fetch(new Request(url, init)) }));

  const gatewayServing = createMcpHandler(() => {
    const server = new McpServer({ name: 'gateway', version: '1.0.0' });
    server.registerTool('drop_table', { inputSchema: z.object({ table: z.string() }) }, async (args, ctx) => {
${relaySketch('drop_table').split('\n').map(line => `      ${line}`).join('\n')}
    });
    return server;
  });
  const asked: unknown[] = [];
  const user = new Client({ name: 'user', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, ...pin });
  user.setRequestHandler('elicitation/create', async request => {
    asked.push(request.params);
    return { action: 'accept', content: {} };
  });
  await user.connect(new StreamableHTTPClientTransport(new URL('http://gateway.test/mcp'), { fetch: (url, init) => gatewayServing.fetch(new Request(url, init)) }));
  const result = await user.callTool({ name: 'drop_table', arguments: { table: 'users' } });
  await user.close();
  await upstream.close();
  await gatewayServing.close();
  await upstreamServing.close();
  return { asked, text: (result.content as Array<{ text?: string }>)[0]?.text };
}
`;

it('the relay pass-through sketch type-checks and carries the upstream question, answer and state through the gateway', async () => {
  const dir = tempProject('relay-sketch');
  const file = join(dir, 'gateway.ts');
  writeFileSync(file, MODULE);
  const options = ts.parseJsonConfigFileContent(ts.readConfigFile(join(REPO, 'test', 'equivalence', 'tsconfig.fixtures.json'), ts.sys.readFile).config, ts.sys, dir).options;
  const program = ts.createProgram({ rootNames: [file], options: { ...options, lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'] } });
  const errors = ts.getPreEmitDiagnostics(program).map(d => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(errors).toEqual([]);
  const js = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  writeFileSync(join(dir, 'gateway.mjs'), js);
  const { run } = (await import(pathToFileURL(join(dir, 'gateway.mjs')).href)) as { run: () => Promise<{ asked: unknown[]; text: unknown }> };
  const { asked, text } = await run();
  expect(asked).toEqual([{ mode: 'form', message: 'Drop users?', requestedSchema: { type: 'object', properties: {} } }]);
  expect(text).toBe('users: accept, state upstream-state');
});
