import { describe, expect, it } from 'vitest';
import { mightContainSites, type FileAnalysis, type Site } from '../../src/analysis/index.js';
import { analyzeBoth, analyzeSnippet } from './harness.js';

/**
 * Handlers an MCP framework owns (a @Tool() method, an MCPTool's execute(), an xmcp module, a
 * FastMCP execute option) and questions asked through a framework's own API: a request is live
 * there, but the framework builds the result, so each is refused with reason framework, naming it.
 */

const FORM = "{ message: 'Go on?', requestedSchema: { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } } }";

const refusals = (analysis: FileAnalysis): string[] =>
  analysis.sites.map(s => (s.verdict.kind === 'refuse' ? `${s.line} ${s.kind} ${s.verdict.reason}: ${s.verdict.hint}` : `${s.line} migrate`));
const hintOf = (site: Site | undefined): string => (site?.verdict.kind === 'refuse' ? site.verdict.hint : '');

describe('@rekog/mcp-nest', () => {
  const nest = (decorator: string) => [
    "import type { McpServer } from '@modelcontextprotocol/server';",
    "import { Injectable } from '@nestjs/common';",
    "import { Tool, Prompt } from '@rekog/mcp-nest';",
    '@Injectable()',
    'export class Greeter {',
    `  ${decorator}`,
    '  async greet(args: { name: string }, ctx: { mcpServer: McpServer }) {',
    `    const answer = await ctx.mcpServer.server.elicitInput(${FORM});`,
    "    return answer.action === 'accept' ? `Hi ${args.name}` : 'bye';",
    '  }',
    '}',
  ].join('\n');

  it("a @Tool() method's SDK question is refused as the framework's, with the request it serves", () => {
    const analysis = analyzeSnippet(nest("@Tool({ name: 'greet', description: 'Greets' })"), { typed: true });
    expect(refusals(analysis)).toHaveLength(1);
    const hint = hintOf(analysis.sites[0]);
    expect(analysis.sites[0]!.verdict).toMatchObject({ kind: 'refuse', reason: 'framework' });
    expect(hint).toMatch(/^greet\(\) is a @Tool\(\) method that @rekog\/mcp-nest calls for tools\/call; @rekog\/mcp-nest calls the method/);
    expect(hint.split('; ')[0]!.length).toBeLessThanOrEqual(160);
  });

  it('a @Prompt() method serves prompts/get', () => {
    expect(hintOf(analyzeSnippet(nest("@Prompt({ name: 'greet' })"), { typed: true }).sites[0])).toMatch(/^greet\(\) is a @Prompt\(\) method that @rekog\/mcp-nest calls for prompts\/get;/);
  });

  it('a decorator of the same name from elsewhere is not the framework', () => {
    const own = nest("@Tool({ name: 'greet' })").replace("import { Tool, Prompt } from '@rekog/mcp-nest';", "function Tool(_: object) { return (..._a: unknown[]) => {}; }\nfunction Prompt(_: object) { return Tool(_); }");
    const site = analyzeSnippet(own, { typed: true }).sites[0];
    expect(site?.verdict).toMatchObject({ kind: 'refuse', reason: 'caller-not-found' });
  });
});

