import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { changedFiles, git, makeProject, read, REPO, runCli, snapshot } from './helpers.js';

// Each test spawns the CLI (a type-checking run) one or more times; CI machines are slow and shared.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

/** The report as JSON, for assertions on what the run decided. */
function jsonReport(dir: string): any {
  return JSON.parse(readFileSync(path.join(dir, 'mrtr-migrate-report.json'), 'utf8'));
}

describe('a v1 project (installed dependencies)', () => {
  let dir: string;
  let first: ReturnType<typeof runCli>;
  let before: Map<string, string>;
  beforeAll(() => {
    dir = makeProject('v1-server', { nodeModules: true, git: true });
    before = snapshot(dir);
    first = runCli(dir, ['--format', 'json']);
  });

  it('exits 0 and writes the upgraded, migrated files and package.json', () => {
    expect(first.stderr).not.toMatch(/internal error/);
    expect(first.code).toBe(0);
    expect(changedFiles(before, snapshot(dir))).toEqual(['package.json', 'src/index.ts', 'src/requestState.ts']);
    const index = read(dir, 'src/index.ts');
    expect(index.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(index).not.toContain('@modelcontextprotocol/sdk');
    expect(index).toContain('inputRequired');
    expect(index).toContain('serveStdio(() => server)');
    expect(index).toMatch(/\/\/ mrtr-migrate: loop/);
  });

  it('swaps the v1 package for the v2 one in place, keeping order and indentation', () => {
    const manifest = read(dir, 'package.json');
    expect(manifest).toContain('    "@modelcontextprotocol/server": "^2.3.1",\n    "zod": "^4.2.0"');
    expect(manifest).not.toContain('@modelcontextprotocol/sdk');
    expect(Object.keys(JSON.parse(manifest))).toEqual(['name', 'version', 'description', 'type', 'bin', 'scripts', 'dependencies', 'devDependencies']);
    expect(first.stdout).toMatch(/Next: npm install/);
  });

  it('writes the report with the summary, each site, and what is left to do', () => {
    const md = read(dir, 'mrtr-migrate-report.md');
    expect(md).toContain('## Summary');
    expect(md).toMatch(/\| Sites found \| 2 \|/);
    expect(md).toContain('`src/index.ts:');
    expect(md).toContain('refused: loop');
    expect(md).toContain('Locals moved into the state: `title: string');
    expect(md).toContain('Locals that would travel in the state: `deleted: string[]');
    expect(md).toContain('MCP_REQUEST_STATE_KEY');
    expect(md).toContain('Diff of the handler');
    const report = jsonReport(dir);
    expect(report.summary.byStatus['migrated-for-review'] + report.summary.byStatus.migrated).toBe(1);
    expect(report.summary.refusedByReason).toEqual({ loop: 1 });
    expect(report.servingEntries).toEqual([expect.objectContaining({ status: 'rewritten', transport: 'stdio' })]);
    expect(report.diagnostics.some((d: any) => d.source === 'sdk-upgrade')).toBe(true);
    // Every line is a line of the file as it was: the serving entry's too, though the rewrite added code above it.
    const original = before.get('src/index.ts')!.split('\n');
    const lineOf = (needle: string, from = 0) => original.findIndex((text, i) => i >= from && text.includes(needle)) + 1;
    const firstAsk = lineOf('elicitInput(');
    expect(report.sites.map((s: any) => s.line)).toEqual([firstAsk, lineOf('elicitInput(', firstAsk)]);
    expect(report.servingEntries[0].line).toBe(lineOf('server.connect('));
    expect(md).toContain(`\`src/index.ts:${lineOf('server.connect(')}\` (stdio, rewritten)`);
  });

  it('--check afterwards writes nothing and exits 1 because a site is still refused', () => {
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'migrated');
    const snap = snapshot(dir);
    const check = runCli(dir, ['--check']);
    expect(check.code).toBe(1);
    expect(changedFiles(snap, snapshot(dir))).toEqual([]);
    expect(check.stdout).toMatch(/1 not migrated \(loop 1\)/);
  });

  it('a second run changes nothing and reports the handler as already migrated', () => {
    const snap = snapshot(dir);
    const second = runCli(dir, ['--format', 'json']);
    expect(second.code).toBe(0);
    expect(changedFiles(snap, snapshot(dir))).toEqual([]);
    const report = jsonReport(dir);
    expect(report.summary.filesChanged).toBe(0);
    expect(report.alreadyMigrated).toEqual([expect.objectContaining({ method: 'tools/call', name: 'delete-note' })]);
    expect(report.servingEntries).toEqual([expect.objectContaining({ status: 'already' })]);
    expect(second.stdout).toMatch(/Already migrated: 1 handler/);
  });
});

