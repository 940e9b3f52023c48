import path from 'node:path';
import type { Diagnostic } from '../../report/model.js';
import { lineMapper } from '../../report/diff.js';
import { markRolledBack, markUndone, sourceTextOf, type Entry, type RunState } from '../runState.js';
import { addedErrors, typeErrorsOf, type TypeError } from '../typeCheck.js';
import { undoGroup, undoSupport } from './group.js';
import { clip, countOf, holdBack, onDisk } from './holdBack.js';

/** How many times the run rewrites again without the handlers whose rewrite added type errors. */
const RETRIES = 3;

/**
 * The project is rebuilt with every rewrite and type-checked. A handler whose rewrite added type
 * errors is rolled back alone: the run plans and rewrites again without it (`rewriteAgain`), and the
 * rest is checked again. Errors that fall in no rewritten handler (the file's shared code, imports,
 * the support module) roll back their file, or its group, as before: at most three rounds of those.
 * Then what the v1-to-v2 stage broke, and the files importing a changed one (holdBack.ts).
 */
export function verify(run: RunState, rewriteAgain: () => void): void {
  let pending = changedFiles(run);
  for (let round = 0, retries = 0; round < 3 && pending.length > 0;) {
    const broken = brokenFiles(run, pending);
    if (broken.size === 0) break;
    if (retries < RETRIES && withholdHandlers(run, broken)) {
      retries++;
      rewriteAgain();
      pending = changedFiles(run);
      continue;
    }
    rollBackFiles(run, [...broken.keys()]);
    round++;
    pending = pending.filter(e => !e.rolledBack);
  }
  holdBack(run);
}

function changedFiles(run: RunState): Entry[] {
  return run.live.filter(e => !e.error && sourceTextOf(e) !== e.afterSdkUpgrade);
}

/** The files the rewrite added type errors to, with those errors in lines of the text checked (newTypeErrors names lines on disk). */
function brokenFiles(run: RunState, pending: Entry[]): Map<Entry, TypeError[]> {
  const program = run.project.getProgram().compilerObject;
  const broken = new Map<Entry, TypeError[]>();
  pending.forEach((entry, i) => {
    run.progress({ phase: 'verify', done: i, total: pending.length, file: entry.rel });
    const compiled = program.getSourceFile(entry.read.path);
    if (!compiled) return;
    const after = typeErrorsOf(program, compiled);
    if (after.length === 0) return;
    run.baselines();
    const added = addedErrors(entry.baseline ?? [], after);
    if (added.length === 0) return;
    entry.newTypeErrors = onDisk(entry, compiled.text, added).map(e => e.text);
    broken.set(entry, added);
  });
  return broken;
}

/**
 * The handlers (or split helpers) whose rewritten code holds every error a file gained are withheld
 * from the next attempt (run.rolledBackSites), each said once; a file with an error outside them is
 * left to go back whole. Whether any handler was withheld.
 */
function withholdHandlers(run: RunState, broken: Map<Entry, TypeError[]>): boolean {
  let withheld = false;
  for (const [entry, errors] of broken) {
    if (entry === run.supportModule || entry.created || entry.beforeWiring !== undefined) continue;
    const culprits = culpritsOf(entry, errors);
    if (!culprits) continue;
    const file = path.resolve(entry.read.path);
    const sites = run.rolledBackSites.get(file) ?? new Map<number, string>();
    for (const [region, { indices, errors: own }] of culprits) {
      const site = entry.sites[indices[0]!]!;
      const helper = site.context.startsWith('helper ');
      const first = clip(own[0]!.text.replace(/^line \d+: /, ''));
      const listed = `${first}${own.length > 1 ? '; ...' : ''}`;
      const code = /\bTS\d+/.exec(first)?.[0] ?? 'a type error';
      const hint = `the rewrite of this ${helper ? 'helper' : 'handler'} added ${own.length} type error(s) (${code} first) and was rolled back alone; ${listed}; migrate it by hand or report the case.`;
      for (const i of indices) sites.set(i, hint);
      const what = helper ? `the split of ${site.context.split(' reached')[0]}` : `the ${site.context}`;
      const note: Diagnostic = {
        level: 'error', source: 'verify', code: 'verify/rolled-back', file: entry.rel, line: region.disk,
        message: `the rewrite of ${what} added ${own.length} type error(s) (${listed}); it was rolled back alone and the rest of the run rewritten without it. Migrate it by hand or report the case.`,
      };
      run.rolledBackNotes.push(note);
      run.diagnostics.push(note);
      withheld = true;
    }
    run.rolledBackSites.set(file, sites);
  }
  return withheld;
}

/**
 * The rewritten handlers a file's new errors fall in, with the indices of their sites (the innermost
 * region where two hold an error); undefined when one error falls in none (code the file shares).
 */
