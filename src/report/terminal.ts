import pc from 'picocolors';
import { unifiedDiff } from './diff.js';
import type { RunReport } from './model.js';
import { summarize } from './summary.js';

type Colors = Pick<typeof pc, 'red' | 'green' | 'cyan' | 'bold' | 'dim' | 'yellow'>;

/** Every change of a dry run as a unified diff, coloured when the terminal takes colours. */
export function renderDiffs(report: RunReport, colors: Colors = pc): string {
  const parts: string[] = [];
  for (const file of report.files.filter(f => f.changed)) parts.push(colourDiff(unifiedDiff(file.file, file.before, file.after), colors));
  for (const change of report.packageJsonChanges) parts.push(colourDiff(unifiedDiff(change.file, change.before, change.after), colors));
  return parts.join('');
}

function colourDiff(diff: string, c: Colors): string {
  return diff
    .split('\n')
    .map(line => {
      if (line.startsWith('===')) return c.dim(line);
      if (line.startsWith('+++') || line.startsWith('---')) return c.bold(line);
      if (line.startsWith('@@')) return c.cyan(line);
      if (line.startsWith('+')) return c.green(line);
      if (line.startsWith('-')) return c.red(line);
      return line;
    })
    .join('\n');
}

/** The short summary: counts, problems by file, where the report is, what to run next. */
export function renderTerminalSummary(report: RunReport, reportPaths: string[], next: string[], c: Colors = pc): string {
  const s = summarize(report);
  const mode = report.options.check ? ' (check: nothing written)' : report.options.dryRun ? ' (dry run: nothing written)' : '';
  const lines: string[] = [];
  lines.push(c.bold(`mrtr-migrate ${report.tool.version}${mode}`));
  const wrote = report.options.dryRun || report.options.check ? `${s.filesChanged} to change` : `${s.filesWritten} written`;
  // The files an interruption left unchanged are counted, not listed one by one (the report lists them).
  const left = report.files.filter(f => f.error !== undefined && isLeftByInterruption(f.error));
  const failed = s.filesFailed - left.length;
  lines.push(`  Files: ${s.filesScanned} scanned, ${s.filesParsed} parsed, ${wrote}${left.length > 0 ? `, ${c.yellow(`${left.length} left unchanged`)}` : ''}${failed > 0 ? `, ${c.red(`${failed} with errors`)}` : ''}${s.filesRolledBack > 0 ? `, ${c.yellow(`${s.filesRolledBack} rolled back`)}` : ''}`);
  // The compiler options decide every verdict: a tsconfig that was not read as written is said up front.
  for (const d of report.diagnostics.filter(d => d.code === 'cli/tsconfig')) lines.push(`  ${c.yellow('!')} ${d.message}`);
  const reasons = Object.entries(s.refusedByReason).map(([r, n]) => `${r} ${n}`).join(', ');
  const notDone = s.byStatus.refused + s.byStatus['rolled-back'] + s.byStatus['not-written'];
  const ignored = s.byStatus.ignored > 0 ? `, ${s.byStatus.ignored} ignored (mrtr-migrate-ignore)` : '';
  lines.push(`  Sites: ${s.sites} found, ${c.green(`${s.byStatus.migrated} migrated`)}, ${s.byStatus['migrated-for-review']} migrated for review, ${notDone > 0 ? c.yellow(`${notDone} not migrated`) : '0 not migrated'}${reasons ? ` (${reasons})` : ''}${ignored}`);
  if (s.alreadyMigrated > 0 || (s.sites === 0 && s.filesChanged === 0)) lines.push(`  Already migrated: ${s.alreadyMigrated} handler(s)${s.servingAlready > 0 ? `, ${s.servingAlready} serving entr${s.servingAlready === 1 ? 'y' : 'ies'}` : ''}${s.filesChanged === 0 && notDone === 0 ? '; nothing to change' : ''}`);
  if (s.servingRewritten + s.servingManual > 0) lines.push(`  Serving entry: ${s.servingRewritten} moved to serveStdio, ${s.servingManual} to move by hand (see the report)`);
  for (const change of report.packageJsonChanges) {
    const edits = [...change.removed.map(p => `-${p}`), ...change.added.map(p => `+${p}`), ...change.updated].join(' ');
    lines.push(`  ${change.file}: ${edits}${change.applied ? '' : ' (not written)'}`);
  }
  for (const d of report.diagnostics.filter(d => d.code === 'sdk-upgrade/v1-kept')) lines.push(`  ${c.yellow('!')} ${d.message}`);
  // The project does not build on the zod it has installed until it installs again.
  for (const d of report.diagnostics.filter(d => d.code === 'sdk-upgrade/zod-upgraded')) lines.push(`  ${c.yellow('!')} ${d.file}: ${d.message}`);
  if (report.interrupted) {
    lines.push(`  ${c.yellow('Interrupted')} (${report.interrupted}) while writing: ${s.filesWritten} file(s) written, ${left.length} left unchanged; package.json updated for what was written`);
  }
  const keptOnV1 = new Map(report.diagnostics.filter(d => d.code === 'sdk-upgrade/rolled-back').map(d => [d.file, d.message]));
  for (const file of report.files.filter(f => (f.error !== undefined && !isLeftByInterruption(f.error)) || f.rolledBack)) {
    lines.push(`  ${c.red('✗')} ${file.file}: ${file.error ?? keptOnV1.get(file.file) ?? (file.newTypeErrors[0] ? `rolled back: ${file.newTypeErrors[0]}` : 'rolled back with the files it shares a requestState codec or an asking helper with (the report says why)')}`);
  }
  const errors = report.diagnostics.filter(d => d.level === 'error' && d.code !== 'verify/rolled-back' && d.code !== 'sdk-upgrade/rolled-back' && !report.files.some(f => f.file === d.file && f.error));
  for (const d of errors.slice(0, 5)) lines.push(`  ${c.red('✗')} ${d.file ? `${d.file}${d.line ? `:${d.line}` : ''}: ` : ''}${d.message}`);
  if (errors.length > 5) lines.push(`  ... ${errors.length - 5} more error(s) in the report`);
  lines.push(`Report: ${reportPaths.join(', ')}`);
  for (const command of next) lines.push(`Next: ${command}`);
  return lines.join('\n') + '\n';
}

/** The error migrate() gives the files it did not write because the run was interrupted. */
export function isLeftByInterruption(error: string): boolean {
  return error.startsWith('not written: the run was interrupted');
}
