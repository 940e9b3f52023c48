import { markRolledBack, markUndone, sourceTextOf, type Entry, type RunState } from '../runState.js';
import { addedErrors, typeErrorsOf } from '../typeCheck.js';
import { undoGroup, undoSupport } from './group.js';
import { clip, countOf, holdBack, onDisk } from './holdBack.js';

/**
 * The project is rebuilt once with every rewrite and type-checked: a rewrite that adds type errors is
 * rolled back (with its whole group), and the check repeats for what is left, at most three rounds.
 * Then what the v1-to-v2 stage broke, and the files importing a changed one (holdBack.ts).
 */
export function verify(run: RunState): void {
  let pending = run.live.filter(e => !e.error && sourceTextOf(e) !== e.afterSdkUpgrade);
  for (let round = 0; round < 3 && pending.length > 0; round++) {
    const program = run.project.getProgram().compilerObject;
    const broken: Entry[] = [];
    pending.forEach((entry, i) => {
      run.progress({ phase: 'verify', done: i, total: pending.length, file: entry.rel });
      const compiled = program.getSourceFile(entry.read.path);
      if (!compiled) return;
      const after = typeErrorsOf(program, compiled);
      if (after.length === 0) return;
      run.baselines();
      const added = onDisk(entry, compiled.text, addedErrors(entry.baseline ?? [], after));
      if (added.length === 0) return;
      entry.newTypeErrors = added.map(e => e.text);
      broken.push(entry);
    });
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
    if (broken.length === 0) break;
    pending = pending.filter(e => !e.rolledBack);
  }
  holdBack(run);
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
