import type * as ts from 'typescript';
import { ContextFinder } from './context.js';
import { statementList } from './continuation.js';
import { forEachValueIdentifier, isWriteReference, resolveIdentifier } from './scope.js';
import { detectSites, type RawSite } from './detect.js';
import { sideEffectsBefore } from './effects.js';
import { analyzeFlow, type FlowInfo } from './flow.js';
import { discoverHandlers, handlerIndex } from './handlers.js';
import { liveLocals, type LiveLocalsResult } from './locals.js';
import { SdkResolver, skipOuter } from './sdk.js';
import { serverConstructions } from './servers.js';
import { switchCaseProblem } from './switchCase.js';
import type { Handler, MrtrMethod, QuestionKind, RefusalReason, Site, SiteApi, SiteContext, TS, Verdict } from './types.js';

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
}

/** Everything the rewrite needs about one question. */
export interface QuestionPlan {
  site: Site;
  raw: RawSite;
  flow: FlowInfo;
  live: LiveLocalsResult;
}

/** A handler whose sites all migrate, with its questions in source order. */
export interface HandlerPlan {
  handler: Handler;
  questions: QuestionPlan[];
  /** The server constructions in this file the codec is wired into. */
  constructions: ts.NewExpression[];
}

export interface FileAnalysis {
  fileName: string;
  sites: Site[];
  handlers: Handler[];
  plans: HandlerPlan[];
  /** Whether a checker was available (types of locals known). */
  typed: boolean;
}

interface Facts {
  raw: RawSite;
  context: SiteContext;
  flow: FlowInfo | undefined;
  live: LiveLocalsResult | undefined;
  effects: string[];
  options: string[];
}

export function analyzeFile(options: AnalyzeOptions): FileAnalysis {
  const { ts, sourceFile, program } = options;
  const checker = program?.getTypeChecker();
  const resolver = new SdkResolver(ts, sourceFile, checker, options.externalCallSites);
  const handlers = discoverHandlers(ts, sourceFile, resolver);
  const index = handlerIndex(handlers);
  resolver.roles = {
    contextParam(fn) {
      const handler = index.get(fn);
      return handler ? { index: handler.ctxParamIndex, sdk: handler.sdk } : undefined;
    },
  };
  resolver.resetMemo();
  const raws = detectSites(ts, sourceFile, resolver);
  const contexts = new ContextFinder(ts, index, resolver);

  const questionCalls = new Map<ts.Node, QuestionKind>();
  for (const raw of raws) {
    if (raw.kind === 'elicitation' || raw.kind === 'sampling' || raw.kind === 'roots') questionCalls.set(raw.call, raw.kind);
  }
  const questionOf = (expr: ts.Expression): QuestionKind | undefined => {
    const e = skipOuter(ts, expr);
    const inner = ts.isAwaitExpression(e) ? skipOuter(ts, e.expression) : e;
    return questionCalls.get(inner);
  };

  const facts: Facts[] = raws.map(raw => {
    const context = contexts.contextOf(raw.node);
    const boundary = context.type === 'handler' ? context.handler.fn : context.type === 'helper' ? context.helper : undefined;
    const flow = boundary ? analyzeFlow(ts, raw.call, boundary) : undefined;
    let live: LiveLocalsResult | undefined;
    let effects: string[] = [];
    if (boundary && flow?.statement && boundary.body && raw.kind !== 'capability-guard') {
      live = liveLocals({
        ts, checker, fn: boundary, statement: flow.statement, awaited: flow.awaited,
        paramsResupplied: context.type === 'handler', questionOf,
      });
      effects = sideEffectsBefore(ts, boundary, flow.statement, flow.awaited, raw.call, node => questionCalls.has(node), checker);
    }
    return { raw, context, flow, live, effects, options: optionNames(ts, raw.options) };
  });

  const sites = facts.map(f => toSite(ts, sourceFile, f, verdictFor(ts, f, facts, resolver, checker)));
  const plans = blockSiblings(ts, sites, facts, resolver);
  return { fileName: sourceFile.fileName, sites, handlers, plans, typed: checker !== undefined };
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
    callOptions: f.options,
    verdict,
  };
}

