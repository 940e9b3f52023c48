import { readFileSync } from 'node:fs';
import path from 'node:path';
import { lineMapper } from '../../report/diff.js';
import { ownerManifest } from '../packageJson.js';
import { once, type RunState } from '../runState.js';
import { detectProjectType, mentionsV1Sdk, runSdkUpgrade } from '../sdkUpgrade.js';
import { splitBom } from '../sourceText.js';
import { typeErrorsOf } from '../typeCheck.js';

/** The official v1-to-v2 codemod's transforms on every file that imports the v1 SDK. */
export function upgradeSdk(run: RunState): void {
  const { live, project } = run;
  const v1 = (run.v1 = run.sdkUpgrade ? live.filter(e => mentionsV1Sdk(e.read.text)) : []);
  // The v1 files' own errors, to tell whether the official stage left one of them broken. The program
  // of the files as read is built now; it is checked (all v1 files, in order, on its own checker) only
  // once an upgraded file has errors at the end: without errors after, none can have been added.
  const v1Program = (run.v1Program = run.verify && v1.length > 0 ? project.getProgram().compilerObject : undefined);
  run.v1Baselines = once(() => {
    for (const entry of v1) {
      const compiled = v1Program!.getSourceFile(entry.read.path);
      if (compiled) entry.v1Baseline = typeErrorsOf(v1Program!, compiled);
    }
  });
  if (run.sdkUpgrade) {
    const manifest = ownerManifest(path.join(run.cwd, 'package.json.probe'), run.git.root ?? path.parse(run.cwd).root);
    const projectType = detectProjectType(dependenciesOf(manifest), run.texts.values());
    v1.forEach((entry, i) => {
      run.progress({ phase: 'sdk-upgrade', done: i, total: v1.length, file: entry.rel });
      const result = runSdkUpgrade(entry.sourceFile!, projectType, entry.rel);
      // The official stage counts lines of the text it produced; the report counts lines on disk.
      const toDisk = lineMapper(entry.read.text, entry.sourceFile!.getFullText());
      run.diagnostics.push(...result.diagnostics.map(d => (d.line === undefined ? d : { ...d, line: toDisk(d.line) })));
      entry.zodInjected = result.zodInjected;
      if (result.changed) entry.changedBy.push('sdk-upgrade');
    });
  }
  for (const entry of live) entry.afterSdkUpgrade = entry.sourceFile!.getFullText();
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
