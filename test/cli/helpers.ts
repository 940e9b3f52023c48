import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(REPO, 'dist/src/cli/main.js');
const PROJECTS = path.join(REPO, 'test/cli/projects');

// The e2e project's global setup (test/setup/build.ts) builds dist/ once before its tests start.
if (!inject('dist')) throw new Error('test/cli/helpers.ts runs the built CLI: its test files belong in the e2e project (E2E in vitest.config.ts, npm run test:e2e), whose global setup builds dist/.');
if (!existsSync(BIN)) throw new Error(`${BIN} is missing: the e2e global setup (test/setup/build.ts) should have built it.`);

export interface ProjectOptions {
  /**
   * `true`: link the repository's node_modules in, like a project whose dependencies are installed.
   * `'without-v2'`: everything but the v2 SDK packages, like a v1 project before `npm install`.
   */
  nodeModules?: boolean | 'without-v2';
  /** `git init` and commit everything. */
  git?: boolean;
}

const made: string[] = [];
process.on('exit', () => {
  for (const dir of made) {
    try {
      chmodSync(dir, 0o755);
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // left for the OS to clean up
    }
  }
});

/** A fresh copy of a fixture project in a temporary folder (or an empty folder for `undefined`), removed when the tests end. */
export function makeProject(name: string | undefined, options: ProjectOptions = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `mrtr-cli-${name ?? 'empty'}-`));
  made.push(dir);
  if (name) cpSync(path.join(PROJECTS, name), dir, { recursive: true });
  if (options.nodeModules === true) symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  if (options.nodeModules === 'without-v2') {
    const modules = path.join(dir, 'node_modules');
    mkdirSync(path.join(modules, '@modelcontextprotocol'), { recursive: true });
    for (const name of readdirSync(path.join(REPO, 'node_modules'))) {
      if (name !== '@modelcontextprotocol' && name !== '.bin') symlinkSync(path.join(REPO, 'node_modules', name), path.join(modules, name));
    }
    symlinkSync(path.join(REPO, 'node_modules/@modelcontextprotocol/sdk'), path.join(modules, '@modelcontextprotocol/sdk'));
  }
  if (options.git) {
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'before the migration');
  }
  return dir;
}

export function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', NO_COLOR: '1', ...env },
    timeout: 280_000,
  });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every file of a project (not node_modules, not .git, not the reports) with its bytes. */
export function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (current: string) => {
    for (const entry of readdirSync(current)) {
      if (entry === 'node_modules' || entry === '.git' || entry.startsWith('mrtr-migrate-report')) continue;
      const full = path.join(current, entry);
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) continue;
      if (stat.isDirectory()) walk(full);
      else files.set(path.relative(dir, full), readFileSync(full, 'latin1'));
    }
  };
  walk(dir);
  return files;
}

export function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter(n => before.get(n) !== after.get(n)).sort();
}

export function read(dir: string, file: string): string {
  return readFileSync(path.join(dir, file), 'utf8');
}
