import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { TRANSFORMS } from '../../transforms/index.js';
import { breaking, fixtureOptionsProject, REPO, tempProject } from './tempProject.js';

/**
 * A server whose tools are registered from two modules (fixtures/v2-tools-across-files): the files
 * are written together with the generated codec module, or none of them is.
 */

const FIXTURE = join(REPO, 'fixtures', 'v2-tools-across-files');
/** A copy of the fixture's input/ in a temporary folder, with the repository's packages linked in. */
function project(fixture = FIXTURE): string {
  const dir = tempProject('shared-codec');
  cpSync(join(fixture, 'input'), dir, { recursive: true });
  const options = JSON.parse(readFileSync(join(REPO, 'test', 'equivalence', 'tsconfig.fixtures.json'), 'utf8')).compilerOptions;
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options }));
  return dir;
}

const FILES = ['deploy.ts', 'effects.ts', 'index.ts', 'notes.ts'];
const snapshot = (dir: string, files = FILES) => Object.fromEntries(files.map(f => [f, readFileSync(join(dir, f), 'utf8')]));
const MARKER_LINE = /^[ \t]*\/\/ mrtr-migrate: .*\n/gm;
/** The files without the markers a run added: a rolled-back or refused site's only change. */
const withoutMarkers = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([f, text]) => [f, text.replace(MARKER_LINE, '')]));
/** The marker lines of the files. */
const markersOf = (files: Record<string, string>) => Object.entries(files).flatMap(([f, text]) => (text.match(MARKER_LINE) ?? []).map(m => `${f}: ${m.trim()}`));

