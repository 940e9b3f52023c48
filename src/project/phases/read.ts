import path from 'node:path';
import { discoverSources } from '../discover.js';
import { MigrateError } from '../errors.js';
import { DeclarationStubs } from '../declarationStubs.js';
import { linkedPackages, sharedCopiesResolution, type LinkedPackage } from '../linkedPackages.js';
import { createProject, readSource, syntaxError, withTextReplacements, type ReadFile } from '../load.js';
import { ownerManifest } from '../packageJson.js';
import { importsAnyOf, mentionsV1Sdk } from '../prefilter.js';
import { projectTestFiles } from '../testFiles.js';
import { errorText, newEntry, type RunState } from '../runState.js';
import { sdkTypeFallback, zodTypePaths } from '../sdkTypes.js';
import { SERVER_ENTRY_POINTS, serverApiGap } from '../serverApi.js';
import { importsZod, outdatedZod, type ZodStatus } from '../zodUpgrade.js';

/** The sources the paths name, without node_modules, build output and git-ignored files. */
export function discover(run: RunState): void {
  const discovery = discoverSources({
    cwd: run.cwd,
    inputs: run.paths,
    ignore: run.ignore,
    ignoreRoot: run.ignoreRoot,
    buildOutputs: buildOutputs(run.tsconfig.options.outDir, run.cwd),
  });
  if (discovery.symlinks.length > 0) {
    run.diagnostics.push({ level: 'info', source: 'cli', code: 'cli/symlinks', file: undefined, line: undefined, message: `${discovery.symlinks.length} symbolic link(s) not followed: ${discovery.symlinks.slice(0, 5).map(f => run.rel(f)).join(', ')}${discovery.symlinks.length > 5 ? ', ...' : ''}` });
  }
  if (discovery.files.length === 0) {
    const links = discovery.symlinks.length > 0 ? ` (${discovery.symlinks.length} symbolic link(s) not followed)` : '';
    throw new MigrateError(`no TypeScript or JavaScript source files found in ${run.paths.join(' ')}${links}; node_modules, build output and git-ignored files are skipped.`);
  }
  run.files = discovery.files;
}

/** Read everything once; the cheap text check decides what is parsed at all, and in which role. */
export function read(run: RunState): void {
  const zodOnly: ReadFile[] = [];
  const skipped: ReadFile[] = [];
  run.files.forEach((file, i) => {
    run.progress({ phase: 'read', done: i, total: run.files.length, file: run.rel(file) });
    try {
      const read = readSource(file, run.sdkUpgrade);
      run.texts.set(file, read.text);
      if (read.role === 'rewrite') run.entries.push(newEntry(read, run.rel(file)));
      else if (read.role === 'context') run.contextFiles.push(read);
      else {
        if (run.zodUpgrade && importsZod(read.text)) zodOnly.push(read);
        skipped.push(read);
      }
    } catch (error) {
      run.unreadable.push({ file: run.rel(file), before: '', afterSdkUpgrade: '', after: '', changed: false, changedBy: [], rolledBack: false, newTypeErrors: [], written: false, error: `cannot be read: ${errorText(error)}` });
      run.unreadablePaths.push(file);
    }
  });
  if (run.unreadable.length === run.files.length) {
    throw new MigrateError(`none of the ${run.files.length} source file(s) could be read (${run.unreadable[0]!.file}: ${run.unreadable[0]!.error}).`);
  }
  // A module that imports the others without naming the SDK may be where a server is handed to them
  // (tests are not: their servers are never wired).
  const parsed = new Set([...run.entries.map(e => path.resolve(e.read.path)), ...run.contextFiles.map(r => path.resolve(r.path))]);
  const isTest = (run.isTestFile ??= projectTestFiles(run.tsconfig.file ? path.dirname(run.tsconfig.file) : run.cwd));
  run.contextFiles.push(...skipped.filter(read => !isTest(path.resolve(read.path)) && importsAnyOf(path.resolve(read.path), read.text, parsed)));
  if (run.sdkUpgrade) run.zodPackages = outdatedZodPackages(run);
  // A file that only uses zod is parsed too where the zod upgrade may change it.
  const context = new Set(run.contextFiles);
  if (run.zodUpgrade) run.contextFiles.push(...zodOnly.filter(read => !context.has(read) && run.zodPackages.has(ownerManifest(read.path, run.manifestStop) ?? '')));
  run.filesParsed = run.entries.length + run.contextFiles.length;
}

