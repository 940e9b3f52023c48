import { describe, expect, it } from 'vitest';
import type { FileAnalysis, Site } from '../../src/analysis/index.js';
import { verdictNotation } from '../helpers/expectations.js';
import { analyzeBoth } from './harness.js';

/**
 * A question the client is to run as a task (2025-11-25 task augmentation: `task` in its params, the
 * `task` call option) or that is queued on one (`relatedTask`) has no 2026-07-28 form: it is refused
 * task-augmented wherever it is, never planned as a plain question, and a plain question beside it migrates.
 */

const V1 = [
  "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
  "import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';",
  "const server = new McpServer({ name: 't', version: '1' });",
];
const V2 = ["import { McpServer } from '@modelcontextprotocol/server';", "const server = new McpServer({ name: 't', version: '1' });"];
const SCHEMA = "{ type: 'object' as const, properties: { note: { type: 'string' as const } } }";
const PLAIN = [
  "server.registerTool('plain', {}, async () => {",
  `  const a = await server.server.elicitInput({ mode: 'form', message: 'Now?', requestedSchema: ${SCHEMA} });`,
  "  return { content: [{ type: 'text' as const, text: a.action }] };",
  '});',
];

const verdicts = (analysis: FileAnalysis): string[] => analysis.sites.map(s => `${s.line} ${verdictNotation(s.verdict)}`);
const hint = (site: Site): string => (site.verdict.kind === 'refuse' ? site.verdict.hint : '');

