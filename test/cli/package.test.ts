import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { REPO } from './helpers.js';

// Packs the package and installs the tarball with npm (from npm's cache where it can): tens of seconds.
vi.setConfig({ testTimeout: 300_000 });

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
};
const npm = (cwd: string, args: string[]): string =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });

describe('the package as a user installs it', () => {
  it('packs the built CLI, the plugin, the docs and the LICENSE, without source maps; installed from the tarball, npx mrtr-migrate runs', () => {
    const packed = tempDir('mrtr-pack-');
    // dist/ is built by the e2e global setup: no prepare script here.
    const [info] = JSON.parse(npm(REPO, ['pack', '--json', '--ignore-scripts', '--pack-destination', packed])) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = info!.files.map(f => f.path);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/src/cli/main.js', 'dist/rules/index.js', 'dist/transforms/jscodeshift.cjs', 'docs/rules/no-push-elicitation.md']));
    expect(files.filter(f => f.endsWith('.map'))).toEqual([]);
    expect(files.filter(f => f.startsWith('test/') || f.startsWith('fixtures/') || f.startsWith('src/'))).toEqual([]);

    // A v2 server with its own package.json (the SDK and zod as dependencies), nothing installed yet.
    const project = tempDir('mrtr-install-');
    cpSync(path.join(REPO, 'test/cli/projects/v2-server'), project, { recursive: true });
    npm(project, ['install', '--save-dev', '--prefer-offline', '--ignore-scripts', path.join(packed, info!.filename)]);
    const out = execFileSync('npx', ['--no-install', 'mrtr-migrate', '--dry-run', '--no-progress', '.'], { cwd: project, encoding: 'utf8', env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
    expect(out).toMatch(/^ {2}Sites: 2 found, 2 migrated/m);
  });
});