/** The packages (by manifest) of the v1 files whose zod is older than the v2 SDK takes. */
function outdatedZodPackages(run: RunState): Map<string, ZodStatus> {
  const found = new Map<string, ZodStatus>();
  const seen = new Set<string>();
  for (const entry of run.entries) {
    if (!mentionsV1Sdk(entry.read.text)) continue;
    const manifest = ownerManifest(entry.read.path, run.manifestStop);
    if (!manifest || seen.has(manifest)) continue;
    seen.add(manifest);
    const status = outdatedZod(manifest);
    if (status) found.set(manifest, status);
  }
  return found;
}

/**
 * The files read are parsed into one project (with the SDK's types borrowed where the project does
 * not have them yet, and the modules the run skipped given as their declarations where that is
 * exact, declarationStubs.ts). A file that does not parse is listed with its error and never touched.
 */
export function parse(run: RunState): void {
  const { tsconfig } = run;
  const projectDir = tsconfig.file ? path.dirname(tsconfig.file) : run.git.root ?? run.cwd;
  // An installed server too old for the rewrite: checked against mrtr-migrate's own where its range may move.
  run.serverGap = serverApiGap(projectDir, tsconfig.options, run.manifestStop);
  // Its range moves with the package.json changes, which --no-sdk-upgrade leaves alone.
  if (run.serverGap && !run.sdkUpgrade) run.serverGap.movable = false;
  run.fallback = sdkTypeFallback(projectDir, tsconfig.options, run.serverGap?.movable ? SERVER_ENTRY_POINTS : []);
  // Code upgraded to zod 4 is checked against zod 4 (the project installs it after the run).
  const zodPaths = run.checksOwnZod ? zodTypePaths(tsconfig.options) : {};
  const options = { ...tsconfig.options, paths: { ...run.asReadPaths, ...zodPaths } };
  const linked = linkedPackages(projectDir);
  for (const pkg of linked) if (pkg.shared.length > 0) run.diagnostics.push(sharedCopiesNote(run, pkg));
  const project = (run.project = createProject(options, run.texts, sharedCopiesResolution(linked)));
  const parsed = new Set([...run.entries.map(e => e.read.path), ...run.contextFiles.map(r => r.path)]);
  const stubs = (run.stubs = new DeclarationStubs(run.texts, parsed, options));
  withTextReplacements(project, fileName => stubs.textFor(fileName));
  // Added by path, from the texts read (createProject): `createSourceFile(path, text, { overwrite })`
  // would parse each file twice, ts-morph loading the one on disk before replacing its text.
  for (const entry of run.entries) entry.sourceFile = project.addSourceFileAtPath(entry.read.path);
  for (const read of run.contextFiles) project.addSourceFileAtPath(read.path);
  for (const entry of run.entries) {
    const error = syntaxError(entry.sourceFile!);
    if (!error) continue;
    entry.error = `syntax error at ${error}; the file was left untouched.`;
    project.removeSourceFile(entry.sourceFile!);
    entry.sourceFile = undefined;
  }
  run.live = run.entries.filter(e => e.sourceFile);
}

function sharedCopiesNote(run: RunState, pkg: LinkedPackage): RunState['diagnostics'][number] {
  const name = path.relative(path.join(pkg.consumer, 'node_modules'), pkg.link).split(path.sep).join('/');
  const copies = pkg.shared.map(s => `${s.name} ${s.projectVersion} (its own: ${s.ownVersion})`).join(', ');
  const message = `${name} is linked from ${run.rel(pkg.real)}; the type check reads the project's ${copies} for it, as an install from the registry would share them (two copies of one package make the check grow without bound).`;
  return { level: 'info', source: 'verify', code: 'verify/linked-copies-shared', file: undefined, line: undefined, message };
}

/** The tsconfig's outDir is build output, unless it contains the sources themselves. */
function buildOutputs(outDir: string | undefined, cwd: string): string[] {
  if (!outDir) return [];
  const out = path.resolve(outDir);
  return out === cwd || cwd.startsWith(out + path.sep) ? [] : [out];
}