function culpritsOf(entry: Entry, errors: TypeError[]): Map<{ start: number; end: number; disk: number }, { indices: number[]; errors: TypeError[] }> | undefined {
  const toRewriteStart = lineMapper(entry.afterSdkUpgrade, entry.sourceFile!.getFullText());
  const regions = new Map<string, { start: number; end: number; disk: number; indices: number[] }>();
  entry.sites.forEach((site, i) => {
    if ((site.status !== 'migrated' && site.status !== 'migrated-for-review') || !site.handlerLines) return;
    const key = `${site.handlerLines.start}-${site.handlerLines.end}`;
    const region = regions.get(key) ?? { ...site.handlerLines, disk: site.handler?.line ?? site.line, indices: [] };
    region.indices.push(i);
    regions.set(key, region);
  });
  const culprits = new Map<{ start: number; end: number; disk: number }, { indices: number[]; errors: TypeError[] }>();
  for (const error of errors) {
    const line = toRewriteStart(error.line);
    const holding = [...regions.values()].filter(r => r.start <= line && line <= r.end).sort((a, b) => (a.end - a.start) - (b.end - b.start))[0];
    if (!holding) return undefined;
    const culprit = culprits.get(holding) ?? { indices: holding.indices, errors: [] };
    culprit.errors.push(error);
    culprits.set(holding, culprit);
  }
  return culprits;
}

/** Files whose errors no handler holds go back whole; a group with one of them, or the support module and its importers, go back together. */
function rollBackFiles(run: RunState, broken: Entry[]): void {
  // The support module broken, every file that imports it goes back with it.
  const module = broken.find(e => e === run.supportModule);
  if (module) undoSupport(run, `${module.rel} has ${countOf(module.newTypeErrors)}`, `the support module ${module.rel} has ${module.newTypeErrors.length} type error(s)`);
  for (const entry of broken) if (entry !== module && !run.groupOf(entry) && sourceTextOf(entry) !== entry.afterSdkUpgrade) rollBack(run, entry);
  // The files of a group go back together: handlers without their codec, a server wired to a
  // module that is not written, or callers of a helper that is not split would not stand alone.
  for (const group of run.groups) {
    const first = broken.find(e => group.includes(e));
    if (!first) continue;
    undoGroup(run, group, `the rewrite of ${first.rel} added ${countOf(first.newTypeErrors)}`, `the rewrite of ${first.rel} added ${first.newTypeErrors.length} type error(s)`);
  }
}

/** Say which SDK types were borrowed (and which are missing), for the packages the code now imports. */
export function noteSdkTypes(run: RunState): void {
  const finalTexts = run.entries.map(e => sourceTextOf(e)).join('\n');
  const imported = (specifier: string) => finalTexts.includes(`'${specifier}'`) || finalTexts.includes(`"${specifier}"`);
  for (const borrowed of run.fallback.borrowed) {
    // A copy too old to check the rewrite: the package.json change says so (serverApi.ts).
    if (!imported(borrowed.specifier) || borrowed.replaced) continue;
    run.diagnostics.push({ level: 'info', source: 'verify', code: 'verify/sdk-types-borrowed', file: undefined, line: undefined, message: `${borrowed.specifier} is not installed in the project yet; its types were taken from mrtr-migrate's own copy (${borrowed.version ?? 'unknown version'}) to check the rewrite. Install the new packages after the migration.` });
  }
  const missing = run.fallback.missing.filter(imported);
  if (run.verify && missing.length > 0) {
    run.diagnostics.push({ level: 'warning', source: 'verify', code: 'verify/sdk-types-missing', file: undefined, line: undefined, message: `${missing.join(', ')} cannot be resolved; the type check ignores "cannot find module" errors for them, so code using them is checked loosely.` });
  }
}

/** Undo the rewrite of a file that gained type errors; the SDK stage's edits stay. */
function rollBack(run: RunState, entry: Entry): void {
  entry.sourceFile!.replaceWithText(entry.afterSdkUpgrade);
  entry.rolledBack = true;
  entry.changedBy = entry.changedBy.filter(id => id === 'sdk-upgrade');
  const first = clip(entry.newTypeErrors[0] ?? '');
  run.diagnostics.push({
    level: 'error', source: 'verify', code: 'verify/rolled-back', file: entry.rel, line: undefined,
    message: `the rewrite added ${entry.newTypeErrors.length} type error(s) and was rolled back (${first}${entry.newTypeErrors.length > 1 ? '; ...' : ''}); migrate this file by hand or report the case.`,
  });
  const undone = entry.sites.filter(site => site.status === 'migrated' || site.status === 'migrated-for-review');
  for (const site of undone) markUndone(site, 'rolled-back', `the rewrite added type errors and was rolled back: ${first}`);
  const code = /\bTS\d+/.exec(first)?.[0];
  markRolledBack(entry, undone, `the rewrite added ${entry.newTypeErrors.length} type error(s)${code ? ` (${code} first)` : ''} and was rolled back; the report lists them`);
}
