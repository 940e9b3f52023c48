import path from 'node:path';
import type { PackageJsonChange } from '../../report/model.js';
import { sourcesMatching } from '../discover.js';
import { declaresV1, ownerManifest, planManifestUpdate, readJsonObject, RUNTIME_PACKAGE, v2PackagesIn, ZOD_RANGE, type ManifestUpdate } from '../packageJson.js';
import { toolVersion } from '../version.js';
import { RUNTIME_SPECIFIER } from '../../../transforms/mrtr/moduleSupport.js';
import { importsRuntime } from '../runtimeTypes.js';
import { errorText, type RunState } from '../runState.js';
import { mentionsV1Sdk } from '../sdkUpgrade.js';
import { serverGapMessage } from '../serverApi.js';
import { isReadOnly, splitBom, writeFileAtomic } from '../sourceText.js';

/**
 * Each package.json: the v1 package out, the v2 packages the code now imports in, as the sources now
 * are on disk (a dry run: as they would be). While any source it owns still imports the v1 SDK (a
 * syntax error, a rollback, a file not written, an import the official codemod leaves) or could not
 * be read, the v1 package stays, and a diagnostic names those files.
 */
export function updateManifests(run: RunState): void {
  const updates: ManifestUpdate[] = [];
  const stop = run.manifestStop;
  // The owner of every file of a folder is the same: looked up once per folder.
  const owners = new Map<string, string | undefined>();
  const ownerOf = (file: string): string | undefined => {
    const dir = path.dirname(file);
    if (!owners.has(dir)) owners.set(dir, ownerManifest(file, stop));
    return owners.get(dir);
  };
  const used = new Map<string, { packages: Set<string>; v1: string[]; runtime?: boolean }>();
  const usageOf = (owner: string) => used.get(owner) ?? used.set(owner, { packages: new Set<string>(), v1: [] }).get(owner)!;
  const zod = new Set<string>();
  const zodRange = new Set<string>();
  const byPath = new Map(run.entries.map(e => [e.read.path, e]));
  for (const [file, text] of run.texts) {
    const owner = ownerOf(file);
    if (!owner) continue;
    const entry = byPath.get(file);
    const finalText = entry?.sourceFile && (!run.write || run.written.includes(file)) ? entry.sourceFile.getFullText() : text;
    const usage = usageOf(owner);
    for (const pkg of v2PackagesIn(finalText)) usage.packages.add(pkg);
    if (importsRuntime(finalText)) usage.runtime = true;
    if (mentionsV1Sdk(finalText)) usage.v1.push(run.rel(file));
    if (entry?.zodInjected && finalText !== text) zod.add(owner);
    // A package on an outdated zod whose files changed needs zod 4.2 (v2 schemas, zod 4 code).
    if (finalText !== text && run.zodUpgrade && run.zodPackages.has(owner) && !run.zodHeldBack.has(owner)) zodRange.add(owner);
  }
  // The support module the run created needs the packages it imports too (written first, it may be the one file written).
  for (const entry of run.entries.filter(e => e.created && e.sourceFile && (!run.write || run.written.includes(e.read.path)))) {
    const owner = ownerOf(entry.read.path);
    if (owner) for (const pkg of v2PackagesIn(entry.sourceFile!.getFullText())) usageOf(owner).packages.add(pkg);
  }
  for (const file of run.unreadablePaths) {
    const owner = ownerOf(file);
    if (owner) usageOf(owner).v1.push(run.rel(file));
  }
  // An installed server too old for the rewrite: its range moves once code that needs the new API was
  // written against mrtr-migrate's own copy (a migrated handler, a serving entry moved to serveStdio).
  const gap = run.serverGap;
  const needsNewApi = (e: RunState['entries'][number]) =>
    e.sites.some(s => s.status === 'migrated' || s.status === 'migrated-for-review') || e.changedBy.includes('serving-entry');
  const serverManifest = gap?.movable && run.entries.some(needsNewApi) ? gap.declared!.manifest : undefined;
  if (serverManifest) usageOf(serverManifest);
  for (const [manifest, usage] of used) {
    // Sources of the package outside the paths given still count: the v1 package stays for them.
    if (usage.v1.length === 0 && declaresV1(manifest)) {
      const unread = (file: string) => !run.texts.has(file) && ownerOf(file) === manifest;
      usage.v1.push(...sourcesMatching(path.dirname(manifest), unread, mentionsV1Sdk, run.ignore, run.ignoreRoot).map(f => run.rel(f)));
    }
    if (usage.v1.length > 0 && declaresV1(manifest)) {
      const files = usage.v1.length > 3 ? `${usage.v1.slice(0, 3).join(', ')} and ${usage.v1.length - 3} more` : usage.v1.join(', ');
      run.diagnostics.push({
        level: 'warning', source: 'sdk-upgrade', code: 'sdk-upgrade/v1-kept', file: run.rel(manifest), line: undefined,
        message: `@modelcontextprotocol/sdk stays in ${run.rel(manifest)}: ${files} still import${usage.v1.length === 1 ? 's' : ''} it or could not be read; remove it once ${usage.v1.length === 1 ? 'that file is' : 'they are'} migrated.`,
      });
    }
    try {
      const update = planManifestUpdate(manifest, usage.packages, zod.has(manifest), usage.v1.length > 0, zodRange.has(manifest), manifest === serverManifest, usage.runtime ? runtimeRange() : undefined);
      if (update) updates.push(update);
    } catch (error) {
      run.diagnostics.push({ level: 'error', source: 'sdk-upgrade', code: 'sdk-upgrade/manifest', file: run.rel(manifest), line: undefined, message: errorText(error) });
    }
  }
  run.packageJsonChanges = updates.map(update => applyUpdate(run, update));
  for (const manifest of zodRange) noteZodUpgrade(run, manifest);
  if (serverManifest) {
    const own = run.fallback.borrowed.find(b => b.replaced)?.version;
    run.diagnostics.push({ level: 'warning', source: 'sdk-upgrade', code: 'sdk-upgrade/server-range', file: run.rel(serverManifest), line: undefined, message: serverGapMessage(gap!, file => run.rel(file), own) });
  }
}

