import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The formatter a project has configured, so the summary can print the command that reformats the
 * changed files with the user's own settings (the rewrite does not reformat). Detection only reads
 * config files; precedence Biome > Prettier > ESLint, as in the official codemod. The walk stops at
 * the git root and never reads $HOME or above, so a user-level config is not taken for the project's.
 */
export interface Formatter {
  name: 'Biome' | 'Prettier' | 'ESLint';
  command: string;
}

const BIOME = ['biome.json', 'biome.jsonc'];
const PRETTIER = ['.prettierrc', '.prettierrc.json', '.prettierrc.json5', '.prettierrc.yaml', '.prettierrc.yml', '.prettierrc.toml', '.prettierrc.js', '.prettierrc.cjs', '.prettierrc.mjs', '.prettierrc.ts', 'prettier.config.js', 'prettier.config.cjs', 'prettier.config.mjs', 'prettier.config.ts'];
const ESLINT = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts', '.eslintrc', '.eslintrc.js', '.eslintrc.cjs', '.eslintrc.json', '.eslintrc.yml', '.eslintrc.yaml'];

export function detectFormatter(start: string, home = os.homedir()): Formatter | undefined {
  const found = { biome: false, prettier: false, eslint: false };
  let dir = path.resolve(start);
  const homeDir = path.resolve(home);
  for (;;) {
    if (dir === homeDir) break;
    const has = (names: string[]) => names.some(name => existsSync(path.join(dir, name)));
    found.biome ||= has(BIOME);
    found.prettier ||= has(PRETTIER);
    found.eslint ||= has(ESLINT);
    const deps = dependenciesOf(path.join(dir, 'package.json'));
    found.prettier ||= deps.has('prettier');
    found.eslint ||= deps.has('eslint');
    const parent = path.dirname(dir);
    if (existsSync(path.join(dir, '.git')) || parent === dir || parent === homeDir) break;
    dir = parent;
  }
  if (found.biome) return { name: 'Biome', command: 'npx biome format --write' };
  if (found.prettier) return { name: 'Prettier', command: 'npx prettier --write' };
  if (found.eslint) return { name: 'ESLint', command: 'npx eslint --fix' };
  return undefined;
}

function dependenciesOf(file: string): Set<string> {
  if (!existsSync(file)) return new Set();
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const names = new Set<string>();
    if ('prettier' in json) names.add('prettier');
    for (const section of ['dependencies', 'devDependencies']) {
      const deps = json[section];
      if (deps && typeof deps === 'object') for (const name of Object.keys(deps)) names.add(name);
    }
    return names;
  } catch {
    return new Set();
  }
}

/**
 * The install command of the package manager the package is installed with: the first folder from
 * the manifest's up to `stop` (the repository's root) that names one decides, by its package.json's
 * `packageManager` (corepack's `pnpm@9.1.0`), a lockfile, or a pnpm workspace file; npm where none
 * does. A package of a workspace is so installed with the workspace's manager.
 */
export function installCommand(manifestDir: string, stop?: string): string {
  const end = stop === undefined ? undefined : path.resolve(stop);
  for (let dir = path.resolve(manifestDir); ; dir = path.dirname(dir)) {
    const manager = managerNamedIn(dir);
    if (manager) return `${manager} install`;
    if (dir === end || path.dirname(dir) === dir) return 'npm install';
  }
}

const MANAGER_FILES: ReadonlyArray<readonly [string, string]> = [
  ['pnpm-lock.yaml', 'pnpm'], ['pnpm-workspace.yaml', 'pnpm'], ['yarn.lock', 'yarn'], ['bun.lock', 'bun'], ['bun.lockb', 'bun'],
  ['package-lock.json', 'npm'], ['npm-shrinkwrap.json', 'npm'],
];

function managerNamedIn(dir: string): string | undefined {
  try {
    const declared = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { packageManager?: unknown }).packageManager;
    const name = typeof declared === 'string' ? /^(npm|pnpm|yarn|bun)@/.exec(declared)?.[1] : undefined;
    if (name) return name;
  } catch {
    // No package.json here, or one that cannot be read: the lockfiles say.
  }
  return MANAGER_FILES.find(([file]) => existsSync(path.join(dir, file)))?.[1];
}

/** A shell word, quoted only when needed. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
