import { pathToFileURL } from 'node:url';
import type { RunReport, SiteReport } from './model.js';
import { handlerText, verdictText } from './sites.js';
import { isIgnoreProblem, reasonOf } from './summary.js';

const IGNORE_COMMENT_RULE = rule('mrtr/ignore-comment', 'IgnoreComment', 'mrtr-migrate-ignore comment to fix', 'A `// mrtr-migrate-ignore` comment must give a reason and sit on its own line above the statement with the site it suppresses; this one gives no reason, or suppresses nothing.', 'error');

/**
 * `--format sarif`: SARIF 2.1.0 for GitHub code scanning. One result per site that needs a person:
 * refused (error: the call throws on 2026-07-28 requests), rolled back or not written (error), and
 * migrated-for-review (warning: code before the question has side effects, call options were dropped,
 * or a URL elicitation's decline path changed form). Rule ids are stable:
 * `mrtr/refused/<reason>`, `mrtr/rolled-back`, `mrtr/not-written`, `mrtr/review`. A site under a
 * `// mrtr-migrate-ignore <reason>` comment is a suppressed `mrtr/ignored` result (kind `inSource`,
 * the reason as justification), which code scanning shows as dismissed; an ignore comment without a
 * reason or suppressing nothing is an `mrtr/ignore-comment` error.
 */

interface Rule {
  id: string;
  name: string;
  shortDescription: { text: string };
  fullDescription: { text: string };
  help: { text: string };
  defaultConfiguration: { level: Level };
}

type Level = 'error' | 'warning' | 'note';

function ruleFor(site: SiteReport): Rule | undefined {
  if (site.status === 'migrated') return undefined;
  if (site.status === 'ignored') {
    return rule('mrtr/ignored', 'Ignored', 'Push-style call left on purpose (mrtr-migrate-ignore)', 'This push-style call throws on 2026-07-28 requests; a `// mrtr-migrate-ignore <reason>` comment above it keeps mrtr-migrate and its lint rules away from it, for the reason it gives.', 'note');
  }
  if (site.status === 'migrated-for-review') {
    return rule('mrtr/review', 'MigratedForReview', 'Migrated; review the notes', 'The handler was rewritten to multi round-trip requests, with something to review (the notes say what): code before the question has side effects outside the handler (it runs in the asking round; if the client never retries, the code after the question never runs), the push call passed request options (timeout, signal, ...) that have no place in a multi round-trip flow and were dropped, or a UrlElicitationRequiredError became a URL question whose decline now fails the call with the error\'s message instead of -32042.', 'warning');
  }
  if (site.status === 'rolled-back') {
    return rule('mrtr/rolled-back', 'RolledBack', 'Rewrite rolled back: it added type errors', 'mrtr-migrate rewrote the handler but the result added type errors, so the file was restored. Migrate the handler by hand.', 'error');
  }
  if (site.status === 'not-written') {
    return rule('mrtr/not-written', 'NotWritten', 'Rewrite not written', 'The file could not be written (read-only, changed during the run, or a write error). Run mrtr-migrate again once it can be written.', 'error');
  }
  const reason = reasonOf(site);
  return rule(`mrtr/refused/${reason}`, `Refused_${reason.replace(/[^A-Za-z0-9]+/g, '_')}`, `Push-style call not migrated: ${reason}`, `This push-style ${site.kind} call throws on 2026-07-28 requests and was not rewritten automatically (${reason}). The marker comment above it and the report say why and what to do.`, 'error');
}

function rule(id: string, name: string, short: string, full: string, level: Level): Rule {
  return { id, name, shortDescription: { text: short }, fullDescription: { text: full }, help: { text: full }, defaultConfiguration: { level } };
}

export function toSarif(report: RunReport) {
  const rules = new Map<string, Rule>();
  const results = [];
  for (const site of report.sites) {
    const r = ruleFor(site);
    if (!r) continue;
    if (!rules.has(r.id)) rules.set(r.id, r);
    const todo = site.todo.length > 0 ? ` To do: ${site.todo.join(' ')}` : '';
    results.push({
      ruleId: r.id,
      ruleIndex: [...rules.keys()].indexOf(r.id),
      level: r.defaultConfiguration.level,
      message: { text: `${site.api} (${site.kind}) in ${handlerText(site)}: ${verdictText(site)}.${site.hint ? ` ${site.hint}` : ''}${todo}` },
      locations: [{
        physicalLocation: {
          artifactLocation: { uri: encodeURI(site.file), uriBaseId: '%SRCROOT%' },
          region: { startLine: site.line, startColumn: site.column },
        },
      }],
      partialFingerprints: { 'mrtrSite/v1': `${site.file}|${site.api}|${site.handler?.method ?? site.context}|${site.handler?.name ?? ''}|${site.kind}` },
      properties: { status: site.status, reason: site.reason ?? null, kind: site.kind, api: site.api, sdk: site.sdk },
      ...(site.status === 'ignored' ? { suppressions: [{ kind: 'inSource', justification: site.hint ?? '' }] } : {}),
    });
  }
  for (const d of report.diagnostics) {
    if (!isIgnoreProblem(d.code) || !d.file) continue;
    const r = IGNORE_COMMENT_RULE;
    if (!rules.has(r.id)) rules.set(r.id, r);
    results.push({
      ruleId: r.id,
      ruleIndex: [...rules.keys()].indexOf(r.id),
      level: r.defaultConfiguration.level,
      message: { text: d.message },
      locations: [{
        physicalLocation: {
          artifactLocation: { uri: encodeURI(d.file), uriBaseId: '%SRCROOT%' },
          region: { startLine: d.line ?? 1 },
        },
      }],
      partialFingerprints: { 'mrtrSite/v1': `${d.file}|${d.code}` },
      properties: { code: d.code },
    });
  }
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0' as const,
    runs: [{
      tool: { driver: { name: 'mrtr-migrate', version: report.tool.version, semanticVersion: report.tool.version, rules: [...rules.values()] } },
      originalUriBaseIds: { '%SRCROOT%': { uri: pathToFileURL(report.cwd.endsWith('/') ? report.cwd : report.cwd + '/').href } },
      invocations: [{ executionSuccessful: true, startTimeUtc: report.startedAt }],
      results,
    }],
  };
}

export function renderSarif(report: RunReport): string {
  return JSON.stringify(toSarif(report), null, 2) + '\n';
}
