import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeProject, read, REPO } from './helpers.js';

// Each test spawns the CLI (a type-checking run) one or more times; CI machines are slow and shared.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

const TRANSFORM = path.join(REPO, 'dist/transforms/jscodeshift.cjs');
const JSCODESHIFT = path.join(REPO, 'node_modules/jscodeshift/bin/jscodeshift.js');

function jscodeshift(cwd: string, args: string[]) {
  const result = spawnSync(process.execPath, [JSCODESHIFT, '-t', TRANSFORM, '--extensions=ts,tsx,mts,cts,js,jsx,mjs,cjs', ...args], { cwd, encoding: 'utf8', timeout: 280_000 });
  return { code: result.status, out: result.stdout + result.stderr };
}

describe('the jscodeshift transform', () => {
  it.each([['with Babel (the default)', []], ['with --no-babel', ['--no-babel']]] as const)('runs under jscodeshift %s', (_label, extra) => {
    const dir = makeProject('v2-server', { nodeModules: true });
    const run = jscodeshift(dir, [...extra, 'src']);
    expect(run.out).toMatch(/0 errors/);
    expect(run.out).toMatch(/2 ok/);
    expect(read(dir, 'src/main.ts')).toContain('serveStdio(() => server);');
    expect(read(dir, 'src/server.ts')).toContain('inputRequired');
  });

  it('reports refusals and leaves files without sites alone; --dry writes nothing', () => {
    const dir = makeProject('v1-server', { nodeModules: true });
    const before = read(dir, 'src/index.ts');
    const dry = jscodeshift(dir, ['--dry', '--verbose=2', 'src']);
    expect(dry.out).toMatch(/refused \(loop\)/);
    expect(dry.out).toMatch(/1 ok/);
    expect(dry.out).toMatch(/1 unmodified/);
    expect(read(dir, 'src/index.ts')).toBe(before);
  });
});