describe('mcp-framework', () => {
  const tool = (imports: string, body: string) => [
    imports,
    'class Deploy extends MCPTool {',
    "  name = 'deploy';",
    "  description = 'Deploys';",
    '  schema = {};',
    '  async execute(input: { target: string }) {',
    body,
    '  }',
    '  private async confirmTarget(target: string) {',
    "    return this.elicit('Deploy ' + target + '?', {});",
    '  }',
    '}',
    'export default Deploy;',
  ].join('\n');

  it("this.elicit(), this.samplingRequest() and this.getRoots() in an MCPTool's execute() are refused, and a helper method's too", () => {
    const { typed, untyped } = analyzeBoth(tool("import { MCPTool } from 'mcp-framework';", [
      '    const roots = await this.getRoots();',
      "    const draft = await this.samplingRequest({ messages: [], maxTokens: 10 });",
      '    const ok = await this.confirmTarget(input.target);',
      '    return [roots, draft, ok];',
    ].join('\n')));
    for (const analysis of [typed, untyped]) {
      expect(refusals(analysis).map(r => r.replace(/:.*/s, ''))).toEqual(['7 roots framework', '8 sampling framework', '13 elicitation framework']);
      expect(hintOf(analysis.sites[0])).toMatch(/^execute\(\) of Deploy \(extends MCPTool\) is called by mcp-framework for tools\/call; mcp-framework calls execute\(\)/);
      expect(hintOf(analysis.sites[2])).toMatch(/^confirmTarget\(\) runs in a request mcp-framework dispatches: execute\(\) of Deploy/);
    }
  });

  it('the same methods on a class that extends something else are not questions', () => {
    const { typed, untyped } = analyzeBoth(tool("class MCPTool { protected async elicit(_m: string, _s: object) { return {}; } }", '    return this.confirmTarget(input.target);'));
    expect(typed.sites).toEqual([]);
    expect(untyped.sites).toEqual([]);
  });
});

describe('FastMCP', () => {
  const server = (execute: string) => [
    "import { FastMCP } from 'fastmcp';",
    "const server = new FastMCP({ name: 'ops', version: '1.0.0' });",
    'server.addTool({',
    "  name: 'restart',",
    "  description: 'Restarts a service',",
    execute,
    '});',
  ].join('\n');

  it("context.elicit() and session.requestSampling() from an execute option's context are refused, naming the tool", () => {
    const { typed, untyped } = analyzeBoth(server([
      '  execute: async (args: { service: string }, { session, elicit }: any) => {',
      `    const ok = await elicit(${FORM});`,
      '    const why = await session.requestSampling({ messages: [], maxTokens: 5 });',
      '    return String(ok) + String(why);',
      '  },',
    ].join('\n')));
    for (const analysis of [typed, untyped]) {
      expect(refusals(analysis).map(r => r.replace(/:.*/s, ''))).toEqual(['7 elicitation framework', '8 sampling framework']);
      expect(hintOf(analysis.sites[0])).toMatch(/^the execute of 'restart' handed to server\.addTool\(\) is called by FastMCP for tools\/call;/);
    }
    const named = analyzeSnippet(server([
      '  async execute(args: { service: string }, context: any) {',
      `    return String(await context.elicit(${FORM}));`,
      '  },',
    ].join('\n')), { typed: false });
    expect(refusals(named).map(r => r.replace(/:.*/s, ''))).toEqual(['7 elicitation framework']);
  });
});

describe('xmcp', () => {
  it('a question through the extras of a function that is not the module default export is not reported', () => {
    const text = [
      "import type { ToolExtraArguments } from 'xmcp';",
      'export async function helper(extra: { elicit(p: object): Promise<unknown> }) {',
      `  return extra.elicit(${FORM});`,
      '}',
    ].join('\n');
    expect(analyzeSnippet(text, { typed: false }).sites).toEqual([]);
  });

  it('an export default of a const arrow function is the module handler', () => {
    const text = [
      "import type { ToolExtraArguments } from 'xmcp';",
      'const handler = async (_args: object, extra: ToolExtraArguments) => {',
      `  const answer = await extra.elicit(${FORM});`,
      '  return answer.action;',
      '};',
      'export default handler;',
    ].join('\n');
    const site = analyzeSnippet(text, { typed: false, fileName: 'tools/confirm.ts' }).sites[0];
    expect(hintOf(site)).toMatch(/^the function is the default export of confirm\.ts, a module xmcp registers and calls for each request; xmcp owns the handler/);
  });

  it('a file that imports only a framework passes the text check that decides which files are parsed', () => {
    expect(mightContainSites("import type { ToolExtraArguments } from \"xmcp\";\nexport default async () => 'hi';")).toBe(true);
    expect(mightContainSites("import { MCPTool } from 'mcp-framework';")).toBe(true);
    expect(mightContainSites("import { something } from 'xmcp-lookalike';")).toBe(false);
  });
});
