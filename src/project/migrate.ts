import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ts, type Project, type SourceFile } from 'ts-morph';
import { ProjectIndex } from '../analysis/index.js';
import { lineMapper } from '../report/diff.js';
import type { Diagnostic, FileReport, PackageJsonChange, RunReport, ServingEntryReport, SiteReport } from '../report/model.js';
import { TRANSFORMS, type Transform, type TransformContext } from '../../transforms/index.js';
import type { SharedRequestState } from '../../transforms/types.js';
import { discoverSources } from './discover.js';
import { MigrateError } from './errors.js';
import { detectFormatter, shellQuote } from './formatter.js';
import { gitState } from './git.js';
import { classify, createProject, readSource, syntaxError, type ReadFile } from './load.js';
import { declaresV1, ownerManifest, planManifestUpdate, v2PackagesIn, type ManifestUpdate } from './packageJson.js';
import { detectProjectType, mentionsV1Sdk, requestHandlers, runSdkUpgrade } from './sdkUpgrade.js';
import { sdkTypeFallback } from './sdkTypes.js';
import { fileOfKey, moduleText, planProject, wiredText, type ProjectPlan } from './sharedCodec.js';
import { isJavaScriptFile } from '../analysis/typeSyntax.js';
import { isReadOnly, restoreShape, shapeOf, splitBom, writeFileAtomic, type TextShape } from './sourceText.js';
import { programWith, projectHost } from './programs.js';
import { findTsconfig, loadTsconfig } from './tsconfig.js';
import { addedErrors, typeErrorsOf, type TypeError } from './typeCheck.js';
import { toolVersion } from './version.js';

export interface MigrateOptions {
  /** Working directory: paths are relative to it, reports name files relative to it. Default: `process.cwd()`. */
  cwd?: string;
  /** Files, folders and globs. Default: `['.']`. */
  paths?: string[];
  /** More gitignore-style patterns to skip, relative to `cwd`. */
  ignore?: string[];
  /** The tsconfig to use (file or folder). Default: the nearest one. */
  project?: string;
  /** Write nothing; the report holds every diff. */
  dryRun?: boolean;
  /** Write nothing (like dryRun); the CLI exits 1 when anything is left to migrate. */
  check?: boolean;
  /** Run the official v1-to-v2 stage and update package.json. Default: true. */
  sdkUpgrade?: boolean;
  /** Type-check changed files and roll back rewrites that add type errors. Default: true. */
  verify?: boolean;
  /** Write even when the git work tree has uncommitted changes. */
  force?: boolean;
  /** Paths that do not count as uncommitted changes (the report files of an earlier run). */
  allowDirty?: string[];
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Interrupts the write stage: aborted, the run writes no further source file (the one being written
   * is completed), updates the manifests for what was written, and returns the report with
   * `interrupted` set and the files left as they were marked not written. The CLI aborts it on
   * SIGINT / SIGTERM once writing has started.
   */
  signal?: AbortSignal;
  /** The per-file transforms; default: the shipped list (MRTR rewrite, then the serving entry). */
  transforms?: Transform[];
}

export interface ProgressEvent {
  phase: 'read' | 'sdk-upgrade' | 'rewrite' | 'verify' | 'write';
  done: number;
  total: number;
  /** Path relative to the working directory. */
  file?: string;
}

/** One file of the run on its way through the stages. */
interface Entry {
  read: ReadFile;
  rel: string;
  shape: TextShape;
  sourceFile: SourceFile | undefined;
  afterSdkUpgrade: string;
  changedBy: string[];
  baseline: TypeError[] | undefined;
  /** For a v1 file: its type errors as it was, before the official v1-to-v2 stage. */
  v1Baseline: TypeError[] | undefined;
  newTypeErrors: string[];
  rolledBack: boolean;
  error: string | undefined;
  zodInjected: boolean;
  sites: SiteReport[];
  /** The generated module of a shared codec: a new file, written only where no file is. */
  created: boolean;
  /** For a file wired with the shared codec without handlers of its own: its text before the wiring. */
  beforeWiring: string | undefined;
}

/**
 * The whole migration: find the files, upgrade v1 code with the official codemod, run the rewrite
 * transforms, type-check and roll back what broke, write atomically, and describe it all in a
 * RunReport. Throws MigrateError when the run cannot be done at all.
 */
