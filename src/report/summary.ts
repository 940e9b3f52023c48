import type { SiteApi } from '../analysis/types.js';
import type { RunReport, SiteReport, SiteStatus } from './model.js';

/** The counts every renderer shows, computed once from the report. */
export interface Summary {
  filesScanned: number;
  filesParsed: number;
  filesChanged: number;
  filesWritten: number;
  /** Files left untouched because of an error (parse error, unreadable, internal error, write failure). */
  filesFailed: number;
  filesRolledBack: number;
  sites: number;
  byStatus: Record<SiteStatus, number>;
  refusedByReason: Record<string, number>;
  byApi: Partial<Record<SiteApi, Record<SiteStatus, number> & { total: number }>>;
  alreadyMigrated: number;
  servingRewritten: number;
  servingManual: number;
  servingAlready: number;
  /** `// mrtr-migrate-ignore` comments without a reason or that suppress nothing. */
  ignoreProblems: number;
  /** Anything the run would still change, any site it could not migrate, or an ignore comment to fix (what `--check` fails on). */
  leftToMigrate: boolean;
}

const STATUSES: SiteStatus[] = ['migrated', 'migrated-for-review', 'refused', 'rolled-back', 'not-written', 'ignored'];

/** Sites that are done with: rewritten, or left on purpose under an ignore comment. */
export function isSettled(status: SiteStatus): boolean {
  return status === 'migrated' || status === 'migrated-for-review' || status === 'ignored';
}

/** Diagnostic codes of `// mrtr-migrate-ignore` comments without a reason or suppressing nothing. */
export function isIgnoreProblem(code: string | undefined): boolean {
  return code !== undefined && code.startsWith('mrtr/ignore-');
}

export function emptyStatusCounts(): Record<SiteStatus, number> {
  return Object.fromEntries(STATUSES.map(s => [s, 0])) as Record<SiteStatus, number>;
}

export function summarize(report: RunReport): Summary {
  const byStatus = emptyStatusCounts();
  const refusedByReason: Record<string, number> = {};
  const byApi: Summary['byApi'] = {};
  for (const site of report.sites) {
    byStatus[site.status]++;
    if (!isSettled(site.status)) {
      const reason = reasonOf(site);
      refusedByReason[reason] = (refusedByReason[reason] ?? 0) + 1;
    }
    const api = (byApi[site.api] ??= { ...emptyStatusCounts(), total: 0 });
    api[site.status]++;
    api.total++;
  }
  const changed = report.files.filter(f => f.changed);
  const pendingChanges = report.options.dryRun || report.options.check ? changed.length > 0 || report.packageJsonChanges.length > 0 : false;
  const stuck = report.sites.some(s => !isSettled(s.status));
  const ignoreProblems = report.diagnostics.filter(d => isIgnoreProblem(d.code)).length;
  const notWritten = report.files.some(f => f.changed && !f.written) && !report.options.dryRun && !report.options.check;
  return {
    filesScanned: report.filesScanned,
    filesParsed: report.filesParsed,
    filesChanged: changed.length,
    filesWritten: report.files.filter(f => f.written).length,
    filesFailed: report.files.filter(f => f.error !== undefined).length,
    filesRolledBack: report.files.filter(f => f.rolledBack).length,
    sites: report.sites.length,
    byStatus,
    refusedByReason,
    byApi,
    alreadyMigrated: report.alreadyMigrated.length,
    servingRewritten: report.servingEntries.filter(s => s.status === 'rewritten').length,
    servingManual: report.servingEntries.filter(s => s.status === 'manual').length,
    servingAlready: report.servingEntries.filter(s => s.status === 'already').length,
    // A file that could not be parsed or written may still hold push-style calls: not vouched for.
    ignoreProblems,
    leftToMigrate: pendingChanges || stuck || notWritten || ignoreProblems > 0 || report.files.some(f => f.error !== undefined),
  };
}

/** The reason a site was not migrated, for counting: the refusal reason, or what undid it. */
export function reasonOf(site: SiteReport): string {
  if (site.status === 'rolled-back') return 'rolled-back';
  if (site.status === 'not-written') return 'not-written';
  return site.reason ?? 'unknown';
}

export const STATUS_LABEL: Record<SiteStatus, string> = {
  migrated: 'migrated',
  'migrated-for-review': 'migrated, review',
  refused: 'refused',
  'rolled-back': 'rolled back',
  'not-written': 'not written',
  ignored: 'ignored',
};
