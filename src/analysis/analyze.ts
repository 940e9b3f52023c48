import type * as ts from 'typescript';
import { analyzeCallOptions, type CallOptions } from './callOptions.js';
import { ContextFinder } from './context.js';
import { isFunctionLike, resolveIdentifier, resolveName } from './scope.js';
import { detectSites, memberValue, urlMembers, type RawSite } from './detect.js';
import { isDualEraPush } from './dualEra.js';
import { sideEffectsBefore } from './effects.js';
import { analyzeFlow, mappedQuestion, thenChainAwaited, type AnswerForm, type FlowInfo } from './flow.js';
import { contextRename } from './contextParam.js';
import { discoverHandlers, handlerIndex, takesRequest } from './handlers.js';
import { AskingFunctions, crossFileHelperProblem } from './crossFile.js';
import { helperCallProblem, isExportedHelper, otherHelperReference, splitHelper, type HelperContext, type HelperQuestion, type HelperSplit } from './helpers.js';
import { liveLocals, type LiveLocalsResult } from './locals.js';
import { moduleFormatProblem } from './moduleFormat.js';
import { indirectCallsInFile, indirectCallVia } from './projectIndex.js';
import { splitMemberOf, type SplitMember } from './interfaceSplit.js';
import { functionNameNode, isProjectSource, SdkResolver, skipOuter } from './sdk.js';
import { observableCall } from './purity.js';
import { serverConstructions } from './servers.js';
import { applySuppressions, type Suppression } from './suppressions.js';
import { fileLine, lineOf, listed } from './places.js';
import { decisive, reasonOfNoRequest } from './reasons.js';
import { frameworkHint, ownCodeContext, ownCodeHint, type FrameworkName } from './frameworks.js';
import { commonTestFiles, type TestFilePredicate } from './testFiles.js';
import { switchCaseProblem } from './switchCase.js';
import { mintsWith, ownVerifyHook, requestStateOption, RUNTIME_SPECIFIER, writtenCodecOf, type KeptStateHook } from './writtenCodec.js';
import { sdkNameUse } from './sdkNames.js';
import { isRoundsProblem, planRounds, type RoundQuestion, type RoundsPlan } from './rounds.js';
import type { Handler, LiveLocal, MrtrMethod, QuestionKind, RefusalReason, Site, SiteApi, SiteContext, TS, Verdict } from './types.js';

/**
 * One analysis for every front end: finds the push-style sites of a file, classifies each, and
 * decides one verdict per site. The lint rules report these sites, the codemod rewrites the
 * handlers whose sites all say `migrate`, and the report lists them.
 */

export const MRTR_METHODS: ReadonlySet<string> = new Set<MrtrMethod>(['tools/call', 'prompts/get', 'resources/read']);

export interface AnalyzeOptions {
  ts: TS;
  sourceFile: ts.SourceFile;
  /** With a program the checker resolves receivers and types locals; without, resolution is syntactic. */
  program?: ts.Program | undefined;
  /** Calls of a function from other files of the program (the project index). */
  externalCallSites?: ((fn: ts.FunctionLikeDeclaration) => ts.CallExpression[]) | undefined;
  /** `new` expressions of a class from other files of the program (the project index). */
  externalConstructions?: ((ctor: ts.ConstructorDeclaration) => ts.NewExpression[]) | undefined;
  /**
   * Whether the front end plans the files of a project together (the CLI, and the typed lint rules
   * that agree with it): a server constructed in another source file of the program can have the
   * codec wired, and an asking helper exported to other files can be split, its callers' imports
   * edited. A per-file rewrite (jscodeshift) cannot edit the other files and refuses both.
   */
  crossFile?: boolean | undefined;
  /** Calls that may run a function without calling it (ProjectIndex.indirectCallsOf): they decide where it runs, not how it is called. */
  indirectCallSites?: ((fn: ts.FunctionLikeDeclaration) => ts.CallExpression[]) | undefined;
  /**
   * The project's test files (default: the usual names, and the usual folders under the program's
   * directory): calls there do not decide whether a request reaches a helper.
   */
  isTestFile?: TestFilePredicate | undefined;
  /** The MCP framework whose own package holds a file (its package.json names it), if one does: see frameworks.ts. */
  frameworkPackageOf?: ((fileName: string) => FrameworkName | undefined) | undefined;
  /**
   * Sites whose handler's rewrite added type errors on an earlier attempt of the same run (the CLI's
   * verify phase): per file, the site's index among the file's sites and the errors in a line. They are
   * refused before siblings are considered, so the rest of the file is rewritten without them.
   */
  rolledBack?: ((fileName: string) => ReadonlyMap<number, string> | undefined) | undefined;
}

/** Everything the rewrite needs about one question. */
export interface QuestionPlan extends RoundQuestion {
  site: Site;
  raw: RawSite;
  flow: FlowInfo;
  live: LiveLocalsResult;
  /** When the handler asks through a helper: the helper call (the statement's await) and the helper's split. */
  helper?: { call: ts.CallExpression; split: HelperSplit } | undefined;
}

/** A handler whose sites all migrate, with its questions in source order. */
export interface HandlerPlan {
  handler: Handler;
  questions: QuestionPlan[];
  /** Its `getClientCapabilities()` reads, rewritten to per-request reads wherever its code is copied. */
  guards: Site[];
  /**
   * `throw new UrlElicitationRequiredError(...)` sites, in source order. A handler has these or
   * questions, never both (the verdict refuses the mix).
   */
  urlThrows: QuestionPlan[];
  /** The server constructions in this file the codec is wired into. */
  constructions: ts.NewExpression[];
  /** The rounds the handler is split into (absent for URL-elicitation handlers). */
  rounds: RoundsPlan<QuestionPlan> | undefined;
}

export interface FileAnalysis {
  fileName: string;
  sites: Site[];
  handlers: Handler[];
  plans: HandlerPlan[];
  /** Asking helpers to split (every caller of each is a rewritten handler or another split helper). */
  helperSplits: HelperSplit[];
  /**
   * The other files of its group (`crossFile`), analysed with it because an asking helper links them:
   * the helper's file and its callers' files. They are rewritten, checked and rolled back together.
   */
  linkedFiles: string[];
  /** Whether a checker was available (types of locals known). */
  typed: boolean;
  /** The file's `// mrtr-migrate-ignore` comments and the sites each suppresses. */
  suppressions: Suppression[];
  /** Handlers whose push calls serve only 2025-era connections beside their own inputRequired path (dualEra.ts): not sites. */
  dualEra: ts.FunctionLikeDeclaration[];
  /**
   * Servers of the file's plans that keep requestState of their own (a verify hook, or handlers that read
   * it unverified): the rewrite wires its codec beside that, never over it (writtenCodec.ts).
   */
  keptStateHooks?: KeptStateHook[];
}

/** One file of the analysis: its resolver, its handlers, and its sites once detected. */
interface FileScope {
  file: ts.SourceFile;
  resolver: SdkResolver;
  handlers: Handler[];
  index: Map<ts.FunctionLikeDeclaration, Handler>;
  raws: RawSite[] | undefined;
  /** Handlers whose push calls were left out as dual-era. */
  dualEra: Set<ts.FunctionLikeDeclaration>;
}

interface Facts {
  raw: RawSite;
  context: SiteContext;
  flow: FlowInfo | undefined;
  live: LiveLocalsResult | undefined;
  effects: string[];
  options: CallOptions;
  /** The question is an asking helper's call (its push call is inside the helper): that helper's split. */
  viaHelper: HelperSplit | undefined;
}

export function analyzeFile(options: AnalyzeOptions): FileAnalysis {
  return analyzeGroup(options).get(options.sourceFile)!;
}

/**
 * The analysis of a file and, with `crossFile`, of every file linked to it by an asking helper (see
 * below): the group is analysed as a whole, so the analysis of each of its files is the same from
 * whichever file it starts (each file of a group decides alike). The planner takes them all at once.
 */