export async function migrate(options: MigrateOptions = {}): Promise<RunReport> {
  const startedAt = new Date();
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const paths = options.paths && options.paths.length > 0 ? options.paths : ['.'];
  const sdkUpgrade = options.sdkUpgrade ?? true;
  const verify = options.verify ?? true;
  const write = !options.dryRun && !options.check;
  const transforms = options.transforms ?? TRANSFORMS;
  const progress = options.onProgress ?? (() => {});
  const rel = (file: string) => path.relative(cwd, file).split(path.sep).join('/') || '.';
  const diagnostics: Diagnostic[] = [];

  const git = gitState(cwd, options.allowDirty ?? []);
  if (write && !options.force && git.root && git.changes.length > 0) {
    const sample = git.changes.slice(0, 3).map(line => line.slice(3)).join(', ');
    throw new MigrateError(
      `the git work tree ${git.root} has ${git.changes.length} uncommitted change(s) (${sample}${git.changes.length > 3 ? ', ...' : ''}); commit or stash them so the migration's diff can be reviewed on its own, or pass --force.`,
    );
  }

  const tsconfigFile = options.project ? projectOption(cwd, options.project) : findTsconfig(startDirectory(cwd, paths), git.root);
  const tsconfig = loadTsconfig(tsconfigFile, options.project !== undefined, cwd);
  if (options.check && tsconfig.warnings.length > 0) {
    const more = tsconfig.warnings.length > 1 ? ` (and ${tsconfig.warnings.length - 1} more tsconfig problem(s))` : '';
    throw new MigrateError(`${tsconfig.warnings[0]!.replace(/\.$/, '')}${more}. --check does not vouch for a project whose compiler options were not read as written: fix the tsconfig or pass --project.`);
  }
  for (const warning of tsconfig.warnings) diagnostics.push({ level: 'warning', source: 'cli', code: 'cli/tsconfig', file: tsconfig.file ? rel(tsconfig.file) : undefined, line: undefined, message: warning });

  const discovery = discoverSources({
    cwd,
    inputs: paths,
    ignore: options.ignore ?? [],
    ignoreRoot: git.root ?? cwd,
    buildOutputs: buildOutputs(tsconfig.options.outDir, cwd),
  });
  if (discovery.symlinks.length > 0) {
    diagnostics.push({ level: 'info', source: 'cli', code: 'cli/symlinks', file: undefined, line: undefined, message: `${discovery.symlinks.length} symbolic link(s) not followed: ${discovery.symlinks.slice(0, 5).map(rel).join(', ')}${discovery.symlinks.length > 5 ? ', ...' : ''}` });
  }
  if (discovery.files.length === 0) {
    const links = discovery.symlinks.length > 0 ? ` (${discovery.symlinks.length} symbolic link(s) not followed)` : '';
    throw new MigrateError(`no TypeScript or JavaScript source files found in ${paths.join(' ')}${links}; node_modules, build output and git-ignored files are skipped.`);
  }

  // Read everything once; the cheap text check decides what is parsed at all.
  const entries: Entry[] = [];
  const contextFiles: ReadFile[] = [];
  const unreadable: FileReport[] = [];
  /** Sources that could not be read: whether they import the v1 SDK is unknown, so their manifest keeps it. */
  const unreadablePaths: string[] = [];
  const allTexts = new Map<string, string>();
  discovery.files.forEach((file, i) => {
    progress({ phase: 'read', done: i, total: discovery.files.length, file: rel(file) });
    try {
      const read = readSource(file, sdkUpgrade);
      allTexts.set(file, read.text);
      if (read.role === 'rewrite') entries.push(newEntry(read, rel(file)));
      else if (read.role === 'context') contextFiles.push(read);
    } catch (error) {
      unreadable.push(errorFile(rel(file), `cannot be read: ${errorText(error)}`));
      unreadablePaths.push(file);
    }
  });
  if (unreadable.length === discovery.files.length) {
    throw new MigrateError(`none of the ${discovery.files.length} source file(s) could be read (${unreadable[0]!.file}: ${unreadable[0]!.error}).`);
  }

  const projectDir = tsconfig.file ? path.dirname(tsconfig.file) : git.root ?? cwd;
  const fallback = sdkTypeFallback(projectDir, tsconfig.options);
  const project = createProject({ ...tsconfig.options, paths: { ...tsconfig.options.paths, ...fallback.paths } });
  for (const entry of entries) entry.sourceFile = project.createSourceFile(entry.read.path, entry.read.text, { overwrite: true });
  for (const read of contextFiles) project.createSourceFile(read.path, read.text, { overwrite: true });

  // A file that does not parse is listed with its error and never touched.
  for (const entry of entries) {
    const error = syntaxError(entry.sourceFile!);
    if (!error) continue;
    entry.error = `syntax error at ${error}; the file was left untouched.`;
    project.removeSourceFile(entry.sourceFile!);
    entry.sourceFile = undefined;
  }
  const live = entries.filter(e => e.sourceFile);

  const v1 = sdkUpgrade ? live.filter(e => mentionsV1Sdk(e.read.text)) : [];
  // The v1 files' own errors, to tell whether the official stage left one of them broken. The program
  // of the files as read is built now; it is checked (all v1 files, in order, on its own checker) only
  // once an upgraded file has errors at the end: without errors after, none can have been added.
  const v1Program = verify && v1.length > 0 ? project.getProgram().compilerObject : undefined;
  const v1Baselines = once(() => {
    for (const entry of v1) {
      const compiled = v1Program!.getSourceFile(entry.read.path);
      if (compiled) entry.v1Baseline = typeErrorsOf(v1Program!, compiled);
    }
  });
  if (sdkUpgrade) {
    const manifest = ownerManifest(path.join(cwd, 'package.json.probe'), git.root ?? path.parse(cwd).root);
    const projectType = detectProjectType(dependenciesOf(manifest), allTexts.values());
    v1.forEach((entry, i) => {
      progress({ phase: 'sdk-upgrade', done: i, total: v1.length, file: entry.rel });
      const result = runSdkUpgrade(entry.sourceFile!, projectType, entry.rel);
      // The official stage counts lines of the text it produced; the report counts lines on disk.
      const toDisk = lineMapper(entry.read.text, entry.sourceFile!.getFullText());
      diagnostics.push(...result.diagnostics.map(d => (d.line === undefined ? d : { ...d, line: toDisk(d.line) })));
      entry.zodInjected = result.zodInjected;
      if (result.changed) entry.changedBy.push('sdk-upgrade');
    });
  }
  for (const entry of live) entry.afterSdkUpgrade = entry.sourceFile!.getFullText();

  // Type errors before the rewrite, for files the rewrite may touch. Like the v1 files' errors, they
  // are taken (for all these files, in order, on a checker of their own) only once a rewritten file
  // has errors: from a copy of the program the analysis uses, the project as it is now.
  const baselineFiles = verify ? live.filter(e => classify(e.afterSdkUpgrade, false) === 'rewrite') : [];

  const sites: SiteReport[] = [];
  const alreadyMigrated: RunReport['alreadyMigrated'] = [];
  // Counted before a shared codec's server file joins the entries and its module is added.
  const filesParsed = entries.length + contextFiles.length;
  // Every file is analysed against one program, the project after the SDK stage: one checker and one
  // cross-file index for the whole rewrite, and each file sees the others as they are before it. A
  // file a transform has changed (lowered loops, then the serving entry) is swapped into a copy of
  // that program, which reuses the rest of it.
  let before: ts.Program | undefined = project.getProgram().compilerObject;
  let projectIndex: ProjectIndex | undefined = new ProjectIndex(ts as never, before as never);
  const host = projectHost(project);
  const baselineProgram = verify ? programWith(before, host, new Map()) : undefined;
  const baselines = once(() => {
    for (const entry of baselineFiles) {
      const compiled = baselineProgram!.getSourceFile(entry.read.path);
      if (compiled) entry.baseline = typeErrorsOf(baselineProgram!, compiled);
    }
  });
  let swapped: { file: ts.SourceFile; program: ts.Program } | undefined;
  const programFor = (sourceFile: SourceFile): ts.Program => {
    const current = sourceFile.compilerNode;
    if (before!.getSourceFile(sourceFile.getFilePath()) === current) return before!;
    if (swapped?.file !== current) swapped = { file: current, program: programWith(before!, host, new Map([[sourceFile.getFilePath(), current]])) };
    return swapped.program;
  };
  // Servers whose handlers are registered in other files get one codec in a generated module, and
  // files linked by an asking helper used across files are planned together (sharedCodec.ts).
  const plan = planProject(ts as never, before as never, projectIndex as never, live.map(e => e.read.path));
  const shared = plan.shared;
  // Without one, the transforms still plan across files (and refuse nothing for it): nothing is shared.
  const sharing = shared ?? { modulePath: '', constructions: new Set<string>(), importers: new Set<string>(), uses: new Set() };
  const contextFor = (sourceFile: SourceFile): TransformContext => ({ project, ts, projectIndex: projectIndex!, cwd, shared: sharing, program: () => programFor(sourceFile), planned: plan.planned });
  baselineFiles.push(...joinLinkedFiles(plan, project, entries, live, contextFiles, rel));
  live.forEach((entry, i) => {
    progress({ phase: 'rewrite', done: i, total: live.length, file: entry.rel });
    const sourceFile = entry.sourceFile!;
    const found: SiteReport[] = [];
    const said: Diagnostic[] = [];
    const already: RunReport['alreadyMigrated'] = [];
    const changedBy: string[] = [];
    let current = '';
    try {
      for (const transform of transforms) {
        current = transform.id;
        const seen = sourceFile.getFullText();
        const result = transform.apply(sourceFile, contextFor(sourceFile));
        // The plan's analysis of the file has served (it is used once): it need not stay in memory.
        plan.planned.delete(sourceFile.getFilePath());
        // Every location in the report is a line of the file as it is on disk, whichever stage found it.
        const toDisk = seen === entry.read.text ? (line: number) => line : lineMapper(entry.read.text, seen);
        found.push(...result.sites.map(site => ({ ...site, line: toDisk(site.line), handler: site.handler && { ...site.handler, line: toDisk(site.handler.line) } })));
        said.push(...result.diagnostics.map(d => (d.line === undefined ? d : { ...d, line: toDisk(d.line) })));
        already.push(...result.alreadyMigrated.map(a => ({ file: entry.rel, ...a, line: toDisk(a.line) })));
        if (result.changed) changedBy.push(transform.id);
      }
    } catch (error) {
      sourceFile.replaceWithText(entry.afterSdkUpgrade);
      entry.error = `internal error in the ${current} rewrite (${errorText(error)}); the file was left as the SDK stage made it. Please report this with the file.`;
      for (const site of found) if (site.status !== 'refused') markUndone(site, 'rolled-back', 'an internal error stopped the rewrite of this file; migrate it by hand.');
      sites.push(...found);
      return;
    }
    sites.push(...found);
    entry.sites = found;
    diagnostics.push(...said);
    alreadyMigrated.push(...already);
    entry.changedBy.push(...changedBy);
  });

  // The analysis program, its index and checker are not needed any more: the type check builds its own.
  before = undefined;
  projectIndex = undefined;
  swapped = undefined;
  plan.planned.clear();

  // Files that stand or fall together: those of a shared codec, and those linked by an asking helper.
  const sharedGroup = shared && shared.importers.size > 0 ? wireSharedCodec(shared, project, entries, live, contextFiles, rel, diagnostics) : [];
  // A server file wired without handlers of its own is checked against its errors before, as the others.
  baselineFiles.push(...sharedGroup.filter(e => e.beforeWiring !== undefined));
  const groups = linkedGroups(plan, sharedGroup, live, project, rel, diagnostics);
  // A split helper must have no user the analysis did not see: a source of its package that is not
  // in the program (outside the paths given, or not parsed), names it and imports from the program.
  for (const { file, name } of plan.sharedHelpers) {
    const group = groups.find(g => g.some(e => path.resolve(e.read.path) === path.resolve(file)));
    if (!group || group.length === 0) continue;
    const manifest = ownerManifest(file, git.root ?? path.parse(file).root);
    const root = manifest ? path.dirname(manifest) : git.root ?? cwd;
    const unseen = unseenUsers(name, root, project.getProgram().compilerObject, options.ignore ?? [], git.root ?? cwd);
    if (unseen.length > 0) {
      undoGroup(group, project, diagnostics, `${name}() is split, but ${unseen.slice(0, 3).map(rel).join(', ')}${unseen.length > 3 ? ', ...' : ''}, which this run does not analyse, also names it and would lose it; run mrtr-migrate on a folder that holds every file using it`);
      group.length = 0;
    }
  }
  const groupOf = (entry: Entry): Entry[] | undefined => groups.find(g => g.includes(entry));

  if (verify) {
    let pending = live.filter(e => !e.error && sourceTextOf(e) !== e.afterSdkUpgrade);
    for (let round = 0; round < 3 && pending.length > 0; round++) {
      const program = project.getProgram().compilerObject;
      const broken: Entry[] = [];
      pending.forEach((entry, i) => {
        progress({ phase: 'verify', done: i, total: pending.length, file: entry.rel });
        const compiled = program.getSourceFile(entry.read.path);
        if (!compiled) return;
        const after = typeErrorsOf(program, compiled);
        if (after.length === 0) return;
        baselines();
        const added = onDisk(entry, compiled.text, addedErrors(entry.baseline ?? [], after));
        if (added.length === 0) return;
        entry.newTypeErrors = added.map(e => e.text);
        broken.push(entry);
      });
      for (const entry of broken) if (!groupOf(entry)) rollBack(entry, diagnostics);
      // The files of a group go back together: handlers without their codec, a server wired to a
      // module that is not written, or callers of a helper that is not split would not stand alone.
      for (const group of groups) {
        const first = broken.find(e => group.includes(e));
        if (!first) continue;
        undoGroup(group, project, diagnostics, `the rewrite of ${first.rel} added ${first.newTypeErrors.length} type error(s) (${first.newTypeErrors[0] ?? ''}${first.newTypeErrors.length > 1 ? '; ...' : ''})`);
        group.length = 0;
      }
      if (broken.length === 0) break;
      pending = pending.filter(e => !e.rolledBack);
    }
    // What is left of a v1 file's new errors came with the official v1-to-v2 stage. In a handler (one
    // that destructures `sendRequest` from its context, which the v2 context no longer has) the whole
    // file stays on v1 rather than be written broken. Elsewhere (transport setup the official stage
    // maps loosely) the upgrade is kept and the errors are said, as the official codemod would leave them.
    const upgraded = v1.filter(e => !e.error && v1Program?.getSourceFile(e.read.path) && sourceTextOf(e) !== e.read.text);
    if (upgraded.length > 0) {
      const program = project.getProgram().compilerObject;
      for (const entry of upgraded) {
        const compiled = program.getSourceFile(entry.read.path);
        const after = compiled ? typeErrorsOf(program, compiled) : [];
        if (after.length === 0) continue;
        v1Baselines();
        const added = addedErrors(entry.v1Baseline!, after);
        if (added.length === 0) continue;
        const handlers = requestHandlers(compiled!).map(h => [h.fn.getStart(), h.fn.getEnd()] as const);
        const said = onDisk(entry, compiled!.text, added);
        if (added.some(e => e.start !== undefined && handlers.some(([from, to]) => e.start! >= from && e.start! < to))) {
          // A file of a group back on v1 would leave the others half rewritten.
          const group = groupOf(entry);
          if (group) {
            undoGroup(group, project, diagnostics, `${entry.rel} stays on the v1 SDK (its upgrade added type errors in a handler)`);
            group.length = 0;
          }
          keepOnV1(entry, said, diagnostics);
        } else {
          diagnostics.push({
            level: 'error', source: 'sdk-upgrade', code: 'sdk-upgrade/type-errors', file: entry.rel, line: said[0]!.line,
            message: `the official v1-to-v2 upgrade left ${said.length} type error(s) outside the request handlers (${said[0]!.text}${said.length > 1 ? '; ...' : ''}); the upgrade of the file is kept; check these after installing the new packages and fix what remains by hand.`,
          });
        }
      }
    }
  }

  // Say which SDK types were borrowed, for the packages the code now imports.
  const finalTexts = entries.map(e => sourceTextOf(e)).join('\n');
  for (const borrowed of fallback.borrowed) {
    if (!finalTexts.includes(`'${borrowed.specifier}'`) && !finalTexts.includes(`"${borrowed.specifier}"`)) continue;
    diagnostics.push({ level: 'info', source: 'verify', code: 'verify/sdk-types-borrowed', file: undefined, line: undefined, message: `${borrowed.specifier} is not installed in the project yet; its types were taken from mrtr-migrate's own copy (${borrowed.version ?? 'unknown version'}) to check the rewrite. Install the new packages after the migration.` });
  }
  const missing = fallback.missing.filter(specifier => finalTexts.includes(`'${specifier}'`) || finalTexts.includes(`"${specifier}"`));
  if (verify && missing.length > 0) {
    diagnostics.push({ level: 'warning', source: 'verify', code: 'verify/sdk-types-missing', file: undefined, line: undefined, message: `${missing.join(', ')} cannot be resolved; the type check ignores "cannot find module" errors for them, so code using them is checked loosely.` });
  }

  // Write: only whole, verified files, atomically, each with its own line endings, BOM and shebang.
  // Between files the event loop runs, so an interruption (options.signal) stops before the next one.
  // The generated module goes first: the files importing it must not be on disk without it.
  const changed = live.filter(e => sourceTextOf(e) !== e.read.text).sort((a, b) => Number(b.created) - Number(a.created));
  const written: string[] = [];
  let interrupted: string | undefined;
  if (write) {
    // The files of a group are written all or none: check them all before writing any.
    for (const group of groups) {
      const groupProblem = group.length > 0 ? writeProblem(group.filter(e => changed.includes(e))) : undefined;
      if (!groupProblem) continue;
      undoGroup(group, project, diagnostics, `${groupProblem}, so none of them was written`);
      group.length = 0;
    }
    for (const [i, entry] of changed.entries()) {
      if (entry.sourceFile === undefined || sourceTextOf(entry) === entry.read.text) continue;
      if (options.signal?.aborted) {
        interrupted = abortReason(options.signal);
        const why = `not written: the run was interrupted (${interrupted}) before this file; it is unchanged, run mrtr-migrate again to migrate it.`;
        for (const rest of changed.slice(i)) {
          rest.error = why;
          for (const site of rest.sites) if (site.status === 'migrated' || site.status === 'migrated-for-review') markUndone(site, 'not-written', why);
        }
        break;
      }
      progress({ phase: 'write', done: i, total: changed.length, file: entry.rel });
      try {
        if (entry.created) {
          if (existsSync(entry.read.path)) throw new Error('a file of that name appeared during the run; run again');
        } else {
          if (isReadOnly(entry.read.path)) throw new Error('the file is read-only; make it writable and run again');
          if (readFileSync(entry.read.path, 'utf8') !== entry.read.raw) throw new Error('the file changed on disk during the run; run again');
        }
        writeFileAtomic(entry.read.path, restoreShape(sourceTextOf(entry), entry.shape));
        written.push(entry.read.path);
      } catch (error) {
        entry.error = `not written: ${errorText(error)}`;
        const group = entry.created ? groupOf(entry) : undefined;
        if (group) {
          undoGroup(group, project, diagnostics, `the module ${entry.rel} could not be written (${errorText(error)})`);
          group.length = 0;
        }
        for (const site of entry.sites) if (site.status === 'migrated' || site.status === 'migrated-for-review') markUndone(site, 'not-written', entry.error);
      }
      await new Promise<void>(resolve => setImmediate(resolve));
    }
  }

  // The manifest: v1 package out, the v2 packages the code now imports in, as the sources now are on
  // disk (a dry run: as they would be). While any source it owns still imports the v1 SDK (a syntax
  // error, a rollback, a file not written, an import the official codemod leaves) or could not be
  // read, the v1 package stays, and a diagnostic names those files.
  const manifestUpdates: ManifestUpdate[] = [];
  if (sdkUpgrade) {
    const stop = git.root ?? path.parse(cwd).root;
    // The owner of every file of a folder is the same: looked up once per folder.
    const owners = new Map<string, string | undefined>();
    const ownerOf = (file: string): string | undefined => {
      const dir = path.dirname(file);
      if (!owners.has(dir)) owners.set(dir, ownerManifest(file, stop));
      return owners.get(dir);
    };
    const used = new Map<string, { packages: Set<string>; v1: string[] }>();
    const usageOf = (owner: string) => used.get(owner) ?? used.set(owner, { packages: new Set<string>(), v1: [] }).get(owner)!;
    const zod = new Set<string>();
    const byPath = new Map(entries.map(e => [e.read.path, e]));
    for (const [file, text] of allTexts) {
      const owner = ownerOf(file);
      if (!owner) continue;
      const entry = byPath.get(file);
      const finalText = entry?.sourceFile && (!write || written.includes(file)) ? entry.sourceFile.getFullText() : text;
      const usage = usageOf(owner);
      for (const pkg of v2PackagesIn(finalText)) usage.packages.add(pkg);
      if (mentionsV1Sdk(finalText)) usage.v1.push(rel(file));
      if (entry?.zodInjected && finalText !== text) zod.add(owner);
    }
    for (const file of unreadablePaths) {
      const owner = ownerOf(file);
      if (owner) usageOf(owner).v1.push(rel(file));
    }
    for (const [manifest, usage] of used) {
      // Sources of the package outside the paths given still count: the v1 package stays for them.
      if (usage.v1.length === 0 && declaresV1(manifest)) {
        usage.v1.push(...v1ImportersOutside(path.dirname(manifest), file => !allTexts.has(file) && ownerOf(file) === manifest, options.ignore ?? [], git.root ?? cwd, rel));
      }
      if (usage.v1.length > 0 && declaresV1(manifest)) {
        const files = usage.v1.length > 3 ? `${usage.v1.slice(0, 3).join(', ')} and ${usage.v1.length - 3} more` : usage.v1.join(', ');
        diagnostics.push({
          level: 'warning', source: 'sdk-upgrade', code: 'sdk-upgrade/v1-kept', file: rel(manifest), line: undefined,
          message: `@modelcontextprotocol/sdk stays in ${rel(manifest)}: ${files} still import${usage.v1.length === 1 ? 's' : ''} it or could not be read; remove it once ${usage.v1.length === 1 ? 'that file is' : 'they are'} migrated.`,
        });
      }
      try {
        const update = planManifestUpdate(manifest, usage.packages, zod.has(manifest), usage.v1.length > 0);
        if (update) manifestUpdates.push(update);
      } catch (error) {
        diagnostics.push({ level: 'error', source: 'sdk-upgrade', code: 'sdk-upgrade/manifest', file: rel(manifest), line: undefined, message: errorText(error) });
      }
    }
  }
  const packageJsonChanges: PackageJsonChange[] = manifestUpdates.map(update => {
    let applied = false;
    if (write) {
      try {
        if (isReadOnly(update.file)) throw new Error('the file is read-only');
        writeFileAtomic(update.file, update.after);
        applied = true;
      } catch (error) {
        diagnostics.push({ level: 'error', source: 'sdk-upgrade', code: 'sdk-upgrade/manifest', file: rel(update.file), line: undefined, message: `not written: ${errorText(error)}; apply the change by hand.` });
      }
    }
    return { file: rel(update.file), added: update.added, removed: update.removed, applied, before: splitBom(update.before).text, after: splitBom(update.after).text };
  });

  const formatter = written.length > 0 ? detectFormatter(cwd) : undefined;
  const files: FileReport[] = [
    ...unreadable,
    ...entries.map(entry => fileReport(entry, written.includes(entry.read.path))),
  ].sort((a, b) => a.file.localeCompare(b.file));

  return {
    schemaVersion: 1,
    tool: { name: 'mrtr-migrate', version: toolVersion() },
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    cwd,
    options: {
      paths,
      dryRun: !!options.dryRun,
      check: !!options.check,
      sdkUpgrade,
      verify,
      force: !!options.force,
      ignore: options.ignore ?? [],
      project: options.project,
    },
    tsconfig: tsconfig.file ? rel(tsconfig.file) : undefined,
    filesScanned: discovery.files.length,
    filesParsed,
    files,
    sites: sites.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column),
    alreadyMigrated,
    servingEntries: servingEntries(diagnostics, entries),
    diagnostics,
    packageJsonChanges,
    formatCommand: formatter ? `${formatter.command} ${written.map(f => shellQuote(rel(f))).join(' ')}` : undefined,
    interrupted,
  };
}

