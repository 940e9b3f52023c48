import path from 'node:path';
import type * as ts from 'typescript';
import { analyzeFile, ProjectIndex, sdkNameUse, isIgnored, RETURNS_INPUT_REQUIRED, suppressionMessage, suppressionProblem, type FileAnalysis, type HandlerPlan, type Site } from '../../src/analysis/index.js';
import { statementOf } from '../../src/analysis/flow.js';
import { lineOf } from '../../src/analysis/places.js';
import type { Handler, RefusalReason, TS } from '../../src/analysis/types.js';
import type { Diagnostic, SiteReport } from '../../src/report/model.js';
import { constructionKey } from '../../src/analysis/servers.js';
import type { SharedRequestState, Transform, TransformResult } from '../types.js';
import { eraseTypes } from './eraseTypes.js';
import { importedSharedNames, moduleSupportEdits, SUPPORT_TYPES, writtenNames, type CodecNames } from './moduleSupport.js';
import { writtenCodecOf } from '../../src/analysis/writtenCodec.js';
import { collectSdkImports } from '../../src/analysis/sdk.js';
import { isJavaScriptFile } from '../../src/analysis/typeSyntax.js';
import { commonTestFiles } from '../../src/analysis/testFiles.js';
import { frameworkPackages } from '../../src/project/packageJson.js';
import { RELAY_SKETCH_IMPORTS, relaySketch } from '../../src/report/relaySketch.js';
import { ensureParameter, guardEdit, LocalNames, rewriteHandler, type HandlerRewrite, type HelperPartNames, type ModuleNames } from './rewriteHandler.js';
import { splitHelperEdit } from './splitHelper.js';
import { functionTypeWidening, rewriteWrapper, wrappersOf } from './rewriteWrapper.js';
import type { HelperSplit } from '../../src/analysis/helpers.js';
import { rewriteUrlHandler } from './rewriteUrlHandler.js';
import { applyEdits, indentAt, indentUnit, literalRanges, newlineOf, pascalCase, type Edit } from './text.js';
import { NameAllocator } from '../../src/analysis/names.js';
import { normalizeEdits } from './normalize.js';
import { droppedUrlIds, unusedImportEdits } from './urlQuestion.js';
import { dropOrphanedImports } from './orphanedImports.js';
import { remapMarkerLines } from './markerLines.js';
import { putBack, sdkAliasing, setAside } from './sdkAliases.js';

/**
 * The MRTR rewrite of one file: analyse, then edit. Handlers whose sites all migrate are rewritten
 * whole; every refused site gets a marker comment with its reason and is otherwise left as it was.
 */