export function analyzeGroup(options: AnalyzeOptions): Map<ts.SourceFile, FileAnalysis> {
  const { ts, sourceFile, program } = options;
  const checker = program?.getTypeChecker();
  const crossFile = options.crossFile === true && checker !== undefined;
  // Each file of the analysis gets its own resolver (imports are per file) and handler index.
  const scopes = new Map<ts.SourceFile, FileScope>();
  const scopeOf = (file: ts.SourceFile): FileScope => {
    let scope = scopes.get(file);
    if (!scope) {
      const resolver = new SdkResolver(ts, file, checker, options.externalCallSites);
      resolver.crossFileServers = options.crossFile === true;
      resolver.externalConstructions = options.externalConstructions;
      resolver.program = program;
      const handlers = discoverHandlers(ts, file, resolver);
      const index = handlerIndex(handlers);
      resolver.roles = {
        contextParam(fn) {
          const handler = index.get(fn);
          // Behind a wrapper that does not hand it the request's arguments, the parameter there is something else.
          if (!handler || (handler.wrapper && handler.wrapper.call.arguments.length < handler.wrapper.outerCtxParamIndex)) return undefined;
          return { index: handler.ctxParamIndex, sdk: handler.sdk };
        },
      };
      resolver.resetMemo();
      scopes.set(file, (scope = { file, resolver, handlers, index, raws: undefined, dualEra: new Set() }));
    }
    return scope;
  };
  const rawsOf = (file: ts.SourceFile): RawSite[] => {
    const scope = scopeOf(file);
    // A dual-era handler's push calls on 2025-era connections are already migrated (dualEra.ts): no sites.
    scope.raws ??= detectSites(ts, file, scope.resolver).filter(raw => {
      const fn = enclosingHandler(ts, raw.node, scope.index);
      if (!fn) return !legacyOnlyHelper(raw.node);
      if (!isDualEraPush(ts, raw.node, fn, e => scope.resolver.sdkExport(e), checker)) return true;
      scope.dualEra.add(fn);
      return false;
    });
    return scope.raws;
  };
  /**
   * A push call in a helper that only dual-era handlers call, each from its legacy branch: it runs on
   * 2025-era connections only, as the push in such a branch does (those handlers are dual-era).
   */
  const legacyOnlyHelper = (node: ts.Node): boolean => {
    let helper: ts.Node | undefined = node.parent;
    while (helper && !isFunctionLike(ts, helper)) helper = helper.parent;
    const calls = helper ? reachingCalls(helper as ts.FunctionLikeDeclaration) : [];
    const handlers = calls.map(call => {
      const scope = scopeOf(call.getSourceFile());
      const fn = enclosingHandler(ts, call, scope.index);
      return fn && isDualEraPush(ts, call, fn, e => scope.resolver.sdkExport(e), checker) ? { fn, scope } : undefined;
    });
    if (calls.length === 0 || handlers.some(h => h === undefined)) return false;
    for (const h of handlers) h!.scope.dualEra.add(h!.fn);
    return true;
  };
  scopeOf(sourceFile); // the starting file's handlers are known first
  const isTestFile = options.isTestFile ?? commonTestFiles(program?.getCurrentDirectory());
  const resolverOf = (node: ts.Node): SdkResolver => scopeOf(node.getSourceFile()).resolver;
  /** The calls that run a function: its own, then the indirect ones (through an interface member, a wrapper, ...). */
  const reached = new Map<ts.FunctionLikeDeclaration, ts.CallExpression[]>();
  const reachingCalls = (fn: ts.FunctionLikeDeclaration): ts.CallExpression[] => {
    let calls = reached.get(fn);
    if (calls) return calls;
    const direct = resolverOf(fn).callsOf(fn);
    // Without the project index, the file's own bound copies and wrappers of it.
    const found = options.indirectCallSites?.(fn) ?? indirectCallsInFile(ts, fn);
    const indirect = found.filter(c => !direct.includes(c));
    calls = indirect.length > 0 ? [...direct, ...indirect] : direct;
    reached.set(fn, calls);
    return calls;
  };
  const contexts = new ContextFinder(ts, file => scopeOf(file).index, reachingCalls, isTestFile);
  const asking = crossFile ? new AskingFunctions(ts, checker!, rawsOf) : undefined;

  const questionCalls = new Map<ts.Node, QuestionKind>();
  const guardCalls = new Set<ts.Node>();
  // A call of a helper that asks is a question for its caller, up the chain to the handlers.
  const helperOfCall = new Map<ts.CallExpression, ts.FunctionLikeDeclaration>();
  const askingHelpers = new Set<ts.FunctionLikeDeclaration>();
  const pendingHelpers: Array<[ts.FunctionLikeDeclaration, QuestionKind]> = [];
  // The files analysed together: this one, and with `crossFile` every file linked to it through an
  // asking helper (the helper's file and its callers' files, transitively), so that every file of
  // such a group decides the same verdicts (sharedCodec.ts plans them as one group).
  const raws: RawSite[] = [];
  const pendingFiles: ts.SourceFile[] = [sourceFile];
  const included = new Set<ts.SourceFile>();
  const include = (file: ts.SourceFile): void => {
    if (!included.has(file) && !pendingFiles.includes(file)) pendingFiles.push(file);
  };
  while (pendingFiles.length > 0) {
    const file = pendingFiles.shift()!;
    included.add(file);
    const own = rawsOf(file);
    raws.push(...own);
    for (const raw of own) {
      if (raw.kind === 'elicitation' || raw.kind === 'sampling' || raw.kind === 'roots') questionCalls.set(raw.call, raw.kind);
      // A pushed URL question asks like a form one (a throw is judged apart, see urlThrowVerdict).
      if (raw.kind === 'url-elicitation' && raw.api !== 'UrlElicitationRequiredError') questionCalls.set(raw.call, 'elicitation');
      if (raw.kind === 'capability-guard') guardCalls.add(raw.call);
      const kind = questionCalls.get(raw.call);
      const context = contexts.contextOf(raw.node);
      if (kind && context.type === 'helper') pendingHelpers.push([context.helper, kind]);
    }
    while (pendingHelpers.length > 0) {
      const [fn, kind] = pendingHelpers.pop()!;
      if (askingHelpers.has(fn)) continue;
      askingHelpers.add(fn);
      for (const call of reachingCalls(fn)) {
        if (call.getSourceFile() !== fn.getSourceFile()) {
          if (!crossFile) continue;
          include(call.getSourceFile());
        }
        questionCalls.set(call, kind);
        helperOfCall.set(call, fn);
        const context = contexts.contextOf(call);
        if (context.type === 'helper') pendingHelpers.push([context.helper, kind]);
      }
    }
    // Asking helpers of other files this file calls: their files join.
    if (asking) for (const other of asking.filesCalledFrom(file)) include(other);
  }
  // The answer of a push call has its result type; an asking helper's call returns what the helper returns.
  const questionOf = (expr: ts.Expression): QuestionKind | undefined => {
    const e = skipOuter(ts, expr);
    const inner = ts.isAwaitExpression(e) ? skipOuter(ts, e.expression) : e;
    return helperOfCall.has(inner as ts.CallExpression) ? undefined : questionCalls.get(inner);
  };
  const isQuestionCall = (node: ts.Node): boolean => questionCalls.has(node);
  // Reading the client's capabilities (a guard) changes nothing outside the handler.
  const isQuietCall = (node: ts.Node): boolean => questionCalls.has(node) || guardCalls.has(node) || mappedQuestion(ts, node, call => questionCalls.has(call));

  /** `reevaluated`: for an asking helper's call, the arguments its result part gets again on resume. */
  const factsAt = (raw: RawSite, context: SiteContext, call: ts.CallExpression | ts.NewExpression, reevaluated?: ts.Node[], split?: HelperSplit): Facts => {
    const boundary = context.type === 'handler' ? context.handler.fn : context.type === 'helper' ? context.helper : undefined;
    const flow = boundary ? analyzeFlow(ts, call, boundary) : undefined;
    let live: LiveLocalsResult | undefined;
    let effects: string[] = [];
    if (boundary && flow?.statement && boundary.body && raw.kind !== 'capability-guard') {
      live = liveLocals({
        ts, checker, fn: boundary, statement: flow.statement, awaited: flow.awaited,
        paramsResupplied: context.type === 'handler', questionOf, reevaluated,
      });
      effects = sideEffectsBefore(ts, boundary, flow.statement, flow.awaited, call, isQuietCall, checker);
    }
    return { raw, context, flow, live, effects, options: analyzeCallOptions(ts, raw.options, checker), viaHelper: split };
  };
  // In a framework's own package, its questions are the framework's own code (frameworks.ts ownCodeContext).
  const ownFramework = (raw: RawSite) => options.frameworkPackageOf?.(raw.node.getSourceFile().fileName);
  const facts: Facts[] = raws.map(raw => factsAt(raw, ownCodeContext(ts, contexts.contextOf(raw.node), raw.node, ownFramework(raw)), raw.call));

  const helperCx: HelperContext = { ts, checker, questionOf, isQuestionCall, exportsAllowed: crossFile };
  const chainCx: ChainContext = { ts, checker, program, crossFile, helperCx, resolverOf, reachingCalls, contexts, factsAt, facts };
  const chains = new Map<number, HelperChain>();
  const verdicts = facts.map((f, i) => {
    if (f.context.type !== 'helper' || !questionCalls.has(f.raw.call)) return verdictFor(ts, f, facts, resolverOf(f.raw.node), checker);
    const first = verdictFor(ts, f, facts, resolverOf(f.raw.node), checker, true);
    if (first.kind === 'refuse') return first;
    const chain = helperChain(chainCx, f.context.helper, f.raw.call, { type: 'push', raw: f.raw }, new Set());
    if (chain.verdict.kind === 'migrate') chains.set(i, chain);
    return chain.verdict;
  });

  const allSites = facts.map((f, i) => toSite(ts, f.raw.node.getSourceFile(), f, verdicts[i]!));
  // Every file's ignore comments count, so each file of a group decides alike; each file reports its own.
  const suppressions = new Map<ts.SourceFile, Suppression[]>();
  for (const file of included) suppressions.set(file, applySuppressions(ts, file, allSites.filter(s => s.node.getSourceFile() === file)));
  for (const file of included) {
    const withheld = options.rolledBack?.(file.fileName);
    if (withheld) withholdRolledBack(allSites.filter(s => s.node.getSourceFile() === file), withheld);
  }
  const rounds: RoundsContext = { ts, checker, questionOf };
  let plans = blockSiblings(ts, allSites, facts, resolverOf, chains, rounds);
  // A server that keeps requestState of its own comes last: a handler refused for its own code says
  // so (the same reason on a second run, once the first run wired its codec into the server).
  let stateProblem = false;
  const kept = new Map<ts.NewExpression, KeptStateHook>();
  allSites.forEach((site, i) => {
    const f = facts[i]!;
    const served = f.context.type === 'handler' ? [f.context.handler] : f.context.type === 'helper' ? f.context.handlers : [];
    if (site.verdict.kind !== 'migrate') return;
    const states = served.map(h => { const scope = scopeOf(h.fn.getSourceFile()); return handWrittenState(ts, h, scope.handlers, scope.resolver, checker); });
    const problem = states.find(p => p.problem)?.problem;
    if (problem) [site.verdict, stateProblem] = [problem, true];
    else for (const hook of states.flatMap(p => p.kept)) kept.set(hook.construction, hook);
  });
  if (stateProblem) plans = blockSiblings(ts, allSites, facts, resolverOf, chains, rounds);
  const helperSplits = [...new Set([...chains.entries()].filter(([i]) => allSites[i]!.verdict.kind === 'migrate').flatMap(([, c]) => c.splits))];
  return new Map([...included].map(file => [file, fileAnalysis(file, included, { sites: allSites, handlers: scopeOf(file).handlers, plans, helperSplits, typed: checker !== undefined, suppressions: suppressions.get(file)!, dualEra: [...scopeOf(file).dualEra], keptStateHooks: [...kept.values()] })]));
}

/** A site whose rewrite added type errors on an earlier attempt is refused, as rolled back, with the errors (`withheld`, by its index in the file). */
function withholdRolledBack(sites: Site[], withheld: ReadonlyMap<number, string>): void {
  sites.forEach((site, i) => {
    const hint = withheld.get(i);
    if (hint !== undefined && site.verdict.kind === 'migrate') site.verdict = { kind: 'refuse', reason: 'unsupported-construct', hint, rolledBack: true };
  });
}

/** What belongs to one file of a group: its sites, the plans of its handlers, the helpers declared in it. */
function fileAnalysis(file: ts.SourceFile, included: ReadonlySet<ts.SourceFile>, group: Pick<FileAnalysis, 'sites' | 'handlers' | 'plans' | 'helperSplits' | 'typed' | 'suppressions' | 'dualEra' | 'keptStateHooks'>): FileAnalysis {
  const mine = (node: ts.Node): boolean => node.getSourceFile() === file;
  return {
    fileName: file.fileName,
    sites: group.sites.filter(s => mine(s.node)),
    handlers: group.handlers,
    plans: group.plans.filter(p => mine(p.handler.fn)),
    helperSplits: group.helperSplits.filter(s => mine(s.fn)),
    linkedFiles: [...included].filter(f => f !== file).map(f => f.fileName),
    typed: group.typed,
    suppressions: group.suppressions,
    dualEra: group.dualEra,
    // The servers built here, and those built elsewhere that this file's handlers are registered on.
    keptStateHooks: group.keptStateHooks?.filter(k => mine(k.construction) || group.plans.some(p => mine(p.handler.fn) && p.constructions.includes(k.construction))),
  };
}

