import { readFileSync } from 'node:fs';
import path from 'node:path';
import { lineMapper } from '../../report/diff.js';
import { ownerManifest } from '../packageJson.js';
import { programWith } from '../programs.js';
import { once, type RunState } from '../runState.js';
import { detectProjectType, mentionsV1Sdk, runSdkUpgrade } from '../sdkUpgrade.js';
import { splitBom } from '../sourceText.js';
import { typeErrorsOf } from '../typeCheck.js';

/** The official v1-to-v2 codemod's transforms on every file that imports the v1 SDK. */
export function upgradeSdk(run: RunState): void {
  const { live } = run;
  const v1 = (run.v1 = run.sdkUpgrade ? live.filter(e => mentionsV1Sdk(e.read.text)) : []);
  // The v1 files' own errors, to tell whether the official stage left one of them broken. They are
  // taken (all v1 files, in order, on a checker of their own) only once an upgraded file has errors
  // at the end: without errors after, none can have been added. Their program is then the one of the
  // project before the rewrite with these files as read swapped back in, so the v1 SDK's declarations
  // are parsed only in that case.
  const asRead = new Map(v1.map(e => [e.sourceFile!.getFilePath() as string, e.sourceFile!.compilerNode]));
  run.v1Baselines = once(() => {
    const program = programWith(run.beforeRewrite!(), run.host!, asRead);
    for (const entry of v1) {
      const compiled = program.getSourceFile(entry.read.path);
      if (compiled) entry.v1Baseline = typeErrorsOf(program, compiled);
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
