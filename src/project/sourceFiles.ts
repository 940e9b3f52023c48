import path from 'node:path';

/** The sources a migration reads: TypeScript and JavaScript, never declaration files. */
export const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'] as const;

const SOURCE_RE = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const DECLARATION_RE = /\.d\.(?:ts|mts|cts)$|\.d\.[^/\\]+\.ts$/;

export function isSourceFileName(name: string): boolean {
  return SOURCE_RE.test(name) && !DECLARATION_RE.test(name);
}

export function isDeclarationFileName(name: string): boolean {
  return DECLARATION_RE.test(name);
}

/** A file's absolute path with `/` separators, as the compiler and ts-morph name files. */
export function standardPath(file: string): string {
  return path.resolve(file).split(path.sep).join('/');
}

/** Folders that hold dependencies, VCS data or build output: never walked into. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  'dist',
  'build',
  'out',
  'coverage',
  '.next',
  '.nuxt',
  '.output',
  '.svelte-kit',
  '.turbo',
  '.vercel',
  '.wrangler',
  '__generated__',
]);