/** An asking helper's split and the handler calls that ask through it, when the whole chain migrates. */
/** What helperChain needs of the group's analysis. */
interface ChainContext {
  ts: TS;
  checker: ts.TypeChecker | undefined;
  program: ts.Program | undefined;
  crossFile: boolean;
  helperCx: HelperContext;
  resolverOf: (node: ts.Node) => SdkResolver;
  reachingCalls: (fn: ts.FunctionLikeDeclaration) => ts.CallExpression[];
  contexts: ContextFinder;
  factsAt: (raw: RawSite, context: SiteContext, call: ts.CallExpression | ts.NewExpression, reevaluated?: ts.Node[], split?: HelperSplit) => Facts;
  facts: Facts[];
}

/** Whether the helper `fn` can be split around `call`, and every caller up to the handlers rewritten. */
function helperChain(cx: ChainContext, fn: ts.FunctionLikeDeclaration, call: ts.CallExpression | ts.NewExpression, question: HelperQuestion, seen: Set<ts.FunctionLikeDeclaration>): HelperChain {
  const { ts, checker, program, crossFile, helperCx, resolverOf, reachingCalls, contexts, factsAt, facts } = cx;
  const refused = (reason: RefusalReason, hint: string): HelperChain => ({ verdict: refuse(reason, hint), splits: [], handlerQuestions: [] });
  const reaching = reachingCalls(fn);
  const atOf = (caller: ts.CallExpression): string => caller.getSourceFile() !== fn.getSourceFile() ? fileLine(caller) : `line ${lineOf(caller)}`;
  const callerContexts = new Map(reaching.filter(c => c.getSourceFile() === fn.getSourceFile() || crossFile).map(c => [c, contexts.callerContextOf(c)] as const));
  const helperName = functionNameNode(ts, fn)?.text ?? '<anonymous>';
  // A caller no request reaches (a `void` call, a timer, startup) decides before the helper's own shape.
  const outside = reaching.flatMap(c => {
    const context = callerContexts.get(c);
    return context ? outsideRequestRefusal(contexts, c, context, helperName, atOf(c)) ?? [] : [];
  });
  const split = splitHelper(helperCx, fn, call, question);
  if ('problem' in split) {
    const first = decisive([...outside.filter(o => o !== 'test'), { reason: 'unsupported-construct' as const, hint: `${split.problem}; migrate it by hand or move the question into the handler.` }], r => r.reason)!;
    return refused(first.reason, first.hint);
  }
  if (seen.has(fn)) return refused('unsupported-construct', `helper ${split.name}() is recursive.`);
  const calls = resolverOf(fn).callsOf(fn);
  // Calls that run it without calling it (through an interface member, a wrapper) refuse the split below, naming them,
  // except those through an interface member it can be split with (interfaceSplit.ts).
  const member = checker && reaching.length > calls.length ? splitMemberOf(ts, checker, fn) : undefined;
  const throughMember = member && 'member' in member ? reaching.filter(c => calledDeclaration(ts, checker!, c) === member.member) : [];
  if (throughMember.some(c => c.getSourceFile() !== fn.getSourceFile())) {
    return refused('unsupported-construct', `helper ${split.name}() is called through ${memberText(ts, (member as SplitMember).member)} from another file; the interface is split with the method only where its calls are in its file.`);
  }
  if (throughMember.length > 0) split.member = member as SplitMember;
  // Calls through a member or a bound copy are calls, refused below for what they are, not values.
  const other = otherHelperReference(ts, fn, reaching);
  if (other) return refused('unsupported-construct', `helper ${split.name}() is also used as a value (line ${lineOf(other)}), which would break when it is split into a request part and a result part.`);
  const notes = split.effects.length > 0
    ? [`side effects before the question in ${split.name}() run in the asking round; if the client never retries, the code after it never runs (${split.effects.join('; ')})`]
    : [];
  // Exported, or called from other files: every use in the project must be a call the rewrite
  // changes or a plain import of it, and the parts' names must be free wherever it is imported.
  const crossing = calls.some(c => c.getSourceFile() !== fn.getSourceFile());
  const indirect = reaching.length > calls.length + throughMember.length;
  if (crossFile && !crossing && !indirect && isExportedHelper(ts, fn)) {
    return refused('unsupported-construct', `helper ${split.name}() is exported, but no other file of the project calls it: code outside the project may, and would lose it when it is split; stop exporting it, or migrate it by hand.`);
  }
  if (crossFile && crossing && !indirect) {
    const problem = crossFileHelperProblem(ts, checker!, program!, fn, split.name, calls);
    if (typeof problem === 'string') return refused('unsupported-construct', `${problem}; migrate it by hand or move the question into the handler.`);
    split.partNames = problem.partNames;
    if (isExportedHelper(ts, fn)) {
      notes.push(`the exported ${split.name}() becomes ${problem.partNames.request}()${split.identity ? '' : ` and ${problem.partNames.result}()`}, and the files of this project that import it are rewritten with it; code outside the project that imports it must change the same way`);
    }
  }
  const result: HelperChain = { verdict: { kind: 'migrate', review: notes.length > 0, notes }, splits: [split], handlerQuestions: [] };
  // Every caller is judged; where several refuse, the decisive reason is the one reported (reasons.ts).
  const refusals: Array<{ reason: RefusalReason; hint: string }> = [];
  const fromTests: ts.CallExpression[] = [];
  for (const caller of reaching) {
    const at = atOf(caller);
    const context = callerContexts.get(caller);
    if (!context) {
      refusals.push({ reason: 'unsupported-construct', hint: `helper ${split.name}() is also called from ${at}; helpers are split only when every caller is in the same file (run mrtr-migrate on the project, which plans the files together, or migrate by hand).` });
      continue;
    }
    if (context.type === 'no-request') {
      const refusal = outsideRequestRefusal(contexts, caller, context, split.name, at)!;
      // A test's direct call does not keep a request from reaching the helper, but a split would break it.
      if (refusal === 'test') fromTests.push(caller);
      else refusals.push(refusal);
      continue;
    }
    const via = throughMember.includes(caller) ? undefined : indirectCallVia(caller, fn);
    if (via) {
      const why = member && 'problem' in member ? `, and the interface cannot be split with it: ${member.problem}` : '; a split cannot follow a call that may run other code too';
      refusals.push({ reason: 'unsupported-construct', hint: `helper ${split.name}() is reached ${via}${why} (${at}), so migrate it by hand.` });
      continue;
    }
    const problem = helperCallProblem(ts, caller, split.name, checker);
    if (problem) {
      refusals.push({ reason: 'unsupported-construct', hint: `${problem} (${at}).` });
      continue;
    }
    let verdict: Verdict;
    if (context.type === 'handler') {
      const reevaluated = split.identity ? [] : split.resultParams.map(i => caller.arguments[i]).filter((a): a is ts.Expression => !!a);
      const callerFacts = factsAt({ ...split.raw, node: caller, call: caller }, context, caller, reevaluated, split);
      verdict = verdictFor(ts, callerFacts, facts, resolverOf(caller), checker);
      if (verdict.kind === 'migrate') result.handlerQuestions.push({ call: caller, split, facts: callerFacts });
    } else {
      const up = helperChain(cx, context.helper, caller, { type: 'helper', call: caller, split }, new Set(seen).add(fn));
      verdict = up.verdict;
      if (verdict.kind === 'migrate') {
        result.splits.push(...up.splits);
        result.handlerQuestions.push(...up.handlerQuestions);
      }
    }
    if (verdict.kind === 'refuse') {
      const by = context.type === 'handler' ? describeHandlers([context.handler]) : `helper ${context.helperName}()`;
      // The obstacle first (a marker keeps the first clause), then where the chain meets it.
      refusals.push({ reason: verdict.reason, hint: `${verdict.hint.replace(/\.$/, '')} (where ${by} calls ${split.name}(), ${at}).` });
      continue;
    }
    const prior = result.verdict as Extract<Verdict, { kind: 'migrate' }>;
    result.verdict = { kind: 'migrate', review: prior.review || verdict.review, notes: [...new Set([...prior.notes, ...verdict.notes])] };
  }
  if (fromTests.length > 0) {
    refusals.push({ reason: 'unsupported-construct', hint: `helper ${split.name}() is also called by a test (${listed(fromTests.map(atOf))}); splitting it into request and result parts would break that call, so migrate both by hand.` });
  }
  const first = decisive(refusals, r => r.reason);
  if (first) return refused(first.reason, first.hint);
  return result;
}

/** Why a helper's caller that no request reaches keeps it from being split ('test' for a test's call), or undefined where one does. */
function outsideRequestRefusal(contexts: ContextFinder, caller: ts.CallExpression, context: SiteContext, name: string, at: string): { reason: RefusalReason; hint: string } | 'test' | undefined {
  if (context.type !== 'no-request') return undefined;
  if (contexts.isTestCall(caller, context)) return 'test';
  if (context.why === 'framework') return { reason: 'framework', hint: `helper ${name}() is also called at ${at}, where ${context.detail}; ${frameworkHint(context.framework!)}` };
  if (context.why === 'fire-and-forget') return { reason: 'fire-and-forget', hint: `helper ${name}() is started at ${at} and never awaited, so the request may be gone when it asks; await the call or drop the question.` };
  return { reason: reasonOfNoRequest(context.why), hint: `helper ${name}() is also called at ${at}, where ${context.detail}; no request is live there to carry the question.` };
}

/** The declaration a call's callee names (`this.confirmer.confirm` → `Confirmer.confirm`). */
function calledDeclaration(ts: TS, checker: ts.TypeChecker, call: ts.CallExpression): ts.Declaration | undefined {
  const callee = skipOuter(ts, call.expression);
  return ts.isPropertyAccessExpression(callee) ? checker.getSymbolAtLocation(callee.name)?.declarations?.[0] : undefined;
}

function memberText(ts: TS, member: ts.MethodSignature): string {
  const owner = member.parent;
  return `${ts.isInterfaceDeclaration(owner) ? owner.name.text : '<interface>'}.${member.name.getText()}()`;
}

