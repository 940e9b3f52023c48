import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { TRANSFORMS } from '../../transforms/index.js';
import { breaking, fixtureOptionsProject, REPO, tempProject } from './tempProject.js';

const FORM = "{ mode: 'form', message: `Drop ${table}?`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }";
const SERVER = [
  "import { McpServer } from '@modelcontextprotocol/server';",
  "import * as z from 'zod/v4';",
  "export const server = new McpServer({ name: 'tables', version: '1.0.0' });",
  "server.registerTool('drop', { inputSchema: z.object({ table: z.string() }) }, async ({ table }, ctx) => {",
  `  const answer = await ctx.mcpReq.elicitInput(${FORM});`,
  "  return { content: [{ type: 'text', text: `${table}: ${answer.action}` }] };",
  '});',
  'server.server.oninitialized = async () => {',
  '  await server.server.listRoots();',
  '};',
  '',
].join('\n');

describe('a file whose rewrite is rolled back', () => {
  it('keeps a marker above every push call: the rollback\'s cause for the undone site, its reason for the refused one', async () => {
    const dir = tempProject('rolled-back');
    const options = JSON.parse(readFileSync(join(REPO, 'test', 'equivalence', 'tsconfig.fixtures.json'), 'utf8')).compilerOptions;
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options }));
    writeFileSync(join(dir, 'server.ts'), SERVER);
    const report = await migrate({ cwd: dir, force: true, transforms: [...TRANSFORMS, breaking('server.ts')] });
    expect(report.sites.map(s => `${s.line} ${s.status} ${s.reason ?? ''}`)).toEqual(['5 rolled-back ', '9 refused no-live-request']);
    const lines = SERVER.split('\n');
    lines.splice(8, 0, '  // mrtr-migrate: no-live-request — oninitialized runs outside any request; only tools/call, prompts/get and resources/read handlers can ask the client.');
    lines.splice(4, 0, '  // mrtr-migrate: rolled-back — the rewrite added 1 type error(s) (TS2322 first) and was rolled back; the report lists them');
    expect(readFileSync(join(dir, 'server.ts'), 'utf8')).toBe(lines.join('\n'));
    const again = await migrate({ cwd: dir, force: true, transforms: [...TRANSFORMS, breaking('server.ts')] });
    expect(again.files.filter(f => f.written)).toEqual([]);
  });
});

describe('a group of files rolled back together', () => {
  it('reports as rolled back only the files that had a change to undo', async () => {
    const dir = fixtureOptionsProject('rolled-back-group', {
      'ask.ts': [
        "import type { McpServer } from '@modelcontextprotocol/server';",
        'export async function askYesNo(server: McpServer, message: string): Promise<boolean> {',
        "  const answer = await server.server.elicitInput({ mode: 'form', message, requestedSchema: { type: 'object', properties: {} } });",
        "  return answer.action === 'accept';",
        '}',
        '',
      ].join('\n'),
      'tools.ts': [
        "import { McpServer } from '@modelcontextprotocol/server';",
        "import { askYesNo } from './ask.js';",
        "export const server = new McpServer({ name: 'tables', version: '1.0.0' });",
        "server.registerTool('drop', {}, async () => ({ content: [{ type: 'text', text: String(await askYesNo(server, 'Drop?')) }] }));",
        '',
      ].join('\n'),
      // A test calls the helper too: it is refused, and the three files stay linked.
      'ask.test.ts': [
        "import { McpServer } from '@modelcontextprotocol/server';",
        "import { askYesNo } from './ask.js';",
        "export const asked = askYesNo(new McpServer({ name: 'stub', version: '0' }), 'Test?');",
        '',
      ].join('\n'),
    });
    const report = await migrate({ cwd: dir, force: true, transforms: [...TRANSFORMS, breaking('ask.ts')] });
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status} ${s.reason ?? ''}`)).toEqual(['ask.ts:3 refused unsupported-construct']);
    expect(report.files.filter(f => f.rolledBack).map(f => f.file)).toEqual(['ask.ts']);
    expect(readFileSync(join(dir, 'tools.ts'), 'utf8')).not.toContain('mrtr-migrate');
  });
});
