import type { Diagnostic, FileReport, RunReport, ServingEntryReport, SiteReport } from '../../report/model.js';
import { detectFormatter, shellQuote } from '../formatter.js';
import { sourceTextOf, type Entry, type RunState } from '../runState.js';
import { restoreShape, splitBom } from '../sourceText.js';
import { toolVersion } from '../version.js';
import { SERVE_TODO } from '../../../transforms/mrtr/index.js';

/** The RunReport every output format is made from. */
export function report(run: RunState): RunReport {
  const { options, written } = run;
  const formatter = written.length > 0 ? detectFormatter(run.cwd) : undefined;
  const files: FileReport[] = [
    ...run.unreadable,
    ...run.entries.map(entry => fileReport(entry, written.includes(entry.read.path))),
  ].sort((a, b) => a.file.localeCompare(b.file));
  const serving = servingEntries(run.diagnostics, run.entries);
  return {
    schemaVersion: 1,
    tool: { name: 'mrtr-migrate', version: toolVersion() },
    startedAt: run.startedAt.toISOString(),
    durationMs: Date.now() - run.startedAt.getTime(),
    cwd: run.cwd,
    options: {
      paths: run.paths,
      dryRun: !!options.dryRun,
      check: !!options.check,
      sdkUpgrade: run.sdkUpgrade,
      zodUpgrade: run.zodUpgrade,
      runtime: run.runtime,
      verify: run.verify,
      force: !!options.force,
      ignore: run.ignore,
      project: options.project,
    },
    tsconfig: run.tsconfig.file ? run.rel(run.tsconfig.file) : undefined,
    filesScanned: run.files.length,
    filesParsed: run.filesParsed,
    files,
    sites: withoutServingTodo(run.sites.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column), serving),
    alreadyMigrated: run.alreadyMigrated,
    servingEntries: serving,
    diagnostics: run.diagnostics,
    packageJsonChanges: run.packageJsonChanges,
    formatCommand: formatter ? `${formatter.command} ${written.map(f => shellQuote(run.rel(f))).join(' ')}` : undefined,
    interrupted: run.interrupted,
  };
}

/**
 * A migrated site's to-do of serving the 2026-07-28 era is done where the run found serving entries
 * and every one of them serves it now (moved to serveStdio by this run, or through serveStdio /
 * createMcpHandler already). With none found, or one left to move by hand, it stays.
 */
function withoutServingTodo(sites: SiteReport[], serving: ServingEntryReport[]): SiteReport[] {
  if (serving.length === 0 || serving.some(e => e.status === 'manual')) return sites;
  return sites.map(site => ({ ...site, todo: site.todo.filter(t => !t.startsWith(SERVE_TODO)) }));
}

function fileReport(entry: Entry, written: boolean): FileReport {
  const after = splitBom(restoreShape(sourceTextOf(entry), entry.shape)).text;
  const before = entry.read.text;
  return {
    file: entry.rel,
    before,
    afterSdkUpgrade: entry.afterSdkUpgrade,
    after,
    changed: after !== before,
    changedBy: entry.changedBy,
    rolledBack: entry.rolledBack,
    newTypeErrors: entry.newTypeErrors,
    written,
    error: entry.error,
  };
}

function servingEntries(diagnostics: Diagnostic[], entries: Entry[]): ServingEntryReport[] {
  const rolledBack = new Set(entries.filter(e => e.rolledBack || e.error).map(e => e.rel));
  return diagnostics
    .filter(d => d.source === 'serving' && d.file !== undefined && d.line !== undefined)
    .map(d => {
      const status = d.code === 'serving/stdio-rewritten' ? (rolledBack.has(d.file!) ? 'manual' : 'rewritten') : d.code === 'serving/already' ? 'already' : 'manual';
      const transport = /SSEServerTransport/.test(d.message) ? 'sse' : d.code === 'serving/http-manual' ? 'streamable-http' : d.code === 'serving/already' && d.message.includes('createMcpHandler') ? 'streamable-http' : 'stdio';
      return { file: d.file!, line: d.line!, transport, status, message: d.message } satisfies ServingEntryReport;
    });
}