describe('a server whose handlers span files', () => {
  it('writes the handler files, the wired server file and the new codec module; a second run changes nothing', async () => {
    const dir = project();
    const report = await migrate({ cwd: dir, force: true });
    expect(report.files.filter(f => f.written).map(f => f.file)).toEqual(['deploy.ts', 'index.ts', 'notes.ts', 'requestState.ts']);
    for (const file of [...FILES, 'requestState.ts']) {
      expect(readFileSync(join(dir, file), 'utf8'), file).toBe(readFileSync(join(FIXTURE, 'output', file), 'utf8'));
    }
    expect(report.files.find(f => f.file === 'requestState.ts')).toMatchObject({ before: '', changed: true, changedBy: ['mrtr'] });
    const again = await migrate({ cwd: dir, force: true });
    expect(again.files.filter(f => f.changed)).toEqual([]);
    expect(again.sites).toEqual([]);
  });

  it('rolls back every file of the group, and creates no module, when one of them gains a type error', async () => {
    const dir = project();
    const before = snapshot(dir);
    // Stands for a rewrite that breaks one file of the three: notes.ts gains an error after the rewrite.
    const report = await migrate({ cwd: dir, force: true, transforms: [...TRANSFORMS, breaking('notes.ts')] });
    // Each push call left gets a marker with the rollback's cause, and nothing else changes.
    expect(withoutMarkers(snapshot(dir))).toEqual(before);
    const cause = 'mrtr-migrate: rolled-back — the rewrite of notes.ts added 1 type error(s)';
    expect(markersOf(snapshot(dir))).toEqual([`deploy.ts: // ${cause}`, `deploy.ts: // ${cause}`, `notes.ts: // ${cause}`]);
    expect(existsSync(join(dir, 'requestState.ts'))).toBe(false);
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['deploy.ts:18 rolled-back', 'deploy.ts:31 rolled-back', 'notes.ts:13 rolled-back']);
    const again = await migrate({ cwd: dir, force: true, transforms: [...TRANSFORMS, breaking('notes.ts')] });
    expect(again.files.filter(f => f.written)).toEqual([]);
    const rolledBack = report.diagnostics.find(d => d.code === 'verify/rolled-back')!;
    expect(rolledBack.message).toMatch(/^the files whose handlers share one requestState codec or an asking helper \(deploy\.ts, notes\.ts, index\.ts\) were rolled back together: the rewrite of notes\.ts added 1 type error\(s\) \(line \d+: TS2322/);
  });

  it('writes none of them when one cannot be written', async () => {
    const dir = project();
    const before = snapshot(dir);
    chmodSync(join(dir, 'index.ts'), 0o444);
    const report = await migrate({ cwd: dir, force: true });
    expect(snapshot(dir)).toEqual(before);
    expect(existsSync(join(dir, 'requestState.ts'))).toBe(false);
    expect(report.files.filter(f => f.written)).toEqual([]);
    expect(report.diagnostics.find(d => d.code === 'verify/rolled-back')!.message).toMatch(/index\.ts is read-only, so none of them was written/);
    expect(new Set(report.sites.map(s => s.status))).toEqual(new Set(['rolled-back']));
  });

  it('refuses when the server file is outside the paths given: only the markers are added', async () => {
    const dir = project();
    const before = snapshot(dir);
    const report = await migrate({ cwd: dir, force: true, paths: ['deploy.ts', 'notes.ts'] });
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status} ${s.reason}`)).toEqual([
      'deploy.ts:18 refused server-not-found', 'deploy.ts:31 refused server-not-found', 'notes.ts:13 refused server-not-found',
    ]);
    for (const file of ['deploy.ts', 'notes.ts']) {
      const withoutMarkers = readFileSync(join(dir, file), 'utf8').split('\n').filter(line => !line.includes('// mrtr-migrate:')).join('\n');
      expect(withoutMarkers, file).toBe(before[file]);
    }
    expect(existsSync(join(dir, 'requestState.ts'))).toBe(false);
  });
});

/**
 * An asking helper exported from ask.ts and called by the tools of two modules
 * (fixtures/v2-helper-across-files): the helper's file and its callers' files go together.
 */
describe('an asking helper used by several modules', () => {
  const HELPER_FIXTURE = join(REPO, 'fixtures', 'v2-helper-across-files');
  const HELPER_FILES = ['accounts.ts', 'ask.ts', 'effects.ts', 'index.ts', 'orders.ts'];

  it('splits the helper, rewrites both modules that call it, and a second run changes nothing', async () => {
    const dir = project(HELPER_FIXTURE);
    const report = await migrate({ cwd: dir, force: true });
    expect(report.files.filter(f => f.written).map(f => f.file)).toEqual(['accounts.ts', 'ask.ts', 'index.ts', 'orders.ts', 'requestState.ts']);
    for (const file of [...HELPER_FILES, 'requestState.ts']) {
      expect(readFileSync(join(dir, file), 'utf8'), file).toBe(readFileSync(join(HELPER_FIXTURE, 'output', file), 'utf8'));
    }
    const again = await migrate({ cwd: dir, force: true });
    expect(again.files.filter(f => f.changed)).toEqual([]);
  });

  it('rolls back the helper and every caller when one caller gains a type error', async () => {
    const dir = project(HELPER_FIXTURE);
    const before = snapshot(dir, HELPER_FILES);
    const report = await migrate({ cwd: dir, force: true, transforms: [...TRANSFORMS, breaking('orders.ts')] });
    expect(withoutMarkers(snapshot(dir, HELPER_FILES))).toEqual(before);
    expect(markersOf(snapshot(dir, HELPER_FILES)).length).toBe(report.sites.length);
    expect(existsSync(join(dir, 'requestState.ts'))).toBe(false);
    expect(new Set(report.sites.map(s => s.status))).toEqual(new Set(['rolled-back']));
    expect(report.diagnostics.find(d => d.code === 'verify/rolled-back')!.message).toMatch(/\(accounts\.ts, .*ask\.ts.*\) were rolled back together: the rewrite of orders\.ts added 1 type error/);
  });

  it('splits nothing when a caller of the helper is outside the paths given', async () => {
    const dir = project(HELPER_FIXTURE);
    const before = snapshot(dir, HELPER_FILES);
    const report = await migrate({ cwd: dir, force: true, paths: ['ask.ts', 'orders.ts', 'index.ts'] });
    // Only a marker above each push call left, naming why.
    expect(withoutMarkers(snapshot(dir, HELPER_FILES))).toEqual(before);
    expect(report.files.filter(f => f.written).map(f => f.file)).toEqual(['ask.ts']);
    expect(markersOf(snapshot(dir, HELPER_FILES))).toEqual([expect.stringMatching(/^ask\.ts: \/\/ mrtr-migrate: rolled-back — an asking helper links them to accounts\.ts, which this run does not rewrite/)]);
    expect(report.diagnostics.find(d => d.code === 'verify/rolled-back')!.message).toMatch(/accounts\.ts/);
  });

  it('splits it for a caller the rewrite lowers first (an expression-bodied handler), analysed again with the calls of the lowered file', async () => {
    const dir = fixtureOptionsProject('lowered-caller', {
      'ask.ts': readFileSync(join(HELPER_FIXTURE, 'input', 'ask.ts'), 'utf8'),
      'tools.ts': [
        "import { McpServer } from '@modelcontextprotocol/server';",
        "import { askYesNo } from './ask.js';",
        "export const server = new McpServer({ name: 'tables', version: '1.0.0' });",
        "server.registerTool('drop', {}, async () => ({ content: [{ type: 'text', text: String(await askYesNo(server, 'Drop?')) }] }));",
        '',
      ].join('\n'),
    });
    const report = await migrate({ cwd: dir, force: true });
    expect(report.files.flatMap(f => (f.error ? [`${f.file}: ${f.error}`] : []))).toEqual([]);
    // For review: the exported helper changes for code outside the project too.
    expect(report.sites.map(s => s.status)).toEqual(['migrated-for-review']);
    expect(readFileSync(join(dir, 'tools.ts'), 'utf8')).toContain('askYesNoRequest(');
  });

  it('splits nothing when a file the run does not analyse names the helper', async () => {
    const dir = project(HELPER_FIXTURE);
    mkdirSync(join(dir, 'scripts'));
    writeFileSync(join(dir, 'scripts', 'smoke.ts'), "import { askYesNo } from '../ask.js';\nexport const check = askYesNo;\n");
    const before = snapshot(dir, HELPER_FILES);
    const report = await migrate({ cwd: dir, force: true, paths: HELPER_FILES });
    expect(withoutMarkers(snapshot(dir, HELPER_FILES))).toEqual(before);
    const cause = 'mrtr-migrate: rolled-back — askYesNo() is split, but scripts/smoke.ts, which this run does not analyse, also names it and would lose it';
    expect(markersOf(snapshot(dir, HELPER_FILES))).toEqual([`accounts.ts: // ${cause}`, `ask.ts: // ${cause}`]);
    expect(report.diagnostics.find(d => d.code === 'verify/rolled-back')!.message)
      .toMatch(/askYesNo\(\) is split, but scripts\/smoke\.ts, which this run does not analyse, also names it/);
  });
});

