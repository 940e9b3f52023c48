import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { TRANSFORMS } from '../../transforms/index.js';
import { breaking, breakingHandler, breakingLine, fixtureOptionsProject, REPO, tempProject, tscErrors } from './tempProject.js';

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

const TWO_TOOLS = [
  "import { McpServer } from '@modelcontextprotocol/server';",
  "import * as z from 'zod/v4';",
  "export const server = new McpServer({ name: 'shelves', version: '1.0.0' });",
  '// Clears a shelf after asking.',
  "server.registerTool('clear_shelf', { inputSchema: z.object({ shelf: z.string() }) }, async ({ shelf }, ctx) => {",
  "  const reply = await ctx.mcpReq.elicitInput({ mode: 'form', message: `Clear ${shelf}?`, requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } } } });",
  "  return { content: [{ type: 'text', text: `${shelf}: ${reply.action}` }] };",
  '});',
  "server.registerTool('label_shelf', { inputSchema: z.object({ shelf: z.string() }) }, async ({ shelf }, ctx) => {",
  "  const reply = await ctx.mcpReq.elicitInput({ mode: 'form', message: `Label for ${shelf}?`, requestedSchema: { type: 'object', properties: { label: { type: 'string' } } } });",
  "  return { content: [{ type: 'text', text: `${shelf}: ${reply.action}` }] };",
  '});',
  '',
].join('\n');

describe('a handler whose rewrite adds type errors', () => {
  it('is rolled back alone, with a marker, and the rest of its file is rewritten without it', async () => {
    const dir = fixtureOptionsProject('rolled-back-handler', { 'shelves.ts': TWO_TOOLS });
    const transforms = [...TRANSFORMS, breakingHandler('shelves.ts', 'label_shelf')];
    const report = await migrate({ cwd: dir, force: true, transforms });
    expect(report.sites.map(s => `${s.line} ${s.status} ${s.reason ?? ''}`)).toEqual(['6 migrated ', '10 rolled-back ']);
    const rolled = report.sites[1]!;
    expect(rolled.hint).toBe("the rewrite of this handler added 1 type error(s) (TS2322 first) and was rolled back alone; TS2322: Type 'string' is not assignable to type 'number'.; migrate it by hand or report the case.");
    const notes = report.diagnostics.filter(d => d.code === 'verify/rolled-back');
    expect(notes.map(d => `${d.file}:${d.line} ${d.message}`)).toEqual([
      "shelves.ts:9 the rewrite of the tools/call \"label_shelf\" handler added 1 type error(s) (TS2322: Type 'string' is not assignable to type 'number'.); it was rolled back alone and the rest of the run rewritten without it. Migrate it by hand or report the case.",
    ]);
    expect(report.files.find(f => f.file === 'shelves.ts')).toMatchObject({ written: true, rolledBack: false });
    const written = readFileSync(join(dir, 'shelves.ts'), 'utf8');
    // The rolled-back handler is as it was but for its marker; the other one is rewritten.
    const kept = TWO_TOOLS.split('\n').slice(8, 12);
    expect(written).toContain([kept[0], '  // mrtr-migrate: rolled-back — the rewrite of this handler added 1 type error(s) (TS2322 first) and was rolled back alone', ...kept.slice(1)].join('\n'));
    expect(written.match(/inputRequired\(/g)?.length).toBeGreaterThan(0);
    expect(written).toContain('// Clears a shelf after asking.');
    expect(tscErrors(dir)).toEqual([]);
    const again = await migrate({ cwd: dir, force: true, transforms });
    expect(again.files.filter(f => f.written)).toEqual([]);
    expect(again.sites.map(s => s.status)).toEqual(['rolled-back']);
  });
});

/** The two tools of TWO_TOOLS registered by tools.ts on a server index.ts builds: the files share one codec. */
function shelfServer(prefix: string): string {
  return fixtureOptionsProject(prefix, {
    'index.ts': [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import { registerShelfTools } from './tools.js';",
      "export const server = new McpServer({ name: 'shelves', version: '1.0.0' });",
      'registerShelfTools(server);',
      '',
    ].join('\n'),
    'tools.ts': [
      "import type { McpServer } from '@modelcontextprotocol/server';",
      "import * as z from 'zod/v4';",
      'export function registerShelfTools(server: McpServer): void {',
      ...TWO_TOOLS.split('\n').slice(4, 12).map(line => `  ${line}`),
      '}',
      '',
    ].join('\n'),
  });
}

describe('a handler of a server whose files share one codec', () => {
  it('is rolled back alone: the codec, the server\'s wiring and the other handlers stay', async () => {
    const dir = shelfServer('rolled-back-shared');
    const transforms = [...TRANSFORMS, breakingHandler('tools.ts', 'clear_shelf')];
    const report = await migrate({ cwd: dir, force: true, transforms });
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['tools.ts:5 rolled-back', 'tools.ts:9 migrated']);
    expect(report.diagnostics.filter(d => d.code === 'verify/rolled-back').map(d => `${d.file}:${d.line}`)).toEqual(['tools.ts:4']);
    expect(report.files.filter(f => f.written).map(f => f.file).sort()).toEqual(['index.ts', 'requestState.ts', 'tools.ts']);
    expect(readFileSync(join(dir, 'index.ts'), 'utf8')).toContain('requestStateCodec');
    expect(readFileSync(join(dir, 'tools.ts'), 'utf8')).toContain('    // mrtr-migrate: rolled-back — the rewrite of this handler added 1 type error(s) (TS2322 first) and was rolled back alone\n    const reply');
    expect(tscErrors(dir)).toEqual([]);
  });
});

