import path from 'node:path';
import { ts, type SourceFile } from 'ts-morph';
import { analysisWithoutChecker, ProjectIndex } from '../../analysis/index.js';
import { lineMapper } from '../../report/diff.js';
import type { Diagnostic, RunReport, SiteReport } from '../../report/model.js';
import type { TransformContext } from '../../../transforms/index.js';
import type { PlannedAnalysis } from '../../../transforms/types.js';
import { classify } from '../load.js';
import { frameworkPackages } from '../packageJson.js';
import { serverGapMessage } from '../serverApi.js';
import { programWith, projectHost } from '../programs.js';
import { errorText, joinEntry, markUndone, once, type Entry, type RunState } from '../runState.js';
import { planProject } from '../sharedCodec.js';
import { addRuntimeDeclarations, importsRuntime } from '../runtimeTypes.js';
import { projectTestFiles } from '../testFiles.js';
import { typeErrorsOf } from '../typeCheck.js';
import type { LoadedTsconfig } from '../tsconfig.js';

/** The v1 call a v2 API came from in the v1-to-v2 stage (the others keep their names). */
const V1_API: Partial<Record<SiteReport['api'], SiteReport['api']>> = { 'ctx.mcpReq.send': 'extra.sendRequest' };

/**
 * Every file is analysed against one program, the project after the SDK stage: one checker and one
 * cross-file index for the whole rewrite, and each file sees the others as they are before it.
 * The plan looks at the files together first: servers whose handlers are registered in other files
 * get one codec in a generated module, and files linked by an asking helper used across files are
 * planned together (sharedCodec.ts); its analyses serve the rewrite of each file.
 */
export function plan(run: RunState): void {
  const { project, live } = run;
  // Analysing is the first half of rewriting, to the user.
  run.progress({ phase: 'rewrite', done: 0, total: live.length });
  // Files whose analysis needs no checker (a second run on migrated code) need no program: the plan
  // builds it when another file needs it, and otherwise only something that asks does (a transform,
  // the check of a rewrite). Built late, it still holds the files as planned: those rewritten since
  // are swapped back.
  const withoutChecker = new Map<string, PlannedAnalysis>();
  for (const entry of live) {
    const sourceFile = entry.sourceFile!.compilerNode as unknown as PlannedAnalysis['sourceFile'];
    const analysis = analysisWithoutChecker(ts as never, sourceFile);
    if (analysis) withoutChecker.set(entry.read.path, { text: sourceFile.text, analysis, sourceFile, program: undefined });
  }
  if (run.runtime === 'package' || [...run.texts.values()].some(importsRuntime)) addRuntimeDeclarations(project, run.tsconfig.file ? path.dirname(run.tsconfig.file) : run.cwd);
  const host = projectHost(project);
  const asPlanned = new Map(live.map(e => [e.sourceFile!.getFilePath() as string, e.sourceFile!.compilerNode]));
  const program = once(() => {
    const now = project.getProgram().compilerObject;
    return [...asPlanned].every(([file, node]) => now.getSourceFile(file) === node) ? now : programWith(now, host, asPlanned);
  });
  const index = new ProjectIndex(ts as never, program as never);

  // Type errors before the rewrite, for files the rewrite may touch. Like the v1 files' errors, they
  // are taken (for all these files, in order, on a checker of their own) only once a rewritten file
  // has errors: from a copy of the program the analysis uses, the project as it is now.
  run.baselineFiles = run.verify ? live.filter(e => classify(e.afterSdkUpgrade, false) === 'rewrite') : [];
  run.host = host;
  const before = (run.beforeRewrite = run.verify ? once(() => programWith(program(), host, new Map())) : undefined);
  const baselineFiles = run.baselineFiles;
  run.baselines = once(() => {
    // Taken on an earlier attempt of the run (verify.ts), they are those of the same text.
    if (baselineFiles.every(e => e.baseline !== undefined)) return;
    const beforeProgram = before!();
    for (const entry of baselineFiles) {
      if (entry.baseline !== undefined) continue;
      const compiled = beforeProgram.getSourceFile(entry.read.path);
      if (compiled) entry.baseline = typeErrorsOf(beforeProgram, compiled);
    }
  });

  run.isTestFile ??= projectTestFiles(run.tsconfig.file ? path.dirname(run.tsconfig.file) : run.cwd);
  run.frameworkPackageOf ??= frameworkPackages();
  run.plan = planProject(ts as never, program as never, index as never, live.map(e => e.read.path), withoutChecker, inBuild(run.tsconfig), run.isTestFile, run.frameworkPackageOf, run.runtime, run.rolledBackIn);
  // A server too old for the rewrite, whose range cannot move: nothing is rewritten, and the run says why once.
  const gap = run.serverGap;
  if (gap && !gap.movable) {
    run.serverTooOld = serverGapMessage(gap, file => run.rel(file), undefined);
    run.plan.shared = undefined;
    run.diagnostics.push({ level: 'error', source: 'mrtr', code: 'mrtr/server-too-old', file: gap.declared && run.rel(gap.declared.manifest), line: undefined, message: run.serverTooOld });
  }
  run.analysis = { program, index };
  run.baselineFiles.push(...joinLinkedFiles(run));
}

/**
 * The transforms, file by file, on the plan's program. A file a transform has changed (lowered loops,
 * then the serving entry) is swapped into a copy of that program, which reuses the rest of it.
 */
