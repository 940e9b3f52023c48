import { sideBySide, type SideBySideRow } from './diff.js';
import type { RunReport, SiteReport } from './model.js';
import { DUAL_ERA, handlerText, localsLabel, localsText, siteLocation, verdictText } from './sites.js';
import { summarize } from './summary.js';

/**
 * `--format html`: one self-contained page (no script, no external resource) with the summary,
 * every site, and a side-by-side diff of every changed file.
 */
export function renderHtml(report: RunReport): string {
  const s = summarize(report);
  const mode = report.options.check ? 'check, nothing written' : report.options.dryRun ? 'dry run, nothing written' : 'files written in place';
  const cards: [string, number, string][] = [
    ['Files scanned', s.filesScanned, 'scanned'],
    ['Files changed', s.filesChanged, 'changed'],
    ['Sites found', s.sites, 'sites'],
    ['Migrated', s.byStatus.migrated, 'migrated'],
    ['For review', s.byStatus['migrated-for-review'], 'review'],
    ['Refused', s.byStatus.refused, 'refused'],
    ['Rolled back', s.byStatus['rolled-back'] + s.byStatus['not-written'], 'rolled-back'],
    ['Ignored', s.byStatus.ignored, 'ignored'],
    ['Already migrated', s.alreadyMigrated, 'already'],
  ];
  const reasons = Object.entries(s.refusedByReason).sort((a, b) => b[1] - a[1]);
  const changed = report.files.filter(f => f.changed);
  const problems = report.files.filter(f => f.error !== undefined || f.rolledBack);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mrtr-migrate report</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>mrtr-migrate report</h1>
<p class="meta">mrtr-migrate ${esc(report.tool.version)} · ${esc(report.startedAt)} · ${esc(mode)} · paths ${report.options.paths.map(p => `<code>${esc(p)}</code>`).join(' ')} · tsconfig ${report.tsconfig ? `<code>${esc(report.tsconfig)}</code>` : 'none'}</p>
</header>
<section id="summary" data-testid="summary">
<h2>Summary</h2>
<div class="cards">${cards.map(([label, n, key]) => `<div class="card" data-count="${key}"><span class="n">${n}</span><span class="label">${esc(label)}</span></div>`).join('')}</div>
${reasons.length > 0 ? `<h3>Not migrated, by reason</h3><table class="counts"><thead><tr><th>Reason</th><th>Sites</th></tr></thead><tbody>${reasons.map(([r, n]) => `<tr><td><code>${esc(r)}</code></td><td>${n}</td></tr>`).join('')}</tbody></table>` : ''}
${Object.keys(s.byApi).length > 0 ? `<h3>By API</h3><table class="counts"><thead><tr><th>API</th><th>Found</th><th>Migrated</th><th>For review</th><th>Refused</th><th>Rolled back</th><th>Ignored</th></tr></thead><tbody>${Object.entries(s.byApi).map(([api, c]) => `<tr><td><code>${esc(api)}</code></td><td>${c.total}</td><td>${c.migrated}</td><td>${c['migrated-for-review']}</td><td>${c.refused}</td><td>${c['rolled-back'] + c['not-written']}</td><td>${c.ignored}</td></tr>`).join('')}</tbody></table>` : ''}
</section>
${problems.length > 0 ? `<section id="problems"><h2>Files with problems</h2><ul>${problems.map(f => `<li><code>${esc(f.file)}</code>: ${esc(f.error ?? 'the rewrite was rolled back')}${f.newTypeErrors.length > 0 ? `<ul>${f.newTypeErrors.map(e => `<li>${esc(e)}</li>`).join('')}</ul>` : ''}</li>`).join('')}</ul></section>` : ''}
${report.servingEntries.length > 0 ? `<section id="serving"><h2>Serving entry</h2><ul>${report.servingEntries.map(e => `<li><code>${esc(e.file)}:${e.line}</code> <span class="badge ${e.status}">${esc(e.status)}</span> ${esc(e.message)}</li>`).join('')}</ul></section>` : ''}
<section id="sites">
<h2>Sites</h2>
${report.sites.length === 0 ? '<p>No push-style elicitation, sampling or roots call was found.</p>' : report.sites.map(siteHtml).join('\n')}
</section>
${report.alreadyMigrated.length > 0 ? `<section id="already"><h2>Already migrated</h2><ul>${report.alreadyMigrated.map(a => `<li><code>${esc(a.file)}:${a.line}</code> ${esc(a.method)}${a.name ? ` "${esc(a.name)}"` : ''}${a.dualEra ? ` (${esc(DUAL_ERA)})` : ''}</li>`).join('')}</ul></section>` : ''}
<section id="diffs">
<h2>Changes</h2>
${changed.length === 0 ? '<p>No file changed.</p>' : changed.map(f => `<details class="file" open><summary><code>${esc(f.file)}</code> <span class="by">${esc(f.changedBy.join(', '))}${f.written ? '' : ' · not written'}</span></summary>${diffTable(sideBySide(f.before, f.after))}</details>`).join('\n')}
${report.packageJsonChanges.map(c => `<details class="file" open><summary><code>${esc(c.file)}</code> <span class="by">package.json${c.applied ? '' : ' · not written'}</span></summary>${diffTable(sideBySide(c.before, c.after))}</details>`).join('\n')}
</section>
</body>
</html>
`;
}

function siteHtml(site: SiteReport): string {
  const locals = localsText(site);
  return `<article class="site ${site.status}" data-status="${site.status}">
<h3><code>${esc(siteLocation(site))}</code> <span class="badge ${site.status}">${esc(verdictText(site))}</span></h3>
<dl>
<dt>Call</dt><dd><code>${esc(site.api)}</code> (${esc(site.kind)}, SDK ${esc(site.sdk)})</dd>
${site.hint ? `<dt>Why</dt><dd>${esc(site.hint)}</dd>` : ''}
<dt>Handler</dt><dd>${esc(handlerText(site))}</dd>
<dt>${esc(localsLabel(site.status))}</dt><dd>${locals.length > 0 ? locals.map(l => `<code>${esc(l)}</code>`).join(', ') : 'none'}</dd>
${site.notes.map(n => `<dt>Note</dt><dd>${esc(n)}</dd>`).join('')}
${site.todo.length > 0 ? `<dt>To do</dt><dd><ul>${site.todo.map(t => `<li>${esc(t)}</li>`).join('')}</ul></dd>` : ''}
</dl>
</article>`;
}

function diffTable(rows: SideBySideRow[]): string {
  const cell = (line: number | undefined, text: string | undefined, side: 'old' | 'new', changed: boolean) => {
    const cls = text === undefined ? 'empty' : changed ? (side === 'old' ? 'del' : 'add') : 'ctx';
    return `<td class="ln">${line ?? ''}</td><td class="code ${cls}">${text === undefined ? '' : esc(text)}</td>`;
  };
  const body = rows
    .map(r => (r.kind === 'separator' ? '<tr class="sep"><td colspan="4">⋯</td></tr>' : `<tr>${cell(r.oldLine, r.oldText, 'old', r.kind === 'change')}${cell(r.newLine, r.newText, 'new', r.kind === 'change')}</tr>`))
    .join('');
  return `<table class="diff"><colgroup><col class="ln"><col><col class="ln"><col></colgroup><thead><tr><th colspan="2">Before</th><th colspan="2">After</th></tr></thead><tbody>${body}</tbody></table>`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --add: #dafbe1; --del: #ffebe9; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1400px; padding: 24px; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); }
h1 { margin: 0 0 4px; font-size: 24px; }
h2 { border-bottom: 1px solid var(--line); padding-bottom: 4px; margin-top: 32px; }
.meta { color: var(--muted); margin: 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; min-width: 120px; display: flex; flex-direction: column; }
.card .n { font-size: 24px; font-weight: 600; }
.card .label { color: var(--muted); }
table.counts { border-collapse: collapse; margin: 8px 0; }
table.counts th, table.counts td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; }
.badge { border-radius: 10px; padding: 1px 8px; font-size: 12px; font-weight: 600; background: #eef1f4; }
.badge.migrated, .badge.rewritten, .badge.already { background: var(--add); }
.badge.migrated-for-review, .badge.manual { background: #fff8c5; }
.badge.refused, .badge.rolled-back, .badge.not-written { background: var(--del); }
.site { border: 1px solid var(--line); border-radius: 8px; padding: 4px 16px; margin: 12px 0; }
.site h3 { font-size: 15px; }
dl { display: grid; grid-template-columns: 160px 1fr; gap: 4px 12px; }
dt { color: var(--muted); }
dd { margin: 0; }
details.file { border: 1px solid var(--line); border-radius: 8px; margin: 12px 0; overflow: hidden; }
details.file summary { padding: 8px 12px; background: #f6f8fa; cursor: pointer; }
.by { color: var(--muted); font-size: 12px; }
table.diff { width: 100%; border-collapse: collapse; table-layout: fixed; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
table.diff th { text-align: left; padding: 4px 8px; background: #f6f8fa; border-top: 1px solid var(--line); }
table.diff td { padding: 0 8px; vertical-align: top; white-space: pre-wrap; word-break: break-word; }
table.diff col.ln { width: 52px; }
table.diff td.ln { color: var(--muted); text-align: right; user-select: none; }
td.add { background: var(--add); }
td.del { background: var(--del); }
td.empty { background: #f6f8fa; }
tr.sep td { text-align: center; color: var(--muted); background: #f6f8fa; }
`;
