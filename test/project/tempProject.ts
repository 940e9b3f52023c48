import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
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

/**
 * `files` copied into a temporary folder whose node_modules holds the dependencies of its
 * package.json only (links to this repository's copies), as `npm install` left it: a v1 project has
 * no v2 package yet, and nothing above the folder lends one.
 */
export function installedProject(prefix: string, from: string): string {
  const dir = mkdtempSync(join(os.tmpdir(), `mrtr-${prefix}-`));
  made.push(dir);
  cpSync(from, dir, { recursive: true });
  install(dir);
  return dir;
}

/** What `npm install` does to node_modules after a run changed package.json: its dependencies linked in, the others out. */
export function install(dir: string): void {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const wanted = new Set(Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }));
  for (const name of linked.get(dir) ?? []) {
    if (!wanted.has(name)) unlinkSync(join(dir, 'node_modules', name));
  }
  for (const name of wanted) {
    const at = join(dir, 'node_modules', name);
    if (existsSync(at)) continue;
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(join(REPO, 'node_modules', name), at, 'dir');
  }
  linked.set(dir, wanted);
}

const linked = new Map<string, Set<string>>();

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

/**
 * A transform that breaks one rewritten handler: in `file`, the handler registered as `tool`, once
 * rewritten (it returns inputRequired), gains a type error above its first `return inputRequired(`.
 * A handler left push-style is left alone, as the rest of the file.
 */
export function breakingHandler(file: string, tool: string): Transform {
  return {
    id: 'break-handler',
    title: `test: a type error in the rewrite of ${tool} in ${file}`,
    apply(sourceFile) {
      const none = { changed: false, diagnostics: [], sites: [], alreadyMigrated: [] };
      if (!sourceFile.getFilePath().endsWith(`/${file}`)) return none;
      const text = sourceFile.getFullText();
      const start = text.indexOf(`registerTool('${tool}'`);
      if (start === -1) return none;
      const next = text.indexOf('registerTool(', start + 1);
      const at = text.indexOf('return inputRequired(', start);
      if (at === -1 || (next !== -1 && at > next)) return none;
      const lineStart = text.lastIndexOf('\n', at) + 1;
      sourceFile.replaceWithText(`${text.slice(0, lineStart)}const broken: number = 'not a number';\n${text.slice(lineStart)}`);
      return { changed: true, diagnostics: [], sites: [], alreadyMigrated: [] };
    },
  };
}

/** A transform that gives one file a type error above the first line that matches `line`, if one does. */
export function breakingLine(file: string, line: RegExp): Transform {
  return {
    id: 'break-line',
    title: `test: a type error in ${file} above ${line}`,
    apply(sourceFile) {
      const none = { changed: false, diagnostics: [], sites: [], alreadyMigrated: [] };
      if (!sourceFile.getFilePath().endsWith(`/${file}`)) return none;
      const lines = sourceFile.getFullText().split('\n');
      const at = lines.findIndex(l => line.test(l));
      if (at === -1) return none;
      lines.splice(at, 0, "const broken: number = 'not a number';");
      sourceFile.replaceWithText(lines.join('\n'));
      return { changed: true, diagnostics: [], sites: [], alreadyMigrated: [] };
    },
  };
}