export const mrtrTransform: Transform = {
  id: 'mrtr',
  title: 'Push-style questions to multi round-trip requests',
  apply(sourceFile, context) {
    const ts = context.ts as unknown as TS;
    const programOf = (): ts.Program => (context.program?.() ?? context.project.getProgram().compilerObject) as unknown as ts.Program;
    // A file unchanged since the CLI planned the run keeps the analysis of that plan (made on the same program).
    const planned = context.planned?.get(sourceFile.getFilePath());
    const fromPlan = planned !== undefined && planned.text === sourceFile.getFullText() ? planned : undefined;
    if (fromPlan && fromPlan.program === undefined) {
      // Planned without a checker: no site, so nothing to edit; only the handlers already migrated to report.
      const report = rewriteFile(ts, fromPlan.sourceFile, fromPlan.analysis, context.cwd, undefined, { reportOnly: true });
      return { changed: false, diagnostics: report.diagnostics, sites: report.sites, alreadyMigrated: report.alreadyMigrated };
    }
    const program = fromPlan?.program ?? programOf();
    const compiled = fromPlan?.sourceFile ?? program.getSourceFile(sourceFile.getFilePath()) ?? (sourceFile.compilerNode as unknown as ts.SourceFile);
    const analyze = (file: ts.SourceFile, withProgram: ts.Program, index: ProjectIndex = context.projectIndex): FileAnalysis => analyzeFile({
      ts,
      sourceFile: file,
      program: withProgram,
      externalCallSites: fn => index.callsOf(fn as never) as unknown as ts.CallExpression[],
      indirectCallSites: fn => index.indirectCallsOf(fn as never) as unknown as ts.CallExpression[],
      externalConstructions: ctor => index.constructionsOf(ctor as never) as unknown as ts.NewExpression[],
      // The CLI plans its files together (planned): a file it lowers is analysed again as the plan analysed it.
      crossFile: context.shared !== undefined || context.planned !== undefined,
      isTestFile: context.isTestFile ?? commonTestFiles(context.cwd),
      frameworkPackageOf: context.frameworkPackageOf ?? frameworkPackages(),
      rolledBack: context.rolledBack,
    });
    const analysis = fromPlan?.analysis ?? analyze(compiled, program);
    const cannotTake = context.serverTooOld ?? (context.sdkUpgrade === false && [...collectSdkImports(ts, compiled).values()].some(i => i.sdk === 'v1') ? V1_KEPT : undefined);
    const original = compiled.text;
    /** The file as it came, its sites that would migrate refused with `hint` and marked, like every refusal. */
    const keptAsItWas = (reason: RefusalReason, hint: string): TransformResult => {
      const kept = rewriteFile(ts, compiled, withoutRewrites(analysis, reason, hint), context.cwd, program.getTypeChecker());
      const text = kept.text ?? original;
      if (text !== sourceFile.getFullText()) sourceFile.replaceWithText(text);
      return { changed: kept.text !== undefined, diagnostics: kept.diagnostics, sites: kept.sites, alreadyMigrated: kept.alreadyMigrated };
    };
    // The server cannot take the rewrite: its sites are reported and refused, true refusals marked as ever.
    if (cannotTake) return keptAsItWas('sdk-version', cannotTake);
    // The file's own names that the rewrite imports from the SDK are set aside while it runs (sdkAliases.ts).
    const aliasing = isJavaScriptFile(compiled.fileName) ? undefined : sdkAliasing(ts, compiled, sdkNameUse(ts, compiled));
    let working = { sourceFile: compiled, analysis, checker: program.getTypeChecker(), options: program.getCompilerOptions() };
    type Working = typeof working;
    const reanalyse = (): Working => {
      const changed = programOf();
      const changedFile = changed.getSourceFile(sourceFile.getFilePath())!;
      // The project's calls of the changed file are its new nodes: index them on the new program.
      const reanalysed = analyze(changedFile, changed, new ProjectIndex(ts as never, changed as never));
      return { sourceFile: changedFile, analysis: reanalysed, checker: changed.getTypeChecker(), options: changed.getCompilerOptions() };
    };
    const again = (what: string): Working => {
      const next = reanalyse();
      // The same verdicts, and the same plans (a linked file's helper calls are planned without sites of its own).
      if (verdictsOf(next.analysis) !== verdictsOf(analysis)) {
        sourceFile.replaceWithText(original);
        throw new Error(`${what} changed the verdicts of ${compiled.fileName} (${verdictsOf(analysis)} → ${verdictsOf(next.analysis)})`);
      }
      return next;
    };
    if (aliasing && aliasing.standIns.size > 0) {
      sourceFile.replaceWithText(setAside(ts, compiled, aliasing));
      working = again(`setting aside ${[...aliasing.standIns.values()].join(', ')}`);
    }
    // Loops and conditional expressions around questions are lowered first; the lowered file is
    // analysed again and printed from that plan. Sites are reported where they are in the original.
    const base = working.sourceFile.text;
    const lowering = normalizeEdits({
      ts, sourceFile: working.sourceFile, text: base, newline: newlineOf(base), unit: indentUnit(base), checker: working.checker,
      uncheckedIndex: working.options.noUncheckedIndexedAccess === true,
    }, working.analysis);
    if (lowering.length > 0) {
      sourceFile.replaceWithText(applyEdits(base, lowering));
      const lowered = reanalyse();
      // The lowered handler must read as the original did. Where it does not (a gap in the lowering),
      // nothing of the file is rewritten: a refusal with a marker, never a file half-migrated.
      if (verdictsOf(lowered.analysis) !== verdictsOf(analysis)) return keptAsItWas('unsupported-construct', LOWERING_CHANGED);
      working = lowered;
    }
    // TypeScript emits an unused import nowhere, unless it keeps imports as written.
    const keepsImports = working.options.verbatimModuleSyntax === true || working.options.preserveValueImports === true;
    const result = rewriteFile(ts, working.sourceFile, working.analysis, context.cwd, working.checker, { shared: context.shared, keepsImports });
    let text = result.text ?? working.sourceFile.text;
    if (aliasing) text = putBack(ts, compiled.fileName, text, aliasing);
    if (text !== sourceFile.getFullText()) sourceFile.replaceWithText(text);
    const report = working.analysis === analysis ? result : rewriteFile(ts, compiled, analysis, context.cwd, program.getTypeChecker(), { reportOnly: true });
    return {
      changed: text !== original,
      diagnostics: report.diagnostics,
      sites: report.sites,
      alreadyMigrated: report.alreadyMigrated,
    };
  },
};

/** The verdicts and plans of an analysis, to compare it with the analysis of the file after a change that must keep them. */
function verdictsOf(a: FileAnalysis): string {
  return `${a.sites.map(s => s.verdict.kind).join(',')}; ${a.plans.map(p => p.questions.length).join(',')}; ${a.helperSplits.length}`;
}