function optionNames(ts: TS, options: ts.Expression | undefined): string[] {
  if (!options) return [];
  const e = skipOuter(ts, options);
  if (ts.isObjectLiteralExpression(e)) {
    return e.properties.map(p => (p.name ? p.name.getText().replace(/['"]/g, '') : '<spread>'));
  }
  if (e.kind === ts.SyntaxKind.UndefinedKeyword || (ts.isIdentifier(e) && e.text === 'undefined')) return [];
  return ['<expression>'];
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
};

/** The verdict for one site on its own; siblings in the same handler are considered afterwards. */
function verdictFor(ts: TS, f: Facts, all: Facts[], resolver: SdkResolver, checker: ts.TypeChecker | undefined): Verdict {
  const { raw, context, flow } = f;
  const label = API_LABEL[raw.api];

  if (context.type === 'no-request') {
    switch (context.why) {
      case 'detached-task':
        return refuse('detached-task', `${context.detail}; no request is live to carry the question. Ask inside a handler or drop the question.`);
      case 'other-method':
        return refuse('handler-kind', context.detail);
      case 'fire-and-forget':
        return refuse('fire-and-forget', context.detail);
      default:
        return refuse('no-live-request', `${context.detail}; only tools/call, prompts/get and resources/read handlers can ask the client.`);
    }
  }
  if (context.type === 'handler' && !MRTR_METHODS.has(context.handler.method)) {
    return refuse('handler-kind', `a ${context.handler.method} handler cannot return input_required; only tools/call, prompts/get and resources/read can ask the client.`);
  }
  if (raw.kind === 'capability-guard') {
    return refuse('unsupported-construct', 'getClientCapabilities() is initialize-scoped (undefined on 2026-07-28 connections served by serveStdio); rewriting capability guards is not supported yet: read the per-request capabilities from ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY].');
  }
  if (flow?.consumption === 'then' && thenChainAwaited(ts, raw.call)) {
    return refuse('unsupported-construct', `the ${label} answer is consumed through .then()/.catch(); await the call in its own statement instead.`);
  }
  // Inside a callback (`new Promise(resolve => ask().then(resolve))`) the callback is the problem, not the chain.
  if ((flow?.consumption === 'dropped' || flow?.consumption === 'then') && !flow.tags.includes('nested-callback')) {
    return refuse('fire-and-forget', `the ${label} promise is not awaited by the handler, so the request may be gone when it settles; await it or drop the question.`);
  }
  if (flow?.consumption === 'parallel' || flow?.tags.includes('parallel')) {
    return refuse('parallel', 'questions asked in parallel (Promise.all/race) cannot be split into rounds automatically; ask them in one inputRequired() with several keys.');
  }
  if (flow?.consumption === 'stored') {
    return refuse('unsupported-construct', `the ${label} promise is kept and awaited elsewhere; await the call where it is made.`);
  }
  if (context.type === 'helper') {
    return refuse('unsupported-construct', `asked inside helper ${context.helperName}() (reached from ${describeHandlers(context.handlers)}); rewriting helpers is not supported yet.`);
  }
  if (raw.kind === 'url-elicitation') {
    return refuse('unsupported-construct', 'URL-mode elicitation is not rewritten yet; return inputRequired({ inputRequests: { key: inputRequired.elicitUrl({ message, url }) } }) by hand.');
  }
  if (!flow) return refuse('unsupported-construct', 'the question is not inside a function.');
  if (flow.tags.includes('loop')) {
    return refuse('loop', 'the question is asked inside a loop; each iteration would need its own round. Collect what the loop needs first, or ask once for all items.');
  }
  if (flow.tags.includes('nested-callback')) {
    return refuse('nested-callback', 'the question is asked inside a callback nested in the handler; move it to the handler body.');
  }
  for (const tag of ['catch', 'finally', 'conditional-expression', 'labeled'] as const) {
    if (flow.tags.includes(tag)) return refuse('unsupported-construct', `questions inside ${TAG_TEXT[tag]} are not rewritten yet.`);
  }
  if (!flow.statement || !flow.form) return refuse('unsupported-construct', 'the question is not in a statement the rewrite can split.');
  const caseProblem = flow.tags.includes('switch-case') ? switchCaseProblem(ts, flow.awaited, context.handler.fn) : undefined;
  if (caseProblem) return refuse('unsupported-construct', `${caseProblem}.`);
  if (flow.embeddedBlocker) return refuse('unsupported-construct', `${flow.embeddedBlocker}; move the question into its own statement.`);
  const handler = context.handler;
  const shapeProblem = handlerShapeProblem(ts, handler, flow);
  if (shapeProblem) return refuse('unsupported-construct', shapeProblem);
  if (raw.api === 'extra.sendRequest' || raw.api === 'ctx.mcpReq.send' || raw.api === 'server.request') {
    if (raw.kind !== 'roots' && !raw.params) return refuse('unsupported-construct', 'the request is not an object literal with literal method and params; write it inline.');
  }
  if (raw.kind === 'elicitation' && !elicitationIsForm(ts, raw.params, checker)) {
    return refuse('unsupported-construct', 'cannot tell from the argument whether this elicitation is form or URL mode; pass an object literal (mode: "form").');
  }
  if (f.options.length > 0) {
    return refuse('unsupported-construct', `call options (${f.options.join(', ')}) are not carried over yet; MRTR rounds have no per-question timeout or signal.`);
  }
  // The guard may sit in a helper the handler calls (`if (!canSample()) ...`): same problem.
  if (all.some(other => other.raw.kind === 'capability-guard' &&
      ((other.context.type === 'handler' && other.context.handler === handler) ||
       (other.context.type === 'helper' && other.context.handlers.includes(handler))))) {
    return refuse('unsupported-construct', 'the handler guards on getClientCapabilities(), which is initialize-scoped and not per request on 2026-07-28; guard rewriting is not supported yet.');
  }
  if (serverConstructions(ts, handler.receiver, resolver).length === 0) {
    return refuse('server-not-found', 'the server this handler is registered on is not constructed in this file, so its requestState codec cannot be wired; construct it here or migrate by hand.');
  }
  const locals = f.live?.locals ?? [];
  const unnameable = locals.find(l => l.typeProblem);
  if (unnameable) {
    return refuse('unsupported-construct', `\`${unnameable.name}\` is read after the question but ${unnameable.typeProblem}; move the type to module scope.`);
  }
  const bad = locals.find(l => l.how === 'carry' && l.json === 'no');
  if (bad) {
    return refuse('non-json-local', `\`${bad.name}\`${bad.type ? ` (${bad.type})` : ''} is read after the question but cannot travel in requestState: ${bad.why}.`);
  }
  const unknown = locals.find(l => l.how === 'carry' && l.json === 'unknown');
  if (unknown) {
    const advice = checker ? 'give it a JSON type' : 'run with type information (a tsconfig / typed linting) or give it a JSON type';
    return refuse('unknown-local-type', `\`${unknown.name}\` is read after the question and ${unknown.why}; ${advice}.`);
  }
  const notes: string[] = [];
  if (f.effects.length > 0) notes.push(`side effects before the question run in the asking round; if the client never retries, the code after it never runs (${f.effects.join('; ')})`);
  return { kind: 'migrate', review: f.effects.length > 0, notes };
}

/** `return ask().then(f)` / `await ask().then(f).catch(g)`: the chain is waited for, only not with `await ask()`. */
function thenChainAwaited(ts: TS, call: ts.Expression): boolean {
  let node: ts.Node = call;
  for (;;) {
    while (node.parent && (ts.isParenthesizedExpression(node.parent) || ts.isAsExpression(node.parent) || ts.isNonNullExpression(node.parent))) node = node.parent;
    const access = node.parent;
    if (access && ts.isPropertyAccessExpression(access) && access.expression === node && ['then', 'catch', 'finally'].includes(access.name.text) &&
        access.parent && ts.isCallExpression(access.parent) && access.parent.expression === access) {
      node = access.parent;
      continue;
    }
    break;
  }
  const parent = node.parent;
  if (!parent) return false;
  return ts.isAwaitExpression(parent) || ts.isReturnStatement(parent) || (ts.isArrowFunction(parent) && parent.body === node);
}

const TAG_TEXT = {
  catch: 'a catch block',
  finally: 'a finally block',
  'conditional-expression': 'a conditional expression (?:, &&, ||, ??)',
  labeled: 'a labeled statement',
} as const;

function describeHandlers(handlers: Handler[]): string {
  return handlers.map(h => (h.name ? `${h.method} "${h.name}"` : h.method)).join(', ');
}

/** Handler shapes the rewrite does not produce code for (yet). */
function handlerShapeProblem(ts: TS, handler: Handler, flow: FlowInfo): string | undefined {
  const fn = handler.fn;
  const file = fn.getSourceFile();
  if (/\.(c|m)?jsx?$/.test(file.fileName)) return 'JavaScript files are not rewritten yet (the generated code carries type annotations); migrate by hand or convert the file to TypeScript.';
  if (!file.statements.some(s => ts.isImportDeclaration(s))) return 'CommonJS modules are not rewritten yet; the rewrite adds ES imports.';
  if (fn.asteriskToken) return 'generator handlers are not rewritten.';
  if (!fn.body || !ts.isBlock(fn.body)) return 'the handler is an arrow function with an expression body; give it a block body.';
  if (!ts.getModifiers(fn)?.some(m => m.kind === ts.SyntaxKind.AsyncKeyword)) return 'the handler is not async; the rewrite needs to await the state codec.';
  const ctxParam = fn.parameters[handler.ctxParamIndex];
  if (ctxParam && !ts.isIdentifier(ctxParam.name)) return 'the handler destructures its context parameter; the rewrite needs the whole context (name it, e.g. `ctx`).';
  if (handler.registration !== 'setRequestHandler' && handler.name === undefined) {
    return 'the tool / prompt / resource name is not a string literal; the state binding needs it.';
  }
  if (handler.registration === 'setRequestHandler') {
    const request = fn.parameters[0];
    if (request && !ts.isIdentifier(request.name)) return 'the handler destructures its request parameter; name it (e.g. `request`) so the state can be bound to the call.';
  }
  for (let node: ts.Node | undefined = flow.statement; node && node !== fn; node = node.parent) {
    const parent = node.parent;
    // The rewrite declares a flag just before such a try, so it must sit in a statement list.
    if (parent && ts.isTryStatement(parent) && parent.tryBlock === node && parent.finallyBlock) {
      if (!statementList(ts, parent)) return 'the question is inside a try/finally that is the lone statement of an if or loop; wrap it in braces.';
      const assignedLater = finallyReadsLaterAssignment(ts, parent, flow.awaited);
      if (assignedLater) {
        return `the finally block reads \`${assignedLater}\`, which the code after the question assigns; in the round that asks, the finally would see the value from before the question.`;
      }
    }
  }
  return undefined;
}

/**
 * A `let` the finally block reads and the try block assigns after the question: the asking round
 * runs the (guarded) finally copy with the old value, which the checker narrows; refuse instead.
 */
function finallyReadsLaterAssignment(ts: TS, tryStatement: ts.TryStatement, awaited: ts.Node): string | undefined {
  let found: string | undefined;
  forEachValueIdentifier(ts, tryStatement.finallyBlock!, id => {
    if (found) return;
    const decl = resolveIdentifier(ts, id);
    if (!decl || (decl.kind !== 'let' && decl.kind !== 'var')) return;
    forEachValueIdentifier(ts, tryStatement.tryBlock, other => {
      if (!found && other.pos > awaited.end && other.text === id.text && isWriteReference(ts, other) && resolveIdentifier(ts, other) === decl) found = id.text;
    });
  });
  return found;
}

/** Form mode is the default; URL mode must be ruled out from the literal or the checker. */
function elicitationIsForm(ts: TS, params: ts.Expression | undefined, checker: ts.TypeChecker | undefined): boolean {
  if (!params) return false;
  const e = skipOuter(ts, params);
  if (ts.isObjectLiteralExpression(e)) {
    const spread = e.properties.some(p => ts.isSpreadAssignment(p));
    const mode = e.properties.find(p => ts.isPropertyAssignment(p) && p.name.getText().replace(/['"]/g, '') === 'mode');
    if (mode && ts.isPropertyAssignment(mode)) return ts.isStringLiteralLike(mode.initializer) && mode.initializer.text === 'form';
    if (!spread) return true;
  }
  if (!checker) return false;
  const type = checker.getTypeAtLocation(params);
  const mode = type.getProperty('mode');
  if (!mode) return type.getProperty('requestedSchema') !== undefined;
  const modeType = checker.getTypeOfSymbolAtLocation(mode, params);
  const members = modeType.isUnion() ? modeType.types : [modeType];
  return members.every(t => (t.isStringLiteral() && t.value === 'form') || (t.flags & ts.TypeFlags.Undefined) !== 0);
}

/** Never half-rewrite a handler: one refused question blocks the others; then collect the plans. */
function blockSiblings(ts: TS, sites: Site[], facts: Facts[], resolver: SdkResolver): HandlerPlan[] {
  const byHandler = new Map<Handler, number[]>();
  sites.forEach((site, i) => {
    if (site.context.type !== 'handler') return;
    const list = byHandler.get(site.context.handler) ?? [];
    list.push(i);
    byHandler.set(site.context.handler, list);
  });
  // A question in a helper the handler calls is part of the handler too (helper sites are always refused).
  const helperBlockers = new Map<Handler, Site>();
  for (const site of sites) {
    if (site.context.type !== 'helper' || site.verdict.kind !== 'refuse') continue;
    for (const handler of site.context.handlers) if (!helperBlockers.has(handler)) helperBlockers.set(handler, site);
  }
  const plans: HandlerPlan[] = [];
  for (const [handler, indices] of byHandler) {
    const refused = indices.find(i => sites[i]!.verdict.kind === 'refuse');
    const viaHelper = refused === undefined ? helperBlockers.get(handler) : undefined;
    if (refused !== undefined || viaHelper) {
      const blocker = viaHelper ?? sites[refused!]!;
      const where = viaHelper && viaHelper.context.type === 'helper'
        ? `a site in ${viaHelper.context.helperName}(), which this handler calls (line ${blocker.line}),`
        : `another site in the same handler (line ${blocker.line})`;
      for (const i of indices) {
        if (sites[i]!.verdict.kind === 'migrate') {
          sites[i]!.verdict = refuse('blocked-by-sibling',
            `${where} is refused (${(blocker.verdict as { reason: string }).reason}); a handler is rewritten whole or not at all.`);
        }
      }
      continue;
    }
    const questions = indices
      .filter(i => sites[i]!.kind === 'elicitation' || sites[i]!.kind === 'sampling' || sites[i]!.kind === 'roots')
      .map(i => ({ site: sites[i]!, raw: facts[i]!.raw, flow: facts[i]!.flow!, live: facts[i]!.live! }))
      .sort((a, b) => a.site.start - b.site.start);
    if (questions.length === 0) continue;
    plans.push({ handler, questions, constructions: serverConstructions(ts, handler.receiver, resolver) });
  }
  return plans;
}
