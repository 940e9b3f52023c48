import { readFileSync } from 'node:fs';
import path from 'node:path';
import { lineMapper } from '../../report/diff.js';
import { ownerManifest } from '../packageJson.js';
import { programWith } from '../programs.js';
import { errorText, joinEntry, once, type Entry, type RunState } from '../runState.js';
import { detectProjectType, mentionsV1Sdk, runSdkUpgrade } from '../sdkUpgrade.js';
import { splitBom } from '../sourceText.js';
import { directRegistrations } from '../stageRepairs.js';
import { typeErrorsOf } from '../typeCheck.js';
import { importsZod, migrateZodCode } from '../zodUpgrade.js';

/**
 * The v1-to-v2 stage: zod 3 code upgraded to zod 4 where the package's zod is older than the v2 SDK
 * takes (zodUpgrade.ts), then the official codemod's transforms on every file that imports the v1 SDK.
 */
export function upgradeSdk(run: RunState): void {
  const { live } = run;
  for (const entry of live) entry.asReadNode = entry.sourceFile!.compilerNode;
  const zodFiles = run.checksOwnZod ? zodEntries(run) : [];
  const v1 = (run.v1 = run.sdkUpgrade ? live.filter(e => mentionsV1Sdk(e.read.text)) : []);
  // The files' own errors as read, to tell whether the stage left one of them broken. They are taken
  // (on a checker of their own) only once a file it changed has errors at the end: without errors
  // after, none can have been added. Their program is the one of the project before the rewrite with
  // these files as read swapped back in, on the project's own zod, so the v1 SDK's declarations are
  // parsed only in that case.
  const stage = [...new Set([...v1, ...zodFiles])];
  const asRead = new Map(stage.map(e => [e.sourceFile!.getFilePath() as string, e.asReadNode!]));
  run.readBaselines = once(() => {
    const base = run.beforeRewrite!();
    const program = programWith(base, run.host!, asRead, run.asReadOptions(base));
    for (const entry of stage) {
      const compiled = program.getSourceFile(entry.read.path);
      if (compiled) entry.readBaseline = typeErrorsOf(program, compiled);
    }
  });
  for (const entry of zodFiles) upgradeZod(run, entry);
  if (run.sdkUpgrade) {
    const manifest = ownerManifest(path.join(run.cwd, 'package.json.probe'), run.manifestStop);
    const projectType = detectProjectType(dependenciesOf(manifest), run.texts.values());
    const registeredDirectly = directRegistrations(run.texts.values());
    v1.forEach((entry, i) => {
      run.progress({ phase: 'sdk-upgrade', done: i, total: v1.length, file: entry.rel });
      const result = runSdkUpgrade(entry.sourceFile!, projectType, entry.rel, registeredDirectly);
      // The official stage counts lines of the text it produced; the report counts lines on disk.
      const toDisk = lineMapper(entry.read.text, entry.sourceFile!.getFullText());
      run.diagnostics.push(...result.diagnostics.map(d => (d.line === undefined ? d : { ...d, line: toDisk(d.line) })));
      entry.zodInjected = result.zodInjected;
      if (result.changed) entry.changedBy.push('sdk-upgrade');
    });
  }
  for (const entry of live) entry.afterSdkUpgrade = entry.sourceFile!.getFullText();
}

/**
 * The files of the packages on an outdated zod that import zod, each marked with its package: they
 * are checked against their text as read. A file parsed for context only joins the entries here.
 */
function zodEntries(run: RunState): Entry[] {
  const known = new Set(run.live.map(e => e.read.path));
  for (const read of run.contextFiles) {
    if (known.has(read.path) || !importsZod(read.text)) continue;
    joinEntry(run, read);
  }
  for (const entry of run.live) {
    const manifest = importsZod(entry.read.text) ? ownerManifest(entry.read.path, run.manifestStop) : undefined;
    if (manifest && run.zodPackages.has(manifest)) entry.zodPackage = manifest;
  }
  return run.live.filter(e => e.zodPackage !== undefined);
}

/** zod-v3-to-v4 on a file of a zod 3 package; where it throws, the file is left as it was and said. */
function upgradeZod(run: RunState, entry: Entry): void {
  if (!run.zodPackages.get(entry.zodPackage!)?.migrateCode) return;
  try {
    if (migrateZodCode(entry.sourceFile!)) entry.changedBy.push('zod-upgrade');
  } catch (error) {
    // Left as read, it is checked against zod 4 with the others, and holds its package back if it breaks.
    entry.sourceFile!.replaceWithText(entry.read.text);
    run.diagnostics.push({ level: 'error', source: 'sdk-upgrade', code: 'sdk-upgrade/zod-failed', file: entry.rel, line: undefined, message: `the zod 3 to 4 upgrade (zod-v3-to-v4) failed on this file and left it as it was: ${errorText(error)}` });
  }
}

function dependenciesOf(manifest: string | undefined): Set<string> {
  if (!manifest) return new Set();
  try {
    const json = JSON.parse(splitBom(readFileSync(manifest, 'utf8')).text) as Record<string, Record<string, string> | undefined>;
    return new Set([...Object.keys(json['dependencies'] ?? {}), ...Object.keys(json['devDependencies'] ?? {})]);
  } catch {
    return new Set();
  }
}