/** Why a file that still imports the v1 SDK is not rewritten under --no-sdk-upgrade (the hint of its sites). */
export const V1_KEPT = 'the file imports the v1 SDK (@modelcontextprotocol/sdk), which --no-sdk-upgrade leaves it on, and the rewrite needs the v2 SDK; run without --no-sdk-upgrade.';

/** Why a file whose lowered loops or conditionals the analysis reads otherwise is left as it was (the hint of its sites). */
export const LOWERING_CHANGED = 'the rewrite could not lower the loop or conditional around the question without changing how the handler reads; the file is left as it was (an mrtr-migrate gap: please report it).';

/** The analysis with nothing to rewrite: every site that would migrate refused (`reason`, `why`). */
function withoutRewrites(analysis: FileAnalysis, reason: RefusalReason, why: string): FileAnalysis {
  const sites = analysis.sites.map(site => (site.verdict.kind === 'migrate' ? { ...site, verdict: { kind: 'refuse' as const, reason, hint: why } } : site));
  return { ...analysis, sites, plans: [], helperSplits: [] };
}

export interface FileRewrite {
  /** The new text, or undefined when nothing changed. */
  text: string | undefined;
  sites: SiteReport[];
  alreadyMigrated: TransformResult['alreadyMigrated'];
  /** Ignore comments without a reason or that suppress nothing. */
  diagnostics: Diagnostic[];
}