/**
 * Sources under `root` that `include` accepts and whose text `matches`; one that cannot be read
 * counts as matching, since what it holds is unknown.
 */
function sourcesMatching(root: string, include: (file: string) => boolean, matches: (text: string, file: string) => boolean, ignore: string[], ignoreRoot: string): string[] {
  const found: string[] = [];
  for (const file of discoverSources({ cwd: root, inputs: ['.'], ignore, ignoreRoot, buildOutputs: [] }).files) {
    if (!include(file)) continue;
    let text: string;
    try {
      text = readSource(file, true).text;
    } catch {
      found.push(file); // unreadable or not UTF-8
      continue;
    }
    if (matches(text, file)) found.push(file);
  }
  return found;
}

/**
 * Sources of a package (`unread`: not read by the run, owned by the manifest) that import the v1 SDK,
 * by the run's own text check. Looked for only when the manifest would otherwise lose the v1 package.
 */
function v1ImportersOutside(packageDir: string, unread: (file: string) => boolean, ignore: string[], ignoreRoot: string, rel: (file: string) => string): string[] {
  return sourcesMatching(packageDir, unread, mentionsV1Sdk, ignore, ignoreRoot).map(rel);
}

/**
 * Sources under `root` that `program` does not hold, whose text names `name` and that import a
 * source of the program (a module resolved with the program's options), or cannot be read.
 */
