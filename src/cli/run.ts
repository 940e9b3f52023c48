import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { MigrateError } from '../project/errors.js';
import { installCommand, shellQuote } from '../project/formatter.js';
import { migrate } from '../project/migrate.js';
import { removePendingTemps } from '../project/sourceText.js';
import { toolVersion } from '../project/version.js';
import { REPORT_JSON_SCHEMA, renderJson } from '../report/json.js';
import { renderHtml } from '../report/html.js';
import { renderMarkdown } from '../report/markdown.js';
import { mergeJsonReports } from '../report/merge.js';
import type { RunReport } from '../report/model.js';
import { renderSarif } from '../report/sarif.js';
import { summarize } from '../report/summary.js';
import { renderDiffs, renderTerminalSummary } from '../report/terminal.js';
import { parseCliArgs, USAGE, type CliArgs, type ReportFormat } from './args.js';
import pc from 'picocolors';
import { EXIT } from './exitCodes.js';
import { acquireRunLock, LockedError, type RunLock } from './lock.js';
import { ownerManifest, RUNTIME_PACKAGE } from '../project/packageJson.js';
import { V1_KEPT } from '../../transforms/mrtr/index.js';
import { createProgress } from './progress.js';
import type { ProgressEvent } from '../project/migrate.js';

export interface CliIo {
  cwd: string;
  stdout: { write(text: string): boolean };
  stderr: { isTTY?: boolean; columns?: number; write(text: string): boolean };
  env: NodeJS.ProcessEnv;
  /** Whether to colour the diff and the summary; default: picocolors' own choice for this thread (isolate.ts decides for the worker). */
  color?: boolean;
  /** How the user started the CLI, to print commands that work the same way (see invocation.ts); default `npx mrtr-migrate`. */
  invokedAs?: string;
  /**
   * Where SIGINT / SIGTERM come from, listened to from the first write until the report is out.
   * Default: this process's own signals (a worker thread gets its own from the main thread, isolate.ts).
   */
  signals?: SignalSource;
  /** Told each phase as it starts (isolate.ts names it if the run runs out of memory). */
  onPhase?: (phase: ProgressEvent['phase']) => void;
}

/** Calls `onSignal` for each SIGINT / SIGTERM until the function it returns is called. */
export type SignalSource = (onSignal: (name: NodeJS.Signals) => void) => () => void;

const processSignals: SignalSource = onSignal => {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
};

export { EXIT };