/** The per-file rewrite on plain TypeScript objects (shared by the CLI transform and the jscodeshift adapter). */
export function rewriteFile(ts: TS, sourceFile: ts.SourceFile, analysis: FileAnalysis, cwd: string, checker?: ts.TypeChecker, options: { reportOnly?: boolean; shared?: SharedRequestState | undefined; keepsImports?: boolean } = {}): FileRewrite {
  const text = sourceFile.text;
  const newline = newlineOf(text);
  const unit = indentUnit(text);
  const literals = literalRanges(ts, sourceFile);
  const edits: Edit[] = [];
  const rewrites = new Map<HandlerPlan, HandlerRewrite>();

  // Capability guards migrate in handlers without questions too: there only the read is rewritten.
  const guards = analysis.sites.filter(s => s.kind === 'capability-guard' && s.verdict.kind === 'migrate');
  if (!options.reportOnly && (analysis.plans.length > 0 || guards.length > 0 || analysis.helperSplits.length > 0)) {
    const names = new NameAllocator(ts, [sourceFile]);
    // A codec an earlier run wrote into this file is minted with again (the analysis checked it is this file's).
    const written = analysis.plans.flatMap(p => p.constructions).filter(c => c.getSourceFile() === sourceFile)
      .map(c => writtenCodecOf(ts, c)).find(w => w !== undefined && 'file' in w.declaredIn && !w.declaredIn.imported);
    const moduleNames: ModuleNames & CodecNames = {
      codec: names.take('requestStateCodec'),
      signed: names.take('sealedRequestState'),
      sealer: names.take('createRequestStateSeal'),
      replays: names.take('requestStateReplays'),
      nonces: names.take('usedRequestStates'),
      ttl: names.take('requestStateTtlSeconds'),
      elicitAnswerOf: names.take('elicitAnswerOf'),
      checkedResponse: names.take('checkedInputResponse'),
      callDigest: names.take('requestStateCall'),
      assertState: names.take('assertStateFor'),
      elicitResultOf: names.take('elicitResultOf'),
      capabilitiesOf: names.take('clientCapabilitiesOf'),
      stateUnion: names.take('RequestState'),
      keyLoader: names.take('requestStateKeys'),
      keepHook: names.take('keepRequestStateHook'),
      migratedState: names.take('migratedRequestState'),
      migratedKey: names.take('migratedRequestStateKey'),
      ...(written && writtenNames(written)),
    };
    // A file that imports the shared module already (its handlers were rewritten by an earlier run) keeps its names.
    const shared = sharedCodec(ts, sourceFile, analysis.plans, options.shared);
    if (shared) Object.assign(moduleNames, importedSharedNames(ts, sourceFile, shared.specifier));
    // Beside requestState the server keeps of its own, the handlers read only the states their codec minted.
    const kept = (analysis.keptStateHooks ?? []).filter(k => k.construction.getSourceFile() === sourceFile);
    if (kept.length > 0 || written?.keeps || shared?.keeps) moduleNames.readState = moduleNames.migratedState;
    const helperNames = new Map<HelperSplit, HelperPartNames>();
    // A helper used across files has its parts' names chosen by the analysis, alike in every file.
    const agreed = (name: string): string => {
      if (names.take(name) !== name) throw new Error(`the name ${name} chosen for a split helper's part is taken in ${sourceFile.fileName}`);
      return name;
    };
    for (const split of analysis.helperSplits) {
      helperNames.set(split, split.partNames
        ? { request: agreed(split.partNames.request), result: agreed(split.partNames.result) }
        : { request: names.take(`${split.name}Request`), result: names.take(`${split.name}Result`) });
    }
    const imported = importedSplits(analysis);
    for (const split of imported) helperNames.set(split, { request: agreed(split.partNames!.request), result: agreed(split.partNames!.result) });
    const helperTypes = new Set<string>();
    const helperValues = new Set<string>();
    for (const split of analysis.helperSplits) {
      const { edit, memberEdit, sdkTypes, sdkValues } = splitHelperEdit({ ts, sourceFile, text, newline, unit, literals, module: moduleNames, checker, helperNames }, split);
      edits.push(edit, ...(memberEdit ? [memberEdit] : []));
      for (const t of sdkTypes) helperTypes.add(t);
      for (const v of sdkValues) helperValues.add(v);
    }
    for (const split of imported) if (!ts.isMethodDeclaration(split.fn)) edits.push(...importedPartsEdits(ts, sourceFile, split, helperNames.get(split)!, checker));
    const constructions = new Set<ts.NewExpression>();
    for (const plan of analysis.plans) {
      const stateTypeName = names.take(`${pascalCase(stateTypeStem(ts, plan.handler))}State`);
      const env = { ts, sourceFile, text, newline, unit, literals, module: moduleNames, stateTypeName, checker, helperNames };
      const rewrite = plan.urlThrows.length > 0 ? rewriteUrlHandler(env, plan) : rewriteHandler(env, plan);
      rewrites.set(plan, rewrite);
      edits.push(...rewrite.edits);
      for (const c of plan.constructions) constructions.add(c);
    }
    const wrapperRewrites = wrappersOf(analysis.plans.map(p => p.handler.wrapper)).map(w => rewriteWrapper({ ts, sourceFile, text, newline, unit, literals }, w, checker));
    for (const w of wrapperRewrites) edits.push(...w.edits);
    // The function type a handler's slot declares (a list's entries, a dispatch map, a registrar's parameter), once for all the handlers it holds.
    const slotTypes = new Set<string>();
    const slots = new Map<ts.FunctionTypeNode, number>();
    for (const plan of analysis.plans) {
      const slot = plan.handler.data?.slotType;
      if (slot && !slots.has(slot)) slots.set(slot, plan.handler.ctxParamIndex);
    }
    for (const [slot, ctxIndex] of slots) edits.push(...functionTypeWidening({ ts, sourceFile }, slot, slot.parameters.length === ctxIndex, slotTypes));
    const planned = new Set(analysis.plans.map(p => p.handler));
    edits.push(...guardOnlyEdits(ts, sourceFile, text, moduleNames, guards.filter(g => g.context.type === 'handler' && !planned.has(g.context.handler))));
    // In the order of their handlers in the file (the State types are declared in it).
    const all = [...rewrites.entries()].sort(([a], [b]) => a.handler.fn.getStart(sourceFile) - b.handler.fn.getStart(sourceFile)).map(([, r]) => r);
    if (shared) {
      options.shared!.importers.add(sourceFile.fileName);
      if (all.some(r => r.usesCheckedResponse)) options.shared!.uses.add('checkedResponse');
      if (all.some(r => r.usesElicitAnswerOf)) options.shared!.uses.add('elicitAnswerOf');
      if (all.some(r => r.usesElicitResultOf)) options.shared!.uses.add('elicitResultOf');
    }
    edits.push(...moduleSupportEdits({
      ts, sourceFile, text, newline, unit,
      names: moduleNames,
      withCodec: analysis.plans.length > 0,
      usesCapabilitiesOf: guards.length > 0,
      stateTypes: all.map(r => r.stateTypeDeclaration),
      stateTypeNames: all.map(r => /^type (\S+)/.exec(r.stateTypeDeclaration)![1]!),
      usesElicitResultOf: all.some(r => r.usesElicitResultOf),
      usesElicitAnswerOf: all.some(r => r.usesElicitAnswerOf),
      usesCheckedResponse: all.some(r => r.usesCheckedResponse),
      sdkValues: new Set([...[...all, ...wrapperRewrites].flatMap(r => [...r.sdkValues]), ...helperValues]),
      sdkTypes: new Set([...[...all, ...wrapperRewrites].flatMap(r => [...r.sdkTypes]), ...helperTypes, ...slotTypes]),
      // Constructions in other files are wired by the CLI once the files are rewritten (wireSharedCodec).
      constructions: [...constructions].filter(c => c.getSourceFile() === sourceFile),
      unusedImports: new Set([...unusedAfterUrlRewrite(ts, sourceFile, analysis.plans), ...unusedAfterSplit(ts, sourceFile, analysis.helperSplits)]),
      shared,
      written,
      kept,
    }));
    edits.push(...unusedImportEdits(ts, sourceFile, droppedUrlIds(ts, analysis.plans)));
  }
  edits.push(...markerEdits(ts, sourceFile, analysis.sites, literals, newline));

  const sites = analysis.sites.map(site => siteReport(ts, sourceFile, site, cwd, literals));
  const alreadyMigrated = analysis.handlers
    .filter(h => !analysis.sites.some(s => (s.context.type === 'handler' && s.context.handler === h) || (s.context.type === 'helper' && s.context.handlers.includes(h))) && RETURNS_INPUT_REQUIRED.test(h.fn.getText(sourceFile)))
    .map(h => ({ line: sourceFile.getLineAndCharacterOfPosition(h.fn.getStart(sourceFile)).line + 1, method: h.method, name: h.name, dualEra: analysis.dualEra.includes(h.fn) }));
  let rewritten = edits.length > 0 ? applyEdits(text, edits) : undefined;
  // JavaScript: the generated code loses its types again (JSDoc for the State types and state reads).
  if (rewritten !== undefined && isJavaScriptFile(sourceFile.fileName)) {
    const sdkTypes = [...rewrites.values()].flatMap(r => [...r.sdkTypes]);
    rewritten = eraseTypes(ts, sourceFile.fileName, rewritten, [...sdkTypes, ...SUPPORT_TYPES]);
  }
  if (rewritten !== undefined) {
    // Imported names only the rewritten code used go; then a marker names the lines of the file as written.
    rewritten = dropOrphanedImports(ts, sourceFile, rewritten, options.keepsImports === true || isJavaScriptFile(sourceFile.fileName));
    rewritten = remapMarkerLines(text, rewritten);
  }
  return { text: rewritten, sites, alreadyMigrated, diagnostics: [...suppressionDiagnostics(analysis, cwd), ...keptHookDiagnostics(ts, sourceFile, analysis, cwd)] };
}