interface HelperChain {
  verdict: Verdict;
  splits: HelperSplit[];
  handlerQuestions: Array<{ call: ts.CallExpression; split: HelperSplit; facts: Facts }>;
}

function toSite(ts: TS, sourceFile: ts.SourceFile, f: Facts, verdict: Verdict): Site {
  const node = f.raw.node;
  const start = node.getStart(sourceFile);
  const { line, character } = sourceFile.getLineAndCharacterOfPosition(start);
  return {
    id: `${sourceFile.fileName}:${line + 1}:${character + 1}`,
    file: sourceFile.fileName,
    start,
    end: node.getEnd(),
    line: line + 1,
    column: character + 1,
    kind: f.raw.kind,
    api: f.raw.api,
    sdk: f.raw.sdk,
    node,
    context: f.context,
    controlFlow: f.flow?.tags ?? [],
    liveLocals: f.live?.locals ?? [],
    sideEffectsBefore: f.effects,
    callOptions: f.options.names,
    verdict,
  };
}

const refuse = (reason: RefusalReason, hint: string): Verdict => ({ kind: 'refuse', reason, hint });

const API_LABEL: Record<SiteApi, string> = {
  'server.elicitInput': 'elicitInput()',
  'server.createMessage': 'createMessage()',
  'server.listRoots': 'listRoots()',
  'server.request': 'server.request()',
  'extra.sendRequest': 'extra.sendRequest()',
  'ctx.mcpReq.elicitInput': 'ctx.mcpReq.elicitInput()',
  'ctx.mcpReq.requestSampling': 'ctx.mcpReq.requestSampling()',
  'ctx.mcpReq.send': 'ctx.mcpReq.send()',
  UrlElicitationRequiredError: 'UrlElicitationRequiredError',
  getClientCapabilities: 'getClientCapabilities()',
  'experimental.tasks': 'experimental.tasks API',
  framework: 'a framework question',
};

/** How a site's call is named in a hint: its API, or for v1's experimental task API the method called. */
function labelOf(ts: TS, raw: RawSite): string {
  if (raw.framework) return raw.framework.label;
  const callee = skipOuter(ts, raw.call.expression);
  if (raw.api === 'experimental.tasks' && ts.isPropertyAccessExpression(callee)) return `experimental.tasks.${callee.name.text}()`;
  return API_LABEL[raw.api];
}

/** The verdict for one site on its own; siblings in the same handler are considered afterwards. */
function verdictFor(ts: TS, f: Facts, all: Facts[], resolver: SdkResolver, checker: ts.TypeChecker | undefined, inHelper = false): Verdict {
  const { raw, context, flow } = f;
  const label = labelOf(ts, raw);
  const framework = context.type === 'no-request' && context.why === 'framework' ? context.framework : raw.framework?.framework;
  if (framework) {
    // Where the framework calls the handler, the detail says so; a framework's API elsewhere is named by its call.
    const where = context.type === 'no-request' && context.why === 'framework' ? context.detail : `${label} is ${framework}'s API`;
    const own = context.type === 'no-request' && context.ownCode === true;
    return refuse('framework', `${where}; ${own ? ownCodeHint(framework) : frameworkHint(framework)}`);
  }
  if (raw.untypedReceiver) {
    const text = raw.untypedReceiver.getText();
    return refuse('untyped-receiver', `\`${text.length > 40 ? `${text.slice(0, 37)}...` : text}\` has type any, so nothing shows this is the SDK's server or context; give it its type and run again, or migrate by hand.`);
  }
  // A tasks/* request has no 2026-07-28 form wherever it is sent: that decides before where it is.
  if (raw.kind === 'task-request') return refuse('task-augmented', taskRequestHint(raw, label));

  if (context.type === 'no-request' && raw.kind === 'capability-guard') {
    const reason = context.why === 'detached-task' || context.why === 'fire-and-forget' || context.why === 'caller-not-found' ? context.why : 'no-live-request';
    const where = reason === 'caller-not-found' ? 'no request was found to be live there' : 'no request is live there';
    return refuse(reason, `${context.detail}; ${where}, so there are no per-request capabilities to read: decide inside the handler, from ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY].`);
  }
  if (context.type === 'no-request') {
    const reason = reasonOfNoRequest(context.why);
    switch (reason) {
      case 'detached-task':
        return refuse(reason, `${context.detail}; no request is live to carry the question. Ask inside a handler or drop the question.`);
      case 'unsupported-construct':
        return refuse(reason, `${context.detail}; questions reached through a function value are not rewritten yet: let the registrar hand the function to the SDK unchanged (that is rewritten), or migrate by hand.`);
      case 'no-live-request':
        return refuse(reason, `${context.detail}; only tools/call, prompts/get and resources/read handlers can ask the client.`);
      case 'caller-not-found':
        return refuse(reason, `${context.detail}; register the function where the analysis can read it (registerTool(name, config, fn), a local registrar), or migrate by hand.`);
      case 'relay':
        return refuse(reason, `${context.detail}; pass the question through instead: where this server's tool calls the upstream, return the upstream's input-required result as its own and send the client's answers back on the retry (by hand; the report has a sketch).`);
      default:
        return refuse(reason, context.detail);
    }
  }
  // Every request carries its capabilities on 2026-07-28, not only those that may ask: any handler's guard can be rewritten.
  if (raw.kind === 'capability-guard') return guardVerdict(ts, f);
  if (context.type === 'handler' && !MRTR_METHODS.has(context.handler.method)) {
    return refuse('handler-kind', `a ${context.handler.method} handler cannot return input_required; only tools/call, prompts/get and resources/read can ask the client.`);
  }
  // Decisive before anything about the helper itself: no handler that reaches it may ask.
  if (context.type === 'helper' && context.handlers.every(h => !MRTR_METHODS.has(h.method))) {
    const kinds = [...new Set(context.handlers.map(h => h.method))].join(' and ');
    return refuse('handler-kind', `${context.helperName}() runs in a ${kinds} handler, which cannot return input_required; only tools/call, prompts/get and resources/read can ask the client.`);
  }
  const task = taskHint(f, label);
  if (task) return refuse('task-augmented', task);
  // An error object is not a promise: where it is thrown (or not) is judged in urlThrowVerdict.
  const isError = raw.api === 'UrlElicitationRequiredError';
  if (!isError && flow?.consumption === 'then' && thenChainAwaited(ts, raw.call)) {
    return refuse('unsupported-construct', `the ${label} answer is consumed through .then()/.catch(); await the call in its own statement instead.`);
  }
  // Inside a callback (`new Promise(resolve => ask().then(resolve))`) the callback is the problem, not the chain.
  if ((flow?.consumption === 'dropped' || flow?.consumption === 'then') && !flow.tags.includes('nested-callback')) {
    return refuse('fire-and-forget', `the ${label} promise is not awaited by the handler, so the request may be gone when it settles; await it or drop the question.`);
  }
  // A question per item (`await Promise.all(items.map(item => ask(item)))`) is one round with a key per item (flow.ts).
  if (flow?.list && 'problem' in flow.list) return refuse('parallel', flow.list.problem);
  if (flow?.list && (inHelper || context.type === 'helper')) {
    return refuse('parallel', 'a question per item (Promise.all over .map()) is asked inside a helper function; such a round is built in the handler itself: move the Promise.all there.');
  }
  // A helper that returns its answer as it is asks per item like the push call: its request part builds each request.
  if (flow?.list && f.viaHelper && !f.viaHelper.identity) {
    return refuse('parallel', `a question per item (Promise.all over .map()) is asked through helper ${f.viaHelper.name}(), which works on the answer before it returns; its result part would have to run per item on resume. Return the answer itself from the helper, or ask in a loop.`);
  }
  if (flow?.list && f.viaHelper?.requestAsync) {
    return refuse('parallel', `a question per item (Promise.all over .map()) is asked through helper ${f.viaHelper.name}(), which awaits other work before its question; each item's request would have to be awaited first. Do that work before the Promise.all.`);
  }
  const items = flow?.list && !('problem' in flow.list) ? flow.list.list : undefined;
  if (items && checker) {
    const type = checker.getTypeAtLocation(items);
    if (!checker.isArrayType(type) && !checker.isTupleType(type)) {
      return refuse('parallel', `\`${items.getText().slice(0, 40)}\` is not an array (${checker.typeToString(type).slice(0, 60)}), so its .map() may not call back once per item in order; spread it into an array first (\`[...items].map(...)\`).`);
    }
  }
  if (flow?.tags.includes('parallel') && flow.tags.includes('nested-callback')) {
    return refuse('parallel', 'the question is asked in parallel from a callback other than `await Promise.all(items.map(item => ask(item)))`, the one shape the rewrite turns into a round with a key per item; ask for all items in one question, or await them one by one in a loop.');
  }
  if (!isError && flow?.consumption === 'stored') {
    return refuse('unsupported-construct', `the ${label} promise is kept and awaited elsewhere; await the call where it is made.`);
  }
  if (raw.kind === 'url-elicitation' && raw.api === 'UrlElicitationRequiredError') return urlThrowVerdict(ts, f, all, resolver);
  // A pushed URL question whose elicitationId nothing uses again asks like a form (inputRequired.elicitUrl).
  if (raw.kind === 'url-elicitation') {
    const fn = context.type === 'handler' ? context.handler.fn : undefined;
    const problem = fn && !inHelper ? urlPushProblem(ts, raw, fn) : 'it is asked inside a helper function';
    if (problem) {
      return refuse('unsupported-construct', `the URL-mode elicitInput() is not rewritten as ${problem}; a 2026 URL question has no elicitationId (inputRequired.elicitUrl takes only message and url), so nothing could correlate a completion notification or a lookup with it. Return inputRequired({ inputRequests: { key: inputRequired.elicitUrl({ message, url }) } }) by hand and keep the correlation in requestState.`);
    }
  }
  // In a helper, the split (helpers.ts) and the calling handlers decide the rest.
  if (inHelper) return questionCallProblem(ts, f, checker) ?? { kind: 'migrate', review: false, notes: [] };
  if (context.type === 'helper') return refuse('unsupported-construct', `asked inside helper ${context.helperName}().`);
  if (!flow) return refuse('unsupported-construct', 'the question is not inside a function.');
  if (flow.tags.includes('nested-callback')) {
    return refuse('nested-callback', 'the question is asked inside a callback nested in the handler; move it to the handler body.');
  }
  // Loops, catch blocks, conditional expressions and Promise.all are judged by the handler's rounds plan (rounds.ts).
  if (!flow.form) return refuse('unsupported-construct', 'the question is not in a statement the rewrite can split.');
  if (flow.list && !('problem' in flow.list) && !listFormOk(ts, flow.statement, flow.form)) {
    return refuse('unsupported-construct', 'the answers of a question per item are used inside a larger statement; give them a statement of their own (`const answers = await Promise.all(items.map(...))`).');
  }
  // A side effect the registration would repeat in every round decides before the state, which is the handler's (reasons.ts).
  if (context.handler.wrapper?.repeats) return refuse('unsupported-construct', context.handler.wrapper.problem!);
  // State that cannot travel decides before what the rewrite does not handle yet (reasons.ts).
  const untravellable = untravellableLocal(f.live?.locals ?? []);
  if (untravellable) return untravellable;
  // An expression body becomes `{ return <body>; }` before the rewrite (normalize.ts); a question it
  // evaluates only under a condition needs the statements a block body would give it.
  if (!flow.statement && !flow.tags.every(t => t === 'straight-line')) {
    const where = flow.tags.includes('parallel') ? 'together with others (Promise.all)' : 'under a condition';
    return refuse('unsupported-construct', `the question is asked ${where} in an arrow function's expression body; give the handler a block body.`);
  }
  const caseProblem = flow.tags.includes('switch-case') ? switchCaseProblem(ts, flow.awaited, context.handler.fn) : undefined;
  if (caseProblem) return refuse('unsupported-construct', `${caseProblem}.`);
  if (flow.embeddedBlocker && flow.consumption !== 'parallel' && !flow.tags.includes('conditional-expression')) {
    return refuse('unsupported-construct', `${flow.embeddedBlocker}; move the question into its own statement.`);
  }
  const handler = context.handler;
  const shapeProblem = handlerShapeProblem(ts, handler, flow);
  if (shapeProblem) return refuse('unsupported-construct', shapeProblem);
  const outer = handler.wrapper?.outer;
  if (outer && all.some(o => (o.context.type === 'handler' && o.context.handler.fn === outer) || (o.context.type === 'helper' && o.context.handlers.some(h => h.fn === outer)))) {
    return refuse('unsupported-construct', 'the callback that calls this handler also asks the client itself; the rewrite does not turn both into phases at once.');
  }
  const callProblem = questionCallProblem(ts, f, checker);
  if (callProblem) return callProblem;
  const wiring = wiringProblem(ts, handler, resolver) ?? nameClash(ts, handler);
  if (wiring) return wiring;
  const locals = f.live?.locals ?? [];
  const unnameable = locals.find(l => l.typeProblem);
  if (unnameable) {
    return refuse('unsupported-construct', `\`${unnameable.name}\` is read after the question but ${unnameable.typeProblem}; move the type to module scope.`);
  }
  const unknown = locals.find(l => l.how === 'carry' && l.json === 'unknown');
  if (unknown) {
    const advice = checker ? 'give it a JSON type' : 'run with type information (a tsconfig / typed linting) or give it a JSON type';
    return refuse('unknown-local-type', `\`${unknown.name}\` is read after the question and ${unknown.why}; ${advice}.`);
  }
  const notes: string[] = [];
  if (f.effects.length > 0) notes.push(`side effects before the question run in the asking round; if the client never retries, the code after it never runs (${f.effects.join('; ')})`);
  // Dropping options changes what the question can do (time out, be aborted): never silently.
  notes.push(...f.options.notes);
  // Sealed, a secret cannot be read by the client; it still leaves the server with every round.
  for (const secret of locals.filter(l => l.how === 'carry' && l.secret)) {
    notes.push(`\`${secret.name}\` holds a secret (${secret.secret}) and travels in requestState: sealed, so the client cannot read it, but it leaves the server with every round and opens for whoever holds the key; fetch it again after the question, or keep it on the server under an id the state carries`);
  }
  return { kind: 'migrate', review: notes.length > 0, notes };
}