/** The range the migrated files' package takes mrtr-migrate at: this version, or a later one of its major. */
function runtimeRange(): string {
  return `^${toolVersion()}`;
}

/**
 * With `--runtime package`, where the files that import mrtr-migrate/runtime are written (or would be,
 * in a dry run): what their package needs before the server runs, once per package.json.
 */
export function noteRuntimeDependency(run: RunState): void {
  const owners = new Set<string>();
  for (const entry of run.entries) {
    const text = entry.sourceFile?.getFullText();
    if (entry.error || !text || !entry.changedBy.includes('mrtr') || !importsRuntime(text) || (run.write && !run.written.includes(entry.read.path))) continue;
    const owner = ownerManifest(entry.read.path, run.manifestStop);
    owners.add(owner ?? '');
  }
  for (const owner of owners) {
    const change = run.packageJsonChanges.find(c => c.file === run.rel(owner) && (c.added.includes(RUNTIME_PACKAGE) || c.updated.some(u => u.startsWith(`${RUNTIME_PACKAGE} `))));
    const declared = change === undefined && owner !== '' && declaresRuntime(owner);
    const install = change?.applied || declared
      ? 'install the packages again before the server runs'
      : change && !run.write
      ? `a run that writes adds ${RUNTIME_PACKAGE} to the dependencies of ${run.rel(owner)}; install it then, before the server runs`
      : owner === ''
      ? `no package.json owns them: install ${RUNTIME_PACKAGE}@${runtimeRange()} where the server runs`
      : `add ${RUNTIME_PACKAGE}@${runtimeRange()} to the dependencies of ${run.rel(owner)} and install it before the server runs`;
    run.diagnostics.push({
      level: 'info', source: 'mrtr', code: 'mrtr/runtime-package', file: owner === '' ? undefined : run.rel(owner), line: undefined,
      message: `the migrated files take their requestState codec from ${RUNTIME_SPECIFIER} (--runtime package): ${install}; behind several server instances, give its useRequestStateReplays a shared store.`,
    });
  }
}

/** Whether a package.json lists mrtr-migrate in its dependencies already. */
function declaresRuntime(manifest: string): boolean {
  const json = readJsonObject(manifest);
  const deps = json?.['dependencies'];
  return typeof deps === 'object' && deps !== null && RUNTIME_PACKAGE in deps;
}

/** What the zod upgrade did in a package, for the report. */
function noteZodUpgrade(run: RunState, manifest: string): void {
  const status = run.zodPackages.get(manifest)!;
  const changed = run.entries.filter(e => e.zodPackage === manifest && e.changedBy.includes('zod-upgrade')).map(e => e.rel);
  const files = `${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ` and ${changed.length - 3} more` : ''}`;
  const code = !status.migrateCode ? '' : changed.length > 0 ? `; zod-v3-to-v4 upgraded its zod 3 code in ${files}` : '; its zod 3 code needed no change (zod-v3-to-v4)';
  run.diagnostics.push({
    level: 'info', source: 'sdk-upgrade', code: 'sdk-upgrade/zod-upgraded', file: run.rel(manifest), line: undefined,
    message: `the v2 SDK takes zod 4.2 or later and this package was on zod ${status.version}: its zod range becomes ${ZOD_RANGE}${code}; install the packages again after the run (--no-zod-upgrade leaves zod as it is).`,
  });
}

function applyUpdate(run: RunState, update: ManifestUpdate): PackageJsonChange {
  let applied = false;
  if (run.write) {
    try {
      if (isReadOnly(update.file)) throw new Error('the file is read-only');
      writeFileAtomic(update.file, update.after);
      applied = true;
    } catch (error) {
      run.diagnostics.push({ level: 'error', source: 'sdk-upgrade', code: 'sdk-upgrade/manifest', file: run.rel(update.file), line: undefined, message: `not written: ${errorText(error)}; apply the change by hand.` });
    }
  }
  return { file: run.rel(update.file), added: update.added, removed: update.removed, updated: update.updated, applied, before: splitBom(update.before).text, after: splitBom(update.after).text };
}