/** What the report says of each server whose own requestState the rewrite wires its codec beside (the first time: keptStateHooks). */
function keptHookDiagnostics(ts: TS, sourceFile: ts.SourceFile, analysis: FileAnalysis, cwd: string): Diagnostic[] {
  if (analysis.plans.length === 0) return [];
  const file = path.relative(cwd, analysis.fileName).split(path.sep).join('/');
  const beside = 'the rewritten handlers\' states are verified beside it (keepRequestStateHook) and reach only them.';
  return (analysis.keptStateHooks ?? []).map(k => {
    const here = k.construction.getSourceFile() === sourceFile;
    // A server built in another file is named with its place; the line is the handler file's own only.
    const server = here ? 'the server\'s' : `the server's (${path.relative(cwd, k.construction.getSourceFile().fileName).split(path.sep).join('/')}:${lineOf(k.construction)})`;
    return {
      level: 'info' as const, source: 'mrtr' as const, code: 'mrtr/state-hook-kept', file,
      line: here ? lineOf(k.construction) : undefined,
      message: k.hook
        ? `${server} own requestState hook (${ts.isMethodDeclaration(k.hook) ? `its verify method, line ${lineOf(k.hook)}` : k.hook.getText(k.construction.getSourceFile())}) still verifies the states of its own handlers; ${beside}`
        : `${server} own handlers read requestState unverified and still get it as it came; ${beside}`,
    };
  });
}

/** How a migrated site's to-do of serving the 2026-07-28 era begins (the report drops it once every serving entry does). */
export const SERVE_TODO = 'Serve the 2026-07-28 era through serveStdio(...) or createMcpHandler(...)';

/**
 * Whether this file's handlers use the shared codec module: one of their servers is in the CLI's
 * shared plan (then all of the file's handlers do, so the file has one codec). A handler whose server
 * is constructed in another file is only planned when the files are planned together.
 */
function sharedCodec(ts: TS, sourceFile: ts.SourceFile, plans: HandlerPlan[], shared: SharedRequestState | undefined): { specifier: string; keeps: boolean } | undefined {
  const keys = plans.flatMap(p => p.constructions.map(c => constructionKey(ts, c)));
  if (!shared || !keys.some(k => shared.constructions.has(k))) {
    const elsewhere = plans.flatMap(p => p.constructions).find(c => c.getSourceFile() !== sourceFile);
    if (elsewhere) throw new Error(`a handler's server is constructed in ${elsewhere.getSourceFile().fileName}, which the plan of this run does not share`);
    return undefined;
  }
  return { specifier: shared.package ?? moduleSpecifier(ts, sourceFile, shared.modulePath), keeps: shared.keeps };
}

