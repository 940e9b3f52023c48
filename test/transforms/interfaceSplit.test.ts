import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPipeline } from './pipeline.js';

/** An asking method reached through the interface member it implements is split with the member (src/analysis/interfaceSplit.ts). */

const file = join(import.meta.dirname, '../../fixtures/__interface_snippet__.ts');
const SOURCE = [
  "import { McpServer } from '@modelcontextprotocol/server';",
  "const server = new McpServer({ name: 'i', version: '1' });",
  'interface Gatekeeper {',
  '  // asks the user',
  '  allow(what: string): Promise<boolean>;',
  '  name: string;',
  '}',
  'class AskingGatekeeper implements Gatekeeper {',
  "  name = 'asking';",
  '  async allow(what: string): Promise<boolean> {',
  "    const reply = await server.server.elicitInput({ mode: 'form', message: `Allow ${what}?`, requestedSchema: { type: 'object', properties: {} } });",
  "    return reply.action === 'accept';",
  '  }',
  '}',
  'class Jobs {',
  '  constructor(private readonly gate: Gatekeeper) {}',
  '  async cancel(job: string): Promise<string> {',
  '    const ok = await this.gate.allow(`cancel ${job}`);',
  "    return ok ? 'cancelled' : 'kept';",
  '  }',
  '}',
  'const jobs = new Jobs(new AskingGatekeeper());',
  "server.registerTool('cancel', { description: 'Cancel' }, async () => ({ content: [{ type: 'text', text: await jobs.cancel('j1') }] }));",
];

function run(lines: string[]) {
  const result = runPipeline(file, lines.join('\n'));
  return { sites: result.sites.map(s => `${s.line} ${s.status}${s.reason ? ` ${s.reason}` : ''}`), text: result.text, hint: result.sites[0]?.hint };
}

describe('a method reached through the interface member it implements', () => {
  it('is split with the member: the interface declares the two parts in its place, its other members and comments kept', () => {
    const { sites, text } = run(SOURCE);
    expect(sites).toEqual(['11 migrated']);
    expect(text).toContain([
      'interface Gatekeeper {',
      '  // asks the user',
      '  allowRequest(what: string): InputRequest;',
      '  allowResult(reply: ElicitResult): boolean;',
      '  name: string;',
      '}',
    ].join('\n'));
    expect(text).toContain('return this.gate.allowRequest(`cancel ${job}`);');
  });

  it('is refused, naming why, where another value may stand for the interface', () => {
    const cases: Array<[string[], RegExp]> = [
      [SOURCE.map(l => l.replace('interface Gatekeeper {', 'export interface Gatekeeper {')), /interface Gatekeeper is exported, so code outside the project may implement it/],
      [[...SOURCE, "class Yes implements Gatekeeper { name = 'yes'; async allow() { return true; } }"], /interface Gatekeeper is implemented by another class too \(line 24\)/],
      [[...SOURCE, "const loose = { name: 'x', allow: async () => true } as Gatekeeper;"], /interface Gatekeeper is the type of a cast \(line 24\)/],
      [[...SOURCE, 'interface Strict extends Gatekeeper { strict: true }'], /interface Gatekeeper is extended by Strict/],
      [SOURCE.map(l => l.replace('allow(what: string): Promise<boolean>;', 'allow(what: string): Promise<boolean> | boolean;')), /Gatekeeper\.allow\(\) is not declared to return a Promise<T>/],
    ];
    for (const [lines, hint] of cases) {
      const { sites, hint: got } = run(lines);
      expect(sites, hint.source).toEqual(['11 refused unsupported-construct']);
      expect(got, hint.source).toMatch(/^helper allow\(\) is reached through Gatekeeper\.allow\(\) \(.*\), an interface member, and the interface cannot be split with it: /);
      expect(got, hint.source).toMatch(hint);
    }
  });
});