describe('where the shared codec module goes', () => {
  it('beside the server built inside the build, not one a script outside rootDir / include builds too', async () => {
    const dir = tempProject('codec-home');
    const options = JSON.parse(readFileSync(join(REPO, 'test', 'equivalence', 'tsconfig.fixtures.json'), 'utf8')).compilerOptions;
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...options, rootDir: 'src' }, include: ['src/**/*.ts'] }));
    mkdirSync(join(dir, 'src'));
    mkdirSync(join(dir, 'scripts'));
    writeFileSync(join(dir, 'src', 'tools.ts'), [
      "import type { McpServer } from '@modelcontextprotocol/server';",
      'export function registerTools(server: McpServer): void {',
      "  server.registerTool('confirm', {}, async (ctx) => {",
      "    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } });",
      "    return { content: [{ type: 'text', text: answer.action }] };",
      '  });',
      '}',
      '',
    ].join('\n'));
    writeFileSync(join(dir, 'src', 'index.ts'), "import { McpServer } from '@modelcontextprotocol/server';\nimport { registerTools } from './tools.js';\n\nexport const server = new McpServer({ name: 's', version: '1.0.0' });\nregisterTools(server);\n");
    // Sorted first, and outside the build: a maintenance script that builds a server of its own.
    writeFileSync(join(dir, 'scripts', 'a-dump.ts'), "import { McpServer } from '@modelcontextprotocol/server';\nimport { registerTools } from '../src/tools.js';\n\nregisterTools(new McpServer({ name: 'dump', version: '0.0.0' }));\n");
    const report = await migrate({ cwd: dir, dryRun: true });
    expect(report.files.filter(f => f.changed).map(f => f.file).sort()).toEqual(['scripts/a-dump.ts', 'src/index.ts', 'src/requestState.ts', 'src/tools.ts']);
    expect(report.files.find(f => f.file === 'scripts/a-dump.ts')!.after).toContain("from '../src/requestState.js'");
  });
});