/** The relative specifier of `target` from `sourceFile`, with the extension its other relative imports use. */
export function moduleSpecifier(ts: TS, sourceFile: ts.SourceFile, target: string): string {
  let relative = path.relative(path.dirname(sourceFile.fileName), target).split(path.sep).join('/');
  if (!relative.startsWith('.')) relative = `./${relative}`;
  const stem = relative.replace(/\.[cm]?[jt]sx?$/, '');
  const relativeImports = sourceFile.statements
    .flatMap(s => ((ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier) ? [s.moduleSpecifier.text] : []))
    .filter(spec => spec.startsWith('.'));
  // Written as the file writes its own relative imports: a TypeScript module as `.js` (or `.ts`), a
  // JavaScript one with its own extension.
  const style = relativeImports.length === 0 ? '.js' : (/\.[cm]?[jt]s$/.exec(relativeImports[0]!)?.[0] ?? '');
  if (style === '') return stem;
  const own = /\.m?js$/.exec(target)?.[0];
  return `${stem}${own ?? (style === '.ts' ? '.ts' : '.js')}`;
}

/**
 * Split helpers of other files that this file's handlers (or its own split helpers) call: their
 * parts are imported in place of the helper. A method is reached through its object: no import.
 */
function importedSplits(analysis: FileAnalysis): HelperSplit[] {
  const used = [
    ...analysis.plans.flatMap(p => p.questions.flatMap(q => (q.helper ? [q.helper.split] : []))),
    ...analysis.helperSplits.flatMap(s => (s.question.type === 'helper' ? [s.question.split] : [])),
  ];
  return [...new Set(used)].filter(s => s.fn.getSourceFile().fileName !== analysis.fileName);
}

/** `import { askYesNo } from './ask.js'` → `import { askYesNoRequest, askYesNoResult } from './ask.js'`. */
function importedPartsEdits(ts: TS, sourceFile: ts.SourceFile, split: HelperSplit, names: HelperPartNames, checker: ts.TypeChecker | undefined): Edit[] {
  const edits: Edit[] = [];
  for (const statement of sourceFile.statements) {
    const bindings = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : undefined;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) {
      if (element.propertyName || element.name.text !== split.name) continue;
      let symbol = checker?.getSymbolAtLocation(element.name);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker!.getAliasedSymbol(symbol);
      if (!symbol?.declarations?.some(d => d === split.fn || d === split.fn.parent)) continue;
      edits.push({ start: element.getStart(sourceFile), end: element.getEnd(), text: split.identity ? names.request : `${names.request}, ${names.result}` });
    }
  }
  if (edits.length === 0) throw new Error(`${split.name}() is split, but ${sourceFile.fileName} imports it in a way the rewrite cannot edit`);
  return edits;
}

/** `// mrtr-migrate-ignore` comments the user must fix: errors, so `--check` fails on them as the lint rule does. */
function suppressionDiagnostics(analysis: FileAnalysis, cwd: string): Diagnostic[] {
  const file = path.relative(cwd, analysis.fileName).split(path.sep).join('/');
  return analysis.suppressions.flatMap(s => {
    const problem = suppressionProblem(s);
    return problem ? [{ level: 'error' as const, source: 'mrtr' as const, code: `mrtr/ignore-${problem}`, file, line: s.line, message: suppressionMessage(s, problem) }] : [];
  });
}

/**
 * Handlers that only guard (no question): each capability read becomes a per-request read through
 * the handler's context, added as a parameter when the handler did not take it.
 */
function guardOnlyEdits(ts: TS, sourceFile: ts.SourceFile, text: string, module: ModuleNames, guards: Site[]): Edit[] {
  const edits: Edit[] = [];
  const byHandler = new Map<Handler, Site[]>();
  for (const g of guards) {
    const handler = (g.context as { handler: Handler }).handler;
    byHandler.set(handler, [...(byHandler.get(handler) ?? []), g]);
  }
  for (const [handler, sites] of byHandler) {
    const env = { ts, sourceFile, text, module };
    const ctxName = ensureParameter(env, handler.fn, handler.ctxParamIndex, 'ctx', new LocalNames(ts, handler.fn), edits, new Map());
    for (const site of sites) edits.push(guardEdit(env, site, ctxName));
  }
  return edits;
}

/**
 * `UrlElicitationRequiredError`, when every use of it was a throw the rewrite replaced: left
 * imported, it would be an unused import (an error under noUnusedLocals, which rolls the file back).
 */
function unusedAfterUrlRewrite(ts: TS, sourceFile: ts.SourceFile, plans: HandlerPlan[]): Set<string> {
  const name = 'UrlElicitationRequiredError';
  const replaced = plans.flatMap(p => p.urlThrows.map(q => q.raw.call));
  if (replaced.length === 0) return new Set();
  let used = false;
  const visit = (node: ts.Node): void => {
    if (used || ts.isImportDeclaration(node) || replaced.includes(node as ts.NewExpression)) return;
    if (ts.isIdentifier(node) && node.text === name) used = true;
    node.forEachChild(visit);
  };
  visit(sourceFile);
  return used ? new Set() : new Set([name]);
}

