import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll } from 'vitest';
import type { Transform } from '../../transforms/types.js';

export const REPO = resolve(import.meta.dirname, '..', '..');

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** An empty temporary folder with this repository's node_modules linked in, like a project whose dependencies are installed; removed when the file's tests end. */
export function tempProject(prefix: string): string {
  const dir = mkdtempSync(join(os.tmpdir(), `mrtr-${prefix}-`));
  made.push(dir);
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** A temporary project compiled with the runnable fixtures' options (tsconfig.fixtures.json), holding `files`. */
export function fixtureOptionsProject(prefix: string, files: Record<string, string>): string {
  const dir = tempProject(prefix);
  const options = JSON.parse(readFileSync(join(REPO, 'test', 'equivalence', 'tsconfig.fixtures.json'), 'utf8')).compilerOptions;
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** The `error TS` lines of this repository's `tsc --noEmit -p <dir>/tsconfig.json [options]` (none when the project builds). */
export function tscErrors(dir: string, options: string[] = []): string[] {
  try {
    execFileSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', join(dir, 'tsconfig.json'), ...options], { encoding: 'utf8', cwd: dir });
    return [];
  } catch (error) {
    return String((error as { stdout?: string }).stdout).split('\n').filter(line => line.includes('error TS'));
  }
}

/** A transform that breaks one file after the rewrite: it gains a type error. */
export function breaking(file: string): Transform {
  return {
    id: 'break-file',
    title: `test: a type error in ${file}`,
    apply(sourceFile) {
      if (!sourceFile.getFilePath().endsWith(`/${file}`)) return { changed: false, diagnostics: [], sites: [], alreadyMigrated: [] };
      sourceFile.replaceWithText(`${sourceFile.getFullText()}\nexport const broken: number = 'not a number';\n`);
      return { changed: true, diagnostics: [], sites: [], alreadyMigrated: [] };
    },
  };
}