function unseenUsers(name: string, root: string, program: ts.Program, ignore: string[], ignoreRoot: string): string[] {
  const word = new RegExp(`\\b${name.replace(/[$]/g, '\\$&')}\\b`);
  const reachesProgram = (text: string, file: string): boolean => ts.preProcessFile(text, true, true).importedFiles.some(({ fileName }) => {
    const resolved = ts.resolveModuleName(fileName, file, program.getCompilerOptions(), ts.sys).resolvedModule;
    return resolved !== undefined && !resolved.isExternalLibraryImport && program.getSourceFile(resolved.resolvedFileName) !== undefined;
  });
  return sourcesMatching(root, file => !program.getSourceFile(file), (text, file) => word.test(text) && reachesProgram(text, file), ignore, ignoreRoot);
}

/** `run` the first time the result is called, never again. */
function once(run: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    run();
  };
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  return reason instanceof Error && reason.name !== 'AbortError' ? reason.message : 'aborted';
}

function newEntry(read: ReadFile, rel: string): Entry {
  return {
    read, rel, shape: shapeOf(read.raw), sourceFile: undefined, afterSdkUpgrade: read.text, changedBy: [],
    baseline: undefined, v1Baseline: undefined, newTypeErrors: [], rolledBack: false, error: undefined, zodInjected: false, sites: [],
    created: false, beforeWiring: undefined,
  };
}

