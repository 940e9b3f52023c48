import path from 'node:path';
import { MigrateError } from '../project/errors.js';
import type { toJsonReport } from './json.js';

export type JsonReport = ReturnType<typeof toJsonReport>;

/**
 * Several `--format json` reports (one per package of a monorepo, say, each run in its own folder by
 * an Nx / Turborepo task) as one report of the same schema. Paths become relative to `root`, which
 * every run's folder must be inside; counts are added up; `leftToMigrate` is true when it is for any
 * run. Each input is named by `source` in errors.
 */
export function mergeJsonReports(inputs: Array<{ source: string; report: unknown }>, root: string): JsonReport {
  if (inputs.length === 0) throw new MigrateError('merge-reports needs at least one report.');
  const reports = inputs.map(({ source, report }) => checked(source, report, root));
  const first = reports[0]!.report;
  const merged: JsonReport = {
    schemaVersion: first.schemaVersion,
    tool: first.tool,
    startedAt: reports.map(r => r.report.startedAt).sort()[0]!,
    durationMs: reports.reduce((sum, r) => sum + r.report.durationMs, 0),
    cwd: root,
    options: { ...first.options, paths: reports.flatMap(r => r.report.options.paths.map(p => r.prefix(p))), project: undefined },
    tsconfig: null,
    summary: reports.map(r => r.report.summary).reduce((a, b) => addCounts(a, b) as typeof a),
    files: [],
    sites: [],
    alreadyMigrated: [],
    servingEntries: [],
    diagnostics: [],
    packageJsonChanges: [],
    formatCommand: null,
    interrupted: reports.map(r => r.report.interrupted).find(i => i !== null) ?? null,
  };
  for (const { report, prefix } of reports) {
    const relink = (diff: string, file: string) => diff.replace(/^(---|\+\+\+) ([ab])\/(.*)$/gm, (line, mark: string, side: string, name: string) => (name === file ? `${mark} ${side}/${prefix(file)}` : line));
    merged.files.push(...report.files.map(f => ({ ...f, file: prefix(f.file), diff: relink(f.diff, f.file) })));
    // A site's id starts with its file: rebased with it, so ids of two packages stay apart.
    merged.sites.push(...report.sites.map(s => ({ ...s, id: s.id.startsWith(`${s.file}:`) ? prefix(s.id) : s.id, file: prefix(s.file), handlerDiff: relink(s.handlerDiff, s.file) })));
    merged.alreadyMigrated.push(...report.alreadyMigrated.map(a => ({ ...a, file: prefix(a.file) })));
    merged.servingEntries.push(...report.servingEntries.map(e => ({ ...e, file: prefix(e.file) })));
    merged.diagnostics.push(...report.diagnostics.map(d => ({ ...d, file: d.file === null ? null : prefix(d.file) })));
    merged.packageJsonChanges.push(...report.packageJsonChanges.map(c => ({ ...c, file: prefix(c.file), diff: relink(c.diff, c.file) })));
  }
  const byPlace = (a: { file: string; line?: number | null }, b: { file: string; line?: number | null }) => a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0);
  merged.files.sort(byPlace);
  merged.sites.sort(byPlace);
  return merged;
}

function checked(source: string, value: unknown, root: string): { report: JsonReport; prefix: (file: string) => string } {
  const report = value as JsonReport;
  if (!report || typeof report !== 'object' || (report as { tool?: { name?: unknown } }).tool?.name !== 'mrtr-migrate') {
    throw new MigrateError(`${source} is not a report of mrtr-migrate --format json.`);
  }
  if (report.schemaVersion !== 1) throw new MigrateError(`${source} has report schemaVersion ${String(report.schemaVersion)}; this mrtr-migrate merges version 1.`);
  const relative = path.relative(root, report.cwd);
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new MigrateError(`${source} was made in ${report.cwd}, outside ${root}; run merge-reports from a folder that holds every run's folder (or pass --root).`);
  }
  const base = relative.split(path.sep).join('/');
  return { report, prefix: file => (base === '' ? file : `${base}/${file}`) };
}

/** Adds numbers field by field (nested count objects too); booleans are or-ed. */
function addCounts(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a || b;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
    for (const [key, value] of Object.entries(b as Record<string, unknown>)) out[key] = key in out ? addCounts(out[key], value) : value;
    return out;
  }
  return a ?? b;
}