describe('a second run on a server whose handlers span files', () => {
  const SERVER = `import { McpServer } from '@modelcontextprotocol/server';
import { registerDrafts } from './drafts.js';

export function createServer(): McpServer {
  const server = new McpServer({ name: 'desk', version: '1.0.0' });
  registerDrafts(server);
  return server;
}
`;
  const DRAFTS = `import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

export function registerDrafts(server: McpServer): void {
  server.registerTool('draft', { inputSchema: z.object({ topic: z.string() }) }, async ({ topic }, ctx) => {
    const reply = await ctx.mcpReq.requestSampling({ messages: [{ role: 'user', content: { type: 'text', text: topic } }], maxTokens: 40 });
    return { content: [{ type: 'text', text: \`\${topic}: \${reply.model}\` }] };
  });
}
`;
  const confirm = (name: string) => `  server.registerTool('${name}', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {
    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: \`${name} \${id}?\`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } });
    return { content: [{ type: 'text', text: answer.action === 'accept' && answer.content?.ok === true ? '${name}d' : 'kept' }] };
  });
`;

  it('mints with the module the first run wrote: added to where it lacks a helper, imported once per file, no second module', async () => {
    const dir = tempProject('shared-second-run');
    const options = JSON.parse(readFileSync(join(REPO, 'test', 'equivalence', 'tsconfig.fixtures.json'), 'utf8')).compilerOptions;
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options }));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', dependencies: { '@modelcontextprotocol/server': '^2.4.0' } }));
    writeFileSync(join(dir, 'index.ts'), SERVER);
    writeFileSync(join(dir, 'drafts.ts'), DRAFTS);
    const first = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(first.files.filter(f => f.written).map(f => f.file)).toEqual(['drafts.ts', 'index.ts', 'requestState.ts']);
    const module = readFileSync(join(dir, 'requestState.ts'), 'utf8');
    expect(module).not.toContain('elicitAnswerOf');

    // Added since: an elicitation in the migrated file, and a file of its own registered by the server.
    const drafts = readFileSync(join(dir, 'drafts.ts'), 'utf8');
    writeFileSync(join(dir, 'drafts.ts'), drafts.replace(/\n}\n$/, `\n${confirm('archive')}}\n`));
    writeFileSync(join(dir, 'purge.ts'), `import type { McpServer } from '@modelcontextprotocol/server';\nimport * as z from 'zod/v4';\n\nexport function registerPurge(server: McpServer): void {\n${confirm('purge')}}\n`);
    const index = readFileSync(join(dir, 'index.ts'), 'utf8');
    writeFileSync(join(dir, 'index.ts'), index.replace("import { registerDrafts } from './drafts.js';", "import { registerDrafts } from './drafts.js';\nimport { registerPurge } from './purge.js';").replace('registerDrafts(server);', 'registerDrafts(server);\n  registerPurge(server);'));
    const indexBefore = readFileSync(join(dir, 'index.ts'), 'utf8');

    const second = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(second.sites.map(s => `${s.file} ${s.handler?.name} ${s.status}`)).toEqual(['drafts.ts archive migrated', 'purge.ts purge migrated']);
    expect(existsSync(join(dir, 'requestState2.ts'))).toBe(false);
    // The server file is wired already: it stays as it was.
    expect(readFileSync(join(dir, 'index.ts'), 'utf8')).toBe(indexBefore);
    const moduleAfter = readFileSync(join(dir, 'requestState.ts'), 'utf8');
    expect(moduleAfter).toMatch(/^export function elicitAnswerOf\(/m);
    expect(moduleAfter).toMatch(/^export function elicitResultOf\(/m);
    for (const line of module.split('\n').slice(1)) expect(moduleAfter.split('\n')).toContain(line);
    const draftsAfter = readFileSync(join(dir, 'drafts.ts'), 'utf8');
    expect(draftsAfter.match(/from '\.\/requestState\.js'/g)).toHaveLength(1);
    expect(draftsAfter).toContain('type DraftState =');
    expect(draftsAfter).toContain('type ArchiveState =');
    expect(readFileSync(join(dir, 'purge.ts'), 'utf8')).toMatch(/^import \{ requestStateCodec, requestStateCall, assertStateFor, elicitAnswerOf, elicitResultOf \} from '\.\/requestState\.js';$/m);

    const third = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(third.files.filter(f => f.changed)).toEqual([]);
  });
});