describe('a v1 project whose v2 packages are not installed yet', () => {
  it('dry run: prints the diff, writes nothing, checks the rewrite against its own SDK copy', () => {
    const dir = makeProject('v1-server', { nodeModules: 'without-v2' });
    const before = snapshot(dir);
    const run = runCli(dir, ['--dry-run', '--format', 'json']);
    expect(run.code).toBe(0);
    expect(changedFiles(before, snapshot(dir))).toEqual([]);
    expect(run.stdout).toContain('--- a/src/index.ts');
    expect(run.stdout).toContain('+++ b/package.json');
    expect(run.stdout).toMatch(/^\+.*inputRequired/m);
    // The printed next command is one that works here (a clone has no npx mrtr-migrate): run it.
    const next = /^Next: (.+?) {3}# apply these changes$/m.exec(run.stdout)?.[1];
    expect(next).toMatch(/^node \S+main\.js \.$/);
    const [node, script] = next!.split(' ');
    expect(node).toBe('node');
    expect(spawnSync(process.execPath, [script!, '--version'], { cwd: dir, encoding: 'utf8' }).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const report = jsonReport(dir);
    expect(report.files.find((f: any) => f.file === 'src/index.ts')).toMatchObject({ changed: true, written: false, rolledBack: false });
    expect(report.diagnostics.filter((d: any) => d.code === 'verify/sdk-types-borrowed').map((d: any) => d.message.split(' ')[0])).toEqual(['@modelcontextprotocol/server', '@modelcontextprotocol/server/stdio']);
  });
});

describe('a v2 project', () => {
  it('migrates the handlers and the serving entry; --check then passes', () => {
    const dir = makeProject('v2-server', { nodeModules: true, git: true });
    writeFileSync(path.join(dir, '.prettierrc'), '{}\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'prettier');
    const run = runCli(dir, []);
    expect(run.code).toBe(0);
    expect(read(dir, 'src/main.ts')).toBe("import { serveStdio } from '@modelcontextprotocol/server/stdio';\nimport { server } from './server.js';\n\nserveStdio(() => server);\nconsole.error('deploy-bot ready');\n");
    expect(read(dir, 'src/server.ts')).toContain('ctx.mcpReq.requestState');
    expect(run.stdout).toMatch(/Sites: 2 found, 2 migrated|Sites: 2 found, 1 migrated, 1 migrated for review/);
    expect(run.stdout).toContain('Next: npx prettier --write src/requestState.ts src/main.ts src/server.ts');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'migrated');
    const check = runCli(dir, ['--check']);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/nothing to change/);
  });

  it('rolls back a rewrite that adds a type error, and keeps the others', () => {
    // An installed @modelcontextprotocol/server whose serveStdio takes no factory: the serving
    // entry rewrite cannot type-check there and must be undone.
    const dir = makeProject('v2-server', { git: false });
    const modules = path.join(dir, 'node_modules');
    mkdirSync(path.join(modules, '@modelcontextprotocol'), { recursive: true });
    for (const name of readdirSync(path.join(REPO, 'node_modules'))) {
      if (name !== '@modelcontextprotocol' && name !== '.bin') symlinkSync(path.join(REPO, 'node_modules', name), path.join(modules, name));
    }
    symlinkSync(path.join(REPO, 'node_modules/@modelcontextprotocol/core'), path.join(modules, '@modelcontextprotocol/core'));
    const server = path.join(modules, '@modelcontextprotocol/server');
    cpSync(path.join(REPO, 'node_modules/@modelcontextprotocol/server'), server, { recursive: true });
    const stdio = path.join(server, 'dist/stdio.d.mts');
    const typings = readFileSync(stdio, 'utf8');
    expect(typings).toContain('declare function serveStdio(factory: McpServerFactory');
    writeFileSync(stdio, typings.replace('declare function serveStdio(factory: McpServerFactory', 'declare function serveStdio(factory: number'));

    const before = snapshot(dir);
    const run = runCli(dir, ['--format', 'json']);
    expect(run.code).toBe(0);
    expect(changedFiles(before, snapshot(dir))).toEqual(['src/requestState.ts', 'src/server.ts']);
    expect(run.stdout).toMatch(/✗ src\/main\.ts: rolled back: line \d+: TS2345/);
    const report = jsonReport(dir);
    expect(report.files.find((f: any) => f.file === 'src/main.ts')).toMatchObject({ rolledBack: true, changed: false, written: false });
    expect(report.files.find((f: any) => f.file === 'src/main.ts').newTypeErrors[0]).toMatch(/TS2345/);
    expect(report.servingEntries).toEqual([expect.objectContaining({ file: 'src/main.ts', status: 'manual' })]);
    expect(report.diagnostics.some((d: any) => d.code === 'verify/rolled-back' && d.file === 'src/main.ts')).toBe(true);
  });
});

describe('a mixed project', () => {
  it('skips ignored, declaration and build files, reports HTTP entries and a question no caller reaches', () => {
    const dir = makeProject('mixed', { nodeModules: true });
    const before = snapshot(dir);
    const run = runCli(dir, ['--dry-run', '--format', 'json']);
    expect(run.code).toBe(0);
    expect(changedFiles(before, snapshot(dir))).toEqual([]);
    const report = jsonReport(dir);
    const files = report.files.map((f: any) => f.file);
    expect(files).not.toContain('src/generated/client.ts');
    expect(files).not.toContain('dist/tools.js');
    expect(files).not.toContain('src/types.d.ts');
    expect(files).not.toContain('src/format.ts');
    expect(report.summary.filesScanned).toBe(4);
    const http = report.servingEntries.find((e: any) => e.file === 'src/http.ts');
    expect(http).toMatchObject({ transport: 'streamable-http', status: 'manual' });
    expect(http.message).toContain('createMcpHandler');
    const uncalled = report.sites.find((s: any) => s.file === 'src/tools/ask.js');
    expect(uncalled).toMatchObject({ status: 'refused', reason: 'caller-not-found' });
    expect(report.sites.find((s: any) => s.file === 'src/tools/translate.ts')).toMatchObject({ kind: 'sampling' });
    expect(report.packageJsonChanges).toEqual([expect.objectContaining({ applied: false, removed: ['@modelcontextprotocol/sdk'] })]);
    expect(existsSync(path.join(dir, 'mrtr-migrate-report.md'))).toBe(true);
  });
});