export function emit(run: RunState): void {
  const analysis = run.analysis!;
  const { project, live, cwd } = run;
  const plan = run.plan!;
  let swapped: { file: ts.SourceFile; program: ts.Program } | undefined;
  const programFor = (sourceFile: SourceFile): ts.Program => {
    const current = sourceFile.compilerNode;
    const program = analysis.program();
    if (program.getSourceFile(sourceFile.getFilePath()) === current) return program;
    if (swapped?.file !== current) swapped = { file: current, program: programWith(program, run.host!, new Map([[sourceFile.getFilePath(), current]])) };
    return swapped.program;
  };
  // Without a shared codec, the transforms still plan across files (and refuse nothing for it): nothing is shared.
  const sharing = plan.shared ?? { modulePath: '', constructions: new Set<string>(), keeps: false, importers: new Set<string>(), uses: new Set() };
  const contextFor = (sourceFile: SourceFile): TransformContext => ({ project, ts, projectIndex: analysis.index, cwd, shared: sharing, program: () => programFor(sourceFile), planned: plan.planned, isTestFile: run.isTestFile, frameworkPackageOf: run.frameworkPackageOf, serverTooOld: run.serverTooOld, sdkUpgrade: run.sdkUpgrade, rolledBack: run.rolledBackIn });
  // The serving entry's rewrite imports the new server API too.
  const transforms = run.serverTooOld ? run.transforms.filter(t => t.id === 'mrtr') : run.transforms;
  live.forEach((entry, i) => {
    run.progress({ phase: 'rewrite', done: i, total: live.length, file: entry.rel });
    const sourceFile = entry.sourceFile!;
    const found: SiteReport[] = [];
    const said: Diagnostic[] = [];
    const already: RunReport['alreadyMigrated'] = [];
    const changedBy: string[] = [];
    let current = '';
    // A file the v1-to-v2 stage upgraded: its calls are named as the user wrote them, on the v1 SDK.
    const upgraded = run.v1.includes(entry) && entry.afterSdkUpgrade !== entry.read.text;
    const asRead = (site: SiteReport): Pick<SiteReport, 'sdk' | 'api'> => (upgraded && site.sdk === 'v2' ? { sdk: 'v1', api: V1_API[site.api] ?? site.api } : { sdk: site.sdk, api: site.api });
    try {
      for (const transform of transforms) {
        current = transform.id;
        const seen = sourceFile.getFullText();
        const result = transform.apply(sourceFile, contextFor(sourceFile));
        // The plan's analysis of the file has served (it is used once): it need not stay in memory.
        plan.planned.delete(sourceFile.getFilePath());
        // Every location in the report is a line of the file as it is on disk, whichever stage found it.
        const toDisk = seen === entry.read.text ? (line: number) => line : lineMapper(entry.read.text, seen);
        found.push(...result.sites.map(site => ({ ...site, ...asRead(site), id: site.id.replace(/:(\d+)(:\d+)$/, (_, line: string, column: string) => `:${toDisk(Number(line))}${column}`), line: toDisk(site.line), handler: site.handler && { ...site.handler, line: toDisk(site.handler.line) } })));
        said.push(...result.diagnostics.map(d => (d.line === undefined ? d : { ...d, line: toDisk(d.line) })));
        already.push(...result.alreadyMigrated.map(a => ({ file: entry.rel, ...a, line: toDisk(a.line) })));
        if (result.changed) changedBy.push(transform.id);
      }
    } catch (error) {
      sourceFile.replaceWithText(entry.afterSdkUpgrade);
      entry.error = `internal error in the ${current} rewrite (${errorText(error)}); the file was left as the SDK stage made it. Please report this with the file.`;
      for (const site of found) if (site.status !== 'refused') markUndone(site, 'rolled-back', 'an internal error stopped the rewrite of this file; migrate it by hand.');
      run.sites.push(...found);
      return;
    }
    run.sites.push(...found);
    entry.sites = found;
    // Said of a server by each file of its handlers (mrtr/state-hook-kept), once.
    run.diagnostics.push(...said.filter(d => !run.diagnostics.some(o => o.code === d.code && o.file === d.file && o.line === d.line && o.message === d.message)));
    run.alreadyMigrated.push(...already);
    entry.changedBy.push(...changedBy);
  });
  // The analysis program, its index and checker are not needed any more: the type check builds its own.
  plan.planned.clear();
  run.analysis = undefined;
}

/**
 * Files linked to the run's files by an asking helper used across files (the callers of a helper
 * exported from ask.ts) join the rewrite even when they were read for context only. Returns them.
 */
function joinLinkedFiles(run: RunState): Entry[] {
  const byPath = new Set(run.live.map(e => path.resolve(e.read.path)));
  const wanted = new Set(run.plan!.linked.flat().map(f => path.resolve(f)));
  const joined: Entry[] = [];
  for (const read of run.contextFiles) {
    const file = path.resolve(read.path);
    if (byPath.has(file) || !wanted.has(file)) continue;
    const entry = joinEntry(run, read);
    if (entry) joined.push(entry);
  }
  return joined;
}

/** Whether a file is part of the project's build: listed by its tsconfig and under its `rootDir`. */
function inBuild(tsconfig: LoadedTsconfig): (file: string) => boolean {
  const listed = tsconfig.fileNames && new Set(tsconfig.fileNames);
  const rootDir = tsconfig.options.rootDir && path.resolve(tsconfig.options.rootDir);
  return file => (!listed || listed.has(path.resolve(file))) && (!rootDir || !path.relative(rootDir, file).startsWith('..'));
}
