import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { migrate } from '../../src/project/migrate.js';
import type { SiteReport } from '../../src/report/model.js';

/**
 * Folder fixtures (fixtures/<case>/input/, a server laid out in several modules): the CLI's own
 * project pipeline in a dry run, which plans the files together, with the fixtures' compiler options.
 */

// The options the runnable fixtures are checked with (noUncheckedIndexedAccess among them).
const TSCONFIG = resolve(import.meta.dirname, '..', 'equivalence', 'tsconfig.fixtures.json');

export interface FolderResult {
  /** Every file of the folder after the run (new ones included), by path relative to it. */
  files: Map<string, string>;
  sites: SiteReport[];
  /** Files the run could not complete, with why. */
  errors: string[];
}

/** `verify: false` skips the type check (and so any rollback): for tests that compare verdicts only. */
export async function migrateFolder(dir: string, options: { verify?: boolean } = {}): Promise<FolderResult> {
  const report = await migrate({ cwd: dir, dryRun: true, project: TSCONFIG, verify: options.verify ?? true });
  const files = new Map<string, string>();
  for (const name of sourceFiles(dir)) files.set(name, readFileSync(join(dir, name), 'utf8'));
  for (const file of report.files) if (file.changed) files.set(file.file, file.after);
  const errors = [
    ...report.files.flatMap(f => (f.error ? [`${f.file}: ${f.error}`] : [])),
    ...report.diagnostics.filter(d => d.level === 'error').map(d => `${d.file ?? ''}: ${d.message}`),
  ];
  return { files, sites: report.sites, errors };
}

/** The entry module of a folder fixture's folder (`index.ts`, or `index.mjs` / `index.js` for JavaScript), if it is one. */
export function folderEntry(dir: string): string | undefined {
  return ['index.ts', 'index.mjs', 'index.js'].map(name => join(dir, name)).find(file => existsSync(file));
}

/** The TypeScript files of a folder fixture, relative to it. */
export function sourceFiles(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).sort().flatMap(name => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full, `${prefix}${name}/`);
    return /\.[cm]?[jt]s$/.test(name) ? [`${prefix}${name}`] : [];
  });
}
