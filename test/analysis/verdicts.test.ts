import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile, mightContainSites, ProjectIndex, type FileAnalysis, type Site } from '../../src/analysis/index.js';
import { readExpectations, verdictNotation } from '../helpers/expectations.js';
import { analyzeBoth, analyzeSnippet, createFixtureProgram, FIXTURES, fixtureFiles, snippetsProgram, ts } from './harness.js';

const V2 = [
  "import { McpServer, Server } from '@modelcontextprotocol/server';",
  "import * as z from 'zod/v4';",
  "const server = new McpServer({ name: 't', version: '1' });",
];
const FORM = "{ message: 'ok?', requestedSchema: { type: 'object' as const, properties: {} } }";

const verdicts = (analysis: FileAnalysis): string[] => analysis.sites.map(s => `${s.line} ${verdictNotation(s.verdict)}`);
const hint = (site: Site): string => (site.verdict.kind === 'refuse' ? site.verdict.hint : '');

describe('verdict order: the first reason that applies is the one reported', () => {
  it('no live request comes before everything about the code around the question', () => {
    const { typed, untyped } = analyzeBoth([
      ...V2,
      'server.server.oninitialized = async () => {',
      `  for (let i = 0; i < 3; i++) await server.server.elicitInput(${FORM}, { timeout: 1 });`,
      '};',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['5 refuse:no-live-request']);
    expect(verdicts(untyped)).toEqual(['5 refuse:no-live-request']);
  });

  it('a relay, inside a request handler of an MCP client, comes before loops; by the v1 schema or the v2 method', () => {
    const v1 = analyzeBoth([
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
      "import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';",
      "const server = new McpServer({ name: 'g', version: '1' });",
      "const upstream = new Client({ name: 'u', version: '1' });",
      'upstream.setRequestHandler(ElicitRequestSchema, async (request) => {',
      '  for (let i = 0; i < 2; i++) await server.server.elicitInput(request.params);',
      "  return { action: 'decline' as const };",
      '});',
    ].join('\n'));
    expect(verdicts(v1.typed)).toEqual(['7 refuse:relay']);
    expect(verdicts(v1.untyped)).toEqual(['7 refuse:relay']);
    expect(hint(v1.typed.sites[0]!)).toMatch(/^inside the elicitation\/create request an upstream server sent to this process's MCP client; pass the question through instead/);
    const v2 = analyzeBoth([
      ...V2,
      "import { Client } from '@modelcontextprotocol/client';",
      "const upstream = new Client({ name: 'u', version: '1' });",
      "upstream.setRequestHandler('roots/list', async () => ({ roots: (await server.server.listRoots()).roots }));",
    ].join('\n'));
    expect(verdicts(v2.typed)).toEqual(['6 refuse:relay']);
  });

  it('a helper handed to a timer by name, and called nowhere, is a detached task that names the timer', () => {
    const { typed, untyped } = analyzeBoth([
      ...V2,
      'let known: string[] = [];',
      'async function syncRoots(): Promise<void> {',
      '  const { roots } = await server.server.listRoots();',
      '  known = roots.map(r => r.uri);',
      '}',
      'setInterval(syncRoots, 60_000);',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['6 refuse:detached-task']);
    expect(verdicts(untyped)).toEqual(['6 refuse:detached-task']);
    expect(hint(typed.sites[0]!)).toMatch(/^syncRoots runs later, from setInterval\(\) \(line 9\), after any request may have finished; /);
  });

  it('a handler kind that cannot ask comes before loops', () => {
    const { typed } = analyzeBoth([
      ...V2,
      "const low = new Server({ name: 'l', version: '1' });",
      "low.setRequestHandler('prompts/list', async () => {",
      '  for (let i = 0; i < 3; i++) await low.listRoots();',
      '  return { prompts: [] };',
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['6 refuse:handler-kind']);
  });

  describe('a helper with callers that refuse for different reasons reports the decisive one (src/analysis/reasons.ts)', () => {
    const helper = [
      ...V2,
      "import { Client } from '@modelcontextprotocol/client';",
      "const low = new Server({ name: 'l', version: '1' });",
      "const upstream = new Client({ name: 'u', version: '1' });",
      'async function ask(): Promise<string> {',
      `  const answer = await low.elicitInput(${FORM});`,
      '  return answer.action;',
      '}',
    ];
    const CALLERS = {
      subscribe: "low.setRequestHandler('resources/subscribe', async () => { await ask(); return {}; });",
      relay: "upstream.setRequestHandler('elicitation/create', async () => { await ask(); return { action: 'decline' as const }; });",
      voided: "server.registerTool('v', {}, async () => { void ask(); return { content: [] }; });",
      initialized: 'server.server.oninitialized = async () => { await ask(); };',
      timer: 'setTimeout(() => void ask(), 10);',
      dateAcross: "server.registerTool('d', {}, async () => { const at = new Date(); const a = await ask(); return { content: [{ type: 'text', text: at.toISOString() + a }] }; });",
    };
    it.each([
      ['handler-kind', 'relay', ['subscribe', 'relay'], /^ask\(\) runs in a resources\/subscribe handler, which cannot return input_required/],
      ['relay', 'fire-and-forget', ['voided', 'relay'], /^helper ask\(\) is also called at line 12, where inside the elicitation\/create request/],
      ['fire-and-forget', 'no-live-request', ['initialized', 'voided'], /^helper ask\(\) is started at line 12 and never awaited, so the request may be gone when it asks/],
      ['detached-task', 'no-live-request', ['initialized', 'timer'], /^ask is only called outside requests: __snippet__\.ts:12 \(runs later, from setTimeout\(\).*; __snippet__\.ts:11 \(oninitialized runs outside any request\)/],
      ['no-live-request', 'non-json-local', ['dateAcross', 'initialized'], /^helper ask\(\) is also called at line 12, where oninitialized runs outside any request/],
    ] as const)('%s before %s', (first, _second, callers, expected) => {
      const { typed, untyped } = analyzeBoth([...helper, ...callers.map(c => CALLERS[c])].join('\n'));
      expect(verdicts(typed)).toEqual([`8 refuse:${first}`]);
      expect(hint(typed.sites[0]!)).toMatch(expected);
      expect(verdicts(untyped)).toEqual([`8 refuse:${first}`]);
    });
  });

  it('a helper called from many places outside requests names three of them, each in a few words', () => {
    const callers = ['a', 'b', 'c', 'd'].flatMap(name => [
      `async function ${name}(): Promise<void> { await ask(); }`,
      ...[1, 2, 3, 4].map(() => `void ${name}();`),
    ]);
    const { typed } = analyzeBoth([
      ...V2,
      'async function ask(): Promise<string> {',
      `  const answer = await server.server.elicitInput(${FORM});`,
      '  return answer.action;',
      '}',
      ...callers,
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['5 refuse:no-live-request']);
    expect(hint(typed.sites[0]!)).toBe('ask is only called outside requests: __snippet__.ts:8 (a is only called outside requests); __snippet__.ts:13 (b is only called outside requests); __snippet__.ts:18 (c is only called outside requests); and 1 more; only tools/call, prompts/get and resources/read handlers can ask the client.');
  });

  it('unsupported-construct before unknown-local-type: types may show the local is JSON, the construct stays', () => {
    const { typed, untyped } = analyzeBoth([
      ...V2,
      'declare const load: () => Promise<any>;',
      "server.registerTool('t', {}, async (ctx) => {",
      '  const anything = await load();',
      `  const a = await ctx.mcpReq.elicitInput(${FORM}, { timeout: Number(process.env.WAIT) });`,
      "  return { content: [{ type: 'text', text: String(anything) + a.action }] };",
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['7 refuse:unsupported-construct']);
    expect(verdicts(untyped)).toEqual(['7 refuse:unsupported-construct']);
  });

  it('fire-and-forget and parallel come before the helper split; URL mode before loops', () => {
    const { typed } = analyzeBoth([
      ...V2,
      "import type { ServerContext } from '@modelcontextprotocol/server';",
      'async function helper(ctx: ServerContext) {',
      `  void ctx.mcpReq.elicitInput(${FORM});`,
      `  await Promise.all(['a', 'b'].map(() => ctx.mcpReq.elicitInput(${FORM})));`,
      "  await ctx.mcpReq.elicitInput({ mode: 'url', message: 'go', url: 'https://example.com', elicitationId: 'e' });",
      '}',
      "server.registerTool('t', {}, async (ctx) => {",
      '  await helper(ctx);',
      "  for (const id of ['a']) await ctx.mcpReq.elicitInput({ mode: 'url', message: id, url: 'https://example.com', elicitationId: id });",
      "  return { content: [] };",
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual([
      '6 refuse:fire-and-forget', '7 refuse:parallel', '8 refuse:unsupported-construct', '12 refuse:unsupported-construct',
    ]);
    expect(hint(typed.sites[2]!)).toMatch(/URL-mode/);
    expect(hint(typed.sites[3]!)).toMatch(/^the URL-mode elicitInput\(\) is not rewritten as its elicitationId `id` is used again \(line 12\); a 2026 URL question has no elicitationId/);
  });

  it('a question in a callback is refused wherever the callback is (in a loop, in a catch block)', () => {
    const { typed } = analyzeBoth([
      ...V2,
      "server.registerTool('t', {}, async (ctx) => {",
      '  for (const id of [1, 2]) {',
      `    await [id].reduce(async (p) => { await p; await ctx.mcpReq.elicitInput(${FORM}); }, Promise.resolve());`,
      '  }',
      '  try {',
      "    return { content: [] };",
      '  } catch {',
      `    await [1].reduce(async (p) => { await p; await ctx.mcpReq.elicitInput(${FORM}); }, Promise.resolve());`,
      "    return { content: [] };",
      '  }',
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['6 refuse:nested-callback', '11 refuse:nested-callback']);
  });

  it('a local that cannot travel comes before call options and an unknown server (unsupported-construct, server-not-found)', () => {
    const prelude = [...V2, "const low = new Server({ name: 'l', version: '1' });"];
    const withOptions = (local: string, read: string) => analyzeSnippet([
      ...prelude,
      "server.registerTool('t', {}, async (ctx) => {",
      `  const at = ${local};`,
      '  const a = await ctx.mcpReq.elicitInput(' + FORM + ', { timeout: Number(process.env.WAIT) });',
      `  return { content: [{ type: 'text', text: ${read} + a.action }] };`,
      '});',
    ].join('\n'), { typed: true });
    const options = withOptions('new Date()', 'at.toISOString()');
    expect(verdicts(options)).toEqual(['7 refuse:non-json-local']);
    // Without the Date, the option is the obstacle.
    const optionsAlone = withOptions('Date.now()', 'String(at)');
    expect(verdicts(optionsAlone)).toEqual(['7 refuse:unsupported-construct']);
    expect(hint(optionsAlone.sites[0]!)).toMatch(/call option timeout's value \(`Number\(process\.env\.WAIT\)`\) would be dropped/);

    // A guard no longer blocks its handler: the question's own problem (the Date local) is reported, and the guard waits with it.
    const guard = analyzeSnippet([
      ...prelude,
      "server.registerTool('t', {}, async (ctx) => {",
      '  const at = new Date();',
      "  if (!low.getClientCapabilities()?.elicitation) return { content: [] };",
      `  const a = await ctx.mcpReq.elicitInput(${FORM});`,
      "  return { content: [{ type: 'text', text: at.toISOString() + a.action }] };",
      '});',
    ].join('\n'), { typed: true });
    expect(verdicts(guard)).toEqual(['7 refuse:blocked-by-sibling', '8 refuse:non-json-local']);

    const elsewhere = analyzeSnippet([
      ...prelude,
      "export function register(external: McpServer) {",
      "  external.registerTool('t', {}, async (ctx) => {",
      '    const at = new Date();',
      `    const a = await ctx.mcpReq.elicitInput(${FORM});`,
      "    return { content: [{ type: 'text', text: at.toISOString() + a.action }] };",
      '  });',
      '}',
    ].join('\n'), { typed: true });
    expect(verdicts(elsewhere)).toEqual(['8 refuse:non-json-local']);
    const elsewhereAlone = analyzeSnippet([
      ...prelude,
      'export function register(external: McpServer) {',
      "  external.registerTool('t', {}, async (ctx) => {",
      `    const a = await ctx.mcpReq.elicitInput(${FORM});`,
      "    return { content: [{ type: 'text', text: a.action }] };",
      '  });',
      '}',
    ].join('\n'), { typed: true });
    expect(verdicts(elsewhereAlone)).toEqual(['7 refuse:server-not-found']);
  });

  it('a non-JSON local comes before one of unknown type; review comes last', () => {
    const text = [
      ...V2,
      'declare const load: () => Promise<any>;',
      "server.registerTool('t', {}, async (ctx) => {",
      '  const anything = await load();',
      '  const at = new Date();',
      `  const a = await ctx.mcpReq.elicitInput(${FORM});`,
      "  return { content: [{ type: 'text', text: String(anything) + at.toISOString() + a.action }] };",
      '});',
    ].join('\n');
    const { typed, untyped } = analyzeBoth(text);
    expect(verdicts(typed)).toEqual(['8 refuse:non-json-local']);
    expect(hint(typed.sites[0]!)).toMatch(/`at` \(Date\)/);
    expect(verdicts(untyped)).toEqual(['8 refuse:unknown-local-type']);
    expect(hint(untyped.sites[0]!)).toMatch(/`anything`/);
  });
});

describe('call options', () => {
  const notes = (site: Site): string[] => (site.verdict.kind === 'migrate' ? site.verdict.notes : []);
  const handler = (...body: string[]): string => [...V2, "server.registerTool('t', {}, async (ctx) => {", ...body, '});'].join('\n');

  it('are dropped with one note per option, and reading them does not make a local live', () => {
    const { typed, untyped } = analyzeBoth(handler(
      '  const controller = new AbortController();',
      '  const wait = 30_000;',
      `  const a = await ctx.mcpReq.elicitInput(${FORM}, { timeout: wait * 2, signal: controller.signal, relatedRequestId: ctx.mcpReq.id });`,
      "  return { content: [{ type: 'text', text: a.action }] };",
    ));
    for (const analysis of [typed, untyped]) {
      expect(verdicts(analysis)).toEqual(['7 review']);
      const site = analysis.sites[0]!;
      expect(site.callOptions).toEqual(['timeout', 'signal', 'relatedRequestId']);
      expect(site.liveLocals).toEqual([]);
      expect(notes(site)).toEqual([
        expect.stringMatching(/^side effects before the question .*new AbortController\(\)/),
        expect.stringMatching(/^timeout dropped: there is no per-question wait any more; .*requestState TTL/),
        expect.stringMatching(/^signal dropped: .*cancelling the tool call \(ctx\.mcpReq\.signal\) ends the flow/),
        expect.stringMatching(/^relatedRequestId dropped: the question now travels in the result of the call itself/),
      ]);
      expect(analysis.plans).toHaveLength(1);
    }
  });

  it('passed as a constant are read from its initializer, or from its type', () => {
    const { typed, untyped } = analyzeBoth(handler(
      '  const opts = { timeout: 5_000 };',
      `  const a = await ctx.mcpReq.elicitInput(${FORM}, opts);`,
      "  return { content: [{ type: 'text', text: a.action }] };",
    ));
    expect(verdicts(typed)).toEqual(['6 review']);
    expect(verdicts(untyped)).toEqual(['6 review']);
    expect(notes(typed.sites[0]!)).toEqual([expect.stringMatching(/^timeout dropped/)]);

    const param = [
      ...V2,
      "import type { RequestOptions, ServerContext } from '@modelcontextprotocol/server';",
      'async function ask(ctx: ServerContext, opts: { timeout: number }) {',
      `  const a = await ctx.mcpReq.elicitInput(${FORM}, opts);`,
      '  return a;',
      '}',
      "server.registerTool('t', {}, async (ctx) => ({ content: [{ type: 'text', text: (await ask(ctx, { timeout: 1 })).action }] }));",
      'export type { RequestOptions };',
    ].join('\n');
    // Asked in a helper (refused for that), but the options themselves are judged from the type.
    const viaType = analyzeBoth(param);
    expect(viaType.typed.sites[0]!.callOptions).toEqual(['timeout']);
    expect(viaType.untyped.sites[0]!.callOptions).toEqual(['<opts>']);
  });

  it('are not an inline result schema: `send(request, z.object({...}).passthrough() as any)` takes a schema second, as in the conformance server', () => {
    const { typed, untyped } = analyzeBoth(handler(
      "  const r = await ctx.mcpReq.send({ method: 'elicitation/create', params: { mode: 'form', message: 'ok?', requestedSchema: { type: 'object', properties: {} } } }, z.object({ action: z.string() }).passthrough() as any);",
      "  return { content: [{ type: 'text', text: String(r.action) }] };",
    ));
    for (const analysis of [typed, untyped]) {
      expect(analysis.sites[0]!.callOptions).toEqual([]);
      expect(hint(analysis.sites[0]!)).not.toMatch(/call options/);
    }
  });

  // Options that tie the question to a task (`task`, `relatedTask`) are refused task-augmented: test/analysis/taskAugmented.test.ts.
  it('stay refused when dropping them is not safe or has no MRTR meaning', () => {
    const cases: Array<[string, RegExp]> = [
      ['{ timeout: computeWait() }', /call option timeout's value \(`computeWait\(\)`\) would be dropped with the call and may have side effects/],
      ['{ ...defaults }', /spread another object/],
      ['makeOptions()', /computed by an expression the rewrite would drop/],
      ['{ retries: 3 }', /call option retries is not a known request option/],
    ];
    for (const [options, expected] of cases) {
      const { typed, untyped } = analyzeBoth(handler(
        'const defaults = { timeout: 1 };',
        `  const a = await ctx.mcpReq.elicitInput(${FORM}, ${options});`,
        "  return { content: [{ type: 'text', text: a.action }] };",
      ).replace("server.registerTool", 'declare function computeWait(): number;\ndeclare function makeOptions(): { timeout: number };\nserver.registerTool'));
      for (const analysis of [typed, untyped]) {
        expect(verdicts(analysis), options).toEqual(['8 refuse:unsupported-construct']);
        expect(hint(analysis.sites[0]!), options).toMatch(expected);
      }
    }
  });
});

describe('URL elicitation thrown as UrlElicitationRequiredError', () => {
  const prelude = [...V2.slice(0, 1), "import { UrlElicitationRequiredError } from '@modelcontextprotocol/server';", ...V2.slice(1), 'declare const granted: (user: string) => boolean;'];
  const ELICITATION = "{ mode: 'url', elicitationId: `c-${user}`, url: `https://auth.example.com/?state=c-${user}`, message: 'Connect' }";
  const tool = (...body: string[]): string =>
    [...prelude, "server.registerTool('connect', { inputSchema: z.object({ user: z.string() }) }, async ({ user }) => {", ...body, "  return { content: [] };", '});'].join('\n');

  it('migrates `throw new UrlElicitationRequiredError([one literal])`, for review, with what decline does', () => {
    const { typed, untyped } = analyzeBoth(tool(`  if (!granted(user)) throw new UrlElicitationRequiredError([${ELICITATION}], 'Not connected');`));
    for (const analysis of [typed, untyped]) {
      expect(verdicts(analysis)).toEqual(['7 review']);
      const verdict = analysis.sites[0]!.verdict;
      expect(verdict.kind === 'migrate' && verdict.notes).toEqual([expect.stringMatching(/accepted, the handler runs again from the top, as the 2025 client's retry after -32042 did; declined or cancelled, the call fails with the error's message/)]);
      expect(analysis.plans.map(p => [p.questions.length, p.urlThrows.length])).toEqual([[0, 1]]);
    }
  });

  it('stays refused where the returned question would not behave like the thrown error', () => {
    const cases: Array<[string[], RegExp]> = [
      [[`  try { throw new UrlElicitationRequiredError([${ELICITATION}]); } catch (e) { throw e; }`], /inside a try with a catch/],
      [[`  const error = new UrlElicitationRequiredError([${ELICITATION}]);`, '  throw error;'], /not thrown where it is built/],
      [[`  throw new UrlElicitationRequiredError([${ELICITATION}, ${ELICITATION}]);`], /one elicitation written as an array literal/],
      [['  throw new UrlElicitationRequiredError(pending(user));'], /one elicitation written as an array literal/],
      [[`  throw new UrlElicitationRequiredError([${ELICITATION}], \`Connect \${user}\`);`], /the error message is computed/],
      [["  throw new UrlElicitationRequiredError([{ mode: 'url', elicitationId: 'e', url: 'https://a.example', message: 'm', _meta: { a: 1 } }]);"], /carries `_meta`/],
      [[`  [user].forEach(u => { if (!granted(u)) throw new UrlElicitationRequiredError([${ELICITATION}]); });`], /thrown inside a callback nested in the handler/],
      [['  const answer = await ctx.mcpReq.elicitInput(' + FORM + ');', `  if (answer.action === 'accept') throw new UrlElicitationRequiredError([${ELICITATION}]);`], /also asks push-style questions/],
    ];
    for (const [body, expected] of cases) {
      const text = tool(...body).replace('async ({ user }) =>', 'async ({ user }, ctx) =>').replace('declare const granted', 'declare const pending: (user: string) => never[];\ndeclare const granted');
      const analysis = analyzeSnippet(text, { typed: true });
      const site = analysis.sites.find(s => s.kind === 'url-elicitation')!;
      expect(verdictNotation(site.verdict), body.join(' ')).toBe(expected.source.startsWith('thrown inside a callback') ? 'refuse:nested-callback' : 'refuse:unsupported-construct');
      expect(hint(site), body.join(' ')).toMatch(expected);
    }
  });
});

describe('switch dispatch (low-level tools/call)', () => {
  const LOW = [
    "import { Server } from '@modelcontextprotocol/server';",
    "const low = new Server({ name: 'l', version: '1' }, { capabilities: { tools: {} } });",
  ];
  const ASK = `await low.elicitInput({ mode: 'form', message: 'ok?', requestedSchema: { type: 'object', properties: {} } })`;

  it('questions in cases migrate: block-bodied, plain, inside an if, in default, falling through', () => {
    const { typed, untyped } = analyzeBoth([
      ...LOW,
      "low.setRequestHandler('tools/call', async (request) => {",
      '  let text = "";',
      '  switch (request.params.name) {',
      "    case 'a': {",
      `      const first = ${ASK};`,
      '      text = first.action;',
      '      break;',
      '    }',
      "    case 'b':",
      `      if (request.params.arguments) { const second = ${ASK}; text = second.action; }`,
      "    case 'c':",
      "      text += '!';",
      '      break;',
      '    default: {',
      `      const third = ${ASK};`,
      '      return { content: [{ type: "text" as const, text: third.action }] };',
      '    }',
      '  }',
      '  return { content: [{ type: "text" as const, text }] };',
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['7 migrate', '12 migrate', '17 migrate']);
    expect(verdicts(untyped)).toEqual(['7 migrate', '12 migrate', '17 migrate']);
    expect(typed.plans).toHaveLength(1);
    expect(typed.sites.every(site => site.controlFlow.includes('switch-case'))).toBe(true);
  });

  it('a write that leaves the case with break before the question is not carried (the local is declared again)', () => {
    const { typed } = analyzeBoth([
      ...LOW,
      "low.setRequestHandler('tools/call', async (request) => {",
      '  let summary: string;',
      '  switch (request.params.name) {',
      "    case 'a':",
      "      if (!request.params.arguments) { summary = 'none'; break; }",
      `      if ((${ASK}).action !== 'accept') { summary = 'declined'; break; }`,
      "      summary = 'done';",
      '      break;',
      '    default:',
      "      summary = 'unknown';",
      '  }',
      '  return { content: [{ type: "text" as const, text: summary }] };',
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['8 migrate']);
    expect(typed.sites[0]!.liveLocals.map(l => `${l.name}:${l.how}`)).toEqual(['summary:rebuild']);
  });

  it('side effects of a case that falls through into the asking case count as code before the question', () => {
    const { typed } = analyzeBoth([
      ...LOW,
      'declare const audit: { write(entry: string): void };',
      "low.setRequestHandler('tools/call', async (request) => {",
      '  switch (request.params.name) {',
      "    case 'purge':",
      "      audit.write('purge');",
      "    case 'archive': {",
      `      const answer = ${ASK};`,
      '      return { content: [{ type: "text" as const, text: answer.action }] };',
      '    }',
      "    case 'list':",
      "      audit.write('list');",
      '      break;',
      "    case 'rename': {",
      `      const answer = ${ASK};`,
      '      return { content: [{ type: "text" as const, text: answer.action }] };',
      '    }',
      '  }',
      '  return { content: [] };',
      '});',
    ].join('\n'));
    expect(typed.sites.map(site => `${site.line} ${verdictNotation(site.verdict)} ${site.sideEffectsBefore.length}`)).toEqual(['9 review 1', '16 migrate 0']);
    expect(typed.sites[0]!.verdict).toMatchObject({ review: true });
    expect(typed.sites[1]!.verdict).toMatchObject({ review: false });
  });

  it('the if / else-if dispatch migrates like any if', () => {
    const { typed, untyped } = analyzeBoth([
      ...LOW,
      "low.setRequestHandler('tools/call', async (request) => {",
      "  if (request.params.name === 'a') {",
      `    const answer = ${ASK};`,
      '    return { content: [{ type: "text" as const, text: answer.action }] };',
      "  } else if (request.params.name === 'b') {",
      `    const other = ${ASK};`,
      '    return { content: [{ type: "text" as const, text: other.action }] };',
      '  } else {',
      "    throw new Error('unknown tool');",
      '  }',
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['5 migrate', '8 migrate']);
    expect(verdicts(untyped)).toEqual(['5 migrate', '8 migrate']);
  });

  it('refuses a question in a case label, and a break in a finally block of the asking case', () => {
    const { typed } = analyzeBoth([
      ...LOW,
      "low.setRequestHandler('tools/call', async (request) => {",
      '  switch (request.params.name) {',
      `    case (${ASK}).action:`,
      '      break;',
      '  }',
      '  return { content: [] };',
      '});',
      "low.setRequestHandler('prompts/get', async (request) => {",
      '  switch (request.params.name) {',
      "    case 'p':",
      `      try { ${ASK}; } finally { break; }`,
      '  }',
      '  return { messages: [] };',
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['5 refuse:unsupported-construct', '13 refuse:unsupported-construct']);
    expect(hint(typed.sites[0]!)).toMatch(/asked in a case label/);
    expect(hint(typed.sites[1]!)).toMatch(/`break` in a finally block leaves the switch/);
  });
});

describe('blocked-by-sibling', () => {
  it('one refused question keeps every other question of the handler as it is, and the handler out of the plans', () => {
    const { typed } = analyzeBoth([
      ...V2,
      'declare function feed(): AsyncIterable<number>;',
      "server.registerTool('mixed', {}, async (ctx) => {",
      `  const first = await ctx.mcpReq.elicitInput(${FORM});`,
      `  for await (const id of feed()) await ctx.mcpReq.elicitInput(${FORM});`,
      `  const last = await ctx.mcpReq.elicitInput(${FORM});`,
      "  return { content: [{ type: 'text', text: first.action + last.action }] };",
      '});',
      "server.registerTool('clean', {}, async (ctx) => {",
      `  const a = await ctx.mcpReq.elicitInput(${FORM});`,
      "  return { content: [{ type: 'text', text: a.action }] };",
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['6 refuse:blocked-by-sibling', '7 refuse:loop', '8 refuse:blocked-by-sibling', '12 migrate']);
    expect(hint(typed.sites[0]!)).toMatch(/line 7.*\(loop\)/);
    expect(typed.plans.map(p => p.handler.name)).toEqual(['clean']);
  });

  it('a refused question in a helper the handler calls blocks the handler\'s own questions', () => {
    const { typed } = analyzeBoth([
      ...V2,
      "import type { ServerContext } from '@modelcontextprotocol/server';",
      `async function confirm(ctx: ServerContext) { return (await ctx.mcpReq.elicitInput(${FORM})).action === 'accept'; }`,
      "server.registerTool('t', {}, async (ctx) => {",
      "  if (!(await confirm(ctx))) return { content: [] };",
      `  const a = await ctx.mcpReq.elicitInput(${FORM});`,
      "  return { content: [{ type: 'text', text: a.action }] };",
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['5 refuse:unsupported-construct', '8 refuse:blocked-by-sibling']);
    expect(hint(typed.sites[1]!)).toMatch(/confirm\(\), which this handler calls/);
    expect(typed.plans).toEqual([]);
  });

  it('a question detached from the request (a timer in the handler) does not block the handler', () => {
    const { typed } = analyzeBoth([
      ...V2,
      "server.registerTool('t', {}, async (ctx) => {",
      `  setTimeout(() => void ctx.mcpReq.elicitInput(${FORM}), 1000);`,
      `  const a = await ctx.mcpReq.elicitInput(${FORM});`,
      "  return { content: [{ type: 'text', text: a.action }] };",
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['5 refuse:detached-task', '6 review']);
    expect(typed.plans).toHaveLength(1);
  });
});

describe('handler discovery', () => {
  it('finds the context parameter for every registration form', () => {
    const analysis = analyzeSnippet([
      "import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { Server } from '@modelcontextprotocol/sdk/server/index.js';",
      "import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';",
      "import { z } from 'zod';",
      "const s = new McpServer({ name: 't', version: '1' });",
      "s.tool('a', async (extra) => ({ content: [] }));",
      "s.tool('b', 'described', { q: z.string() }, async ({ q }, extra) => ({ content: [] }));",
      "s.tool('c', { readOnlyHint: true }, async (extra) => ({ content: [] }));",
      "s.registerTool('d', { description: 'no input' }, async (extra) => ({ content: [] }));",
      "s.registerTool('e', { inputSchema: { q: z.string() } }, async ({ q }, extra) => ({ content: [] }));",
      "s.prompt('f', { topic: z.string() }, async ({ topic }, extra) => ({ messages: [] }));",
      "s.registerPrompt('g', {}, async (extra) => ({ messages: [] }));",
      "s.resource('h', 'res://h', async (uri, extra) => ({ contents: [] }));",
      "s.registerResource('i', new ResourceTemplate('res://{id}', { list: undefined }), {}, async (uri, vars, extra) => ({ contents: [] }));",
      "const low = new Server({ name: 'l', version: '1' });",
      'low.setRequestHandler(CallToolRequestSchema, async (request, extra) => ({ content: [] }));',
    ].join('\n'), { typed: false });
    expect(analysis.handlers.map(h => `${h.registration} ${h.name ?? '-'} ${h.method} ctx=${h.ctxParamIndex} args=${h.argsParamIndex ?? '-'}`)).toEqual([
      'tool a tools/call ctx=0 args=-',
      'tool b tools/call ctx=1 args=0',
      'tool c tools/call ctx=0 args=-',
      'registerTool d tools/call ctx=0 args=-',
      'registerTool e tools/call ctx=1 args=0',
      'prompt f prompts/get ctx=1 args=0',
      'registerPrompt g prompts/get ctx=0 args=-',
      'resource h resources/read ctx=1 args=0',
      'registerResource i resources/read ctx=2 args=0',
      'setRequestHandler - tools/call ctx=1 args=0',
    ]);
  });

  it('ignores registrations on objects that are not MCP servers', () => {
    const analysis = analyzeSnippet([
      'const router = { tool(name: string, cb: () => void) {}, setRequestHandler(m: string, cb: () => void) {} };',
      "router.tool('a', () => {});",
      "router.setRequestHandler('tools/call', () => {});",
    ].join('\n'), { typed: true });
    expect(analysis.handlers).toEqual([]);
  });
});

describe('prefilter', () => {
  it('lets through every fixture with a site', () => {
    for (const file of fixtureFiles()) {
      if (readExpectations(file).sites.length === 0) continue;
      expect(mightContainSites(readFileSync(file, 'utf8')), file).toBe(true);
    }
  });

  it('recognises each API by its words and skips files that mention none', () => {
    for (const text of ['x.elicitInput(p)', 'x.createMessage(p)', 'x.listRoots()', 'ctx.mcpReq.requestSampling(p)', "send({ method: 'roots/list' })",
      'extra.sendRequest(r, S)', 'throw new UrlElicitationRequiredError([])', 'getClientCapabilities()', "{ method: 'elicitation/create' }"]) {
      expect(mightContainSites(text), text).toBe(true);
    }
    expect(mightContainSites("import express from 'express';\nexpress().listen(3000);")).toBe(false);
    expect(mightContainSites("server.registerTool('t', {}, async () => ({ content: [] }));")).toBe(false);
  });
});

describe('across files', () => {
  it('with the project index, tools registered on a server built in another file are refused with that file unless the files are planned together, and helpers called from there are helpers', () => {
    const files = ['v1/tools-module.ts', 'v1/tools-main.ts'].map(f => join(FIXTURES, f));
    const program = createFixtureProgram(files);
    const index = new ProjectIndex(ts, program);
    const sourceFile = program.getSourceFile(files[0]!)!;
    const withIndex = analyzeFile({ ts, sourceFile, program, externalCallSites: fn => index.callsOf(fn) });
    const without = analyzeFile({ ts, sourceFile, program });
    expect(verdicts(without)).toEqual(['11 refuse:server-not-found', '23 refuse:caller-not-found']);
    // The codec would have to be wired into the construction in tools-main.ts, which a per-file rewrite does not edit.
    expect(verdicts(withIndex)).toEqual(['11 refuse:server-not-found', '23 refuse:unsupported-construct']);
    expect(hint(withIndex.sites[0]!)).toMatch(/constructed in another file \(tools-main\.ts:\d+\)/);
    expect(withIndex.sites[1]!.context).toMatchObject({ type: 'helper', helperName: 'summarizeWith' });
    expect(hint(withIndex.sites[1]!)).toMatch(/summarizeWith\(\) is exported/);
    expect(withIndex.plans).toEqual([]);
    // Planned with the other files (the CLI, typed lint), the codec can be wired there: the tool migrates,
    // and so does the exported helper, whose caller in tools-main.ts is rewritten with it.
    const planned = analyzeFile({ ts, sourceFile, program, externalCallSites: fn => index.callsOf(fn), crossFile: true });
    expect(verdicts(planned)).toEqual(['11 migrate', '23 review']);
    expect(planned.plans.map(p => p.constructions.map(c => c.getSourceFile().fileName.split('/').pop()))).toEqual([['tools-main.ts']]);
    expect(planned.helperSplits.map(s => [s.name, s.partNames])).toEqual([['summarizeWith', { request: 'summarizeWithRequest', result: 'summarizeWithResult' }]]);
    expect(planned.sites[1]!.verdict).toMatchObject({ review: true, notes: [expect.stringMatching(/exported summarizeWith\(\) becomes summarizeWithRequest\(\) and summarizeWithResult\(\)/)] });
    expect(planned.linkedFiles.map(f => f.split('/').pop())).toEqual(['tools-main.ts']);
    // The caller's file, analysed on its own, plans its handler with the helper's parts and links back.
    const caller = analyzeFile({ ts, sourceFile: program.getSourceFile(files[1]!)!, program, externalCallSites: fn => index.callsOf(fn), crossFile: true });
    expect(caller.sites).toEqual([]);
    expect(caller.plans.map(p => [p.handler.name, p.questions.map(q => q.helper?.split.name)])).toEqual([['summarize-page', ['summarizeWith']]]);
    expect(caller.linkedFiles.map(f => f.split('/').pop())).toEqual(['tools-module.ts']);
  });
});

describe('capability guards', () => {
  const prelude = [...V2, "const low = new Server({ name: 'l', version: '1' });"];

  it('migrate in a handler body, with or without a question, in any request handler', () => {
    const analysis = analyzeSnippet([
      ...prelude,
      "server.registerTool('ask', {}, async () => {",
      "  if (!server.server.getClientCapabilities()?.elicitation) return { content: [] };",
      `  const a = await server.server.elicitInput(${FORM});`,
      "  return { content: [{ type: 'text', text: a.action }] };",
      '});',
      "server.registerTool('status', {}, async () => ({ content: [{ type: 'text', text: String(server.server.getClientCapabilities()?.sampling) }] }));",
      "low.setRequestHandler('tools/list', async () => ({ tools: low.getClientCapabilities()?.elicitation ? [] : [] }));",
    ].join('\n'), { typed: true });
    expect(verdicts(analysis)).toEqual(['6 migrate', '7 migrate', '10 migrate', '11 migrate']);
    // Reading the capabilities is no side effect: the question is not flagged for review because of it.
    expect(analysis.sites[1]!.sideEffectsBefore).toEqual([]);
    expect(analysis.plans.map(p => p.guards.map(g => g.line))).toEqual([[6]]);
  });

  it('stay refused, with the reason, where no whole context is at hand', () => {
    const analysis = analyzeSnippet([
      ...prelude,
      'function canSample(): boolean {',
      '  return server.server.getClientCapabilities()?.sampling !== undefined;',
      '}',
      "server.registerTool('explain', {}, async (ctx) => {",
      "  if (!canSample()) return { content: [] };",
      "  const r = await ctx.mcpReq.requestSampling({ messages: [], maxTokens: 5 });",
      "  return { content: [{ type: 'text', text: r.model }] };",
      '});',
      "server.registerTool('nested', {}, async (ctx) => {",
      "  const flags = ['a', 'b'].map(() => server.server.getClientCapabilities()?.elicitation);",
      "  return { content: [{ type: 'text', text: String(flags) }] };",
      '});',
      "server.registerTool('destructured', {}, async ({ mcpReq }) => {",
      "  return { content: [{ type: 'text', text: String(server.server.getClientCapabilities()?.roots) + mcpReq.id }] };",
      '});',
      "server.registerTool('shadowed', {}, async (ctx) => {",
      '  { const ctx = 1; if (server.server.getClientCapabilities()?.roots) return { content: [] }; }',
      "  return { content: [{ type: 'text', text: String(ctx.mcpReq.id) }] };",
      '});',
      'server.server.oninitialized = () => { void server.server.getClientCapabilities(); };',
    ].join('\n'), { typed: true });
    expect(verdicts(analysis)).toEqual([
      '6 refuse:unsupported-construct', '10 refuse:blocked-by-sibling',
      '14 refuse:nested-callback',
      '18 refuse:unsupported-construct',
      '21 refuse:unsupported-construct',
      '24 refuse:no-live-request',
    ]);
    expect(hint(analysis.sites[0]!)).toMatch(/^capability guard inside helper canSample\(\) \(reached from tools\/call "explain"\)/);
    expect(hint(analysis.sites[1]!)).toMatch(/a site in canSample\(\), which this handler calls/);
    expect(hint(analysis.sites[3]!)).toMatch(/destructures its context parameter/);
    expect(hint(analysis.sites[4]!)).toMatch(/`ctx` is redeclared/);
    expect(hint(analysis.sites[5]!)).toMatch(/no per-request capabilities/);
  });

  it('block the handler when a question in it is refused, and are blocked by it', () => {
    const analysis = analyzeSnippet([
      ...prelude,
      "server.registerTool('each', {}, async (ctx) => {",
      "  if (!server.server.getClientCapabilities()?.elicitation) return { content: [] };",
      `  for await (const x of feed()) await ctx.mcpReq.elicitInput(${FORM});`,
      '  return { content: [] };',
      '});',
      'declare function feed(): AsyncIterable<number>;',
    ].join('\n'), { typed: true });
    expect(verdicts(analysis)).toEqual(['6 refuse:blocked-by-sibling', '7 refuse:loop']);
  });
});

describe('a server that already keeps requestState of its own', () => {
  const push = "server.registerTool('confirm', { inputSchema: z.object({}) }, async (_args, ctx) => {\n" +
    `  const answer = await ctx.mcpReq.elicitInput(${FORM});\n` +
    "  return { content: [{ type: 'text' as const, text: answer.action }] };\n});";

  /** The servers whose own state the rewrite keeps, and how: their hook's text, or `unverified`. */
  const kept = (analysis: FileAnalysis): string[] => (analysis.keptStateHooks ?? []).map(k => k.hook?.getText() ?? 'unverified');

  it('keeps a hand-written state read unverified: the handler migrates beside it', () => {
    const { typed, untyped } = analyzeBoth([
      ...V2,
      "server.registerTool('pick', { inputSchema: z.object({}) }, async (_args, ctx) => {",
      '  const country = ctx.mcpReq.requestState<string>();',
      "  return { content: [{ type: 'text' as const, text: country ?? '' }] };",
      '});',
      push,
    ].join('\n'));
    for (const analysis of [typed, untyped]) {
      expect(verdicts(analysis)).toEqual(['9 migrate']);
      expect(kept(analysis)).toEqual(['unverified']);
    }
  });

  it('keeps the server\'s own verify hook; an option of another shape is refused', () => {
    const server = (options: string) => analyzeBoth([V2[0]!, V2[1]!, `const server = new McpServer({ name: 't', version: '1' }, ${options});`, push].join('\n'));
    for (const analysis of Object.values(server('{ requestState: { verify: async (s: string) => s } }'))) {
      expect(verdicts(analysis)).toEqual(['5 migrate']);
      expect(kept(analysis)).toEqual(['async (s: string) => s']);
    }
    // A verify method is kept too, as a function (the rewrite checks that it reads no `this`).
    for (const analysis of Object.values(server('{ requestState: { verify(s: string) { return s; } } }'))) {
      expect(verdicts(analysis)).toEqual(['5 migrate']);
      expect(kept(analysis)).toEqual(['verify(s: string) { return s; }']);
    }
    for (const analysis of Object.values(server('{ requestState: stateOptions }'))) {
      expect(verdicts(analysis)).toEqual(['5 refuse:unsupported-construct']);
      expect(hint(analysis.sites[0]!)).toBe("the server (line 3) has a requestState option other than { verify: <hook> }, beside which the rewrite cannot wire its codec; migrate this handler by hand with the server's codec.");
      expect(kept(analysis)).toEqual([]);
    }
  });

  it('counts requestState given to inputRequired() or written beside resultType, not a field of the server\'s own shapes', () => {
    const handWritten = (body: string): string => [
      ...V2,
      "server.registerTool('pick', { inputSchema: z.object({ _mrtr: z.unknown().optional() }) }, async ({ _mrtr }) => {",
      body,
      '});',
      push,
    ].join('\n');
    // The SDK's backwards-compatibility demos carry their state in a tool argument and the result's text.
    const shim = handWritten([
      '  const { requestState } = (_mrtr ?? {}) as { requestState?: string };',
      "  const wrap = (r: { requestState?: string }) => ({ content: [{ type: 'text' as const, text: JSON.stringify(r) }] });",
      "  return wrap({ requestState: requestState ?? 'first' });",
    ].join('\n'));
    for (const analysis of Object.values(analyzeBoth(shim))) {
      expect(verdicts(analysis)).toEqual(['10 migrate']);
      expect(kept(analysis)).toEqual([]);
    }
    const sdk = handWritten("  return inputRequired({ inputRequests: {}, requestState: String(_mrtr) });").replace("import { McpServer, Server }", "import { McpServer, Server, inputRequired }");
    const literal = handWritten("  return { resultType: 'input_required' as const, requestState: String(_mrtr) };");
    const lowLevel = [
      ...V2,
      "server.server.setRequestHandler('prompts/get', async (request) => ({ description: String((request.params as { requestState?: string }).requestState), messages: [] }));",
      push,
    ].join('\n');
    for (const source of [sdk, literal, lowLevel]) {
      for (const analysis of Object.values(analyzeBoth(source))) {
        expect(verdicts(analysis)).toEqual([source === lowLevel ? '6 migrate' : '8 migrate']);
        expect(kept(analysis)).toEqual(['unverified']);
      }
    }
  });

  it('names the module a server\'s codec is imported from when it cannot be read', () => {
    for (const analysis of Object.values(analyzeBoth([
      V2[0]!, V2[1]!,
      "import { requestStateCodec } from './requestState.js';",
      "const server = new McpServer({ name: 't', version: '1' }, { requestState: { verify: requestStateCodec.verify } });",
      push,
    ].join('\n')))) {
      expect(verdicts(analysis)).toEqual(['6 refuse:unsupported-construct']);
      expect(hint(analysis.sites[0]!)).toBe('the server (__snippet__.ts:4) verifies requestState with requestStateCodec from ./requestState.js, a module the rewrite could not read; migrate this handler by hand with requestStateCodec.mint (or run it with the project\'s tsconfig).');
    }
  });

  it('a hand-written state on another server does not matter', () => {
    const { typed } = analyzeBoth([
      ...V2,
      "const other = new McpServer({ name: 'o', version: '1' });",
      "other.registerTool('pick', { inputSchema: z.object({}) }, async (_args, ctx) => ({ content: [{ type: 'text' as const, text: ctx.mcpReq.requestState<string>() ?? '' }] }));",
      push,
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['7 migrate']);
  });
});

describe('an asking helper exported to other files', () => {
  const ASK = `import type { McpServer } from '@modelcontextprotocol/server';
export async function askYesNo(server: McpServer, question: string): Promise<boolean> {
  const answer = await server.server.elicitInput({ mode: 'form', message: question, requestedSchema: { type: 'object', properties: { yes: { type: 'boolean' } } } });
  return answer.action === 'accept' && answer.content?.yes === true;
}
`;
  const tools = (imports: string, body = 'if (!(await askYesNo(server, `Drop ${id}?`))) return { content: [] };', extra = '') => `import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
${imports}
const server = new McpServer({ name: 's', version: '1.0.0' });
server.registerTool('drop', { inputSchema: z.object({ id: z.string() }) }, async ({ id }) => {
  ${body}
  return { content: [{ type: 'text', text: id }] };
});
${extra}
`;
  const analyse = (files: Record<string, string>, crossFile = true) => {
    const { program, sourceFiles } = snippetsProgram(files);
    const index = new ProjectIndex(ts, program);
    return sourceFiles.map(sourceFile => analyzeFile({ ts, sourceFile, program, externalCallSites: fn => index.callsOf(fn), crossFile }));
  };

  it('is split when every use is a call the rewrite changes, and each file decides alike', () => {
    const [ask, caller] = analyse({ 'across-a/ask.ts': ASK, 'across-a/tools.ts': tools(`import { askYesNo } from './ask.js';`) });
    // For review: code outside the project that imports the helper would have to follow.
    expect(verdicts(ask!)).toEqual(['3 review']);
    expect(ask!.helperSplits.map(s => s.partNames)).toEqual([{ request: 'askYesNoRequest', result: 'askYesNoResult' }]);
    expect(caller!.plans.map(p => p.questions.map(q => q.helper?.split.partNames?.request))).toEqual([['askYesNoRequest']]);
    expect(ask!.linkedFiles.map(f => f.split('/').pop())).toEqual(['tools.ts']);
    // A per-file run (jscodeshift) cannot edit the callers: refused, pointing to the project run.
    const [alone] = analyse({ 'across-b/ask.ts': ASK, 'across-b/tools.ts': tools(`import { askYesNo } from './ask.js';`) }, false);
    expect(verdicts(alone!)).toEqual(['3 refuse:unsupported-construct']);
    expect(hint(alone!.sites[0]!)).toMatch(/askYesNo\(\) is exported; .*run mrtr-migrate on the project/);
  });

  it('picks names for the parts that are free in every file that imports it', () => {
    const [ask] = analyse({ 'across-c/ask.ts': ASK, 'across-c/tools.ts': tools(`import { askYesNo } from './ask.js';`, undefined, 'export const askYesNoRequest = 1;') });
    expect(ask!.helperSplits.map(s => s.partNames)).toEqual([{ request: 'askYesNoRequest2', result: 'askYesNoResult' }]);
  });

  it.each([
    ['imported under another name', { 'tools.ts': tools(`import { askYesNo as confirm } from './ask.js';`, 'if (!(await confirm(server, id))) return { content: [] };') }, /askYesNo\(\) is imported under another name \(`askYesNo as confirm`\) in tools\.ts:3/],
    ['used as a value', { 'tools.ts': tools(`import { askYesNo } from './ask.js';`, undefined, 'export const confirmers = [askYesNo];') }, /askYesNo\(\) is used as a value \(`\[askYesNo\]`\) in tools\.ts:9/],
    ['exported again', { 'tools.ts': tools(`import { askYesNo } from './ask.js';`), 'index.ts': `export { askYesNo } from './ask.js';\n` }, /askYesNo\(\) is exported again in index\.ts:1/],
    ['reached through a namespace', { 'tools.ts': tools(`import * as ask from './ask.js';`, 'if (!(await ask.askYesNo(server, id))) return { content: [] };') }, /askYesNo\(\) is called through `ask\.askYesNo`/],
  ])('is refused when %s', (_, others, expected) => {
    const dir = `across-${_.replace(/\W+/g, '-')}`;
    const files = { [`${dir}/ask.ts`]: ASK, ...Object.fromEntries(Object.entries(others).map(([name, text]) => [`${dir}/${name}`, text])) };
    const [ask, caller] = analyse(files);
    expect(verdicts(ask!)).toEqual(['3 refuse:unsupported-construct']);
    expect(hint(ask!.sites[0]!)).toMatch(expected);
    expect(caller!.plans).toEqual([]);
  });

  it('is refused when exported through an export list, and when a caller in another file is refused', () => {
    const listed = ASK.replace('export async function', 'async function') + 'export { askYesNo };\n';
    const [ask] = analyse({ 'across-list/ask.ts': listed, 'across-list/tools.ts': tools(`import { askYesNo } from './ask.js';`) });
    expect(hint(ask!.sites[0]!)).toMatch(/exported through an export list; export it where it is declared/);
    // The caller asks from a timer, after the request: the helper stays whole, and no file plans it.
    const late = tools(`import { askYesNo } from './ask.js';`, 'setTimeout(() => void askYesNo(server, id), 10);');
    const [ask2, caller] = analyse({ 'across-late/ask.ts': ASK, 'across-late/tools.ts': late });
    expect(verdicts(ask2!)).toEqual(['3 refuse:detached-task']);
    expect(hint(ask2!.sites[0]!)).toMatch(/askYesNo is only called outside requests: tools\.ts:6 \(runs later, from setTimeout\(\)/);
    expect(caller!.plans).toEqual([]);
    // The calling handler has a refused question of its own: it stays whole, so the helper does too,
    // seen from either file.
    const blocked = tools(`import { askYesNo } from './ask.js';`, 'void server.server.listRoots();\n  if (!(await askYesNo(server, id))) return { content: [] };');
    const [ask3, caller3] = analyse({ 'across-blocked/ask.ts': ASK, 'across-blocked/tools.ts': blocked });
    expect(verdicts(ask3!)).toEqual(['3 refuse:blocked-by-sibling']);
    expect(verdicts(caller3!)).toEqual(['6 refuse:fire-and-forget']);
    expect(caller3!.plans).toEqual([]);
    expect(ask3!.helperSplits).toEqual([]);
  });

  it('does not count a test file that calls it as a caller outside requests, and names the test where it blocks the split', () => {
    const test = (dir: string, name: string, from = './ask.js') => ({
      [`${dir}/${name}`]: [
        "import { McpServer } from '@modelcontextprotocol/server';",
        `import { askYesNo } from '${from}';`,
        "const stub = new McpServer({ name: 't', version: '1' });",
        "export async function check(): Promise<void> { if (!(await askYesNo(stub, 'x'))) throw new Error('no'); }",
        'await askYesNo(stub, "y");',
      ].join('\n'),
    });
    // Called by a handler and by a test: the handler's request reaches it, the test's call blocks the split.
    const [ask] = analyse({ 'tested-a/ask.ts': ASK, 'tested-a/tools.ts': tools(`import { askYesNo } from './ask.js';`), ...test('tested-a/test', 'ask.ts', '../ask.js') });
    expect(verdicts(ask!)).toEqual(['3 refuse:unsupported-construct']);
    expect(hint(ask!.sites[0]!)).toMatch(/^helper askYesNo\(\) is also called by a test \(ask\.ts:4, ask\.ts:5\); splitting it/);
    // Called by tests alone (a test folder, a .spec name): no request reaches it, and the reason says tests.
    const [alone] = analyse({ 'tested-b/ask.ts': ASK, ...test('tested-b', 'ask.spec.ts') });
    expect(verdicts(alone!)).toEqual(['3 refuse:caller-not-found']);
    expect(hint(alone!.sites[0]!)).toMatch(/^askYesNo\(\) is only called from tests \(ask\.spec\.ts:4, ask\.spec\.ts:5\); no request handler that calls it was found; /);
    // The same file outside a test folder and without a test name is startup code.
    const [started] = analyse({ 'tested-c/ask.ts': ASK, ...test('tested-c', 'check.ts') });
    expect(hint(started!.sites[0]!)).toMatch(/^askYesNo is only called outside requests: .*check\.ts:5 \(module top level runs at startup/);
  });
});

describe('registration names that are not literals', () => {
  const tool = (name: string, params = '{ who }') =>
    `server.registerTool(${name}, { inputSchema: z.object({ who: z.string() }) }, async (${params}, ctx) => { const a = await ctx.mcpReq.elicitInput(${FORM}); return { content: [{ type: 'text' as const, text: who + a.action }] }; });`;
  const cases: Array<[string, string[], string]> = [
    ['a module const', ["const NAME = 'greet';", tool('NAME')], 'migrate'],
    ['an `as const` member', ["const TOOLS = { greet: 'greet' } as const;", tool('TOOLS.greet')], 'migrate'],
    ['an enum member', ["enum Tools { Greet = 'greet' }", tool('Tools.Greet')], 'migrate'],
    ["a registrar's unassigned parameter", ['function register(name: string) {', tool('name'), '}', "register('greet');"], 'migrate'],
    ['a let, which may change after the registration', ["let name = 'greet';", tool('name'), "name = 'other';"], 'refuse:unsupported-construct'],
    ['a member of a mutable object', ["const TOOLS = { greet: 'greet' };", tool('TOOLS.greet')], 'refuse:unsupported-construct'],
    ['a parameter that is assigned', ['function register(name: string) {', "  name = name + '_v2';", tool('name'), '}'], 'refuse:unsupported-construct'],
    ['a const the handler shadows', ["const who = 'greet';", tool('who')], 'refuse:unsupported-construct'],
  ];
  for (const [what, lines, verdict] of cases) {
    it(`${what}: ${verdict}, with and without the checker`, () => {
      const { typed, untyped } = analyzeBoth([...V2, ...lines].join('\n'));
      expect(typed.sites.map(s => verdictNotation(s.verdict).replace(/:review$/, ''))).toEqual([verdict]);
      expect(untyped.sites.map(s => verdictNotation(s.verdict).replace(/:review$/, ''))).toEqual([verdict]);
      if (verdict !== 'migrate') expect(hint(typed.sites[0]!)).toMatch(/^the tool \/ prompt \/ resource name is neither a string literal nor a constant/);
    });
  }
});

describe('registration names imported from another module', () => {
  const names = (declaration: string) => ({
    'names.ts': declaration,
    'server.ts': [...V2, "import { TOOL } from './names.js';",
      `server.registerTool(TOOL, {}, async (ctx) => { const a = await ctx.mcpReq.elicitInput(${FORM}); return { content: [{ type: 'text' as const, text: a.action }] }; });`].join('\n'),
  });
  const typedSites = (declaration: string) => {
    const { program, sourceFiles } = snippetsProgram(names(declaration));
    return analyzeFile({ ts, sourceFile: sourceFiles[1]!, program }).sites;
  };

  it('an exported const: the checker reads its value and the site migrates; without types it is refused', () => {
    const sites = typedSites("export const TOOL = 'greet';");
    expect(sites.map(s => verdictNotation(s.verdict).replace(/:review$/, ''))).toEqual(['migrate']);
    expect(sites[0]!.context.type === 'handler' && sites[0]!.context.handler.name).toBe('greet');
    const untyped = analyzeSnippet(names("export const TOOL = 'greet';")['server.ts'], { typed: false, fileName: 'server.ts' });
    expect(untyped.sites.map(s => verdictNotation(s.verdict))).toEqual(['refuse:unsupported-construct']);
  });

  it("an `as const` element read with a literal key: only the checker reads it", () => {
    const text = [...V2, "const TOOLS = { 'greet-user': 'greet' } as const;",
      `server.registerTool(TOOLS['greet-user'], {}, async (ctx) => { const a = await ctx.mcpReq.elicitInput(${FORM}); return { content: [{ type: 'text' as const, text: a.action }] }; });`].join('\n');
    const { typed, untyped } = analyzeBoth(text);
    expect(typed.sites.map(s => verdictNotation(s.verdict))).toEqual(['migrate']);
    expect(typed.handlers[0]!.name).toBe('greet');
    expect(untyped.sites.map(s => verdictNotation(s.verdict))).toEqual(['refuse:unsupported-construct']);
  });

  it('an exported let holds any string: refused with the checker too', () => {
    const sites = typedSites("export let TOOL = 'greet';");
    expect(sites.map(s => verdictNotation(s.verdict))).toEqual(['refuse:unsupported-construct']);
    expect(hint(sites[0]!)).toMatch(/^the tool \/ prompt \/ resource name is neither a string literal nor a constant/);
  });
});

describe('pure calls in what a split helper is given', () => {
  const server = (prelude: string, argument: string) => [
    ...V2,
    prelude,
    `async function ask(question: string): Promise<boolean> { const a = await server.server.elicitInput(${FORM}); return a.action === 'accept' && question !== ''; }`,
    `server.registerTool('archive', { inputSchema: z.object({ ids: z.array(z.string()) }) }, async ({ ids }) => { const ok = await ask(${argument}); return { content: [{ type: 'text' as const, text: String(ok) }] }; });`,
  ].join('\n');

  it('Map lookups, array and string methods and JSON.stringify: migrated with the checker, refused without it as only maybe impure', () => {
    const { typed, untyped } = analyzeBoth(server("const labels = new Map<string, string>();", '`Archive ${ids.map(id => labels.get(id) ?? id).join(", ")} ${JSON.stringify(ids)}?`'));
    expect(typed.sites.map(s => verdictNotation(s.verdict))).toEqual(['migrate']);
    expect(untyped.sites.map(s => verdictNotation(s.verdict))).toEqual(['refuse:unsupported-construct']);
    expect(hint(untyped.sites[0]!)).toMatch(/of ask\(\) may have side effects \(lint with type information to tell\)/);
  });

  it("a user's class whose get writes: refused, by its type and not its method's name", () => {
    const prelude = 'class Labels { reads = 0; get(id: string): string { this.reads++; return id; } }\nconst labels = new Labels();';
    const { typed } = analyzeBoth(server(prelude, '`Archive ${labels.get("a")}?`'));
    expect(typed.sites.map(s => verdictNotation(s.verdict))).toEqual(['refuse:unsupported-construct']);
    expect(hint(typed.sites[0]!)).toMatch(/^the argument `.*labels\.get\("a"\).*` of ask\(\) has side effects, and the split parts evaluate the arguments in both rounds/);
  });
});

describe('requests built in a local before the question', () => {
  const tool = (body: string[]) => [
    ...V2,
    'declare function log(value: unknown): void;',
    "server.registerTool('ask', { inputSchema: z.object({ who: z.string() }) }, async ({ who }, ctx) => {",
    ...body,
    "  return { content: [{ type: 'text' as const, text: answer.action }] };",
    '});',
  ].join('\n');
  const REQUEST = "  const request = { method: 'elicitation/create' as const, params: { mode: 'form' as const, message: `Hi ${who}?`, requestedSchema: { type: 'object' as const, properties: {} } } };";
  const SEND = '  const answer = await ctx.mcpReq.send(request);';

  it('followed to its initializer, cast or not, logged or not: migrated', () => {
    const compared = "  if (request.params.message.length > 200 || typeof request.params.message !== 'string') throw new Error('too long');";
    for (const body of [[REQUEST, SEND], [REQUEST, compared, SEND], [REQUEST, "  console.error(request.params.message);", '  const answer = await ctx.mcpReq.send(request as Parameters<typeof ctx.mcpReq.send>[0]);']]) {
      const { typed, untyped } = analyzeBoth(tool(body));
      expect(typed.sites.map(s => verdictNotation(s.verdict))).toEqual(['migrate']);
      expect(untyped.sites.map(s => verdictNotation(s.verdict))).toEqual(['migrate']);
    }
  });

  const changed: Array<[string, string, RegExp]> = [
    ['a member assigned', '  request.params.message = `Really, ${who}?`;', /`request` has a member assigned \(line \d+\)/],
    ['handed to a call that may keep or change it', '  log(request);', /`request` is handed to a call \(line \d+\)/],
    ['held by another reference', '  const alias = request.params;', /`request` is held by another reference \(line \d+\)/],
    ['passed on through an operator', '  const kept = who === "" || request.params;', /`request` is held by another reference \(line \d+\)/],
    ['passed on through a conditional', '  const kept = who === "" ? request : undefined;', /`request` is held by another reference \(line \d+\)/],
  ];
  for (const [what, line, reason] of changed) {
    it(`refused when it is ${what} before the question, with that reason`, () => {
      const { typed, untyped } = analyzeBoth(tool([REQUEST, line, SEND]));
      for (const analysis of [typed, untyped]) {
        expect(analysis.sites.map(s => verdictNotation(s.verdict))).toEqual(['refuse:unsupported-construct']);
        expect(hint(analysis.sites[0]!)).toMatch(/^the request is built in a local before the call and /);
        expect(hint(analysis.sites[0]!)).toMatch(reason);
      }
    });
  }

  it('refused when a let holding it is assigned again', () => {
    const { typed } = analyzeBoth(tool([REQUEST.replace('const request', 'let request'), "  if (who === '') request = { ...request };", SEND]));
    expect(hint(typed.sites[0]!)).toMatch(/`request` is assigned again \(line \d+\)/);
  });
});

describe('a handler with an expression body', () => {
  const handler = (body: string) => analyzeBoth([...V2, `server.registerTool('t', {}, async (ctx) => ${body});`].join('\n'));

  it('is read as the block that returns it: one question, straight or embedded after what only computes, migrates', () => {
    for (const body of [
      `await ctx.mcpReq.elicitInput(${FORM})`,
      `({ content: [{ type: 'text' as const, text: (await ctx.mcpReq.elicitInput(${FORM})).action }] })`,
    ]) {
      const { typed, untyped } = handler(body);
      expect([...verdicts(typed), ...verdicts(untyped)]).toEqual(['4 migrate', '4 migrate']);
    }
  });

  it('refused when the question is asked under a condition, or after code with effects', () => {
    const conditional = handler(`Math.random() > 0.5 ? { content: [] } : (await ctx.mcpReq.elicitInput(${FORM})) && { content: [] }`).typed;
    expect(hint(conditional.sites[0]!)).toBe("the question is asked under a condition in an arrow function's expression body; give the handler a block body.");
    const effect = handler(`({ content: [{ type: 'text' as const, text: String(Date.now()) + (await ctx.mcpReq.elicitInput(${FORM})).action }] })`).typed;
    expect(hint(effect.sites[0]!)).toMatch(/^`String\(Date\.now\(\)\)` runs before the question in the same statement/);
  });
});

describe('questions reached through a function handed to a registrar', () => {
  const ASK = `async function confirm(): Promise<string> { const a = await server.server.elicitInput(${FORM}); return a.action; }`;

  it('a function a local function only calls, outside any handler, says where it goes, not that the module top level runs it', () => {
    const { typed, untyped } = analyzeBoth([...V2, ASK, 'const run = (task: () => Promise<string>) => task();', 'void run(async () => await confirm());'].join('\n'));
    for (const analysis of [typed, untyped]) {
      expect(analysis.sites.map(s => verdictNotation(s.verdict))).toEqual(['refuse:unsupported-construct']);
      expect(hint(analysis.sites[0]!)).toMatch(/^confirm\(\) is called in a function handed to run\(\) \(__snippet__\.ts:\d+\), which calls it through its parameter `task`; questions reached through a function value are not rewritten yet/);
    }
  });

  it('a helper also called at startup keeps that reason, whichever caller comes first', () => {
    const registrar = "const register = (name: string, handler: () => Promise<string>) => server.registerTool(name, {}, async () => ({ content: [{ type: 'text' as const, text: await handler() }] }));";
    const { typed } = analyzeBoth([...V2, ASK, registrar, "register('confirm', async () => { return await confirm(); });", 'void confirm();'].join('\n'));
    expect(typed.sites.map(s => verdictNotation(s.verdict))).toEqual(['refuse:no-live-request']);
  });
});

describe('handlers behind a wrapper that shapes their result', () => {
  const ASK = `async function confirm(): Promise<string> { const a = await server.server.elicitInput(${FORM}); return a.action; }`;
  const TEXT = "{ content: [{ type: 'text' as const, text: await fn(args) }] }";
  /** `withErrors(fn)` returning a callback with the given body lines, for a tool with arguments. */
  const wrapper = (...body: string[]) => ['function withErrors<A>(fn: (args: A) => Promise<string>) {', '  return async (args: A) => {', ...body.map(l => `    ${l}`), '  };', '}'];
  const tool = (wrapped = 'withErrors') =>
    `server.registerTool('confirm', { inputSchema: z.object({ id: z.string() }) }, ${wrapped}(async ({ id }) => { const a = await server.server.elicitInput(${FORM}); return id + a.action; }));`;
  const verdictOf = (lines: string[]) => {
    const { typed, untyped } = analyzeBoth([...V2, ...lines].join('\n'));
    expect(verdicts(untyped)).toEqual(verdicts(typed));
    return { notation: typed.sites.map(s => verdictNotation(s.verdict)), hint: typed.sites[0] && hint(typed.sites[0]), handlers: typed.handlers };
  };

  it('the function given to a pure try/catch wrapper is the handler, under the registration\'s name', () => {
    const { notation, handlers } = verdictOf([...wrapper('try {', `  return ${TEXT};`, '} catch (e) {', "  return { isError: true, content: [{ type: 'text' as const, text: String(e) }] };", '}'), tool()]);
    expect(notation).toEqual(['migrate']);
    expect(handlers.map(h => [h.name, h.wrapper?.outer.kind === ts.SyntaxKind.ArrowFunction])).toEqual([['confirm', true]]);
  });

  it('each function a wrapping registrar is given is a handler, named by its own call', () => {
    const registrar = "const register = (name: string, handler: () => Promise<string>) => server.registerTool(name, {}, async () => ({ content: [{ type: 'text' as const, text: await handler() }] }));";
    const { notation, handlers } = verdictOf([ASK, registrar, "register('first', async () => { return await confirm(); });", "register('second', async () => { const a = await confirm(); return a; });"]);
    expect(notation).toEqual(['migrate']);
    expect(handlers.map(h => h.name)).toEqual([undefined, 'first', 'second']);
  });

  it('what only computes before the call is no obstacle: a string before it, a template around it, a function called on it', () => {
    for (const value of ["'Result: ' + await fn(args)", '`Done: ${await fn(args)}`', 'ok(await fn(args))']) {
      const lines = ['function ok(text: string) { return text; }', ...wrapper(`return { content: [{ type: 'text' as const, text: ${value} }] };`), tool()];
      expect(verdictOf(lines).notation).toEqual(['migrate']);
    }
  });

  it('a function of the enclosing scope the callback only calls for its effect (a logger) is not a handler behind it', () => {
    const { notation, handlers } = verdictOf([
      'export function setup(log: (m: string) => Promise<void>) {',
      "  server.registerTool('t', {}, async (ctx) => {",
      "    await log('asking');",
      `    const a = await ctx.mcpReq.elicitInput(${FORM});`,
      "    return { content: [{ type: 'text' as const, text: a.action }] };",
      '  });',
      '}',
      'setup(async (m) => { console.log(m); });',
    ]);
    expect(notation).toEqual(['review']);
    expect(handlers.map(h => h.wrapper)).toEqual([undefined]);
  });

  it('an expression-bodied function given is a handler too', () => {
    const registrar = "const register = (name: string, handler: () => Promise<string>) => server.registerTool(name, {}, async () => ({ content: [{ type: 'text' as const, text: await handler() }] }));";
    expect(verdictOf([ASK, registrar, "register('confirm', async () => await confirm());"]).notation).toEqual(['migrate']);
  });

  const refused: Array<[string, string[], RegExp]> = [
    ['code before the call runs again in every round', [...wrapper('calls.count++;', `return ${TEXT};`), tool(), 'const calls = { count: 0 };'], /^withErrors\(\) runs `calls\.count\+\+;` before it calls the handler, which would run again in every round \(line \d+\)\.$/],
    ['a finally block runs in every round', [...wrapper('try {', `  return ${TEXT};`, '} finally {', "  console.log('done');", '}'), tool()], /has a finally block around the handler's call/],
    ['code the call would overtake', [...wrapper(`return { before: Date.now(), ...${TEXT} };`), tool()], /evaluates `Date\.now\(\)` before it awaits the handler/],
    ['a call under a condition', [...wrapper(`if (Math.random() > 2) return ${TEXT};`, 'return { content: [] };'), tool()], /under a condition or in a loop/],
    ['a call on one side of ?:', [...wrapper(`return { content: [{ type: 'text' as const, text: Math.random() > 2 ? await fn(args) : 'skipped' }] };`), tool()], /calls the handler under a condition/],
    // Its value does not make the result: not the wrapper's handler call, so only a function value.
    ['a call in a loop\'s head', [...wrapper('while ((await fn(args)) === \'again\') continue;', `return { content: [] };`), tool()], /^the question runs in a function handed to withErrors\(\)/],
    ['a declared type on what it returns', ['function withErrors<A>(fn: (args: A) => Promise<string>): (args: A) => Promise<{ content: { type: \'text\'; text: string }[] }> {', `  return async (args: A) => (${TEXT});`, '}', tool()], /declares the type of the function it returns/],
    ['a destructured context', ['function withErrors<A>(fn: (args: A) => Promise<string>) {', '  return async (args: A, { signal }: { signal: AbortSignal }) => ({ content: [{ type: \'text\' as const, text: signal.aborted ? \'\' : await fn(args) }] });', '}', tool()], /destructures its context parameter/],
    ['other arguments than its own', ['function withErrors<A extends { id: string }>(fn: (id: string) => Promise<string>) {', '  return async (args: A) => ({ content: [{ type: \'text\' as const, text: await fn(args.id) }] });', '}', tool().replace('async ({ id })', 'async (id)')], /calls `fn` with other arguments than its callback's own \(fn\(args\.id\)\)/],
    ['the function called twice', [...wrapper('await fn(args);', `return ${TEXT};`), tool()], /uses its parameter `fn` other than by one call per request/],
    ['a parameter type the rewrite cannot widen', ['type Fn<A> = (args: A) => Promise<string>;', 'function withErrors<A>(fn: Fn<A>) {', '  return async (args: A) => ({ content: [{ type: \'text\' as const, text: await fn(args) }] });', '}', tool()], /parameter `fn` is not typed as a function type the rewrite can widen/],
  ];
  it('a registrar whose callback asks too is refused for the handler it wraps; its own question is judged on its own', () => {
    const registrar = [
      'const register = (name: string, handler: () => Promise<string>) => server.registerTool(name, {}, async () => {',
      '  const text = await handler();',
      `  const a = await server.server.elicitInput(${FORM});`,
      "  return { content: [{ type: 'text' as const, text: text + a.action }] };",
      '});',
    ];
    const { typed } = analyzeBoth([...V2, ASK, ...registrar, "register('confirm', async () => { return await confirm(); });"].join('\n'));
    expect(typed.sites.map(s => verdictNotation(s.verdict))).toEqual(['refuse:unsupported-construct', 'review']);
    expect(hint(typed.sites[0]!)).toMatch(/^the callback that calls this handler also asks the client itself.* \(where .* calls confirm\(\), line \d+\)\.$/);
  });

  it('a wrapper shared by tools with and without arguments is refused for each: it takes the context at two places', () => {
    const shared = 'function shaped<A>(fn: (args: A) => Promise<string>) { return async (args: A) => ({ content: [{ type: \'text\' as const, text: await fn(args) }] }); }';
    const { notation, hint: why } = verdictOf([shared, tool('shaped'), `server.registerTool('plain', {}, shaped(async () => { const a = await server.server.elicitInput(${FORM}); return a.action; }));`]);
    expect(notation).toEqual(['refuse:unsupported-construct', 'refuse:unsupported-construct']);
    expect(why).toMatch(/also wraps tools that take their arguments differently/);
  });

  for (const [what, lines, expected] of refused) {
    it(`a wrapper refused: ${what}`, () => {
      const { notation, hint: why } = verdictOf(lines);
      expect(notation).toEqual(['refuse:unsupported-construct']);
      expect(why).toMatch(expected);
    });
  }
});

describe('handlers a registrar hands to the SDK unchanged', () => {
  const ASKS = (name: string) => `register(${name}, async (ctx) => { const a = await ctx.mcpReq.elicitInput(${FORM}); return { content: [{ type: 'text' as const, text: a.action }] }; });`;

  it('each function given is a handler, bound to the name its own call gives', () => {
    const text = [...V2, 'function register(name: string, handler: (ctx: any) => Promise<any>) { server.registerTool(name, {}, handler); }', ASKS("'first'"), ASKS("'second'")].join('\n');
    const { typed, untyped } = analyzeBoth(text);
    for (const analysis of [typed, untyped]) {
      expect(analysis.sites.map(s => verdictNotation(s.verdict))).toEqual(['migrate', 'migrate']);
      expect(analysis.handlers.map(h => h.name)).toEqual(['first', 'second']);
    }
  });

  it('a registrar that names the tool itself gives that name when the function can read it', () => {
    const text = [...V2, "function register(handler: (ctx: any) => Promise<any>) { server.registerTool('fixed', {}, handler); }",
      `register(async (ctx) => { const a = await ctx.mcpReq.elicitInput(${FORM}); return { content: [{ type: 'text' as const, text: a.action }] }; });`].join('\n');
    expect(analyzeBoth(text).typed.handlers.map(h => h.name)).toEqual(['fixed']);
  });

  it('a registrar that assigns its handler parameter registers something else: not followed', () => {
    const text = [...V2, 'function register(name: string, handler: (ctx: any) => Promise<any>) { handler = wrap(handler); server.registerTool(name, {}, handler); }',
      'declare function wrap<T>(f: T): T;', ASKS("'first'")].join('\n');
    expect(analyzeBoth(text).typed.handlers).toEqual([]);
  });
});

describe('servers built from subclasses of the SDK classes', () => {
  const V2_BASE = ["import { McpServer, Server } from '@modelcontextprotocol/server';"];
  const TOOL = [
    "server.registerTool('t', {}, async () => {",
    `  const a = await server.server.elicitInput(${FORM});`,
    "  return { content: [{ type: 'text' as const, text: a.action }] };",
    '});',
  ];

  it('a subclass at any depth, declared or held in a const, is the server it extends, with and without types', () => {
    for (const classes of [
      ['class AppServer extends McpServer {}', 'class BranchServer extends AppServer { label() { return 1; } }'],
      ['const AppServer = class extends McpServer {};', 'class BranchServer extends AppServer {}'],
    ]) {
      const { typed, untyped } = analyzeBoth([...V2_BASE, ...classes, "const server = new BranchServer({ name: 't', version: '1' });", ...TOOL].join('\n'));
      expect([...verdicts(typed), ...verdicts(untyped)]).toEqual(['6 migrate', '6 migrate']);
    }
  });

  it('a low-level subclass asks through its own methods', () => {
    const { typed, untyped } = analyzeBoth([...V2_BASE,
      'class AppServer extends Server {}',
      "const low = new AppServer({ name: 't', version: '1' }, { capabilities: { tools: {} } });",
      "low.setRequestHandler('tools/call', async () => {",
      "  const r = await low.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });",
      "  return { content: [{ type: 'text' as const, text: r.model }] };",
      '});',
    ].join('\n'));
    expect([...verdicts(typed), ...verdicts(untyped)]).toEqual(['5 migrate', '5 migrate']);
  });

  it('a subclass with a constructor of its own is refused: the options of new may not reach the SDK', () => {
    const { typed } = analyzeBoth([...V2_BASE,
      "class AppServer extends McpServer { constructor() { super({ name: 'fixed', version: '1' }); } }",
      'const server = new AppServer();', ...TOOL].join('\n'));
    expect(verdicts(typed)).toEqual(['5 refuse:unsupported-construct']);
    expect(hint(typed.sites[0]!)).toMatch(/^the server is built by AppServer \(__snippet__\.ts:2\), which has a constructor of its own, so options given to new AppServer\(\.\.\.\) may not reach the SDK; wire the requestState codec into its super\(\.\.\.\) call by hand\.$/);
  });

  it('a subclass that overrides how handlers are registered is refused with that reason', () => {
    const { typed } = analyzeBoth([...V2_BASE,
      'class AppServer extends McpServer { override registerTool(...args: Parameters<McpServer[\'registerTool\']>) { return super.registerTool(...args); } }',
      "const server = new AppServer({ name: 't', version: '1' });", ...TOOL].join('\n'));
    expect(verdicts(typed)).toEqual(['5 refuse:unsupported-construct']);
    expect(hint(typed.sites[0]!)).toMatch(/^the server is built by AppServer \(__snippet__\.ts:2\), which overrides registerTool\(\)/);
  });

  it('a subclass imported from another module is followed with types', () => {
    const { program, sourceFiles } = snippetsProgram({
      'subclass-a/app.ts': [...V2_BASE, 'export class AppServer extends McpServer {}'].join('\n'),
      'subclass-a/tools.ts': ["import { AppServer } from './app.js';", "const server = new AppServer({ name: 't', version: '1' });", ...TOOL].join('\n'),
    });
    const tools = analyzeFile({ ts, sourceFile: sourceFiles[1]!, program });
    expect(verdicts(tools)).toEqual(['4 migrate']);
  });

  it('a class that only looks like one is not a server', () => {
    const { typed, untyped } = analyzeBoth([...V2_BASE,
      'class Base { server = { elicitInput: async (p: unknown) => ({ action: String(p) }) }; registerTool(..._: unknown[]) {} }',
      'class AppServer extends Base {}', "const server = new AppServer();", ...TOOL].join('\n'));
    expect([...typed.sites, ...untyped.sites]).toEqual([]);
  });
});

describe('questions asked through a sendRequest handed to a helper', () => {
  const V2_SEND = ["import { McpServer, type ServerContext, CreateMessageResultSchema } from '@modelcontextprotocol/server';", "const server = new McpServer({ name: 't', version: '1' });", "type Send = ServerContext['mcpReq']['send'];",
    'type Fn = (request: { method: string; params: unknown }, schema?: unknown) => Promise<any>;'];
  const program = (type: string, passed = 'ctx.mcpReq.send', more: string[] = []) => [...V2_SEND,
    `async function summarize(text: string, send${type ? `: ${type}` : ''}): Promise<string> {`,
    "  const result = await send({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 20 } }, CreateMessageResultSchema);",
    '  return result.model;',
    '}',
    "server.registerTool('s', {}, async (ctx) => {",
    `  const summary = await summarize('x', ${passed});`,
    "  return { content: [{ type: 'text', text: summary }] };",
    '});', ...more].join('\n');

  for (const type of ["ServerContext['mcpReq']['send']", 'Send', 'any', '(request: { method: string; params: unknown }, schema?: unknown) => Promise<any>', 'Fn', '']) {
    it(`makes its calls sites, found from what the callers pass (${type || 'no type'})`, () => {
      const { typed, untyped } = analyzeBoth(program(type));
      expect(typed.sites.map(s => `${s.line} ${s.api} ${verdictNotation(s.verdict)}`)).toEqual(['6 ctx.mcpReq.send migrate']);
      expect(verdicts(untyped)).toEqual(['6 migrate']);
    });
  }

  it('a recursive helper that hands its parameter on is found, and refused', () => {
    const text = [...V2_SEND,
      'async function ask(n: number, send: Send): Promise<string> {',
      "  const result = await send({ method: 'sampling/createMessage', params: { messages: [], maxTokens: n } });",
      '  return n > 1 ? result.model : ask(n + 1, send);',
      '}',
      "server.registerTool('s', {}, async (ctx) => ({ content: [{ type: 'text', text: await ask(1, ctx.mcpReq.send) }] }));",
    ].join('\n');
    const { typed } = analyzeBoth(text);
    expect(typed.sites.map(s => verdictNotation(s.verdict))).toEqual(['refuse:unsupported-construct']);
    expect(hint(typed.sites[0]!)).toMatch(/helper ask\(\) (is recursive|asks more than one question)/);
  });

  it('a helper some caller hands another function is not asking the client', () => {
    const other = "const fake = async (_r: unknown, _s?: unknown) => ({ model: 'local' });";
    const { typed, untyped } = analyzeBoth(program('any', 'ctx.mcpReq.send', [other, "server.registerTool('f', {}, async () => ({ content: [{ type: 'text', text: await summarize('y', fake) }] }));"]));
    expect([...typed.sites, ...untyped.sites]).toEqual([]);
  });

  it('a helper the handler does not await (a background job) is refused as fire-and-forget', () => {
    for (const type of ['Send', 'any']) {
      const { typed } = analyzeBoth(program(type).replace("const summary = await summarize('x', ctx.mcpReq.send);", "void summarize('x', ctx.mcpReq.send); const summary = 'started';"));
      expect(typed.sites.map(s => verdictNotation(s.verdict))).toEqual(['refuse:fire-and-forget']);
    }
  });
});

describe('servers held through an interface of the project', () => {
  const program = (...implementers: string[]) => [
    "import { McpServer } from '@modelcontextprotocol/server';",
    "interface Host { registerTool: McpServer['registerTool']; readonly server: McpServer['server'] }",
    ...implementers,
    'class Tools {',
    '  constructor(private host: Host) {}',
    '  register() {',
    "    this.host.registerTool('t', {}, async () => {",
    `      const a = await this.host.server.elicitInput(${FORM});`,
    "      return { content: [{ type: 'text' as const, text: a.action }] };",
    '    });',
    '  }',
    '}',
    "new Tools(new AppServer({ name: 't', version: '1' })).register();",
  ].join('\n');

  it('is the server when every class implementing it extends that SDK class (with types)', () => {
    const { typed, untyped } = analyzeBoth(program('class AppServer extends McpServer implements Host {}'));
    expect(verdicts(typed)).toEqual(['8 migrate']);
    expect(typed.handlers.map(h => h.name)).toEqual(['t']);
    // Without types the interface says nothing about what implements it: no handler is found.
    expect(untyped.handlers).toEqual([]);
  });

  it('is not when an object literal is written as one, or another interface extends it', () => {
    for (const other of ["const fake = { registerTool: (() => undefined) as unknown as McpServer['registerTool'], server: undefined as unknown as McpServer['server'] } satisfies Host;", 'interface Wider extends Host { extra: number }']) {
      const { typed } = analyzeBoth(program('class AppServer extends McpServer implements Host {}', other));
      expect(typed.handlers).toEqual([]);
    }
  });

  it('is not when another class implements it too', () => {
    const fake = "class Fake implements Host { registerTool = (() => undefined) as unknown as McpServer['registerTool']; server = undefined as unknown as McpServer['server']; }";
    const { typed } = analyzeBoth(program('class AppServer extends McpServer implements Host {}', fake));
    expect(typed.handlers).toEqual([]);
  });
});

describe('push-shaped calls on a receiver typed any', () => {
  const file = (...lines: string[]) => analyzeBoth([...V2, ...lines].join('\n'));

  it('are reported and refused as untyped-receiver with types, in a module of the SDK', () => {
    const { typed, untyped } = file(
      'export function plugin(context: any) {',
      '  const { server: host } = context;',
      `  void host.server.elicitInput(${FORM});`,
      "  void context.mcp.createMessage({ messages: [], maxTokens: 5 });",
      "  void context.client.request({ method: 'roots/list' }, {});",
      '}',
    );
    expect(typed.sites.map(s => `${s.line} ${s.kind} ${verdictNotation(s.verdict)}`)).toEqual([
      '6 elicitation refuse:untyped-receiver', '7 sampling refuse:untyped-receiver', '8 roots refuse:untyped-receiver',
    ]);
    expect(hint(typed.sites[0]!)).toBe("`host.server` has type any, so nothing shows this is the SDK's server or context; give it its type and run again, or migrate by hand.");
    // Without types nothing says the receiver is any rather than some other library's object.
    expect(untyped.sites).toEqual([]);
  });

  it('calls of other shapes on it are not', () => {
    const { typed } = file(
      'export function plugin(context: any) {',
      "  void context.elicitInput('name?');",
      "  void context.createMessage('hello');",
      "  void context.request({ method: 'tools/list' });",
      '}',
    );
    expect(typed.sites).toEqual([]);
  });

  it('one in a handler keeps its other questions from being rewritten', () => {
    const { typed } = file(
      "server.registerTool('t', {}, async (ctx) => {",
      '  const legacy: any = (globalThis as any).legacyServer;',
      `  await legacy.elicitInput(${FORM});`,
      `  const a = await ctx.mcpReq.elicitInput(${FORM});`,
      "  return { content: [{ type: 'text' as const, text: a.action }] };",
      '});',
    );
    expect(verdicts(typed)).toEqual(['6 refuse:untyped-receiver', '7 refuse:blocked-by-sibling']);
  });
});

describe('objects that live in the server are not state', () => {
  const prelude = [
    ...V2,
    "import { Client } from '@modelcontextprotocol/client';",
    'class Db { async remove(id: string): Promise<void> {} }',
    'class App { constructor(readonly server: McpServer, readonly db: Db) {} }',
    'const app = new App(server, new Db());',
    'declare function makeApp(): App;',
  ];
  const tool = (before: string, after: string) => [
    ...prelude,
    "server.registerTool('t', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {",
    `  ${before}`,
    `  const a = await ctx.mcpReq.elicitInput(${FORM});`,
    `  ${after}`,
    "  return { content: [{ type: 'text', text: a.action }] };",
    '});',
  ].join('\n');

  it.each([
    ["const client = new Client({ name: 'c', version: '1' });", 'await client.close();', 'client', /^`client` \(Client\) lives in the server, not in requestState: it is an MCP SDK Client; get it again/],
    ['const owner = makeApp();', 'await owner.db.remove(id);', 'owner', /^`owner` \(App\) lives in the server, not in requestState: it holds the MCP McpServer \(`server`\); /],
    ['const db = new Db();', 'await db.remove(id);', 'db', /^`db` \(Db\) lives in the server, not in requestState: it is an instance of class Db; /],
  ])('%s is named as such, never carried', (before, after, name, expected) => {
    const typed = analyzeSnippet(tool(before, after), { typed: true });
    expect(verdicts(typed)).toEqual(['11 refuse:non-json-local']);
    expect(hint(typed.sites[0]!)).toMatch(expected);
    expect(typed.sites[0]!.liveLocals.find(l => l.name === name)?.liveObject).toBeDefined();
  });

  it('another name for an object the module keeps is read again on resume', () => {
    const { typed, untyped } = analyzeBoth(tool('const owner = app;', 'await owner.db.remove(id);'));
    expect(verdicts(typed)).toEqual(['11 migrate']);
    expect(verdicts(untyped)).toEqual(['11 migrate']);
    expect(typed.sites[0]!.liveLocals.map(l => [l.name, l.how])).toEqual([['owner', 'rebuild']]);
    // A let may be bound again between the rounds: it is not an alias the rewrite re-reads.
    const again = analyzeSnippet(tool('const owner = app;', 'await owner.db.remove(id);').replace('const app = new App', 'let app = new App'), { typed: true });
    expect(verdicts(again)).toEqual(['11 refuse:non-json-local']);
    // `this` in an arrow handler is the object that registered it, on every round.
    const self = analyzeSnippet([
      ...prelude,
      'class Shop {',
      '  readonly db = new Db();',
      '  register(): void {',
      "    server.registerTool('t', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {",
      '      const shop = this;',
      `      const a = await ctx.mcpReq.elicitInput(${FORM});`,
      '      await shop.db.remove(id);',
      "      return { content: [{ type: 'text', text: a.action }] };",
      '    });',
      '  }',
      '}',
    ].join('\n'), { typed: true });
    expect(verdicts(self)).toEqual(['14 migrate']);
    expect(self.sites[0]!.liveLocals.map(l => [l.name, l.how])).toEqual([['shop', 'rebuild']]);
  });
});

describe('the caller chain is followed through interface members, base class methods, bound copies and wrappers', () => {
  const analyse = (files: Record<string, string>) => {
    const { program, sourceFiles } = snippetsProgram(files);
    const index = new ProjectIndex(ts, program);
    return sourceFiles.map(sourceFile => analyzeFile({ ts, sourceFile, program, externalCallSites: fn => index.callsOf(fn), indirectCallSites: fn => index.indirectCallsOf(fn), crossFile: true }));
  };
  const FRAMEWORK = `import { McpServer } from '@modelcontextprotocol/server';
export interface ToolProtocol { name: string; toolCall(args: Record<string, unknown>): Promise<string>; }
export abstract class BaseTool implements ToolProtocol {
  abstract name: string;
  server!: McpServer;
  protected abstract execute(args: Record<string, unknown>): Promise<string>;
  async toolCall(args: Record<string, unknown>): Promise<string> { return await this.execute(args); }
  protected async confirm(message: string): Promise<boolean> {
    const answer = await this.server.server.elicitInput({ mode: 'form', message, requestedSchema: { type: 'object', properties: {} } });
    return answer.action === 'accept';
  }
}
export function serve(tools: ToolProtocol[]): McpServer {
  const server = new McpServer({ name: 'f', version: '1' });
  for (const tool of tools) {
    if (tool instanceof BaseTool) tool.server = server;
    server.registerTool(tool.name, {}, async (args: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: await tool.toolCall(args) }] }));
  }
  return server;
}
`;
  const TOOL = `import { BaseTool } from './framework.js';
export class DeleteTool extends BaseTool {
  name = 'delete';
  protected async execute(): Promise<string> {
    const ok = await this.confirm('Delete?');
    return ok ? 'deleted' : 'kept';
  }
}
`;

  it('a framework tool: reached from the tools/call handler through the interface and the abstract method, refused naming them', () => {
    const [framework] = analyse({ 'chain-a/framework.ts': FRAMEWORK, 'chain-a/delete.ts': TOOL });
    expect(verdicts(framework!)).toEqual(['9 refuse:unsupported-construct']);
    // The decisive obstacle on the way up: DeleteTool.execute() runs through the abstract method.
    expect(hint(framework!.sites[0]!)).toBe('helper execute() is reached through BaseTool.execute() (framework.ts:6), an abstract method; a split cannot follow a call that may run other code too (framework.ts:7), so migrate it by hand (where helper execute() calls confirm(), delete.ts:5).');
  });

  it('a bound copy and a wrapper: reached from the handler that calls them, refused naming them', () => {
    const base = (extra: string, body: string) => `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'b', version: '1' });
async function ask(message: string): Promise<boolean> {
  const answer = await server.server.elicitInput({ mode: 'form', message, requestedSchema: { type: 'object', properties: {} } });
  return answer.action === 'accept';
}
${extra}
server.registerTool('drop', {}, async () => ({ content: [{ type: 'text' as const, text: String(${body}) }] }));
`;
    // Without the project index (a lint without types): the file's own bound copies and wrappers.
    for (const [extra, line] of [['const confirm = ask.bind(undefined);', 7], ['function logged<A extends unknown[], R>(f: (...a: A) => R): (...a: A) => R { return (...a) => f(...a); }\nconst confirm = logged(ask);', 8]] as const) {
      const { typed, untyped } = analyzeBoth(base(extra, "await confirm('Drop?')"));
      for (const analysis of [typed, untyped]) expect(hint(analysis.sites[0]!)).toMatch(new RegExp(`^helper ask\\(\\) is also used as a value \\(line ${line}\\)`));
    }
    const [bound] = analyse({ 'chain-b/tools.ts': base('const confirm = ask.bind(undefined);', "await confirm('Drop?')") });
    expect(verdicts(bound!)).toEqual(['4 refuse:unsupported-construct']);
    expect(hint(bound!.sites[0]!)).toMatch(/^helper ask\(\) is also used as a value \(line 7\)/);
    const [wrapped] = analyse({ 'chain-c/tools.ts': base('function logged<A extends unknown[], R>(f: (...a: A) => R): (...a: A) => R { return (...a) => f(...a); }\nconst confirm = logged(ask);', "await confirm('Drop?')") });
    expect(verdicts(wrapped!)).toEqual(['4 refuse:unsupported-construct']);
    expect(hint(wrapped!.sites[0]!)).toMatch(/^helper ask\(\) is also used as a value \(line 8\)/);
  });
});