/**
 * Why a pushed URL-mode elicitInput() cannot become `inputRequired.elicitUrl({ message, url })`, as a
 * clause read after "is not rewritten as": its params are not an object literal at the call of just
 * mode, message, url and elicitationId, or the elicitationId is used again (a completion
 * notification, a lookup), which the 2026 question cannot carry, or computing it could be seen.
 */
function urlPushProblem(ts: TS, raw: RawSite, fn: ts.FunctionLikeDeclaration): string | undefined {
  const params = raw.params && skipOuter(ts, raw.params);
  if (!params || !ts.isObjectLiteralExpression(params)) return 'its params are not written at the call';
  const shape = urlMembers(ts, params);
  if ('stray' in shape) return `\`${shape.stray.getText().slice(0, 40)}\` has no place in inputRequired.elicitUrl({ message, url })`;
  if (!shape.members.has('message') || !shape.members.has('url')) return 'its params do not spell out message and url';
  const idMember = shape.members.get('elicitationId');
  const id = idMember && memberValue(ts, idMember);
  let notifier: ts.Node | undefined;
  const findNotifier = (n: ts.Node): void => {
    if (!notifier && ts.isPropertyAccessExpression(n) && n.name.text === 'createElicitationCompletionNotifier') notifier = n;
    n.forEachChild(findNotifier);
  };
  findNotifier(fn);
  if (notifier) return `the handler sends a completion notification for it (line ${lineOf(notifier)})`;
  // Names the id is built from must be used nowhere else: `const id = randomUUID(); ... pending.set(id, ...)`.
  const again = id && reusedName(ts, id, fn);
  if (again) return `its elicitationId \`${again.text}\` is used again (line ${lineOf(again)})`;
  // The id is dropped, so what computes it no longer runs: only what no one can observe may compute it.
  const call = id && observableCall(ts, id);
  return call ? `its elicitationId is computed by \`${call.getText().slice(0, 40)}\`, which would no longer run` : undefined;
}

/** A reference, outside `value`, to a local that `value` reads (its declaration aside). */
function reusedName(ts: TS, value: ts.Node, fn: ts.FunctionLikeDeclaration): ts.Identifier | undefined {
  const decls = new Set<unknown>();
  const collect = (n: ts.Node): void => {
    if (ts.isIdentifier(n)) {
      const decl = resolveIdentifier(ts, n);
      if (decl && decl.kind !== 'import' && !ts.isSourceFile(decl.scope)) decls.add(decl);
    }
    n.forEachChild(collect);
  };
  collect(value);
  let found: ts.Identifier | undefined;
  const visit = (n: ts.Node): void => {
    if (found || n === value) return;
    if (ts.isIdentifier(n)) {
      const decl = resolveIdentifier(ts, n);
      if (decl && decls.has(decl) && decl.nameNode !== n) found = n;
    }
    n.forEachChild(visit);
  };
  visit(fn);
  return found;
}

/** The handler (of `index`) whose code holds `node`, through the functions nested in it. */
function enclosingHandler(ts: TS, node: ts.Node, index: ReadonlyMap<ts.FunctionLikeDeclaration, Handler>): ts.FunctionLikeDeclaration | undefined {
  for (let n = node.parent; n; n = n.parent) if (isFunctionLike(ts, n) && index.has(n)) return n;
  return undefined;
}

/** The statements a list round's answers may be received in: `const answers = ...`, `answers = ...`, or dropped. */
function listFormOk(ts: TS, statement: ts.Statement | undefined, form: AnswerForm): boolean {
  if (!statement) return false;
  if (form === 'discard' || form === 'assign') return true;
  return form === 'declare' && ts.isVariableStatement(statement) && ts.isIdentifier(statement.declarationList.declarations[0]!.name);
}

/** A local read after the question that cannot travel in requestState: not JSON, or an object that lives in the server. */
function untravellableLocal(locals: readonly LiveLocal[]): Verdict | undefined {
  const bad = locals.find(l => l.how === 'carry' && l.json === 'no');
  if (bad?.liveObject) {
    // Not state that failed to serialize: an object that lives in the server.
    return refuse('non-json-local', `\`${bad.name}\`${bad.type ? ` (${bad.type})` : ''} lives in the server, not in requestState: it ${bad.liveObject}; get it again after the question, or read it from where the server keeps it.`);
  }
  if (bad?.sharedState) {
    const { origin, via, changes, code, line, guardLine } = bad.sharedState;
    const of = via ? `objects ${via} returns from \`${origin}\`` : `objects of \`${origin}\``;
    const lookup = guardLine ? ` Its lookup cannot run again on resume because the check after it (line ${guardLine}) does more than return or throw.` : '';
    if (changes === 'call') {
      return refuse('shared-state-mutated', `\`${bad.name}\` holds ${of}, which \`${code}\` (line ${line}) may change; it is read after that call, and a copy in requestState would not see the change: look it up again after the question, by an id the state carries.${lookup}`);
    }
    return refuse('shared-state-mutated', `\`${bad.name}\` holds ${of}, ${changes ? 'changed' : 'used by identity'} after the question (\`${code}\`, line ${line}); a copy in requestState would not reach them: look it up again after the question, by an id the state carries.${lookup}`);
  }
  if (bad) {
    return refuse('non-json-local', `\`${bad.name}\`${bad.type ? ` (${bad.type})` : ''} is read after the question but cannot travel in requestState: ${bad.why}.`);
  }
  return undefined;
}

/**
 * `throw new UrlElicitationRequiredError([{ mode: 'url', elicitationId, url, message }])`: the 2025
 * client answers the -32042 error by having the user open the URL and sending the same call again,
 * which runs the handler from the top. The rewrite returns the URL as an input-required question
 * and, when the answer is accept, runs the handler from the top again (see rewriteUrlHandler).
 */
