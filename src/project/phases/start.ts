import path from 'node:path';
import { ts } from 'ts-morph';
import { MigrateError } from '../errors.js';
import { gitState } from '../git.js';
import type { RunState } from '../runState.js';
import { findTsconfig, loadTsconfig } from '../tsconfig.js';

/**
 * Before anything is read: a writing run refuses a dirty git work tree (the migration's diff must be
 * reviewable on its own), and the tsconfig is found and read; `--check` refuses one that was not
 * read as written.
 */
export function start(run: RunState): void {
  const { options } = run;
  run.git = gitState(run.cwd, options.allowDirty ?? []);
  const { git } = run;
  if (run.write && !options.force && git.root && git.changes.length > 0) {
    const sample = git.changes.slice(0, 3).map(line => line.slice(3)).join(', ');
    throw new MigrateError(
      `the git work tree ${git.root} has ${git.changes.length} uncommitted change(s) (${sample}${git.changes.length > 3 ? ', ...' : ''}); commit or stash them so the migration's diff can be reviewed on its own, or pass --force.`,
    );
  }

  const tsconfigFile = options.project ? projectOption(run.cwd, options.project) : findTsconfig(startDirectory(run.cwd, run.paths), git.root);
  const tsconfig = (run.tsconfig = loadTsconfig(tsconfigFile, options.project !== undefined, run.cwd));
  if (options.check && tsconfig.warnings.length > 0) {
    const more = tsconfig.warnings.length > 1 ? ` (and ${tsconfig.warnings.length - 1} more tsconfig problem(s))` : '';
    throw new MigrateError(`${tsconfig.warnings[0]!.replace(/\.$/, '')}${more}. --check does not vouch for a project whose compiler options were not read as written: fix the tsconfig or pass --project.`);
  }
  for (const warning of tsconfig.warnings) run.diagnostics.push({ level: 'warning', source: 'cli', code: 'cli/tsconfig', file: tsconfig.file ? run.rel(tsconfig.file) : undefined, line: undefined, message: warning });
}

function projectOption(cwd: string, option: string): string {
  const resolved = path.resolve(cwd, option);
  return /\.json$/i.test(resolved) ? resolved : path.join(resolved, 'tsconfig.json');
}

/** Where the nearest tsconfig is looked for: the first path given, or its folder. */
function startDirectory(cwd: string, paths: string[]): string {
  const first = path.resolve(cwd, paths[0]!);
  if (ts.sys.directoryExists(first)) return first;
  return ts.sys.fileExists(first) ? path.dirname(first) : cwd;
}
