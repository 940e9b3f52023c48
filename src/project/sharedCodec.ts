import { existsSync } from 'node:fs';
import path from 'node:path';
import type * as ts from 'typescript';
import { analyzeGroup, mightContainSites, type FileAnalysis, type ProjectIndex } from '../analysis/index.js';
import { constructionKey, constructionOfKey } from '../analysis/servers.js';
import { writtenCodecOf } from '../analysis/writtenCodec.js';
import type { TestFilePredicate } from '../analysis/testFiles.js';
import type { FrameworkName } from '../analysis/frameworks.js';
import type { TS } from '../analysis/types.js';
import { moduleSpecifier } from '../../transforms/mrtr/index.js';
import { eraseTypes } from '../../transforms/mrtr/eraseTypes.js';
import { sharedModuleText, sharedWiringEdits, SUPPORT_TYPES } from '../../transforms/mrtr/moduleSupport.js';
import { isJavaScriptFile } from '../analysis/typeSyntax.js';
import { applyEdits, importQuote, indentUnit, newlineOf } from '../../transforms/mrtr/text.js';
import type { PlannedAnalysis, SharedRequestState } from '../../transforms/types.js';

/** The plan of a run's files together, before any is rewritten. */
export interface ProjectPlan {
  /** One codec in a generated module, for servers whose handlers span files (undefined when none does). */
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
 */
export function planProject(tsApi: TS, programOf: () => ts.Program, index: ProjectIndex, files: string[], withoutChecker: ReadonlyMap<string, PlannedAnalysis> = new Map(), inBuild: (file: string) => boolean = () => true, isTestFile?: TestFilePredicate, frameworkPackageOf?: (fileName: string) => FrameworkName | undefined): ProjectPlan {
  // Per file with plans: the keys of its handlers' servers, and whether one is built in another file.
  const plans = new Map<string, { keys: string[]; elsewhere: boolean }>();
  const links: string[][] = [];
  const helperFiles = new Set<string>();
  const sharedHelpers: ProjectPlan['sharedHelpers'] = [];
  const planned = new Map<string, PlannedAnalysis>();
  const kept = new Set<string>();
  // What an earlier run wired into each server (by constructionKey): the codec module it imports, and whether through the keep hook.
  const earlier = new Map<string, { module: ts.SourceFile | undefined; keeps: boolean }>();
  // Files analysed without a checker (src/analysis/withoutChecker.ts) are planned as they are, unless a
  // file analysed with the program links them to it below. The program is built only for the others.
  for (const plain of withoutChecker.values()) planned.set(plain.sourceFile.fileName, plain);
  const typed = files.filter(file => !withoutChecker.has(file));
  const program = typed.length > 0 ? programOf() : undefined;
  const analyse = (sourceFile: ts.SourceFile): Map<ts.SourceFile, FileAnalysis> => analyzeGroup({
    ts: tsApi, sourceFile, program, crossFile: true, isTestFile, frameworkPackageOf,
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
      for (const k of analysis.keptStateHooks ?? []) kept.add(constructionKey(tsApi, k.construction));
      for (const c of constructions) {
        const key = constructionKey(tsApi, c);
        if (!earlier.has(key)) earlier.set(key, earlierWiring(tsApi, c, program));
        // Wired beside the server's own hook by an earlier run, through the module: its handlers still read through it.
        if (earlier.get(key)!.keeps) kept.add(key);
      }
      plans.set(sourceFile.fileName, {
        keys: constructions.map(c => constructionKey(tsApi, c)),
        // A server wired to the shared module an earlier run wrote shares it again, wherever its handlers are.
        elsewhere: constructions.some(c => c.getSourceFile() !== sourceFile || earlier.get(constructionKey(tsApi, c))!.module !== undefined),
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
  if (keys.size === 0) return { shared: undefined, linked, helperFiles, sharedHelpers, planned };
  // The module goes beside a server built inside the project's build (a script outside `rootDir` or
  // `include` that also builds one would pull it out of the build: TS6059).
  const serverFiles = [...new Set([...keys].map(fileOfKey))].sort();
  const home = serverFiles.find(inBuild) ?? serverFiles[0]!;
  // A JavaScript server gets a JavaScript module (an ES module: a CommonJS group is refused in phases/group.ts).
  const extension = /\.m?js$/.exec(home)?.[0] ?? '.ts';
  const uses = new Set<'elicitAnswerOf' | 'elicitResultOf'>();
  const existing = [...keys].map(key => earlier.get(key)?.module).find(m => m !== undefined);
  const keeps = [...kept].some(k => keys.has(k));
  // Handlers an earlier run rewrote on a server wired to the module without the keep hook read their
  // state as it comes; beside a server that keeps its own, the new ones would read it through the hook.
  const plain = keeps ? [...keys].find(k => earlier.get(k)?.module !== undefined && !earlier.get(k)!.keeps) : undefined;
  const wiredPlain = plain && fileOfKey(plain);
  const shared = existing
    ? { modulePath: existing.fileName, existing: true, constructions: keys, keeps, wiredPlain, importers: new Set<string>(), uses }
    : { modulePath: freeModulePath(path.dirname(home), program!, extension), constructions: keys, keeps, importers: new Set<string>(), uses };
  return { shared, linked, helperFiles, sharedHelpers, planned };
}

/** The module an earlier run wrote the server's codec into, when the server imports its codec from one, and whether it is wired through the keep hook. */
function earlierWiring(tsApi: TS, construction: ts.NewExpression, program: ts.Program | undefined): { module: ts.SourceFile | undefined; keeps: boolean } {
  const written = program && writtenCodecOf(tsApi, construction, program.getTypeChecker());
  return { module: written && 'file' in written.declaredIn && written.declaredIn.imported ? written.declaredIn.file : undefined, keeps: written?.keeps ?? false };
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
  const edits = sharedWiringEdits(tsApi, sourceFile, constructions as ts.NewExpression[], moduleSpecifier(tsApi, sourceFile, shared.modulePath), shared.keeps);
  return applyEdits(sourceFile.text, edits);
}

/**
 * The generated module, written in the style (newlines, indentation, quotes) of the first file that
 * imports it; for a JavaScript server without its types (JSDoc where they help), as handler files are.
 */
export function moduleText(tsApi: TS, shared: SharedRequestState, styleOf: ts.SourceFile): string {
  const text = styleOf.text;
  const module = sharedModuleText({ uses: shared.uses, keeps: shared.keeps, newline: newlineOf(text), unit: indentUnit(text), quote: importQuote(tsApi, styleOf) });
  return isJavaScriptFile(shared.modulePath) ? eraseTypes(tsApi, shared.modulePath, module, SUPPORT_TYPES) : module;
}
