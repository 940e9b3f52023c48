import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { REPO } from './tempProject.js';

/**
 * A v2 project whose installed @modelcontextprotocol/server predates the API the rewrite imports:
 * the real 2.0.0-alpha.3 (no createRequestStateCodec, no inputRequired), installed here under an
 * alias. Where its range is the registry's, the run moves it to the one the v1-to-v2 stage writes
 * and checks the rewrite against its own copy, so nothing is rolled back; where it cannot move (a
 * workspace link), nothing is rewritten and the run says why once, naming the version needed.
 */
const server = readFileSync(join(REPO, 'fixtures/v2-elicit-straight/input.ts'), 'utf8');
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A project whose node_modules is this repository's, but for @modelcontextprotocol/server, which is 2.0.0-alpha.3. */
function projectOnAlpha3(range: string, serverText = server): string {
  const dir = mkdtempSync(join(os.tmpdir(), 'mrtr-server-version-'));
  made.push(dir);
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@modelcontextprotocol'), { recursive: true });
  for (const name of readdirSync(join(REPO, 'node_modules'))) {
    if (name !== '@modelcontextprotocol') symlinkSync(join(REPO, 'node_modules', name), join(modules, name), 'dir');
  }
  for (const name of readdirSync(join(REPO, 'node_modules', '@modelcontextprotocol'))) {
    const target = name === 'server' ? join(REPO, 'node_modules', 'server-v2-alpha3') : join(REPO, 'node_modules', '@modelcontextprotocol', name);
    symlinkSync(target, join(modules, '@modelcontextprotocol', name), 'dir');
  }
  const options = JSON.parse(readFileSync(join(REPO, 'test', 'equivalence', 'tsconfig.fixtures.json'), 'utf8')).compilerOptions;
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options }));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'records-admin', type: 'module', dependencies: { '@modelcontextprotocol/server': range, zod: '^4.2.0' } }, null, 2)}\n`);
  writeFileSync(join(dir, 'server.ts'), serverText);
  return dir;
}

describe('an installed @modelcontextprotocol/server too old for the rewrite', () => {
  it('with a registry range: migrated against mrtr-migrate\'s own copy, the range moved, and said so', async () => {
    const dir = projectOnAlpha3('^2.0.0-alpha.3');
    const report = await migrate({ cwd: dir });
    expect(report.sites.map(s => s.status)).toEqual(['migrated-for-review']);
    expect(readFileSync(join(dir, 'server.ts'), 'utf8')).toContain('inputRequired(');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(manifest.dependencies['@modelcontextprotocol/server']).toBe('^2.3.1');
    const said = report.diagnostics.filter(d => d.code === 'sdk-upgrade/server-range');
    expect(said.map(d => d.message)).toEqual([
      expect.stringMatching(/^@modelcontextprotocol\/server 2\.0\.0-alpha\.3 does not export inputRequired, inputResponse, isInputRequiredResult and 4 more, which the rewrite imports: its range in package\.json becomes \^2\.3\.1 \(from \^2\.0\.0-alpha\.3\), and the rewrite was checked against mrtr-migrate's own copy \(2\.\d+\.\d+\); install the packages again after the run\.$/),
    ]);
    expect(report.diagnostics.filter(d => d.code === 'verify/sdk-types-borrowed')).toEqual([]);
  });

  it('with a registry range and no question: a stdio entry moved to serveStdio moves the range too', async () => {
    const entry = [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';",
      '',
      "const server = new McpServer({ name: 'clock', version: '1.0.0' });",
      'await server.connect(new StdioServerTransport());',
      '',
    ].join('\n');
    const dir = projectOnAlpha3('^2.0.0-alpha.3', entry);
    const report = await migrate({ cwd: dir });
    expect(report.sites).toEqual([]);
    expect(readFileSync(join(dir, 'server.ts'), 'utf8')).toContain('serveStdio(');
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies['@modelcontextprotocol/server']).toBe('^2.3.1');
  });

  it('linked from a workspace: nothing rewritten, no marker, one line naming the version needed', async () => {
    const dir = projectOnAlpha3('workspace:^');
    const report = await migrate({ cwd: dir, dryRun: true });
    expect(report.sites.map(s => [s.status, s.reason])).toEqual([['refused', 'sdk-version']]);
    expect(report.files.filter(f => f.after !== undefined && f.after !== f.before)).toEqual([]);
    const said = report.diagnostics.filter(d => d.code === 'mrtr/server-too-old');
    expect(said).toHaveLength(1);
    expect(said[0]!.message).toBe('@modelcontextprotocol/server 2.0.0-alpha.3 (workspace:^ in package.json) does not export inputRequired, inputResponse, isInputRequiredResult and 4 more, which the rewrite imports: the rewrite needs 2.0.0 or later; upgrade it and run again (no handler was rewritten).');
    expect(report.sites[0]!.hint).toBe(said[0]!.message);
    expect(report.diagnostics.filter(d => d.code === 'verify/rolled-back')).toEqual([]);
  });

  it('with --no-sdk-upgrade, which leaves package.json alone: nothing rewritten', async () => {
    const dir = projectOnAlpha3('^2.0.0-alpha.3');
    const report = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
    expect(report.sites.map(s => [s.status, s.reason])).toEqual([['refused', 'sdk-version']]);
  });
});