function urlThrowVerdict(ts: TS, f: Facts, all: Facts[], resolver: SdkResolver): Verdict {
  const { raw, context, flow } = f;
  if (context.type !== 'handler' || !flow) return refuse('unsupported-construct', 'the UrlElicitationRequiredError is not built inside a handler.');
  const handler = context.handler;
  let node: ts.Node = raw.call;
  while (node.parent && ts.isParenthesizedExpression(node.parent)) node = node.parent;
  const thrown = node.parent;
  if (!thrown || !ts.isThrowStatement(thrown)) {
    return refuse('unsupported-construct', 'the UrlElicitationRequiredError is not thrown where it is built; write `throw new UrlElicitationRequiredError([...])` so the rewrite can return the URL question in its place.');
  }
  if (flow.tags.includes('nested-callback')) {
    return refuse('nested-callback', 'the UrlElicitationRequiredError is thrown inside a callback nested in the handler, not by the handler itself; throw it from the handler body.');
  }
  for (let n: ts.Node = thrown; n.parent && n !== handler.fn; n = n.parent) {
    const parent = n.parent;
    if (ts.isTryStatement(parent) && parent.tryBlock === n && parent.catchClause) {
      return refuse('unsupported-construct', 'the UrlElicitationRequiredError is thrown inside a try with a catch, which sees the error in the legacy flow but would not see a returned question; move the throw out of the try.');
    }
    if (ts.isTryStatement(parent) && parent.catchClause === n) {
      return refuse('unsupported-construct', 'the UrlElicitationRequiredError is thrown from a catch block; questions inside a catch block are not rewritten yet.');
    }
  }
  const [elicitations, message, ...rest] = raw.call.arguments ?? [];
  const list = elicitations && skipOuter(ts, elicitations);
  if (!list || !ts.isArrayLiteralExpression(list) || list.elements.length !== 1 || rest.length > 0) {
    return refuse('unsupported-construct', 'only a UrlElicitationRequiredError with one elicitation written as an array literal is rewritten (one question per round); several URLs need one inputRequired.elicitUrl() each, by hand.');
  }
  const element = skipOuter(ts, list.elements[0]!);
  if (!ts.isObjectLiteralExpression(element)) return refuse('unsupported-construct', 'the elicitation is not an object literal; write { mode: \'url\', elicitationId, url, message } inline.');
  const shape = urlMembers(ts, element);
  if ('stray' in shape && shape.name === undefined) {
    return refuse('unsupported-construct', 'the elicitation object has a spread, method or computed key; write { mode: \'url\', elicitationId, url, message } out.');
  }
  if ('stray' in shape) {
    return refuse('unsupported-construct', `the elicitation carries \`${shape.name}\`, which inputRequired.elicitUrl({ message, url }) has no place for; migrate by hand.`);
  }
  const names = shape.members;
  if (!names.has('url') || !names.has('message')) return refuse('unsupported-construct', 'the elicitation does not spell out url and message; write them in the object literal.');
  if (message && !isConstantText(ts, message)) {
    return refuse('unsupported-construct', 'the error message is computed; the rewrite re-uses it when the user declines, so write it as a string literal or drop it.');
  }
  const shapeProblem = handlerShapeProblem(ts, handler, flow);
  if (shapeProblem) return refuse('unsupported-construct', shapeProblem);
  const other = all.find(o => o !== f && o.raw.kind !== 'capability-guard' && !(o.raw.kind === 'url-elicitation' && o.raw.api === 'UrlElicitationRequiredError') &&
    o.context.type === 'handler' && o.context.handler === handler);
  if (other) {
    return refuse('unsupported-construct', 'the handler also asks push-style questions; a handler that both asks and throws UrlElicitationRequiredError is not rewritten yet.');
  }
  // A helper that asks on the handler's behalf is a question too; the URL rewrite does not rewrite guards.
  if (all.some(o => o.context.type === 'helper' && o.context.handlers.includes(handler) && o.raw.kind !== 'url-elicitation')) {
    return refuse('unsupported-construct', 'the handler also asks through a helper or guards on capabilities in one; a handler that both asks and throws UrlElicitationRequiredError is not rewritten yet.');
  }
  if (all.some(o => o.raw.kind === 'capability-guard' && o.context.type === 'handler' && o.context.handler === handler)) {
    return refuse('unsupported-construct', 'the handler also guards on getClientCapabilities(); a handler that both guards and throws UrlElicitationRequiredError is not rewritten yet.');
  }
  const wiring = wiringProblem(ts, handler, resolver) ?? nameClash(ts, handler);
  if (wiring) return wiring;
  return {
    kind: 'migrate',
    review: true,
    notes: ['the URL travels as an inputRequired.elicitUrl() question; accepted, the handler runs again from the top, as the 2025 client\'s retry after -32042 did; declined or cancelled, the call fails with the error\'s message (2026-07-28 has no -32042 error), where the 2025 client would have stopped with the -32042 error'],
  };
}

function isConstantText(ts: TS, expr: ts.Expression): boolean {
  const e = skipOuter(ts, expr);
  return ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e);
}

/**
 * The codec is wired into every construction of the server. One in another file is wired there only
 * when the files are planned together (the CLI, `crossFile`), and only in a source file of
 * the project: not in a declaration file or a package.
 */
function wiringProblem(ts: TS, handler: Handler, resolver: SdkResolver): Verdict | undefined {
  const constructions = serverConstructions(ts, handler.receiver, resolver);
  const elsewhere = constructions.filter(c => c.getSourceFile() !== handler.fn.getSourceFile());
  const unwritable = elsewhere.find(c => !isProjectSource(c.getSourceFile()));
  if (unwritable) {
    return refuse('server-not-found', `the handler's server is constructed in ${fileLine(unwritable)}, a declaration file or package, where its requestState codec cannot be wired; migrate by hand.`);
  }
  if (elsewhere.length > 0 && !resolver.crossFileServers) {
    return refuse('server-not-found', `the handler's server is constructed in another file (${fileLine(elsewhere[0]!)}), where its requestState codec would have to be wired; run mrtr-migrate on the project (it plans both files together) or migrate by hand.`);
  }
  if (constructions.length === 0) {
    return refuse('server-not-found', 'the handler\'s server is not constructed in this file or in a file that calls it, so its requestState codec cannot be wired; construct it where the handler can be traced to it or migrate by hand.');
  }
  // `new AppServer(info, options)` hands its options to the SDK only when no class in between has a constructor of its own.
  for (const c of constructions) {
    const subclasses = resolver.serverClassOf(c.expression)?.subclasses ?? [];
    const name = (cls: ts.ClassLikeDeclaration): string => cls.name?.text ?? (ts.isVariableDeclaration(cls.parent) ? cls.parent.name.getText() : 'its class');
    const own = subclasses.find(cls => cls.members.some(m => ts.isConstructorDeclaration(m)));
    if (own) {
      return refuse('unsupported-construct', `the server is built by ${name(own)} (${fileLine(own)}), which has a constructor of its own, so options given to new ${c.expression.getText()}(...) may not reach the SDK; wire the requestState codec into its super(...) call by hand.`);
    }
    // A subclass that overrides how handlers are registered or answered sits between the SDK and the rewritten handler.
    for (const cls of subclasses) {
      const member = cls.members.find(m => m.name && OVERRIDE_SENSITIVE.has(m.name.getText()));
      if (member) return refuse('unsupported-construct', `the server is built by ${name(cls)} (${fileLine(cls)}), which overrides ${member.name!.getText()}(), so the SDK may not see the rewritten handler's input-required results as written; migrate by hand.`);
    }
  }
  return undefined;
}

/** Where the file's own names cannot stand beside the SDK names the rewrite imports (sdkNames.ts; it aliases them otherwise). */
function nameClash(ts: TS, handler: Handler): Verdict | undefined {
  const problem = sdkNameUse(ts, handler.fn.getSourceFile()).problem;
  return problem === undefined ? undefined : refuse('unsupported-construct', problem);
}

/** SDK server members a subclass may not override for its handlers to be rewritten. */
const OVERRIDE_SENSITIVE = new Set(['registerTool', 'tool', 'registerPrompt', 'prompt', 'registerResource', 'resource', 'setRequestHandler', 'connect', 'server', 'elicitInput', 'createMessage', 'listRoots', 'request']);

/**
 * The server already keeps requestState of its own: a `requestState` option, or a handler that reads
 * `ctx.mcpReq.requestState()` or returns `inputRequired({ requestState })` by hand. The rewrite mints
 * with a codec an earlier run wrote (writtenCodec.ts); beside a hook of the server's own, or handlers
 * that read their state unverified, it wires its codec so that their states still reach them as before
 * (`kept`): in the handler's file, or through the codec module the project's plan shares between the
 * files of a server (sharedCodec.ts).
 */
function handWrittenState(ts: TS, handler: Handler, handlers: readonly Handler[], resolver: SdkResolver, checker: ts.TypeChecker | undefined): { problem?: Verdict; kept: KeptStateHook[] } {
  const constructions = serverConstructions(ts, handler.receiver, resolver);
  const lineOf = (node: ts.Node): number => node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const file = handler.fn.getSourceFile();
  const refused = (hint: string) => ({ problem: refuse('unsupported-construct', hint), kept: [] });
  const codecs: string[] = [];
  const kept = new Map<ts.NewExpression, KeptStateHook>();
  const keptBefore = new Set<ts.NewExpression>();
  for (const construction of constructions) {
    const option = requestStateOption(ts, construction);
    const hidden = option ? undefined : hiddenOptions(ts, construction, checker);
    if (hidden) return refused(`the server's options (line ${lineOf(construction)}) take \`${hidden}\`, which may hold a requestState option that the rewrite's would replace; write requestState in the options literal of the construction, then run again.`);
    if (!option) continue;
    const place = fileLine(construction);
    const written = writtenCodecOf(ts, construction, checker);
    // Wired to mrtr-migrate/runtime by an earlier run: the plan shares it again (sharedCodec.ts).
    if (written && 'specifier' in written.declaredIn && written.declaredIn.specifier !== RUNTIME_SPECIFIER) {
      return refused(`the server (${place}) verifies requestState with ${written.codec} from ${written.declaredIn.specifier}, a module the rewrite could not read; migrate this handler by hand with ${written.codec}.mint (or run it with the project's tsconfig).`);
    }
    if (written) {
      // Imported, it is the shared module of a server in several files, which the handler imports too.
      if ('file' in written.declaredIn && !written.declaredIn.imported && written.declaredIn.file !== file) return refused(`the server (${place}) verifies requestState with the ${written.codec} an earlier run wrote into its file, which a handler in another file cannot mint with yet; migrate this handler by hand with it.`);
      codecs.push(written.codec);
      // Wired beside the server's own hook by an earlier run: the server's handlers keep their state.
      if (written.keeps) keptBefore.add(construction);
      continue;
    }
    const hook = ownVerifyHook(ts, option);
    if (!hook) return refused(`the server (line ${lineOf(construction)}) has a requestState option other than { verify: <hook> }, beside which the rewrite cannot wire its codec; migrate this handler by hand with the server's codec.`);
    // Kept as a function, the method would no longer be called on the option object.
    const self = ts.isMethodDeclaration(hook) ? thisOf(ts, hook) : undefined;
    if (self) return refused(`the server's verify method (line ${lineOf(hook)}) reads \`this\` (line ${lineOf(self)}), which the rewrite cannot keep beside its codec; write the hook as a function, then run again.`);
    // A server built in another file shares the codec module the project's plan writes: its hook is kept there.
    if (construction.getSourceFile() !== file && !resolver.crossFileServers) return refused(`the server (${place}) verifies requestState with a hook of its own and is built in another file, beside which the rewrite wires its codec only when it plans both files; run mrtr-migrate on the project, or migrate by hand.`);
    kept.set(construction, { construction, hook });
  }
  for (const other of handlers) {
    const servers = serverConstructions(ts, other.receiver, resolver).filter(c => constructions.includes(c));
    if (servers.length === 0) continue;
    // The earlier run's handlers (or one written by hand with its codec) keep their state in it.
    if (codecs.some(codec => mintsWith(ts, other.fn, codec))) continue;
    const use = requestStateUse(ts, other.fn);
    if (!use) continue;
    const elsewhere = servers.find(c => c.getSourceFile() !== file);
    if (elsewhere && !resolver.crossFileServers) {
      return refused(`${describeHandlers([other])} (line ${lineOf(use)}) keeps a requestState of its own on a server built in another file (${fileLine(elsewhere)}), beside which the rewrite wires its codec only when it plans both files; run mrtr-migrate on the project, or migrate by hand.`);
    }
    for (const c of servers) {
      if (kept.has(c) || keptBefore.has(c)) continue;
      // Its state does not pass the codec an earlier run wired into the server.
      if (requestStateOption(ts, c)) return refused(`${describeHandlers([other])} (line ${lineOf(use)}) already keeps a requestState of its own, which the verify hook an earlier run wired into the server (${fileLine(c)}) rejects; migrate by hand, with one codec for both.`);
      kept.set(c, { construction: c, hook: undefined });
    }
  }
  return { kept: [...kept.values()] };
}

