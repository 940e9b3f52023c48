import { existsSync, readFileSync } from 'node:fs';
import { errorText, markUndone, sourceTextOf, type Entry, type RunState } from '../runState.js';
import { isReadOnly, restoreShape, writeFileAtomic } from '../sourceText.js';
import { pruneSupport, undoGroup, undoSupport } from './group.js';

/**
 * Write only whole, verified files, atomically, each with its own line endings, BOM and shebang.
 * Between files the event loop runs, so an interruption (options.signal) stops before the next one.
 * The generated module goes first: the files importing it must not be on disk without it.
 */
export async function writeSources(run: RunState): Promise<void> {
  // The support module first: the files importing it must not be on disk without it.
  const module = run.supportModule;
  const moduleProblem = module && sourceTextOf(module) !== module.read.text ? writeProblem([module]) : undefined;
  if (moduleProblem) undoSupport(run, `${moduleProblem}, so none of the files importing it was written`, false);
  const changed = run.live.filter(e => sourceTextOf(e) !== e.read.text).sort((a, b) => Number(b === run.supportModule) - Number(a === run.supportModule));
  // The files of a group are written all or none: check them all before writing any.
  for (const group of run.groups) {
    const groupProblem = group.length > 0 ? writeProblem(group.filter(e => changed.includes(e))) : undefined;
    if (groupProblem) undoGroup(run, group, `${groupProblem}, so none of them was written`, false);
  }
  // A module no file is left to import is not written.
  pruneSupport(run);
  const signal = run.options.signal;
  for (const [i, entry] of changed.entries()) {
    if (entry.sourceFile === undefined || sourceTextOf(entry) === entry.read.text) continue;
    if (signal?.aborted) {
      run.interrupted = abortReason(signal);
      const why = `not written: the run was interrupted (${run.interrupted}) before this file; it is unchanged, run mrtr-migrate again to migrate it.`;
      for (const rest of changed.slice(i)) {
        rest.error = why;
        for (const site of rest.sites) if (site.status === 'migrated' || site.status === 'migrated-for-review') markUndone(site, 'not-written', why);
      }
      break;
    }
    run.progress({ phase: 'write', done: i, total: changed.length, file: entry.rel });
    try {
      if (entry.created) {
        if (existsSync(entry.read.path)) throw new Error('a file of that name appeared during the run; run again');
      } else {
        if (isReadOnly(entry.read.path)) throw new Error('the file is read-only; make it writable and run again');
        if (readFileSync(entry.read.path, 'utf8') !== entry.read.raw) throw new Error('the file changed on disk during the run; run again');
      }
      writeFileAtomic(entry.read.path, restoreShape(sourceTextOf(entry), entry.shape));
      run.written.push(entry.read.path);
    } catch (error) {
      entry.error = `not written: ${errorText(error)}`;
      if (entry === run.supportModule) undoSupport(run, `the module ${entry.rel} could not be written (${errorText(error)})`, false);
      for (const site of entry.sites) if (site.status === 'migrated' || site.status === 'migrated-for-review') markUndone(site, 'not-written', entry.error);
    }
    await new Promise<void>(resolve => setImmediate(resolve));
  }
}

/** Why a file of the group would not be written, or undefined when all can be. */
function writeProblem(group: Entry[]): string | undefined {
  for (const entry of group) {
    if (entry.created && existsSync(entry.read.path)) return `${entry.rel} already exists`;
    if (entry.created) continue;
    if (isReadOnly(entry.read.path)) return `${entry.rel} is read-only`;
    if (readFileSync(entry.read.path, 'utf8') !== entry.read.raw) return `${entry.rel} changed on disk during the run`;
  }
  return undefined;
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  return reason instanceof Error && reason.name !== 'AbortError' ? reason.message : 'aborted';
}
