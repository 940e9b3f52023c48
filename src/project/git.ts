import { execFileSync } from 'node:child_process';
import path from 'node:path';

export interface GitState {
  /** The work tree's root, or undefined when the folder is not in a git work tree (or git is absent). */
  root: string | undefined;
  /** Uncommitted changes (`git status --porcelain` lines), paths relative to the root. */
  changes: string[];
}

function git(cwd: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 });
  } catch {
    return undefined;
  }
}

/** `exclude`: absolute paths that do not count as changes (the report files of a previous run). */
export function gitState(cwd: string, exclude: string[] = []): GitState {
  const top = git(cwd, ['rev-parse', '--show-toplevel'])?.trim();
  if (!top) return { root: undefined, changes: [] };
  const root = path.resolve(top);
  const porcelain = git(root, ['status', '--porcelain', '--untracked-files=all']) ?? '';
  const excluded = new Set(exclude.map(p => path.relative(root, path.resolve(p)).split(path.sep).join('/')));
  const changes = porcelain
    .split('\n')
    .filter(line => line.trim() !== '')
    .filter(line => !excluded.has(unquote(line.slice(3))));
  return { root, changes };
}

function unquote(file: string): string {
  return file.startsWith('"') && file.endsWith('"') ? file.slice(1, -1) : file;
}
