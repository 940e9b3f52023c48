import { existsSync } from 'node:fs';
import path from 'node:path';
import type * as ts from 'typescript';
import { analyzeGroup, mightContainSites, type AnalyzeOptions, type FileAnalysis, type ProjectIndex } from '../analysis/index.js';
import { constructionKey, constructionOfKey } from '../analysis/servers.js';
import { writtenCodecOf, writtenHelpers } from '../analysis/writtenCodec.js';
import type { TestFilePredicate } from '../analysis/testFiles.js';
import type { FrameworkName } from '../analysis/frameworks.js';
import type { TS } from '../analysis/types.js';
import { moduleSpecifier } from '../../transforms/mrtr/index.js';
import { eraseTypes } from '../../transforms/mrtr/eraseTypes.js';
import { RUNTIME_SPECIFIER, SHARED_NAMES, sharedModuleText, sharedWiringEdits, SUPPORT_TYPES } from '../../transforms/mrtr/moduleSupport.js';
import { isJavaScriptFile } from '../analysis/typeSyntax.js';
import { isEsModule } from '../analysis/moduleFormat.js';
import { ownerManifest } from './packageJson.js';
import { applyEdits, quoteStyle, indentUnit, newlineOf } from '../../transforms/mrtr/text.js';
import type { PlannedAnalysis, SharedRequestState, SupportHelper } from '../../transforms/types.js';

/** The plan of a run's files together, before any is rewritten. */
export interface ProjectPlan {
  /** The support module every migrated file imports its codec and helpers from (undefined when no file can). */
  shared: SharedRequestState | undefined;
  /**
   * Files linked by asking helpers used across files (the helper's file and its callers' files):
   * each group is rewritten, checked and rolled back together.
   */
  linked: string[][];
  /** Files that declare a helper used from other files (split: its callers must be rewritten with it). */
  helperFiles: Set<string>;
  /** Those helpers, by name: a file the analysis did not see must not use them (see phases/group.ts). */
  sharedHelpers: Array<{ file: string; name: string }>;
  /**
   * The analyses the plan made, on the program every file is analysed against: the rewrite of a file
   * not changed since uses its analysis instead of making it again.
   */
  planned: Map<string, PlannedAnalysis>;
}

/**
 * Plans the files of a run together, before any is rewritten:
 * - servers whose handlers are registered in other files than the one constructing them (tools.ts +
 *   index.ts) need one codec for all their files. A file with a handler on such a server joins, and
 *   so do all servers of that file, so each file has one codec;
 * - files linked by an asking helper used across files are analysed together and stay together.
 * `rolledBack`: the sites an earlier attempt of the run rolled back, refused (AnalyzeOptions).
 */