describe('a task-augmented question', () => {
  it('with `task` in its params, written at the call or in the const it was built in: refused, and the plain question beside it migrates', () => {
    const atCall = [`  const a = await server.server.elicitInput({ mode: 'form', message: 'Later?', requestedSchema: ${SCHEMA}, task: { ttl: 60000 } });`];
    const inLocal = [`  const params = { mode: 'form' as const, message: 'Later?', requestedSchema: ${SCHEMA}, task: { ttl: 60000 } };`, '  const a = await server.server.elicitInput(params);'];
    for (const ask of [atCall, inLocal]) {
      const lines = [...V2, "server.registerTool('later', {}, async () => {", ...ask, "  return { content: [{ type: 'text' as const, text: a.action }] };", '});', ...PLAIN];
      const { typed, untyped } = analyzeBoth(lines.join('\n'));
      const at = 3 + ask.length;
      expect(verdicts(typed), ask.join(' ')).toEqual([`${at} refuse:task-augmented`, `${at + 4} migrate`]);
      expect(verdicts(untyped), ask.join(' ')).toEqual([`${at} refuse:task-augmented`, `${at + 4} migrate`]);
      expect(hint(typed.sites[0]!)).toMatch(/^the elicitInput\(\) asks the client to run it as a task \(`task`, line 4\); no 2026-07-28 question is a task: ask a plain question/);
    }
  });

  it('built as a request local handed to extra.sendRequest (v1), with `task` in its params', () => {
    const { typed } = analyzeBoth([
      ...V1,
      "server.registerTool('survey', {}, async (extra) => {",
      '  const request = {',
      "    method: 'elicitation/create' as const,",
      `    params: { message: 'Your week?', requestedSchema: ${SCHEMA}, task: { ttl: 300000 } },`,
      '  };',
      '  const reply = await extra.sendRequest(request, ElicitResultSchema);',
      "  return { content: [{ type: 'text' as const, text: reply.action }] };",
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['9 refuse:task-augmented']);
    expect(hint(typed.sites[0]!)).toMatch(/\(`task`, line 7\)/);
  });

  it('tied to a task by its call options (`task`, `relatedTask`): refused task-augmented, not for an option the rewrite drops', () => {
    for (const [option, pattern] of [['{ task: { ttl: 1000 } }', /call option `task`/], ["{ relatedTask: { taskId: 't1' } }", /queued on a task by its relatedTask option/]] as const) {
      const { typed } = analyzeBoth([
        ...V2,
        "server.registerTool('later', {}, async () => {",
        `  const r = await server.server.createMessage({ messages: [], maxTokens: 5 }, ${option});`,
        "  return { content: [{ type: 'text' as const, text: r.model }] };",
        '});',
      ].join('\n'));
      expect(verdicts(typed), option).toEqual(['4 refuse:task-augmented']);
      expect(hint(typed.sites[0]!), option).toMatch(pattern);
    }
  });

  it('in a helper that is started and never awaited: task-augmented decides (it has no form anywhere)', () => {
    const { typed } = analyzeBoth([
      ...V2,
      'async function later(): Promise<void> {',
      `  await server.server.elicitInput({ mode: 'form', message: 'Later?', requestedSchema: ${SCHEMA}, task: { ttl: 1 } });`,
      '}',
      "server.registerTool('go', {}, async () => { void later(); return { content: [] }; });",
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['4 refuse:task-augmented']);
  });
});

describe('a tasks/* request the server sends (the poll of a task the client runs)', () => {
  it('tasks/get and tasks/result through extra.sendRequest (v1): refused task-augmented, its handler left whole, a plain question elsewhere migrates', () => {
    const lines = [
      ...V1,
      "import { GetTaskResultSchema, GetTaskPayloadResultSchema } from '@modelcontextprotocol/sdk/types.js';",
      "server.registerTool('collect', {}, async (extra) => {",
      "  const task = await extra.sendRequest({ method: 'tasks/get', params: { taskId: 't1' } }, GetTaskResultSchema);",
      `  const more = await extra.sendRequest({ method: 'elicitation/create', params: { message: 'More?', requestedSchema: ${SCHEMA} } }, ElicitResultSchema);`,
      "  const payload = await extra.sendRequest({ method: 'tasks/result', params: { taskId: 't1' } }, GetTaskPayloadResultSchema);",
      "  return { content: [{ type: 'text' as const, text: `${task.status} ${more.action} ${JSON.stringify(payload)}` }] };",
      '});',
      ...PLAIN,
    ];
    const { typed, untyped } = analyzeBoth(lines.join('\n'));
    const notation = (analysis: FileAnalysis): string[] => analysis.sites.map(s => `${s.line} ${s.kind} ${verdictNotation(s.verdict)}`);
    expect(notation(typed)).toEqual([
      '6 task-request refuse:task-augmented',
      '7 elicitation refuse:blocked-by-sibling',
      '8 task-request refuse:task-augmented',
      '12 elicitation migrate',
    ]);
    // Untyped, the question beside the polls has a refusal of its own (the poll's result read after it, of a type not known).
    expect(notation(untyped)).toEqual(['6 task-request refuse:task-augmented', '7 elicitation refuse:unknown-local-type', '8 task-request refuse:task-augmented', '12 elicitation migrate']);
    expect(hint(typed.sites[0]!)).toBe('the extra.sendRequest() sends tasks/get to the client, about a task the client runs; 2026-07-28 has no tasks on the client side: ask a plain question (inputRequired(); its answer comes with the retry), or make the tool itself a task (the io.modelcontextprotocol/tasks extension), by hand.');
    expect(hint(typed.sites[2]!)).toMatch(/^the extra\.sendRequest\(\) sends tasks\/result to the client/);
  });

  it("v1's experimental task API: the polls are task requests, the streams questions asked through the task layer", () => {
    const { typed, untyped } = analyzeBoth([
      ...V1,
      "server.registerTool('watch', {}, async () => {",
      "  const task = await server.server.experimental.tasks.getTask('t1');",
      `  const stream = server.server.experimental.tasks.elicitInputStream({ mode: 'form', message: 'Now?', requestedSchema: ${SCHEMA} });`,
      '  for await (const message of stream) console.log(message.type);',
      "  await server.server.experimental.tasks.cancelTask('t1');",
      "  return { content: [{ type: 'text' as const, text: task.status }] };",
      '});',
    ].join('\n'));
    for (const analysis of [typed, untyped]) {
      expect(analysis.sites.map(s => `${s.line} ${s.kind} ${s.api} ${verdictNotation(s.verdict)}`)).toEqual([
        '5 task-request experimental.tasks refuse:task-augmented',
        '6 elicitation experimental.tasks refuse:task-augmented',
        '8 task-request experimental.tasks refuse:task-augmented',
      ]);
    }
    expect(hint(typed.sites[0]!)).toMatch(/^the experimental\.tasks\.getTask\(\) sends tasks\/get to the client/);
    expect(hint(typed.sites[1]!)).toMatch(/^the experimental\.tasks\.elicitInputStream\(\) asks through v1's experimental task layer, a stream v2 removed; /);
    expect(hint(typed.sites[2]!)).toMatch(/sends tasks\/cancel to the client/);
  });

  it('sent where no request is live, or with the method read from a typed const: still task-augmented, the reason that decides', () => {
    const { typed } = analyzeBoth([
      ...V2,
      "const poll = { method: 'tasks/list' as const, params: {} };",
      "setInterval(() => { void server.server.request({ method: 'tasks/get', params: { taskId: 't1' } }); }, 1000);",
      "server.registerTool('tasks', {}, async (ctx) => {",
      '  const listed = await ctx.mcpReq.send(poll);',
      "  return { content: [{ type: 'text' as const, text: JSON.stringify(listed) }] };",
      '});',
    ].join('\n'));
    expect(typed.sites.map(s => `${s.line} ${s.kind} ${verdictNotation(s.verdict)}`)).toEqual(['4 task-request refuse:task-augmented', '6 task-request refuse:task-augmented']);
    expect(hint(typed.sites[1]!)).toMatch(/^the ctx\.mcpReq\.send\(\) sends tasks\/list to the client/);
  });

  it("a client's own tasks/get to a server, and a `tasks` object of another library, are no sites", () => {
    const { typed, untyped } = analyzeBoth([
      "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
      "import { GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';",
      "const client = new Client({ name: 'c', version: '1' });",
      "const queue = { experimental: { tasks: { getTask: async (id: string) => id } } };",
      'export async function check(): Promise<string> {',
      "  const task = await client.request({ method: 'tasks/get', params: { taskId: 't1' } }, GetTaskResultSchema);",
      "  return `${task.status} ${await queue.experimental.tasks.getTask('t1')}`;",
      '}',
    ].join('\n'));
    expect(typed.sites).toEqual([]);
    expect(untyped.sites).toEqual([]);
  });
});
