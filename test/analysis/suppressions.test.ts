import { describe, expect, it } from 'vitest';
import { mightContainSites, suppressionProblem, type FileAnalysis } from '../../src/analysis/index.js';
import { verdictNotation } from '../helpers/expectations.js';
import { analyzeBoth } from './harness.js';

const V2 = [
  "import { McpServer } from '@modelcontextprotocol/server';",
  "const server = new McpServer({ name: 't', version: '1' });",
];
const FORM = "{ mode: 'form', message: 'ok?', requestedSchema: { type: 'object' as const, properties: {} } }";

const verdicts = (analysis: FileAnalysis): string[] => analysis.sites.map(s => `${s.line} ${verdictNotation(s.verdict)}`);
const problems = (analysis: FileAnalysis): string[] => analysis.suppressions.map(s => `${s.line} ${suppressionProblem(s) ?? 'ok'}`);

describe('// mrtr-migrate-ignore', () => {
  it('makes the sites of the statement below refuse:ignored in both modes, before siblings are blocked', () => {
    for (const analysis of Object.values(analyzeBoth([
      ...V2,
      "server.registerTool('t', {}, async ctx => {",
      `  const first = await ctx.mcpReq.elicitInput(${FORM});`,
      '  /* a block comment line between is skipped */',
      '  // mrtr-migrate-ignore asked on purpose',
      '',
      `  const second = await ctx.mcpReq.elicitInput(${FORM});`,
      '  return { content: [{ type: "text" as const, text: first.action + second.action }] };',
      '});',
    ].join('\n')))) {
      expect(verdicts(analysis)).toEqual(['4 refuse:blocked-by-sibling', '8 refuse:ignored']);
      expect(analysis.plans).toEqual([]);
      expect(problems(analysis)).toEqual(['6 ok']);
      expect(analysis.suppressions[0]!.siteIds).toEqual([analysis.sites[1]!.id]);
      const ignored = analysis.sites[1]!.verdict;
      expect(ignored.kind === 'refuse' && ignored.hint).toBe('left as it is by the mrtr-migrate-ignore comment on line 6 (asked on purpose).');
    }
  });

  it('covers every site of a multi-line statement, and a capability guard', () => {
    const { typed } = analyzeBoth([
      ...V2,
      "server.registerTool('t', {}, async ctx => {",
      '  // mrtr-migrate-ignore guarded the old way on purpose',
      '  if (!server.server.getClientCapabilities()?.elicitation) return { content: [] };',
      '  // mrtr-migrate-ignore both questions at once',
      '  const [a, b] = await Promise.all([',
      `    ctx.mcpReq.elicitInput(${FORM}),`,
      `    ctx.mcpReq.elicitInput(${FORM}),`,
      '  ]);',
      '  return { content: [{ type: "text" as const, text: a.action + b.action }] };',
      '});',
    ].join('\n'));
    expect(verdicts(typed)).toEqual(['5 refuse:ignored', '8 refuse:ignored', '9 refuse:ignored']);
    expect(problems(typed)).toEqual(['4 ok', '6 ok']);
  });

  it('reports a comment without a reason, after code, above no site, or with no code below', () => {
    const { untyped } = analyzeBoth([
      ...V2,
      "server.registerTool('t', {}, async ctx => {",
      '  // mrtr-migrate-ignore',
      `  await ctx.mcpReq.elicitInput(${FORM});`,
      '  const text = "// mrtr-migrate-ignore in a string";',
      '  const view = `${text} // mrtr-migrate-ignore in a template`;',
      '  // mrtr-migrate-ignore nothing to suppress below',
      '  console.log(text, view); // mrtr-migrate-ignore after code',
      '  return { content: [] };',
      '});',
      '// mrtr-migrate-ignore at the end of the file',
    ].join('\n'));
    expect(verdicts(untyped)).toEqual(['5 refuse:ignored']);
    expect(problems(untyped)).toEqual(['4 missing-reason', '8 unused', '9 trailing', '12 unused']);
  });

  it('makes the text check parse a file that has only an ignore comment (so an unused one is reported)', () => {
    expect(mightContainSites('// mrtr-migrate-ignore old\nexport const x = 1;\n')).toBe(true);
  });
});