/**
 * SDK names only the parameters a split drops referred to (`server: McpServer` of a helper whose
 * parts no longer need the server): left imported, they would be unused imports.
 */
function unusedAfterSplit(ts: TS, sourceFile: ts.SourceFile, splits: readonly HelperSplit[]): Set<string> {
  const dropped = splits.flatMap(split => split.fn.parameters.filter((_, i) => !split.requestParams.includes(i) && !split.resultParams.includes(i)));
  if (dropped.length === 0) return new Set();
  const inDropped = (node: ts.Node): boolean => dropped.some(p => node.getStart(sourceFile) >= p.getStart(sourceFile) && node.getEnd() <= p.getEnd());
  const imported = new Set<string>();
  for (const s of sourceFile.statements) {
    const named = ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text === '@modelcontextprotocol/server' ? s.importClause?.namedBindings : undefined;
    if (named && ts.isNamedImports(named)) for (const e of named.elements) imported.add(e.name.text);
  }
  const usedElsewhere = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) return;
    if (ts.isIdentifier(node) && imported.has(node.text) && !inDropped(node)) usedElsewhere.add(node.text);
    node.forEachChild(visit);
  };
  visit(sourceFile);
  return new Set([...imported].filter(name => !usedElsewhere.has(name)));
}

const MARKER = 'mrtr-migrate:';

/**
 * What a handler's state type is named after: its tool / prompt / resource name, else the registrar
 * function whose parameter names it (`registerWaiver` → RegisterWaiverState), else its method.
 */
function stateTypeStem(ts: TS, handler: Handler): string {
  if (handler.name !== undefined) return handler.name;
  let registrar: ts.Node | undefined = handler.nameExpression && handler.registrationCall.parent;
  while (registrar && !ts.isFunctionLike(registrar)) registrar = registrar.parent;
  const named = registrar && (ts.isFunctionDeclaration(registrar) || ts.isMethodDeclaration(registrar)) ? registrar.name
    : registrar && ts.isVariableDeclaration(registrar.parent) ? registrar.parent.name : undefined;
  return named && ts.isIdentifier(named) ? named.text : handler.method.replace('/', ' ');
}

/** The longest marker line, its indentation included: one line a reader takes in at a glance; the report has the rest. */
export const MARKER_MAX = 160;

/**
 * `// mrtr-migrate: <reason> — <obstacle>`: the hint's first clause (up to `; ` or `: `, where the
 * hint goes on to the why and the advice; the hint from its start with `whole`, such as a compiler
 * message), cut at a word with `…` where even that is too long for the line (after `indent`, the
 * indentation it is written at). The whole hint is in the report.
 */