export function planProject(tsApi: TS, programOf: () => ts.Program, index: ProjectIndex, files: string[], withoutChecker: ReadonlyMap<string, PlannedAnalysis> = new Map(), inBuild: (file: string) => boolean = () => true, isTestFile?: TestFilePredicate, frameworkPackageOf?: (fileName: string) => FrameworkName | undefined, runtime: 'module' | 'package' = 'module', rolledBack?: AnalyzeOptions['rolledBack']): ProjectPlan {
  // Per file with plans: the keys of its handlers' servers, and whether one is built in another file.
  const plans = new Map<string, { keys: string[]; elsewhere: boolean; written: boolean; keeps: boolean; sourceFile: ts.SourceFile }>();
  const links: string[][] = [];
  const helperFiles = new Set<string>();
  const sharedHelpers: ProjectPlan['sharedHelpers'] = [];
  const planned = new Map<string, PlannedAnalysis>();
  const kept = new Set<string>();
  // What an earlier run wired into each server (by constructionKey): the codec module it imports, and whether through the keep hook.
  const earlier = new Map<string, EarlierWiring>();
  // Files analysed without a checker (src/analysis/withoutChecker.ts) are planned as they are, unless a
  // file analysed with the program links them to it below. The program is built only for the others.
  for (const plain of withoutChecker.values()) planned.set(plain.sourceFile.fileName, plain);
  const typed = files.filter(file => !withoutChecker.has(file));
  const program = typed.length > 0 ? programOf() : undefined;
  const analyse = (sourceFile: ts.SourceFile): Map<ts.SourceFile, FileAnalysis> => analyzeGroup({
    ts: tsApi, sourceFile, program, crossFile: true, isTestFile, frameworkPackageOf, rolledBack,
    externalCallSites: fn => index.callsOf(fn),
    indirectCallSites: fn => index.indirectCallsOf(fn),
    externalConstructions: ctor => index.constructionsOf(ctor),
  });
  const queue = typed.map(file => program!.getSourceFile(file)).filter((f): f is ts.SourceFile => f !== undefined && mightContainSites(f.text));
  const done = new Set<ts.SourceFile>();
  for (const start of queue) {
    if (done.has(start)) continue;
    // A file linked to others by an asking helper is analysed with them: every file of the group,
    // the callers of an exported helper without sites of their own too, gets its analysis from this
    // one analysis of the group (each decides alike), and none is analysed again.
    for (const [sourceFile, analysis] of analyse(start)) {
      done.add(sourceFile);
      planned.set(sourceFile.fileName, { text: sourceFile.text, analysis, sourceFile, program });
      if (analysis.linkedFiles.length > 0) {
        links.push([sourceFile.fileName, ...analysis.linkedFiles]);
        for (const split of analysis.helperSplits.filter(s => s.partNames)) {
          helperFiles.add(sourceFile.fileName);
          sharedHelpers.push({ file: sourceFile.fileName, name: split.name });
        }
      }
      const constructions = analysis.plans.flatMap(p => p.constructions);
      if (constructions.length === 0) continue;
      const keeps = (analysis.keptStateHooks ?? []).length > 0;
      for (const k of analysis.keptStateHooks ?? []) kept.add(constructionKey(tsApi, k.construction));
      for (const c of constructions) {
        const key = constructionKey(tsApi, c);
        if (!earlier.has(key)) earlier.set(key, earlierWiring(tsApi, c, program));
        // Wired beside the server's own hook by an earlier run, through the module: its handlers still read through it.
        if (earlier.get(key)!.keeps) kept.add(key);
      }
      const wiring = (c: ts.NewExpression): EarlierWiring => earlier.get(constructionKey(tsApi, c))!;
      plans.set(sourceFile.fileName, {
        keys: constructions.map(c => constructionKey(tsApi, c)),
        // A server wired to the shared module an earlier run wrote (or to the runtime) shares it again, wherever its handlers are.
        elsewhere: constructions.some(c => c.getSourceFile() !== sourceFile || wiring(c).module !== undefined || wiring(c).runtime),
        written: constructions.some(c => wiring(c).written && !wiring(c).runtime),
        keeps,
        sourceFile,
      });
    }
  }
  const keys = new Set<string>();
  const joined = new Set<string>();
  for (let changed = true; changed;) {
    changed = false;
    for (const [file, plan] of plans) {
      if (joined.has(file) || !(plan.elsewhere || plan.keys.some(k => keys.has(k)))) continue;
      joined.add(file);
      for (const k of plan.keys) keys.add(k);
      changed = true;
    }
  }
  const linked = mergeGroups(links);
  const single = [...plans].filter(([file]) => !joined.has(file));
  if (keys.size === 0 && single.length === 0) return { shared: undefined, linked, helperFiles, sharedHelpers, planned };
  // The runtime package serves every ES module of any package, in either language; not a server an
  // earlier run wired to a support module of the project (its handlers would have two codecs). A server
  // an earlier run wired to the runtime keeps it, whatever this run's --runtime.
  const runtimeWired = [...keys].some(key => earlier.get(key)?.runtime);
  if ((runtime === 'package' || runtimeWired) && ![...keys].some(key => earlier.get(key)?.module !== undefined)) {
    return { shared: runtimeShared(tsApi, keys, single, kept), linked, helperFiles, sharedHelpers, planned };
  }
  // The module goes beside a server built inside the project's build (a script outside `rootDir` or
  // `include` that also builds one would pull it out of the build: TS6059).
  const serverFiles = [...new Set([...keys].map(fileOfKey))].sort();
  // Without servers that must share it, the module goes beside the first file that can import it.
  const candidates = serverFiles.length > 0 ? serverFiles : single.filter(([file, p]) => canImport(tsApi, file, p)).map(([file]) => file).sort();
  if (candidates.length === 0) return { shared: undefined, linked, helperFiles, sharedHelpers, planned };
  const home = candidates.find(inBuild) ?? candidates[0]!;
  // A JavaScript server gets a JavaScript module (an ES module: a CommonJS group is refused in phases/group.ts).
  const extension = /\.m?js$/.exec(home)?.[0] ?? '.ts';
  // The module an earlier run wrote: the one a server here is wired to, or else one of the package's.
  const existing = [...keys].map(key => earlier.get(key)?.module).find(m => m !== undefined) ??
    (keys.size === 0 && program ? writtenModuleOf(tsApi, program, packageDirOf(home)) : undefined);
  // Handlers an earlier run rewrote on a server wired to the module without the keep hook read their
  // state as it comes; beside a server that keeps its own, the new ones would read it through the hook.
  const wiredPlainKey = (all: Set<string>) => [...all].find(k => earlier.get(k)?.module !== undefined && !earlier.get(k)!.keeps);
  const optional = optionalFiles(tsApi, single, existing?.fileName ?? home, wiredPlainKey(keys) !== undefined);
  const keeps = [...kept].some(k => keys.has(k)) || [...optional.values()].some(p => p.keeps);
  const plain = keeps ? wiredPlainKey(keys) : undefined;
  const wiredPlain = plain && fileOfKey(plain);
  const all = new Set([...keys, ...[...optional.values()].flatMap(p => p.keys)]);
  if (all.size === 0) return { shared: undefined, linked, helperFiles, sharedHelpers, planned };
  const uses = new Set<SupportHelper>();
  const common = { constructions: all, keeps, wiredPlain, optional: new Set(optional.keys()), importers: new Set<string>(), uses };
  const shared = existing
    ? { modulePath: existing.fileName, existing: true, ...common }
    : { modulePath: freeModulePath(path.dirname(home), program!, extension), ...common };
  return { shared, linked, helperFiles, sharedHelpers, planned };
}

