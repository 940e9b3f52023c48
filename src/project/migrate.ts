import { emit, plan } from './phases/rewrite.js';
import { group, pruneSupport } from './phases/group.js';
import { noteRuntimeDependency, updateManifests } from './phases/manifests.js';
import { discover, parse, read } from './phases/read.js';
import { report } from './phases/report.js';
import { rewriteStart } from './phases/retry.js';
import { start } from './phases/start.js';
import { upgradeSdk } from './phases/upgrade.js';
import { noteSdkTypes, verify } from './phases/verify.js';
import { writeSources } from './phases/write.js';
import { RunState, type MigrateOptions } from './runState.js';
import type { RunReport } from '../report/model.js';

export type { MigrateOptions, ProgressEvent } from './runState.js';

/**
 * The whole migration: find the files, upgrade v1 code with the official codemod, plan and rewrite
 * every file against one program, type-check and roll back what broke, write atomically, update the
 * manifests, and describe it all in a RunReport. Each phase (phases/) reads and fills one RunState.
 * Throws MigrateError when the run cannot be done at all.
 */
export async function migrate(options: MigrateOptions = {}): Promise<RunReport> {
  const run = new RunState(options);
  start(run);
  discover(run);
  read(run);
  parse(run);
  upgradeSdk(run);
  // The rewrite, and again from the same start without the handlers whose rewrite added type errors.
  const restart = rewriteStart(run);
  const rewrite = (): void => {
    plan(run);
    emit(run);
    group(run);
  };
  rewrite();
  if (run.verify) verify(run, () => { restart(); rewrite(); });
  pruneSupport(run);
  noteSdkTypes(run);
  if (run.write) await writeSources(run);
  if (run.sdkUpgrade) updateManifests(run);
  noteRuntimeDependency(run);
  return report(run);
}
