import type { RunReport } from './model.js';
import { DUAL_ERA, handlerDiff, handlerText, localsLabel, localsText, siteLocation, verdictText } from './sites.js';
import { summarize, type Summary } from './summary.js';
import { unifiedDiff } from './diff.js';

/** `mrtr-migrate-report.md`: the summary, then one entry per site with what to do and the handler's diff. */
export function renderMarkdown(report: RunReport): string {
  const summary = summarize(report);
  const out: string[] = [];
  const mode = report.options.check ? 'check (nothing written)' : report.options.dryRun ? 'dry run (nothing written)' : 'files written in place';
  out.push('# mrtr-migrate report', '');
  if (report.interrupted) out.push(`**Interrupted (${report.interrupted}) while writing**: only the files marked written below were changed; the others are as they were.`, '');
  out.push(`mrtr-migrate ${report.tool.version}, ${report.startedAt}, ${mode}. Paths: ${report.options.paths.map(p => `\`${p}\``).join(' ')}; tsconfig: ${report.tsconfig ? `\`${report.tsconfig}\`` : 'none (defaults)'}; SDK upgrade ${report.options.sdkUpgrade ? (report.options.zodUpgrade ? 'on (zod too)' : 'on (zod left as it is)') : 'off'}; type check ${report.options.verify ? 'on' : 'off'}${report.options.runtime === 'package' ? '; support code from mrtr-migrate/runtime' : ''}.`, '');

  out.push('## Summary', '');
  out.push(...summaryTable(summary), '');
  if (Object.keys(summary.refusedByReason).length > 0) {
    out.push('### Not migrated, by reason', '', '| Reason | Sites |', '| --- | ---: |');
    for (const [reason, count] of Object.entries(summary.refusedByReason).sort((a, b) => b[1] - a[1])) out.push(`| \`${reason}\` | ${count} |`);
    out.push('');
  }
  if (Object.keys(summary.byApi).length > 0) {
    out.push('### By API', '', '| API | Found | Migrated | For review | Refused | Rolled back / not written | Ignored |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const [api, c] of Object.entries(summary.byApi)) {
      out.push(`| \`${api}\` | ${c.total} | ${c.migrated} | ${c['migrated-for-review']} | ${c.refused} | ${c['rolled-back'] + c['not-written']} | ${c.ignored} |`);
    }
    out.push('');
  }

  const problems = report.files.filter(f => f.error !== undefined || f.rolledBack);
  if (problems.length > 0) {
    out.push('## Files with problems', '');
    for (const f of problems) {
      out.push(`- \`${f.file}\`: ${f.error ?? 'the rewrite was rolled back'}`);
      for (const e of f.newTypeErrors) out.push(`  - new type error, ${e}`);
    }
    out.push('');
  }

  if (report.servingEntries.length > 0) {
    out.push('## Serving entry', '');
    for (const s of report.servingEntries) out.push(`- \`${s.file}:${s.line}\` (${s.transport}, ${s.status}): ${s.message}`);
    out.push('');
  }
  if (report.packageJsonChanges.length > 0) {
    out.push('## package.json', '');
    for (const c of report.packageJsonChanges) {
      out.push(`- \`${c.file}\`${c.applied ? '' : ' (not written)'}: removed ${c.removed.map(p => `\`${p}\``).join(', ') || 'nothing'}; added ${c.added.map(p => `\`${p}\``).join(', ') || 'nothing'}${c.updated.length > 0 ? `; updated ${c.updated.map(u => `\`${u}\``).join(', ')}` : ''}.`);
    }
    out.push('');
  }

  out.push('## Sites', '');
  if (report.sites.length === 0) out.push('No push-style elicitation, sampling or roots call was found.', '');
  report.sites.forEach((site, i) => {
    out.push(`### ${i + 1}. \`${siteLocation(site)}\`: ${verdictText(site)}`, '');
    out.push(`- Call: \`${site.api}\` (${site.kind}, SDK ${site.sdk})`);
    out.push(`- Verdict: ${verdictText(site)}${site.hint ? `. ${site.hint}` : ''}`);
    out.push(`- Handler: ${handlerText(site)}`);
    if (site.controlFlow.length > 0) out.push(`- Around it: ${site.controlFlow.join(', ')}`);
    const locals = localsText(site);
    out.push(`- ${localsLabel(site.status)}: ${locals.length > 0 ? locals.map(l => `\`${l}\``).join(', ') : 'none'}`);
    if (site.sideEffectsBefore.length > 0) out.push(`- Side effects before the question: ${site.sideEffectsBefore.join('; ')}`);
    for (const note of site.notes) out.push(`- Note: ${note}`);
    if (site.todo.length > 0) {
      out.push('- To do:');
      for (const todo of site.todo) out.push(`  - [ ] ${todo}`);
    }
    if (site.sketch) out.push('', '<details><summary>Sketch: the pass-through, in the tool that calls the upstream</summary>', '', fence(site.sketch, 'ts'), '', '</details>');
    const diff = handlerDiff(report, site);
    if (diff) out.push('', '<details><summary>Diff of the handler</summary>', '', fence(diff, 'diff'), '', '</details>');
    out.push('');
  });

  if (report.alreadyMigrated.length > 0) {
    out.push('## Already migrated', '');
    for (const a of report.alreadyMigrated) out.push(`- \`${a.file}:${a.line}\`: ${a.method}${a.name ? ` "${a.name}"` : ''}${a.dualEra ? ` (${DUAL_ERA})` : ''}`);
    out.push('');
  }

  const changed = report.files.filter(f => f.changed);
  if (changed.length > 0) {
    out.push('## Changed files', '');
    for (const f of changed) {
      out.push(`<details><summary><code>${escapeHtml(f.file)}</code> (${f.changedBy.join(', ') || 'changed'}${f.written ? ', written' : ', not written'})</summary>`, '', fence(unifiedDiff(f.file, f.before, f.after), 'diff'), '', '</details>', '');
    }
  }

  const notes = report.diagnostics.filter(d => d.source !== 'serving' && d.code !== 'verify/rolled-back');
  if (notes.length > 0) {
    out.push('## Diagnostics', '');
    for (const d of notes) out.push(`- ${d.level.toUpperCase()} [${d.source}] ${d.file ? `\`${d.file}${d.line ? `:${d.line}` : ''}\`: ` : ''}${d.message}`);
    out.push('');
  }
  return out.join('\n');
}

function summaryTable(s: Summary): string[] {
  return [
    '| | |',
    '| --- | ---: |',
    `| Files scanned | ${s.filesScanned} |`,
    `| Files parsed (passed the text check) | ${s.filesParsed} |`,
    `| Files changed | ${s.filesChanged} |`,
    `| Files written | ${s.filesWritten} |`,
    `| Files with errors | ${s.filesFailed} |`,
    `| Files rolled back | ${s.filesRolledBack} |`,
    `| Sites found | ${s.sites} |`,
    `| Migrated | ${s.byStatus.migrated} |`,
    `| Migrated, for review | ${s.byStatus['migrated-for-review']} |`,
    `| Refused | ${s.byStatus.refused} |`,
    `| Rolled back | ${s.byStatus['rolled-back']} |`,
    `| Not written | ${s.byStatus['not-written']} |`,
    `| Ignored (\`mrtr-migrate-ignore\`) | ${s.byStatus.ignored} |`,
    `| Handlers already migrated | ${s.alreadyMigrated} |`,
    `| Serving entries rewritten / to move by hand / already moved | ${s.servingRewritten} / ${s.servingManual} / ${s.servingAlready} |`,
  ];
}

/** A fenced block whose fence is longer than any backtick run inside. */
function fence(text: string, lang: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map(m => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text.replace(/\n$/, '')}\n${ticks}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
