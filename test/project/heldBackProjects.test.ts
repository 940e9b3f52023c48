import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { install, installedProject, REPO, tempProject, tscErrors } from './tempProject.js';

/**
 * Projects of the shapes that broke real runs (issue 60), in test/cli/projects: each is run, then
 * type-checked with its own tsconfig as after the install the run asks for. Twice: with the v2
 * packages there during the run already (this repository's node_modules), and as a v1 project has
 * them, not at all until the install after the run (the run checks against the types it borrows,
 * sdkTypes.ts). The type errors are no more than before (0 each), and what migrates, what stays
 * and why is stated, the same both ways.
 */
type Installed = 'v2 installed before the run' | 'v2 installed after the run';

async function runIn(installed: Installed, name: string) {
  const from = join(REPO, 'test', 'cli', 'projects', name);
  const early = installed === 'v2 installed before the run';
  const dir = early ? tempProject(name) : installedProject(name, from);
  if (early) cpSync(from, dir, { recursive: true });
  const before = tscErrors(dir);
  // Installed late, the run has no v2 package of the project's: it checks against the types it borrows.
  expect(existsSync(join(dir, 'node_modules', '@modelcontextprotocol', 'server')), name).toBe(early);
  const report = await migrate({ cwd: dir, force: true });
  const imported = readdirSync(join(dir, 'src')).some(file => readFileSync(join(dir, 'src', file), 'utf8').includes("from '@modelcontextprotocol/server'"));
  expect(report.diagnostics.some(d => d.code === 'verify/sdk-types-borrowed' && d.message.startsWith('@modelcontextprotocol/server ')), name).toBe(!early && imported);
  if (!early) install(dir);
  return { dir, before, after: tscErrors(dir), report, read: (file: string) => readFileSync(join(dir, file), 'utf8') };
}

describe.each<Installed>(['v2 installed before the run', 'v2 installed after the run'])('projects that a run must not break, %s', installed => {
  const run = (name: string) => runIn(installed, name);

  it('a task-augmented question and its tasks/get poll beside a plain one: the plain one migrates, the task and the poll keep their markers', async () => {
    const { before, after, report, read } = await run('task-beside-plain');
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status} ${s.reason ?? ''}`)).toEqual(['src/index.ts:11 refused task-augmented', 'src/index.ts:27 migrated ', 'src/status.ts:8 refused task-augmented']);
    expect(read('src/index.ts')).toContain('  // mrtr-migrate: task-augmented — the ctx.mcpReq.send() asks the client to run it as a task (`task`, line');
    expect(read('src/status.ts')).toContain('    // mrtr-migrate: task-augmented — the ctx.mcpReq.send() sends tasks/get to the client, about a task the client runs\n    const task = await ctx.mcpReq.send(');
    expect([before, after]).toEqual([[], []]);
  });

  it('a server file held back on v1: its tool file stays with it, its question marked with the line that holds it', async () => {
    const { before, after, report, read } = await run('held-back-server');
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['src/firing.ts:6 rolled-back']);
    expect(read('src/firing.ts')).toContain('    // mrtr-migrate: rolled-back — src/index.ts:8 stays on the v1 SDK, and this file exchanges SDK objects with it, so it stays on v1 too\n    const ok');
    expect(read('src/index.ts')).toMatch(/\n\/\/ mrtr-migrate: upgrade-error — TS2322 on v2: Type '\w+' is not assignable to type 'number'\.\nexport const goneCode/);
    expect([before, after]).toEqual([[], []]);
  });

  it('a types file shared by an upgraded file and a held-back one stays with the one held back', async () => {
    const { before, after, report, read } = await run('shared-types');
    expect(report.files.filter(f => f.rolledBack).map(f => f.file).sort()).toEqual(['src/audit.ts', 'src/index.ts', 'src/types.ts']);
    expect(read('src/types.ts')).toBe(readFileSync(join(REPO, 'test', 'cli', 'projects', 'shared-types', 'src', 'types.ts'), 'utf8'));
    expect(report.sites.map(s => `${s.line} ${s.status}`)).toEqual(['16 rolled-back']);
    expect([before, after]).toEqual([[], []]);
  });

  it('a global Express.Request augmentation in a file held back on v1: the file declaring it again stays on v1 too (TS2717)', async () => {
    const { before, after, report } = await run('express-augmentation');
    expect(report.diagnostics.find(d => d.file === 'src/index.ts' && d.code === 'sdk-upgrade/rolled-back')?.message).toMatch(/^src\/auth\.ts stays on the v1 SDK, .* \(line 9: TS2717: Subsequent property declarations must have the same type/);
    expect([before, after]).toEqual([[], []]);
  });

  it('low-level handlers registered by a schema that names their method only: registered by the method string, and the question beside them migrates', async () => {
    const { before, after, report, read } = await run('method-schema-handlers');
    expect(report.sites.map(s => `${s.line} ${s.status}`)).toEqual(['41 migrated']);
    const text = read('src/index.ts');
    expect(text).toContain("board.server.setRequestHandler(\n  'resources/subscribe',\n  async (request: any) => {");
    expect(text).toContain("board.server.setRequestHandler('resources/unsubscribe', async (request: any) => {");
    expect(report.diagnostics.filter(d => /by its method string/.test(d.message)).map(d => d.line)).toEqual([18, 26, 31]);
    expect([before, after]).toEqual([[], []]);
  });

  it('a file two imports away that would break (it registers through a type the change moves to v2): the changed file stays as it was, its marker names that file and the one between', async () => {
    const { before, after, report, read } = await run('importer-two-away');
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['src/index.ts:7 rolled-back']);
    expect(read('src/index.ts')).toContain("  // mrtr-migrate: rolled-back — src/sensors.ts:5, which imports this file through src/context.ts, would get a type error from its change");
    expect(read('src/index.ts')).toContain("import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';");
    expect([before, after]).toEqual([[], []]);
  });

  it('a question asked as a task by the v1 call option beside a plain one: the file stays on v1 (v2 has no such option), the plain question told why, the task named as the file has it', async () => {
    const { before, after, report, read } = await run('task-option-beside-plain');
    expect(report.sites.map(s => `${s.line} ${s.api} ${s.sdk} ${s.status} ${s.reason ?? ''}`)).toEqual(['8 extra.sendRequest v1 refused task-augmented', '18 server.createMessage v1 rolled-back ']);
    const text = read('src/index.ts');
    expect(text).toContain('  // mrtr-migrate: task-augmented — the extra.sendRequest() asks the client to run it as a task (call option `task`)\n  const summary');
    expect(text).toContain('  // mrtr-migrate: rolled-back — the `task` call option at line 11 (a question asked as a task) has no v2 form, so this file stays on the v1 SDK\n  const reply');
    expect(report.sites[0]!.hint).not.toContain('ctx.mcpReq');
    expect([before, after]).toEqual([[], []]);
  });
});
