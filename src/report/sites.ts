import { diffOfLines, lineMapper } from './diff.js';
import type { FileReport, RunReport, SiteReport } from './model.js';
import { STATUS_LABEL } from './summary.js';

/** Facts about a site that every renderer words the same way. */

/** How the report names a dual-era handler among the already migrated ones. */
export const DUAL_ERA = 'dual-era: its push calls serve 2025-era connections, beside its own inputRequired path';

export function fileOf(report: RunReport, site: SiteReport): FileReport | undefined {
  return report.files.find(f => f.file === site.file);
}

/**
 * The diff of the site's handler, from the user's text to the file as the run left it (the v1-to-v2
 * stage's edits to it included). `handlerLines` count lines of the text the rewrite started from.
 */
export function handlerDiff(report: RunReport, site: SiteReport): string {
  const file = fileOf(report, site);
  if (!file || !site.handlerLines) return '';
  const toRead = file.afterSdkUpgrade === file.before ? (line: number) => line : lineMapper(file.before, file.afterSdkUpgrade);
  return diffOfLines(site.file, file.before, file.after, { start: toRead(site.handlerLines.start), end: toRead(site.handlerLines.end) });
}

export function verdictText(site: SiteReport): string {
  const label = STATUS_LABEL[site.status];
  if (site.status === 'refused') return `${label}: ${site.reason ?? 'unknown reason'}`;
  return label;
}

export function handlerText(site: SiteReport): string {
  if (!site.handler) return site.context;
  const name = site.handler.name ? ` "${site.handler.name}"` : '';
  return `${site.handler.method}${name} (line ${site.handler.line})`;
}

export function localsText(site: SiteReport): string[] {
  return site.liveLocals.map(l => `${l.name}${l.type ? `: ${l.type}` : ''} (${LOCAL_HOW[l.how](l)})`);
}

const LOCAL_HOW: Record<SiteReport['liveLocals'][number]['how'], (l: SiteReport['liveLocals'][number]) => string> = {
  'carry': () => 'carried in requestState',
  'rebuild': () => 'rebuilt on resume',
  'declare': () => 'declared again on resume',
  'server-object': l => `lives in the server, cannot travel${l.what ? `: it ${l.what}` : ''}`,
};

/** Migrated handlers moved their locals into the state; for the others these are what would have to travel. */
export function localsLabel(status: SiteReport['status']): string {
  return status === 'migrated' || status === 'migrated-for-review' ? 'Locals moved into the state' : 'Locals that would travel in the state';
}

export function siteLocation(site: SiteReport): string {
  return `${site.file}:${site.line}:${site.column}`;
}