/**
 * What the server's options take that may hold a requestState option the rewrite cannot see (the
 * wiring would replace it): options given as a value (`options`) or spread into the literal
 * (`...base`) whose type has a `requestState` property, or any type at all.
 */
function hiddenOptions(ts: TS, construction: ts.NewExpression, checker: ts.TypeChecker | undefined): string | undefined {
  const argument = construction.arguments?.[1];
  if (!argument || !checker) return undefined;
  const options = skipOuter(ts, argument);
  const literal = ts.isObjectLiteralExpression(options);
  const parts = literal ? options.properties.filter(ts.isSpreadAssignment).map(p => p.expression) : [options];
  const mayHold = (type: ts.Type): boolean => (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0 || (type.isUnion() ? type.types.some(mayHold) : type.getProperty('requestState') !== undefined);
  const found = parts.find(part => mayHold(checker.getTypeAtLocation(part)));
  return found && `${literal ? '...' : ''}${found.getText()}`;
}

/** The first `this` (or `super`) of a method's own body, outside nested functions that have their own. */
function thisOf(ts: TS, method: ts.MethodDeclaration): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (found || ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isClassLike(node)) return;
    if (node.kind === ts.SyntaxKind.ThisKeyword || node.kind === ts.SyntaxKind.SuperKeyword) found = node;
    else node.forEachChild(visit);
  };
  method.body?.forEachChild(visit);
  return found;
}

/**
 * The handler's own use of the SDK's requestState channel: `ctx.mcpReq.requestState()`, a low-level
 * `request.params.requestState`, or `requestState` given to `inputRequired({ ... })` or written beside
 * `resultType`. A `requestState` field of the server's own shapes (state carried in a tool argument and
 * a result's text, as the SDK's backwards-compatibility demos do) never meets the verify hook.
 */
function requestStateUse(ts: TS, fn: ts.FunctionLikeDeclaration): ts.Node | undefined {
  const named = (node: ts.Node | undefined, name: string): boolean =>
    !!node && (ts.isIdentifier(node) || ts.isStringLiteral(node)) && node.text === name;
  const sentToSdk = (literal: ts.ObjectLiteralExpression): boolean => {
    if (literal.properties.some(p => named(p.name, 'resultType'))) return true;
    let call: ts.Node = literal.parent;
    while (ts.isParenthesizedExpression(call) || ts.isAsExpression(call) || ts.isSatisfiesExpression(call)) call = call.parent;
    if (!ts.isCallExpression(call) || !call.arguments.some(a => skipOuter(ts, a) === literal)) return false;
    return named(ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression, 'inputRequired');
  };
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'requestState') {
      const called = ts.isCallExpression(node.parent) && node.parent.expression === node;
      const target = skipOuter(ts, node.expression);
      if (called || (ts.isPropertyAccessExpression(target) && target.name.text === 'params')) found = node;
    } else if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) && named(node.name, 'requestState') && sentToSdk(node.parent)) found = node;
    if (!found) node.forEachChild(visit);
  };
  if (fn.body) visit(fn.body);
  return found;
}

/** What the push call itself must be for the rewrite to rebuild it as an inputRequired() request. */
function questionCallProblem(ts: TS, f: Facts, checker: ts.TypeChecker | undefined): Verdict | undefined {
  const raw = f.raw;
  if (raw.api === 'extra.sendRequest' || raw.api === 'ctx.mcpReq.send' || raw.api === 'server.request') {
    if (raw.requestChanged) return refuse('unsupported-construct', `the request is built in a local before the call and ${raw.requestChanged}; build it once and leave it as it is until the question.`);
    if (raw.kind !== 'roots' && !raw.params) return refuse('unsupported-construct', 'the request is not an object literal with literal method and params, directly or in a local; write it inline.');
  }
  if (raw.kind === 'elicitation' && !elicitationIsForm(ts, raw.paramsWritten ?? raw.params, checker)) {
    const params = raw.paramsWritten ?? raw.params;
    if (params && elicitationModeByType(ts, params, checker) === 'url') {
      return refuse('unsupported-construct', `the URL-mode elicitInput() is not rewritten as its params are not written at the call (\`${params.getText().slice(0, 40)}\` is URL mode by its type); write { mode: 'url', message, url, elicitationId } in the call.`);
    }
    return refuse('unsupported-construct', 'cannot tell from the argument whether this elicitation is form or URL mode; pass an object literal (mode: "form").');
  }
  if (f.options.problem) return refuse('unsupported-construct', f.options.problem);
  return undefined;
}

/**
 * A `getClientCapabilities()` read in a request handler is rewritten to read the request's own
 * capabilities (the 2026-07-28 envelope, the initialize-scoped value on 2025 connections) through
 * the handler's context; it stays refused where that context is not at hand.
 */
function guardVerdict(ts: TS, f: Facts): Verdict {
  const { context, flow } = f;
  const perRequest = 'read the request\'s capabilities from ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY] (falling back to getClientCapabilities() on 2025 connections)';
  if (context.type === 'helper') {
    return refuse('unsupported-construct', `capability guard inside helper ${context.helperName}() (reached from ${describeHandlers(context.handlers)}); capability guards inside helpers are not rewritten yet: pass the handler's ctx to ${context.helperName}() and ${perRequest} there.`);
  }
  if (context.type !== 'handler') return refuse('no-live-request', 'no request is live here.');
  if (flow?.tags.includes('nested-callback')) {
    return refuse('nested-callback', `the capability read is inside a function nested in the handler; move it to the handler body or ${perRequest}.`);
  }
  const fn = context.handler.fn;
  const format = moduleFormatProblem(ts, fn.getSourceFile());
  if (format) return refuse('unsupported-construct', format);
  const ctxParam = fn.parameters[context.handler.ctxParamIndex];
  if (ctxParam && !ts.isIdentifier(ctxParam.name)) {
    return refuse('unsupported-construct', 'the handler destructures its context parameter; the per-request capabilities need the whole context (name it, e.g. `ctx`).');
  }
  if (ctxParam && ts.isIdentifier(ctxParam.name) && resolveName(ts, ctxParam.name.text, f.raw.call)?.declaration !== ctxParam) {
    return refuse('unsupported-construct', `\`${ctxParam.name.text}\` is redeclared between the handler's context parameter and the capability read; rename the inner one.`);
  }
  return { kind: 'migrate', review: false, notes: [] };
}


function describeHandlers(handlers: Handler[]): string {
  return handlers.map(h => (h.name ? `${h.method} "${h.name}"` : h.method)).join(', ');
}

/** What the user can do instead of a task the client runs: no 2026-07-28 question is one. */
const TASK_ADVICE = 'ask a plain question (inputRequired(); its answer comes with the retry), or make the tool itself a task (the io.modelcontextprotocol/tasks extension), by hand.';

/**
 * Why a question the client is to run as a task (`params.task`, the `task` option), that is queued
 * on one (`relatedTask`) or asked through v1's task streams has no 2026-07-28 form, and what to do.
 */
function taskHint(f: Facts, label: string): string | undefined {
  if (f.raw.task) return `the ${label} asks the client to run it as a task (\`task\`, line ${lineOf(f.raw.task)}); no 2026-07-28 question is a task: ${TASK_ADVICE}`;
  if (f.options.task === 'relatedTask') return `the ${label} is queued on a task by its relatedTask option (delivered through tasks/result); no 2026-07-28 question is a task's: ${TASK_ADVICE}`;
  if (f.options.task) return `the ${label} asks the client to run it as a task (call option \`task\`); no 2026-07-28 question is a task: ${TASK_ADVICE}`;
  if (f.raw.api === 'experimental.tasks') return `the ${label} asks through v1's experimental task layer, a stream v2 removed; no 2026-07-28 question is a task or a stream: ${TASK_ADVICE}`;
  return undefined;
}

/** A tasks/* request the server sends (the poll of a question the client runs as a task): what it is, and what the user can do. */
function taskRequestHint(raw: RawSite, label: string): string {
  const what = raw.taskMethod ? `sends ${raw.taskMethod} to the client` : 'sends a tasks/* request to the client';
  return `the ${label} ${what}, about a task the client runs; 2026-07-28 has no tasks on the client side: ${TASK_ADVICE}`;
}

/** Handler shapes the rewrite does not produce code for (yet). */
function handlerShapeProblem(ts: TS, handler: Handler, flow: FlowInfo): string | undefined {
  const fn = handler.fn;
  const format = moduleFormatProblem(ts, fn.getSourceFile());
  if (format) return format;
  if (fn.asteriskToken) return 'generator handlers are not rewritten.';
  if (handler.wrapper?.problem) return handler.wrapper.problem;
  if (!fn.body) return 'the handler has no body.';
  if (!ts.getModifiers(fn)?.some(m => m.kind === ts.SyntaxKind.AsyncKeyword)) return 'the handler is not async; the rewrite needs to await the state codec.';
  const ctxParam = fn.parameters[handler.ctxParamIndex];
  if (ctxParam && !ts.isIdentifier(ctxParam.name)) {
    // v1: the SDK stage names it first (src/analysis/contextParam.ts), where it can.
    const rename = handler.sdk === 'v1' ? contextRename(ts, fn, ctxParam) : undefined;
    if (!rename) return 'the handler destructures its context parameter; the rewrite needs the whole context (name it, e.g. `ctx`).';
    if ('problem' in rename) return `${rename.problem}.`;
  }
  if (!takesRequest(handler) && handler.name === undefined && handler.nameExpression === undefined) {
    return 'the tool / prompt / resource name is neither a string literal nor a constant the handler reads unchanged (a const, an `as const` or enum member, an unassigned parameter); the state binding needs it.';
  }
  if (takesRequest(handler)) {
    const request = fn.parameters[0];
    if (request && !ts.isIdentifier(request.name)) return 'the handler destructures its request parameter; name it (e.g. `request`) so the state can be bound to the call.';
  }
  return undefined;
}