/** With `--runtime package`: every file that can import the runtime takes its support code from it. */
function runtimeShared<P extends { keys: string[]; written: boolean; keeps: boolean; sourceFile: ts.SourceFile }>(tsApi: TS, keys: Set<string>, single: Array<[string, P]>, kept: Set<string>): SharedRequestState | undefined {
  const optional = single.filter(([file, p]) => canImport(tsApi, file, p));
  const all = new Set([...keys, ...optional.flatMap(([, p]) => p.keys)]);
  if (all.size === 0) return undefined;
  const keeps = [...kept].some(k => all.has(k)) || optional.some(([, p]) => p.keeps);
  return { modulePath: '', package: RUNTIME_SPECIFIER, constructions: all, keeps, optional: new Set(optional.map(([file]) => file)), importers: new Set(), uses: new Set() };
}

/**
 * Files whose servers and handlers are all their own also take their support code from the one
 * module, so it is written once per project (importHelpers-like). Each such file stands alone: its
 * rollback leaves the others. Left with a codec of their own: a file an earlier run gave one, a
 * CommonJS module or one of another language than the module's (which it could not import), one of
 * another package, and one keeping requestState of its own where an earlier run wired a server of
 * the module without the keep hook.
 */
function optionalFiles<P extends { keys: string[]; written: boolean; keeps: boolean; sourceFile: ts.SourceFile }>(tsApi: TS, single: Array<[string, P]>, home: string, wiredPlain: boolean): Map<string, P> {
  const moduleIsJs = isJavaScriptFile(home);
  const homePackage = packageDirOf(home);
  return new Map(single.filter(([file, p]) =>
    canImport(tsApi, file, p) && !(p.keeps && wiredPlain) && isJavaScriptFile(file) === moduleIsJs && packageDirOf(file) === homePackage));
}

/** An ES module (not `.cjs` / `.cts`) that no earlier run gave a codec of its own. */
function canImport(tsApi: TS, file: string, plan: { written: boolean; sourceFile: ts.SourceFile }): boolean {
  return !plan.written && isEsModule(tsApi, plan.sourceFile) && !/\.c[jt]s$/.test(file);
}

/**
 * The support module an earlier run wrote into a package (its exported codec beside the call digest
 * and state check), where no server of this run is wired to it yet; the first by path.
 */