/** The CLI as a function: arguments in, exit code out; everything printed goes through `io`. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === 'merge-reports') return mergeReportsCommand(argv.slice(1), io);
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    return fail(io, error);
  }
  if (args.help) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (args.version) {
    io.stdout.write(`${toolVersion()}\n`);
    return EXIT.ok;
  }
  if (args.printJsonSchema) {
    io.stdout.write(JSON.stringify(REPORT_JSON_SCHEMA, null, 2) + '\n');
    return EXIT.ok;
  }

  const reportPaths = reportFiles(io.cwd, args.report, args.formats);
  // One run per project (the package the run starts in, or its folder) until its report is written;
  // the packages of a monorepo still run side by side.
  let lock: RunLock;
  try {
    const waitMs = Number(io.env['MRTR_MIGRATE_LOCK_WAIT_MS'] ?? 2000);
    const manifest = ownerManifest(path.join(io.cwd, 'package.json'), path.parse(io.cwd).root);
    lock = await acquireRunLock(manifest ? path.dirname(manifest) : io.cwd, Number.isFinite(waitMs) && waitMs >= 0 ? waitMs : 2000);
  } catch (error) {
    return fail(io, error);
  }
  try {
    return await runLocked(args, io, reportPaths);
  } finally {
    lock.release();
  }
}

/** The run itself, once it holds the project's lock: migrate, write the reports, print the summary. */
async function runLocked(args: CliArgs, io: CliIo, reportPaths: ReturnType<typeof reportFiles>): Promise<number> {
  const progress = createProgress(io.stderr, { enabled: args.progress, ci: isCi(io.env) });
  const interruption = interruptions(io.signals ?? processSignals);
  let report: RunReport;
  try {
    report = await migrate({
      cwd: io.cwd,
      paths: args.paths,
      ignore: args.ignore,
      project: args.project,
      dryRun: args.dryRun,
      check: args.check,
      sdkUpgrade: args.sdkUpgrade,
      runtime: args.runtime,
      zodUpgrade: args.zodUpgrade,
      verify: args.verify,
      force: args.force,
      // The reports of an earlier run (any format) are not the user's uncommitted work.
      allowDirty: Object.values(reportFiles(io.cwd, args.report, ['md', 'json', 'sarif', 'html'])),
      // Before the write stage nothing has been written: Ctrl-C may end the process at once.
      onProgress: event => {
        if (event.phase === 'write') interruption.arm();
        io.onPhase?.(event.phase);
        progress.update(event);
      },
      signal: interruption.signal,
    });
  } catch (error) {
    progress.done();
    interruption.disarm();
    return fail(io, error);
  } finally {
    progress.done();
  }

  try {
    try {
      writeReports(report, reportPaths);
    } catch (error) {
      io.stderr.write(`mrtr-migrate: the run finished${report.options.dryRun || report.options.check ? '' : ' and the files were written'}, but the report could not be written: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT.failed;
    }

    const colors = io.color === undefined ? pc : pc.createColors(io.color);
    if (args.dryRun) io.stdout.write(renderDiffs(report, colors));
    const shown = Object.values(reportPaths).map(p => relative(io.cwd, p));
    io.stdout.write(renderTerminalSummary(report, shown, nextSteps(report, args, io.cwd, io.invokedAs ?? 'npx mrtr-migrate'), colors));
    if (report.interrupted) return report.interrupted === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted;
    if (args.check) return summarize(report).leftToMigrate ? EXIT.leftToMigrate : EXIT.ok;
    // Done, but a file could not be read, parsed or written: a script must not take that for success.
    return report.files.some(f => f.error !== undefined) ? EXIT.incomplete : EXIT.ok;
  } finally {
    interruption.disarm();
  }
}

/**
 * SIGINT / SIGTERM during the write stage: the run stops before the next file, then writes the
 * manifests and the report for what was written (exit 130, or 143 for SIGTERM). Listening only
 * from the first write on keeps Ctrl-C immediate while nothing has been written; once armed, the
 * listeners stay until the report is out, so a second Ctrl-C cannot cut a write in half.
 */
function interruptions(signals: SignalSource): { signal: AbortSignal; arm(): void; disarm(): void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (!controller.signal.aborted) controller.abort(name);
  };
  let stop: (() => void) | undefined;
  return {
    signal: controller.signal,
    arm() {
      stop ??= signals(onSignal);
    },
    disarm() {
      if (!stop) return;
      stop();
      stop = undefined;
      // Writes are synchronous and finish before a signal is handled; this is the guarantee, not the usual path.
      removePendingTemps();
    },
  };
}

/**
 * `mrtr-migrate merge-reports <report.json ...> [--output <file>] [--root <folder>]`: the JSON reports
 * of several runs (a monorepo's packages) as one, on stdout or in --output. Exit 1 when any run left
 * something to migrate, as --check would, so a CI step can gate on the merged report.
 */
function mergeReportsCommand(argv: string[], io: CliIo): number {
  try {
    const { values, positionals } = parseArgs({
      args: argv, allowPositionals: true, strict: true,
      options: { output: { type: 'string', short: 'o' }, root: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      io.stdout.write(MERGE_USAGE);
      return EXIT.ok;
    }
    if (positionals.length === 0) throw new MigrateError(`merge-reports needs the JSON reports to merge.\n${MERGE_USAGE}`);
    const inputs = positionals.map(file => {
      const full = path.resolve(io.cwd, file);
      let text: string;
      try {
        text = readFileSync(full, 'utf8');
      } catch (error) {
        throw new MigrateError(`${file} cannot be read (${error instanceof Error ? error.message : String(error)}).`);
      }
      try {
        return { source: file, report: JSON.parse(text) as unknown };
      } catch {
        throw new MigrateError(`${file} is not JSON; merge-reports takes the reports of --format json.`);
      }
    });
    const merged = mergeJsonReports(inputs, path.resolve(io.cwd, values.root ?? '.'));
    const text = JSON.stringify(merged, null, 2) + '\n';
    if (values.output) {
      const out = path.resolve(io.cwd, values.output);
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, text);
      // The merged report went to a file: say where, and what it holds.
      const { sites, byStatus, leftToMigrate } = merged.summary;
      const notMigrated = sites - byStatus.migrated - byStatus['migrated-for-review'] - byStatus.ignored;
      io.stdout.write(`Merged ${inputs.length} report(s) into ${relative(io.cwd, out)}: ${sites} site(s), ${byStatus.migrated} migrated, ${byStatus['migrated-for-review']} migrated for review, ${notMigrated} not migrated${leftToMigrate ? '; something is left to migrate (exit 1)' : ''}.\n`);
    } else {
      io.stdout.write(text);
    }
    return merged.summary.leftToMigrate ? EXIT.leftToMigrate : EXIT.ok;
  } catch (error) {
    if (error instanceof TypeError && 'code' in error) return fail(io, new MigrateError(`${error.message.replace(/\.$/, '')}; see mrtr-migrate merge-reports --help.`));
    return fail(io, error);
  }
}

const MERGE_USAGE = `Usage: mrtr-migrate merge-reports <report.json ...> [--output <file>] [--root <folder>]

Merges the --format json reports of several runs (say, one per package of a monorepo)
into one report of the same schema. File paths become relative to --root (default:
the current folder), which must hold every run's folder. Exit 1 when any run left
something to migrate, 0 otherwise, 2 when a report cannot be read or merged.
`;

function fail(io: CliIo, error: unknown): number {
  if (error instanceof MigrateError || error instanceof LockedError) {
    io.stderr.write(`mrtr-migrate: ${error.message}\n`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`mrtr-migrate: internal error: ${message.split('\n')[0]} (nothing more was written; please report this with the command you ran)\n`);
    if (io.env['MRTR_MIGRATE_DEBUG'] && error instanceof Error && error.stack) io.stderr.write(error.stack + '\n');
  }
  return EXIT.failed;
}

/** The format a report path's extension names (`.md` / `.markdown` too), if it names one. */
const REPORT_EXTENSIONS: Readonly<Record<string, ReportFormat>> = { md: 'md', markdown: 'md', json: 'json', sarif: 'sarif', html: 'html', htm: 'html' };

/**
 * The report at `--report`, in the format its extension names (markdown for any other); the
 * markdown report, always written, and the other `--format`s beside it: same name, their own extension.
 */
export function reportFiles(cwd: string, report: string, formats: readonly ReportFormat[]): Partial<Record<ReportFormat, string>> {
  const given = path.resolve(cwd, report);
  const extension = /\.([a-z]+)$/i.exec(given)?.[1]?.toLowerCase();
  const named = extension !== undefined ? REPORT_EXTENSIONS[extension] : undefined;
  const base = named ? given.slice(0, -(extension!.length + 1)) : given;
  const files: Partial<Record<ReportFormat, string>> = { [named ?? 'md']: given };
  for (const format of new Set<ReportFormat>(['md', ...formats])) files[format] ??= `${base}.${format}`;
  return files;
}

function writeReports(report: RunReport, files: Partial<Record<ReportFormat, string>>): void {
  const renderers: Record<ReportFormat, (r: RunReport) => string> = { md: renderMarkdown, json: renderJson, sarif: renderSarif, html: renderHtml };
  for (const [format, file] of Object.entries(files) as [ReportFormat, string][]) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, renderers[format](report));
  }
}

/** What to run next, most useful first. */
function nextSteps(report: RunReport, args: CliArgs, cwd: string, invokedAs: string): string[] {
  const s = summarize(report);
  const again = [invokedAs, ...args.paths.map(shellQuote)].join(' ');
  if (report.interrupted) {
    // The written files are now uncommitted changes: the git guard needs --force to go on.
    return [`${again} --force   # migrate the files the interruption left unchanged`, inGit(cwd) ? 'git diff   # review what was written' : 'review what was written: the report lists the files'];
  }
  if (args.check) return s.leftToMigrate ? [`${again}   # migrate, then review the report`] : ['nothing left to migrate'];
  // The installed server is too old for any rewrite (the run said why): that comes first.
  if (report.sites.some(site => site.reason === 'sdk-version' && site.hint === V1_KEPT)) return [`${again}   # without --no-sdk-upgrade: the files on the v1 SDK move to v2, which the rewrite needs`];
  if (report.sites.some(site => site.reason === 'sdk-version')) return [`upgrade @modelcontextprotocol/server, then ${again}`];
  if (args.dryRun) {
    if (s.filesChanged > 0 || report.packageJsonChanges.length > 0) return [`${again}   # apply these changes`];
    return s.leftToMigrate ? ['fix the sites listed in the report by hand'] : ['nothing left to migrate'];
  }
  const steps: string[] = [];
  const manifest = report.packageJsonChanges.find(c => c.applied);
  // With --runtime package, the manifest may have gained mrtr-migrate itself.
  const runtime = report.packageJsonChanges.some(c => c.applied && (c.added.includes(RUNTIME_PACKAGE) || c.updated.some(u => u.startsWith(`${RUNTIME_PACKAGE} `))));
  if (manifest) steps.push(`${installCommand(path.dirname(path.resolve(cwd, manifest.file)), gitRoot(cwd))}   # install ${runtime ? 'the new dependencies' : 'the v2 packages'}`);
  if (report.formatCommand) steps.push(`${report.formatCommand}   # format the changed files your way`);
  // Outside git there is no diff to ask for: the report has each file's.
  if (s.filesWritten > 0) steps.push(inGit(cwd) ? 'git diff   # review the changes with the report, then run your tests' : 'review the changes in the report (a diff per file), then run your tests');
  else if (s.leftToMigrate) steps.push('fix the sites listed in the report by hand');
  else steps.push('nothing left to migrate');
  return steps;
}

function isCi(env: NodeJS.ProcessEnv): boolean {
  return !!env['CI'] && env['CI'] !== 'false' && env['CI'] !== '0';
}

/** Whether a folder is inside a git work tree (a `.git` folder or file above it). */
function inGit(cwd: string): boolean {
  return gitRoot(cwd) !== undefined;
}

/** The root of the git work tree a folder is in (where the `.git` folder or file is), if it is in one. */
function gitRoot(cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function relative(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}