/** Form mode is the default; URL mode must be ruled out from the literal or the checker. */
function elicitationIsForm(ts: TS, params: ts.Expression | undefined, checker: ts.TypeChecker | undefined): boolean {
  if (!params) return false;
  const e = skipOuter(ts, params);
  if (ts.isObjectLiteralExpression(e)) {
    const spread = e.properties.some(p => ts.isSpreadAssignment(p));
    const mode = e.properties.find(p => ts.isPropertyAssignment(p) && p.name.getText().replace(/['"]/g, '') === 'mode');
    if (mode && ts.isPropertyAssignment(mode)) {
      const value = skipOuter(ts, mode.initializer);
      return ts.isStringLiteralLike(value) && value.text === 'form';
    }
    if (!spread) return true;
  }
  if (!checker) return false;
  const type = checker.getTypeAtLocation(params);
  if (!type.getProperty('mode')) return type.getProperty('requestedSchema') !== undefined;
  return elicitationModeByType(ts, params, checker) === 'form';
}

/** The one mode the params' type allows (`mode?: 'form'` is form, `mode: 'url'` is URL), if one. */
function elicitationModeByType(ts: TS, params: ts.Expression, checker: ts.TypeChecker | undefined): 'form' | 'url' | undefined {
  const mode = checker?.getTypeAtLocation(params).getProperty('mode');
  if (!checker || !mode) return undefined;
  const modeType = checker.getTypeOfSymbolAtLocation(mode, params);
  const values = new Set((modeType.isUnion() ? modeType.types : [modeType]).filter(t => (t.flags & ts.TypeFlags.Undefined) === 0).map(t => (t.isStringLiteral() ? t.value : '?')));
  const [only] = values;
  return values.size === 1 && (only === 'form' || only === 'url') ? only : undefined;
}

/**
 * Never half-rewrite a handler: one refused question blocks the others. A split helper serves every
 * handler that calls it, so a handler that stays as it is keeps the helper, and the helper keeps its
 * other callers from being rewritten (repeated until nothing changes). Then collect the plans.
 */
interface RoundsContext {
  ts: TS;
  checker: ts.TypeChecker | undefined;
  questionOf: (expr: ts.Expression) => QuestionKind | undefined;
}

/** The step a question's round is named after: the local it answers, or what it asks. */
function preferredStep(ts: TS, q: QuestionPlan, statement: ts.Statement, form: string): string {
  if (form === 'declare' && ts.isVariableStatement(statement)) {
    const name = statement.declarationList.declarations[0]!.name;
    if (ts.isIdentifier(name)) return camelCase(name.text);
  }
  if (form === 'assign' && ts.isExpressionStatement(statement)) {
    const e = skipOuter(ts, statement.expression);
    if (ts.isBinaryExpression(e) && ts.isIdentifier(skipOuter(ts, e.left))) return camelCase((skipOuter(ts, e.left) as ts.Identifier).text);
  }
  return q.helper ? camelCase(q.helper.split.name) : q.kind;
}

function camelCase(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((w, i) => (i === 0 ? w[0]!.toLowerCase() : w[0]!.toUpperCase()) + w.slice(1)).join('');
  return /^[A-Za-z_]/.test(joined) ? joined : `x${joined}`;
}

function blockSiblings(ts: TS, sites: Site[], facts: Facts[], resolverOf: (node: ts.Node) => SdkResolver, chains: Map<number, HelperChain>, rounds: RoundsContext): HandlerPlan[] {
  const byHandler = new Map<Handler, number[]>();
  const reached = new Map<Handler, number[]>();
  const add = (map: Map<Handler, number[]>, handler: Handler, i: number): void => {
    const list = map.get(handler) ?? [];
    if (!list.includes(i)) list.push(i);
    map.set(handler, list);
  };
  sites.forEach((site, i) => {
    if (site.context.type === 'handler') add(byHandler, site.context.handler, i);
    // A question in a helper the handler calls is part of the handler too.
    if (site.context.type === 'helper') for (const handler of site.context.handlers) add(reached, handler, i);
  });
  const blockedBy = new Map<Handler, Site>();
  for (let changed = true; changed;) {
    changed = false;
    for (const handler of new Set([...byHandler.keys(), ...reached.keys()])) {
      if (blockedBy.has(handler)) continue;
      const own = byHandler.get(handler) ?? [];
      const viaHelpers = reached.get(handler) ?? [];
      const blocker = [...own, ...viaHelpers].map(i => sites[i]!).find(site => site.verdict.kind === 'refuse');
      if (!blocker) continue;
      blockedBy.set(handler, blocker);
      changed = true;
      const at = blocker.file === handler.fn.getSourceFile().fileName ? `line ${blocker.line}` : `${blocker.file.split('/').pop()}:${blocker.line}`;
      const where = blocker.context.type === 'helper'
        ? `a site in ${blocker.context.helperName}(), which this handler calls (${at}),`
        : `another site in the same handler (${at})`;
      const verdict = blocker.verdict as Extract<Verdict, { kind: 'refuse' }>;
      const reason = verdict.rolledBack ? 'rolled back: its rewrite added type errors' : verdict.reason;
      for (const i of own) {
        if (sites[i]!.verdict.kind === 'migrate') {
          sites[i]!.verdict = refuse('blocked-by-sibling', `${where} is refused (${reason}); a handler is rewritten whole or not at all.`);
        }
      }
      for (const i of viaHelpers) {
        const site = sites[i]!;
        if (site.verdict.kind !== 'migrate' || site.context.type !== 'helper') continue;
        site.verdict = refuse('blocked-by-sibling',
          `${describeHandlers([handler])} calls ${site.context.helperName}() but is not rewritten: its site at line ${blocker.line} is refused (${reason}); the helper stays whole for it.`);
      }
    }
  }

  const plans: HandlerPlan[] = [];
  for (const handler of new Set([...byHandler.keys(), ...reached.keys()])) {
    if (blockedBy.has(handler)) continue;
    const direct: QuestionPlan[] = (byHandler.get(handler) ?? [])
      .filter(i => sites[i]!.kind === 'elicitation' || sites[i]!.kind === 'sampling' || sites[i]!.kind === 'roots' || (sites[i]!.kind === 'url-elicitation' && sites[i]!.api !== 'UrlElicitationRequiredError'))
      .map(i => ({ site: sites[i]!, raw: facts[i]!.raw, flow: facts[i]!.flow!, live: facts[i]!.live!, kind: (facts[i]!.raw.kind === 'url-elicitation' ? 'elicitation' : facts[i]!.raw.kind) as QuestionKind, call: facts[i]!.raw.call }));
    const viaHelpers: QuestionPlan[] = (reached.get(handler) ?? []).flatMap(i => (chains.get(i)?.handlerQuestions ?? [])
      .filter(q => q.facts.context.type === 'handler' && q.facts.context.handler === handler)
      .map(q => ({ site: sites[i]!, raw: q.facts.raw, flow: q.facts.flow!, live: q.facts.live!, helper: { call: q.call, split: q.split }, kind: q.split.kind, call: q.call })));
    const questions = [...direct, ...viaHelpers].sort((a, b) => a.flow.awaited.getStart() - b.flow.awaited.getStart());
    const urlThrows = (byHandler.get(handler) ?? [])
      .filter(i => sites[i]!.kind === 'url-elicitation' && sites[i]!.api === 'UrlElicitationRequiredError')
      .map(i => ({ site: sites[i]!, raw: facts[i]!.raw, flow: facts[i]!.flow!, live: facts[i]!.live!, kind: 'elicitation' as const, call: facts[i]!.raw.call }))
      .sort((a, b) => a.site.start - b.site.start);
    if (questions.length === 0 && urlThrows.length === 0) continue;
    let roundsPlan: RoundsPlan<QuestionPlan> | undefined;
    // An expression body has its one question where `{ return <body>; }` will: it is planned once it is that block (normalize.ts).
    if (questions.length > 0 && handler.fn.body && ts.isBlock(handler.fn.body)) {
      const planned = planRounds<QuestionPlan>({
        ts, checker: rounds.checker, fn: handler.fn, questions, questionOf: rounds.questionOf,
        reevaluated: q => (q.helper && !q.helper.split.identity ? q.helper.split.resultParams.map(p => q.helper!.call.arguments[p]).filter((a): a is ts.Expression => !!a) : []),
        stepFor: (q, statement, form) => preferredStep(ts, q, statement, form),
        requestSource: q => (q.helper ? undefined : q.raw.kind === 'roots' ? null : q.raw.paramsVia ?? q.raw.params),
        ctxParam: handler.fn.parameters[handler.ctxParamIndex],
      });
      if (isRoundsProblem(planned)) {
        // The handler cannot be split into rounds: refuse the question, then block its siblings again.
        for (const q of planned.questions) q.site.verdict = refuse(planned.reason, planned.hint);
        return blockSiblings(ts, sites, facts, resolverOf, chains, rounds);
      }
      roundsPlan = planned;
      for (const suspension of planned.suspensions) {
        // Each question learns its own liveness from the handler's plan (one graph for all of them).
        for (const { question } of suspension.questions) {
          question.live = suspension.live;
          question.site.liveLocals = suspension.live.locals;
          const notes = planned.notes.get(suspension) ?? [];
          const v = question.site.verdict;
          if (v.kind === 'migrate' && notes.length > 0) {
            question.site.verdict = { kind: 'migrate', review: v.review || notes.some(n => n.review), notes: [...new Set([...v.notes, ...notes.map(n => n.text)])] };
          }
        }
      }
    }
    const guards = (byHandler.get(handler) ?? []).filter(i => sites[i]!.kind === 'capability-guard').map(i => sites[i]!);
    plans.push({ handler, questions, guards, urlThrows, constructions: serverConstructions(ts, handler.receiver, resolverOf(handler.fn)), rounds: roundsPlan });
  }
  return plans;
}
