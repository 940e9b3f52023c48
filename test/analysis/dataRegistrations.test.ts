import { describe, expect, it } from 'vitest';
import { verdictNotation } from '../helpers/expectations.js';
import { analyzeBoth } from './harness.js';
import type { FileAnalysis } from '../../src/analysis/index.js';

/** Handlers registered through a list of entries iterated into registerTool (src/analysis/dataRegistrations.ts). */

const HEAD = [
  "import { McpServer } from '@modelcontextprotocol/server';",
  "export const server = new McpServer({ name: 'n', version: '1' });",
  'const ask = async () => {',
  "  const answer = await server.server.elicitInput({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } });",
  "  return { content: [{ type: 'text' as const, text: answer.action }] };",
  '};',
];
const LOOP = ['for (const { id, run } of entries) server.registerTool(id, {}, run);'];

function summary(analysis: FileAnalysis): string[] {
  return analysis.sites.map(s => `${s.line} ${verdictNotation(s.verdict)} ${s.context.type === 'handler' ? s.context.handler.name ?? '?' : ''}`.trim());
}

describe('a list of registrations iterated into registerTool', () => {
  it('registers each function an entry holds, under the name the entry writes, whether pushed or written in the list', () => {
    for (const list of [['const entries = [{ id: "go", run: ask }];'], ['const entries: { id: string; run: () => Promise<unknown> }[] = [];', 'entries.push({ id: "go", run: ask });']]) {
      const { typed, untyped } = analyzeBoth([...HEAD, ...list, ...LOOP].join('\n'));
      expect(summary(typed)).toEqual(['4 migrate go']);
      expect(summary(untyped)).toEqual(['4 migrate go']);
    }
  });

  it('is not followed where an entry may come from elsewhere or one function is registered twice: the caller is not found', () => {
    const open = [
      ['export const entries = [{ id: "go", run: ask }];'], // exported: other modules may push
      ['const entries = [{ id: "go", run: ask }];', 'export { entries as all };'],
      ['const entries = [{ id: "go", run: ask }];', 'register(entries);', 'declare function register(e: unknown): void;'], // handed on
      ['const more = { id: "b", run: ask };', 'const entries = [{ id: "go", run: ask }, { ...more }];'], // a spread entry
      ['const entries = [{ id: "go", run: ask }, { id: "again", run: ask }];'], // one function, two names
    ];
    for (const list of open) {
      const { typed } = analyzeBoth([...HEAD, ...list, ...LOOP].join('\n'));
      expect(summary(typed), list.join(' ')).toEqual(['4 refuse:caller-not-found']);
    }
  });

  it('is not followed where the list declares an element type whose function member the rewrite cannot widen', () => {
    const { typed } = analyzeBoth([...HEAD, 'type Handler = () => Promise<unknown>;', 'const entries: { id: string; run: Handler }[] = [{ id: "go", run: ask }];', ...LOOP].join('\n'));
    expect(summary(typed)).toEqual(['4 refuse:caller-not-found']);
  });
});