/**
 * After the rewrite: wire the shared codec into the server files that have no handlers of their own
 * and add the generated module to the project. Returns the files that stand or fall together (the
 * importers, the wired servers, the module); empty when the group could not be completed, and then
 * the importers are back as they were.
 */
function wireSharedCodec(shared: SharedRequestState, project: Project, entries: Entry[], live: Entry[], contextFiles: ReadFile[], rel: (file: string) => string, diagnostics: Diagnostic[]): Entry[] {
  const byPath = new Map(live.map(e => [path.resolve(e.read.path), e]));
  // A server file with nothing to rewrite of its own was read for context only: it is rewritten now.
  for (const read of contextFiles) {
    const file = path.resolve(read.path);
    if (byPath.has(file) || ![...shared.constructions].some(key => path.resolve(fileOfKey(key)) === file)) continue;
    const entry = newEntry(read, rel(read.path));
    entry.sourceFile = project.getSourceFile(read.path);
    if (!entry.sourceFile) continue;
    entries.push(entry);
    live.push(entry);
    byPath.set(file, entry);
  }
  const group = [...shared.importers].map(file => byPath.get(path.resolve(file))).filter((e): e is Entry => e !== undefined && !e.error);
  const serverFiles = [...new Set([...shared.constructions].map(fileOfKey))].filter(file => !shared.importers.has(file));
  const missing = serverFiles.filter(file => !byPath.get(path.resolve(file)) || byPath.get(path.resolve(file))!.error);
  // The module is written in the language of the server: a TypeScript server's group must be all
  // TypeScript, a JavaScript one's all ES modules (the module is one; CommonJS is refused).
  const moduleIsJs = isJavaScriptFile(shared.modulePath);
  const files = [...shared.importers, ...serverFiles];
  const misfits = moduleIsJs
    ? files.filter(file => !isJavaScriptFile(file) || !isEsModule(byPath.get(path.resolve(file))?.sourceFile))
    : files.filter(isJavaScriptFile);
  if (missing.length > 0 || group.length < shared.importers.size || misfits.length > 0) {
    const why = missing.length > 0
      ? `its server is constructed in ${missing.map(rel).join(', ')}, which this run does not rewrite (outside the paths given, or left untouched); run mrtr-migrate on a folder that holds both`
      : misfits.length > 0
      ? moduleIsJs
        ? `${misfits.map(rel).join(', ')} ${misfits.length === 1 ? 'is' : 'are'} not a JavaScript ES module like the server's file, and the codec shared by its modules is generated as one (${rel(shared.modulePath)}); migrate this server by hand or convert it`
        : serverFiles.some(isJavaScriptFile)
        ? `its server is built in a CommonJS module (${serverFiles.filter(isJavaScriptFile).map(rel).join(', ')}), and a codec shared by several modules is generated as TypeScript or as an ES module only; migrate this server by hand or convert it`
        : `${misfits.map(rel).join(', ')} ${misfits.length === 1 ? 'is' : 'are'} JavaScript, and the codec shared by this TypeScript server's modules is generated as TypeScript; migrate this server by hand or convert it`
      : 'another file of its server was not rewritten';
    undoGroup(group, project, diagnostics, why);
    return [];
  }
  for (const file of serverFiles) {
    const entry = byPath.get(path.resolve(file))!;
    entry.beforeWiring = sourceTextOf(entry);
    entry.sourceFile!.replaceWithText(wiredText(ts as never, entry.sourceFile!.compilerNode as never, shared));
    if (!entry.changedBy.includes('mrtr')) entry.changedBy.push('mrtr');
    group.push(entry);
  }
  const module = newEntry({ path: shared.modulePath, raw: '', text: '', role: 'rewrite' }, rel(shared.modulePath));
  module.created = true;
  module.changedBy = ['mrtr'];
  module.sourceFile = project.createSourceFile(shared.modulePath, moduleText(ts as never, shared, group[0]!.sourceFile!.compilerNode as never), { overwrite: true });
  entries.push(module);
  live.push(module);
  group.push(module);
  return group;
}

