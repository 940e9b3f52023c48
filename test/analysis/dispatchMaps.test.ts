import { describe, expect, it } from 'vitest';
import { verdictNotation } from '../helpers/expectations.js';
import { analyzeBoth } from './harness.js';
import type { FileAnalysis } from '../../src/analysis/index.js';

/** Tools a low-level tools/call handler picks from a map of handlers by the tool's name (src/analysis/dispatchMaps.ts). */

const HEAD = [
  "import { Server } from '@modelcontextprotocol/server';",
  "const server = new Server({ name: 'n', version: '1' }, { capabilities: { tools: {} } });",
];
const ASK = "const a = await server.elicitInput({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } }); return a.action;";
const MAP = `const table: Record<string, (args: Record<string, unknown>) => Promise<string>> = { async go(args) { ${ASK} }, stop: async () => 'stopped' };`;
const CALL = [
  "server.setRequestHandler('tools/call', async (request) => {",
  '  const tool = table[request.params.name];',
  "  if (!tool) return { isError: true, content: [{ type: 'text' as const, text: 'unknown' }] };",
  "  return { content: [{ type: 'text' as const, text: await tool(request.params.arguments ?? {}) }] };",
  '});',
];

function summary(analysis: FileAnalysis): string[] {
  return analysis.sites.map(s => `${s.line} ${verdictNotation(s.verdict)} ${s.context.type === 'handler' ? s.context.handler.name ?? '?' : ''}`.trim());
}

function typed(lines: string[]): string[] {
  return summary(analyzeBoth(lines.join('\n')).typed);
}

describe('a map of handlers a tools/call handler picks by the tool name', () => {
  it('serves each function of the map as the tool its key names, picked through a local or called in place', () => {
    expect(typed([...HEAD, MAP, ...CALL])).toEqual(['3 migrate go']);
    const inPlace = [
      "server.setRequestHandler('tools/call', async (request, extra) => {",
      '  const { name, arguments: args } = request.params;',
      "  if (!(name in table)) throw new Error(`unknown tool ${name}`);",
      '  const text = await table[name](args ?? {}, extra);',
      "  return { content: [{ type: 'text' as const, text }] };",
      '});',
    ];
    const untypedMap = `const table = { async go(args: Record<string, unknown>) { ${ASK} } };`;
    expect(typed([...HEAD, untypedMap, ...inPlace.map(l => l.replace('table[name]', 'table[name as keyof typeof table]'))])).toEqual(['3 migrate go']);
  });

  it('is not followed where an entry may come from elsewhere or be replaced: the caller is not found', () => {
    const open: string[][] = [
      [MAP.replace('const table', 'export const table'), ...CALL],
      [MAP, 'table.extra = async () => "x";', ...CALL], // replaced or added
      [MAP, 'register(table);', 'declare function register(t: unknown): void;', ...CALL], // handed on
      [MAP.replace('= {', '= { ...more,'), 'const more = {};', ...CALL], // a spread may bring any entry
      [MAP.replace('Promise<string>>', 'Run>'), 'type Run = (args: Record<string, unknown>) => Promise<string>;', ...CALL], // a type the rewrite cannot widen
    ];
    for (const lines of open) expect(typed([...HEAD, ...lines]), lines.join(' ')).toEqual(['3 refuse:caller-not-found']);
  });

  it('refuses, naming why, where the tools/call handler calls the tool with other arguments or runs code that would repeat', () => {
    const otherArgs = CALL.map(l => l.replace('await tool(request.params.arguments ?? {})', 'await tool({ id: 1 })'));
    const [other] = analyzeBoth([...HEAD, MAP, ...otherArgs].join('\n')).typed.sites;
    expect(other?.verdict).toMatchObject({ kind: 'refuse', reason: 'unsupported-construct' });
    expect(other?.verdict.kind === 'refuse' && other.verdict.hint).toMatch(/^the tools\/call handler calls the tool it picks with other arguments than the request's/);
    const logged = CALL.map(l => l.replace('  const tool =', '  console.error(request.params.name);\n  const tool ='));
    const [repeat] = analyzeBoth([...HEAD, MAP, ...logged].join('\n')).typed.sites;
    expect(repeat?.verdict.kind === 'refuse' && repeat.verdict.hint).toMatch(/^the tools\/call handler runs `console\.error\(request\.params\.name\);` before it calls the handler, which would run again in every round/);
  });
});