describe('handlers rolled back alone, one by one', () => {
  it('leave no codec behind when none of a server\'s handlers is left rewritten', async () => {
    const dir = shelfServer('rolled-back-all');
    const index = readFileSync(join(dir, 'index.ts'), 'utf8');
    const transforms = [...TRANSFORMS, breakingHandler('tools.ts', 'clear_shelf'), breakingHandler('tools.ts', 'label_shelf')];
    const report = await migrate({ cwd: dir, force: true, transforms });
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['tools.ts:5 rolled-back', 'tools.ts:9 rolled-back']);
    expect(report.files.filter(f => f.written).map(f => f.file)).toEqual(['tools.ts']);
    expect(readFileSync(join(dir, 'index.ts'), 'utf8')).toBe(index);
    expect(existsSync(join(dir, 'requestState.ts'))).toBe(false);
    expect(readFileSync(join(dir, 'tools.ts'), 'utf8').match(/mrtr-migrate: rolled-back/g)).toHaveLength(2);
    expect(tscErrors(dir)).toEqual([]);
  });
});

describe('a helper whose split adds type errors', () => {
  it('stays whole, with a marker, and so do the handlers that call it; the others are rewritten', async () => {
    const ask = [
      "import type { McpServer } from '@modelcontextprotocol/server';",
      'export async function confirmStep(server: McpServer, step: string): Promise<boolean> {',
      "  const answer = await server.server.elicitInput({ mode: 'form', message: `Run ${step}?`, requestedSchema: { type: 'object', properties: {} } });",
      "  return answer.action === 'accept';",
      '}',
      '',
    ].join('\n');
    const tools = [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import { confirmStep } from './ask.js';",
      "export const server = new McpServer({ name: 'steps', version: '1.0.0' });",
      "server.registerTool('migrate_db', {}, async () => ({ content: [{ type: 'text', text: String(await confirmStep(server, 'migrate')) }] }));",
      "server.registerTool('seed_db', {}, async ctx => {",
      "  const reply = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Seed?', requestedSchema: { type: 'object', properties: {} } });",
      "  return { content: [{ type: 'text', text: reply.action }] };",
      '});',
      '',
    ].join('\n');
    const dir = fixtureOptionsProject('rolled-back-helper', { 'ask.ts': ask, 'tools.ts': tools });
    const report = await migrate({ cwd: dir, force: true, transforms: [...TRANSFORMS, breakingLine('ask.ts', /^export function confirmStepResult/)] });
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['ask.ts:3 rolled-back', 'tools.ts:6 migrated']);
    expect(report.diagnostics.filter(d => d.code === 'verify/rolled-back').map(d => `${d.file}:${d.line} ${d.message.slice(0, 60)}`))
      .toEqual(['ask.ts:3 the rewrite of the split of helper confirmStep() added 1 typ']);
    const lines = ask.split('\n');
    lines.splice(2, 0, '  // mrtr-migrate: rolled-back — the rewrite of this helper added 1 type error(s) (TS2322 first) and was rolled back alone');
    expect(readFileSync(join(dir, 'ask.ts'), 'utf8')).toBe(lines.join('\n'));
    const written = readFileSync(join(dir, 'tools.ts'), 'utf8');
    expect(written).toContain(tools.split('\n')[3]);
    expect(written).toContain('inputRequired(');
    expect(tscErrors(dir)).toEqual([]);
  });
});