/**
 * Files linked to the run's files by an asking helper used across files (the callers of a helper
 * exported from ask.ts) join the rewrite even when they were read for context only. Returns them.
 */
function joinLinkedFiles(plan: ProjectPlan, project: Project, entries: Entry[], live: Entry[], contextFiles: ReadFile[], rel: (file: string) => string): Entry[] {
  const byPath = new Set(live.map(e => path.resolve(e.read.path)));
  const wanted = new Set(plan.linked.flat().map(f => path.resolve(f)));
  const joined: Entry[] = [];
  for (const read of contextFiles) {
    const file = path.resolve(read.path);
    if (byPath.has(file) || !wanted.has(file)) continue;
    const entry = newEntry(read, rel(read.path));
    entry.sourceFile = project.getSourceFile(read.path);
    if (!entry.sourceFile) continue;
    entries.push(entry);
    live.push(entry);
    joined.push(entry);
  }
  return joined;
}

/**
 * The groups of files that stand or fall together: the shared codec's, and each set of files
 * linked by an asking helper (merged where they share a file). A linked group with a file this run
 * does not rewrite (outside the paths given, not parsed, stopped by an internal error) is undone.
 */
function linkedGroups(plan: ProjectPlan, sharedGroup: Entry[], live: Entry[], project: Project, rel: (file: string) => string, diagnostics: Diagnostic[]): Entry[][] {
  const byPath = new Map(live.map(e => [path.resolve(e.read.path), e]));
  const groups: Entry[][] = sharedGroup.length > 0 ? [sharedGroup] : [];
  for (const files of plan.linked) {
    const members = files.map(f => byPath.get(path.resolve(f)));
    let group = members.filter((e): e is Entry => e !== undefined);
    // Joined with every group it shares a file with.
    for (const other of groups.filter(g => g.some(e => group.includes(e)))) {
      group = [...new Set([...other, ...group])];
      groups.splice(groups.indexOf(other), 1);
    }
    groups.push(group);
    // Only a split helper needs its callers rewritten with it; a refused one leaves them as they are.
    const missing = files.filter((f, i) => members[i] === undefined || members[i]!.error !== undefined);
    if (missing.length > 0 && files.some(f => plan.helperFiles.has(f))) {
      undoGroup(group, project, diagnostics, `an asking helper links them to ${missing.map(rel).join(', ')}, which this run does not rewrite (outside the paths given, or left untouched); run mrtr-migrate on a folder that holds them all`);
      group.length = 0;
    }
  }
  return groups;
}