function writtenModuleOf(tsApi: TS, program: ts.Program, packageDir: string | undefined): ts.SourceFile | undefined {
  return program.getSourceFiles()
    .filter(f => !f.isDeclarationFile && !f.fileName.includes('/node_modules/') && f.text.includes(`export const ${SHARED_NAMES.codec} = {`) && packageDirOf(f.fileName) === packageDir)
    .filter(f => { const helpers = writtenHelpers(tsApi, f); return helpers.callDigest !== undefined && helpers.assertState !== undefined; })
    .sort((a, b) => (a.fileName < b.fileName ? -1 : 1))[0];
}

/** The folder of the package.json nearest to a file (its package), or undefined without one. */
function packageDirOf(file: string): string | undefined {
  const manifest = ownerManifest(file, path.parse(file).root);
  return manifest && path.dirname(manifest);
}

interface EarlierWiring {
  /** The module an earlier run wrote the server's codec into (undefined: none, or in the server's own file). */
  module: ts.SourceFile | undefined;
  /** Wired through the keep hook. */
  keeps: boolean;
  /** An earlier run wired a codec into the server, wherever it wrote it. */
  written: boolean;
  /** That codec is mrtr-migrate/runtime's (`--runtime package`). */
  runtime: boolean;
}

/** The module an earlier run wrote the server's codec into, when the server imports its codec from one, and whether it is wired through the keep hook. */
function earlierWiring(tsApi: TS, construction: ts.NewExpression, program: ts.Program | undefined): EarlierWiring {
  const written = program && writtenCodecOf(tsApi, construction, program.getTypeChecker());
  const runtime = written !== undefined && 'specifier' in written.declaredIn && written.declaredIn.specifier === RUNTIME_SPECIFIER;
  return { module: written && 'file' in written.declaredIn && written.declaredIn.imported ? written.declaredIn.file : undefined, keeps: written?.keeps ?? false, written: written !== undefined, runtime };
}

/** Groups that share a file become one group. */
export function mergeGroups(groups: readonly string[][]): string[][] {
  const merged: Array<Set<string>> = [];
  for (const group of groups) {
    const joined = new Set(group);
    for (let i = merged.length - 1; i >= 0; i--) {
      if ([...merged[i]!].some(f => joined.has(f))) {
        for (const f of merged[i]!) joined.add(f);
        merged.splice(i, 1);
      }
    }
    merged.push(joined);
  }
  return merged.map(g => [...g].sort());
}

/** `requestState.ts` next to the server, or `requestState2.ts`, ... when that name is taken. */
function freeModulePath(dir: string, program: ts.Program, extension: string): string {
  for (let i = 1; ; i++) {
    const stem = path.join(dir, `requestState${i === 1 ? '' : i}`);
    const candidate = stem + extension;
    const taken = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.d.ts'].some(ext => existsSync(stem + ext) || program.getSourceFile(stem + ext));
    if (!taken) return candidate;
  }
}

export function fileOfKey(key: string): string {
  return (JSON.parse(key) as [string])[0];
}

/** The wiring of the shared codec into a server file that has no handlers of its own, and the module's import. */
export function wiredText(tsApi: TS, sourceFile: ts.SourceFile, shared: SharedRequestState): string {
  const constructions = [...shared.constructions]
    .filter(key => fileOfKey(key) === sourceFile.fileName)
    .map(key => constructionOfKey(tsApi, sourceFile, key));
  if (constructions.some(c => c === undefined)) throw new Error(`a server construction of ${sourceFile.fileName} is no longer where the plan found it`);
  const edits = sharedWiringEdits(tsApi, sourceFile, constructions as ts.NewExpression[], shared.package ?? moduleSpecifier(tsApi, sourceFile, shared.modulePath), shared.keeps);
  return applyEdits(sourceFile.text, edits);
}

/**
 * The generated module, written in the style (newlines, indentation, quotes) of the first file that
 * imports it; for a JavaScript server without its types (JSDoc where they help), as handler files are.
 */
export function moduleText(tsApi: TS, shared: SharedRequestState, styleOf: ts.SourceFile): string {
  const text = styleOf.text;
  const module = sharedModuleText({ ts: tsApi, uses: shared.uses, keeps: shared.keeps, newline: newlineOf(text), unit: indentUnit(text), quote: quoteStyle(tsApi, styleOf) });
  return isJavaScriptFile(shared.modulePath) ? eraseTypes(tsApi, shared.modulePath, module, SUPPORT_TYPES) : module;
}
