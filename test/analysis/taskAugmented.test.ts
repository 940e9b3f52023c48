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