/** Whether a file is an ES module (`.mjs`, or a `.js` file with an import or export statement). */
function isEsModule(sourceFile: SourceFile | undefined): boolean {
  if (!sourceFile) return false;
  const name = sourceFile.getFilePath();
  if (name.endsWith('.mjs')) return true;
  if (name.endsWith('.cjs')) return false;
  return sourceFile.compilerNode.statements.some(s => ts.isImportDeclaration(s) || ts.isExportDeclaration(s) ||
    (ts.canHaveModifiers(s) && ts.getModifiers(s)?.some(m => m.kind === ts.SyntaxKind.ExportKeyword)));
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

/** Put every file of a shared codec back as it was before the rewrite, and say why once. */
function undoGroup(group: Entry[], project: Project, diagnostics: Diagnostic[], why: string): void {
  const files = group.filter(e => !e.created).map(e => e.rel);
  diagnostics.push({
    level: 'error', source: 'verify', code: 'verify/rolled-back', file: files[0], line: undefined,
    message: `the files whose handlers share one requestState codec or an asking helper (${files.join(', ')}) were rolled back together: ${why}; migrate them by hand or report the case.`,
  });
  for (const entry of group) {
    if (entry.created) {
      project.removeSourceFile(entry.sourceFile!);
      entry.sourceFile = undefined;
      entry.changedBy = [];
      entry.error = `not created: ${why}.`;
      continue;
    }
    entry.sourceFile!.replaceWithText(entry.beforeWiring ?? entry.afterSdkUpgrade);
    entry.rolledBack = true;
    if (entry.beforeWiring === undefined) entry.changedBy = entry.changedBy.filter(id => id === 'sdk-upgrade');
    else entry.changedBy = entry.changedBy.filter(id => id !== 'mrtr');
    for (const site of entry.sites) {
      if (site.status === 'migrated' || site.status === 'migrated-for-review') markUndone(site, 'rolled-back', `the files sharing this server's requestState codec or an asking helper were rolled back together: ${why}.`);
    }
  }
}

/** Type errors found in `checked` (the file's text when it was checked), at the lines of the file on disk. */
function onDisk(entry: Entry, checked: string, errors: TypeError[]): TypeError[] {
  if (checked === entry.read.text || errors.length === 0) return errors;
  const toDisk = lineMapper(entry.read.text, checked);
  return errors.map(e => ({ ...e, line: toDisk(e.line), text: e.text.replace(/^line \d+:/, `line ${toDisk(e.line)}:`) }));
}

function sourceTextOf(entry: Entry): string {
  return entry.sourceFile ? entry.sourceFile.getFullText() : entry.read.text;
}

/** Undo the rewrite of a file that gained type errors; the SDK stage's edits stay. */
function rollBack(entry: Entry, diagnostics: Diagnostic[]): void {
  entry.sourceFile!.replaceWithText(entry.afterSdkUpgrade);
  entry.rolledBack = true;
  entry.changedBy = entry.changedBy.filter(id => id === 'sdk-upgrade');
  const first = entry.newTypeErrors[0] ?? '';
  diagnostics.push({
    level: 'error', source: 'verify', code: 'verify/rolled-back', file: entry.rel, line: undefined,
    message: `the rewrite added ${entry.newTypeErrors.length} type error(s) and was rolled back (${first}${entry.newTypeErrors.length > 1 ? '; ...' : ''}); migrate this file by hand or report the case.`,
  });
  for (const site of entry.sites) {
    if (site.status === 'migrated' || site.status === 'migrated-for-review') markUndone(site, 'rolled-back', `the rewrite added type errors and was rolled back: ${first}`);
  }
}

/** Put a v1 file back as it was: the official stage's upgrade of it added type errors. */
function keepOnV1(entry: Entry, added: TypeError[], diagnostics: Diagnostic[]): void {
  entry.sourceFile!.replaceWithText(entry.read.text);
  entry.afterSdkUpgrade = entry.read.text;
  entry.rolledBack = true;
  entry.changedBy = [];
  entry.newTypeErrors = added.map(e => e.text);
  const first = entry.newTypeErrors[0]!;
  const why = `the v1-to-v2 upgrade of this file added ${added.length} type error(s) (${first}${added.length > 1 ? '; ...' : ''}), so the whole file stays on the v1 SDK as it was`;
  diagnostics.push({ level: 'error', source: 'sdk-upgrade', code: 'sdk-upgrade/rolled-back', file: entry.rel, line: undefined, message: `${why}; upgrade it by hand, or report the case.` });
  for (const site of entry.sites) {
    if (site.status === 'migrated' || site.status === 'migrated-for-review') markUndone(site, 'rolled-back', `${why}.`);
  }
}

function markUndone(site: SiteReport, status: 'rolled-back' | 'not-written', why: string): void {
  site.status = status;
  site.hint = why;
  site.todo = [`Migrate by hand: ${why}`, ...site.todo.filter(t => !t.startsWith('Migrate by hand'))];
}

function fileReport(entry: Entry, written: boolean): FileReport {
  const after = splitBom(restoreShape(sourceTextOf(entry), entry.shape)).text;
  const before = entry.read.text;
  return {
    file: entry.rel,
    before,
    afterSdkUpgrade: entry.afterSdkUpgrade,
    after,
    changed: after !== before,
    changedBy: entry.changedBy,
    rolledBack: entry.rolledBack,
    newTypeErrors: entry.newTypeErrors,
    written,
    error: entry.error,
  };
}

function errorFile(file: string, error: string): FileReport {
  return { file, before: '', afterSdkUpgrade: '', after: '', changed: false, changedBy: [], rolledBack: false, newTypeErrors: [], written: false, error };
}

function servingEntries(diagnostics: Diagnostic[], entries: Entry[]): ServingEntryReport[] {
  const rolledBack = new Set(entries.filter(e => e.rolledBack || e.error).map(e => e.rel));
  return diagnostics
    .filter(d => d.source === 'serving' && d.file !== undefined && d.line !== undefined)
    .map(d => {
      const status = d.code === 'serving/stdio-rewritten' ? (rolledBack.has(d.file!) ? 'manual' : 'rewritten') : d.code === 'serving/already' ? 'already' : 'manual';
      const transport = /SSEServerTransport/.test(d.message) ? 'sse' : d.code === 'serving/http-manual' ? 'streamable-http' : d.code === 'serving/already' && d.message.includes('createMcpHandler') ? 'streamable-http' : 'stdio';
      return { file: d.file!, line: d.line!, transport, status, message: d.message } satisfies ServingEntryReport;
    });
}

function projectOption(cwd: string, option: string): string {
  const resolved = path.resolve(cwd, option);
  return /\.json$/i.test(resolved) ? resolved : path.join(resolved, 'tsconfig.json');
}

/** Where the nearest tsconfig is looked for: the first path given, or its folder. */
function startDirectory(cwd: string, paths: string[]): string {
  const first = path.resolve(cwd, paths[0]!);
  if (ts.sys.directoryExists(first)) return first;
  return ts.sys.fileExists(first) ? path.dirname(first) : cwd;
}

/** The tsconfig's outDir is build output, unless it contains the sources themselves. */
function buildOutputs(outDir: string | undefined, cwd: string): string[] {
  if (!outDir) return [];
  const out = path.resolve(outDir);
  return out === cwd || cwd.startsWith(out + path.sep) ? [] : [out];
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

function errorText(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof (error as { code: unknown }).code === 'string' && 'message' in error) {
    const e = error as { code: string; message: string };
    return e.code === 'EACCES' || e.code === 'EPERM' ? `permission denied (${e.code})` : e.message;
  }
  return error instanceof Error ? error.message : String(error);
}