export function markerText(reason: string, hint: string, indent = '', whole = false): string {
  const head = `// ${MARKER} ${reason} — `;
  // However deep the indentation, a marker keeps 40 characters of its hint.
  const max = Math.max(MARKER_MAX - indent.length, head.length + 40);
  const flat = hint.replace(/\s+/g, ' ').trim();
  if (head.length + flat.length <= max) return head + flat;
  const clause = whole ? flat : /^(.+?)(?:; |: )/.exec(flat)?.[1] ?? flat.replace(/\.$/, '');
  if (head.length + clause.length <= max) return head + clause;
  const room = max - head.length - 1;
  const cut = clause.slice(0, room + 1);
  return head + (cut.includes(' ') ? cut.slice(0, cut.lastIndexOf(' ')) : cut.slice(0, room)).replace(/[\s,;:(]+$/, '') + '…';
}

/** `// mrtr-migrate: <reason> — <hint>` above each refused site's statement, once (markerText). */
function markerEdits(ts: TS, sourceFile: ts.SourceFile, sites: Site[], literals: Array<[number, number]>, newline: string): Edit[] {
  const text = sourceFile.text;
  const edits: Edit[] = [];
  const seen = new Set<number>();
  for (const site of sites) {
    // A suppressed site is left exactly as it is: its ignore comment already says why; the run says
    // once why none is rewritten where the installed server is too old.
    if (site.verdict.kind !== 'refuse' || isIgnored(site.verdict) || site.verdict.reason === 'sdk-version') continue;
    const lineStart = markerLineStart(ts, sourceFile, site, literals);
    if (seen.has(lineStart)) continue;
    seen.add(lineStart);
    const previousLine = text.slice(text.lastIndexOf('\n', lineStart - 2) + 1, lineStart);
    if (previousLine.includes(MARKER)) continue;
    const indent = indentAt(text, lineStart);
    edits.push({ start: lineStart, end: lineStart, text: `${indent}${markerText(site.verdict.rolledBack ? 'rolled-back' : site.verdict.reason, site.verdict.hint, indent)}${newline}` });
  }
  return edits;
}

/** Where a site's marker goes: the start of the line its statement starts on, above any literal it is inside. */
function markerLineStart(ts: TS, sourceFile: ts.SourceFile, site: Site, literals: Array<[number, number]>): number {
  const text = sourceFile.text;
  const statement = statementOf(ts, site.node, sourceFile) ?? site.node;
  let lineStart = text.lastIndexOf('\n', statement.getStart(sourceFile) - 1) + 1;
  while (literals.some(([s, e]) => lineStart > s && lineStart < e)) lineStart = text.lastIndexOf('\n', lineStart - 2) + 1;
  return lineStart;
}

function siteReport(ts: TS, sourceFile: ts.SourceFile, site: Site, cwd: string, literals: Array<[number, number]>): SiteReport {
  const handler = site.context.type === 'handler' ? site.context.handler : undefined;
  const diffed = handler?.fn ?? (site.context.type === 'helper' ? site.context.helper : undefined);
  const lineOf = (pos: number) => sourceFile.getLineAndCharacterOfPosition(pos).line + 1;
  const verdict = site.verdict;
  const todo: string[] = [];
  const ignored = isIgnored(verdict);
  if (ignored) {
    // Left on purpose: nothing to do.
  } else if (verdict.kind === 'migrate' && site.kind === 'capability-guard') {
    todo.push(`${SERVE_TODO}; the guard now reads each request's own capabilities there.`);
  } else if (verdict.kind === 'migrate') {
    todo.push('Set MCP_REQUEST_STATE_KEY (the same secret on every instance; make one with openssl rand -base64 32) before serving from more than one process; MCP_REQUEST_STATE_KEYS rotates it.');
    todo.push(`${SERVE_TODO}; a plain server.connect(transport) only speaks the 2025 era.`);
    if (site.kind === 'sampling') todo.push('Sampling is deprecated (SEP-2577): consider calling your model provider directly instead of asking the client.');
  } else if (verdict.reason === 'sdk-version') {
    todo.push(verdict.hint);
  } else {
    todo.push(`Migrate by hand: ${verdict.hint}`);
  }
  const file = path.relative(cwd, site.file).split(path.sep).join('/');
  return {
    // `file:line:column` of the site in the text analysed, the path relative like `file`: the same in a copy of the project.
    id: site.id.startsWith(`${site.file}:`) ? `${file}${site.id.slice(site.file.length)}` : site.id,
    file,
    line: site.line,
    column: site.column,
    kind: site.kind,
    api: site.api,
    sdk: site.sdk,
    status: ignored ? 'ignored' : verdict.kind === 'refuse' ? (verdict.rolledBack ? 'rolled-back' : 'refused') : verdict.review ? 'migrated-for-review' : 'migrated',
    reason: verdict.kind === 'refuse' && !ignored && !verdict.rolledBack ? verdict.reason : undefined,
    hint: verdict.kind === 'refuse' ? verdict.hint : undefined,
    notes: verdict.kind === 'migrate' ? verdict.notes : [],
    handler: handler ? { method: handler.method, name: handler.name, line: lineOf(handler.fn.getStart(sourceFile)) } : undefined,
    context: describeContext(site),
    controlFlow: site.controlFlow,
    liveLocals: site.liveLocals.map(l => (l.liveObject ? { name: l.name, type: l.type, how: 'server-object' as const, what: l.liveObject } : { name: l.name, type: l.type, how: l.how })),
    sideEffectsBefore: site.sideEffectsBefore,
    callOptions: site.callOptions,
    todo,
    ...(verdict.kind === 'refuse' && verdict.reason === 'relay' ? { sketch: `${RELAY_SKETCH_IMPORTS}\n\n${relaySketch()}` } : {}),
    // For a question in a helper, the diff shows the helper (split into its request and result parts).
    handlerLines: diffed ? { start: lineOf(diffed.getStart(sourceFile)), end: lineOf(diffed.getEnd()) } : undefined,
    markerLine: lineOf(markerLineStart(ts, sourceFile, site, literals)),
  };
}

function describeContext(site: Site): string {
  const c = site.context;
  if (c.type === 'handler') return `${c.handler.method}${c.handler.name ? ` "${c.handler.name}"` : ''} handler`;
  if (c.type === 'helper') return `helper ${c.helperName}() reached from ${c.handlers.map(h => `${h.method}${h.name ? ` "${h.name}"` : ''}`).join(', ')}`;
  return c.detail;
}
