import path from 'node:path';
import type { Entry, RunState } from '../runState.js';

/**
 * The run as the v1-to-v2 stage left it, before the rewrite: taken once, it returns what puts the run
 * back there, so the verify phase can plan and rewrite again without the handlers an attempt rolled
 * back. Every file the rewrite phases changed, joined or created is undone, and so is what they said;
 * what the verify phase decided (run.rolledBackSites, and its notes) stays.
 */
export function rewriteStart(run: RunState): () => void {
  const entries = [...run.entries];
  const live = [...run.live];
  const saved = new Map(live.map(e => [e, { changedBy: [...e.changedBy], error: e.error }]));
  // Files read for context only may join the rewrite (a server wired to a shared codec, a caller of an asking helper).
  const contextTexts = new Map(run.contextFiles.map(r => [path.resolve(r.path), run.project.getSourceFile(r.path)?.getFullText()]));
  const counts = { diagnostics: run.diagnostics.length, sites: run.sites.length, alreadyMigrated: run.alreadyMigrated.length };
  return () => {
    for (const entry of run.live) {
      if (saved.has(entry)) continue;
      if (entry.created) {
        if (entry.sourceFile) run.project.removeSourceFile(entry.sourceFile);
        continue;
      }
      // A file joined from the context files goes back to its text there; one read from disk since
      // (the support module an earlier run wrote) to its text as read.
      const text = contextTexts.get(path.resolve(entry.read.path)) ?? entry.read.text;
      if (entry.sourceFile && entry.sourceFile.getFullText() !== text) entry.sourceFile.replaceWithText(text);
    }
    for (const [entry, { changedBy, error }] of saved) restore(entry, changedBy, error);
    run.entries = [...entries];
    run.live = [...live];
    run.diagnostics.length = counts.diagnostics;
    run.diagnostics.push(...run.rolledBackNotes);
    run.sites.length = counts.sites;
    run.alreadyMigrated.length = counts.alreadyMigrated;
    run.groups = [];
    run.supportModule = undefined;
    run.plan = undefined;
    run.analysis = undefined;
  };
}

/** An entry as the rewrite found it: its text after the v1-to-v2 stage, nothing rewritten, nothing found. */
function restore(entry: Entry, changedBy: string[], error: string | undefined): void {
  if (entry.sourceFile && entry.sourceFile.getFullText() !== entry.afterSdkUpgrade) entry.sourceFile.replaceWithText(entry.afterSdkUpgrade);
  entry.changedBy = [...changedBy];
  entry.error = error;
  entry.sites = [];
  entry.rolledBack = false;
  entry.onlyMarked = false;
  entry.newTypeErrors = [];
  entry.beforeWiring = undefined;
}
