import type * as ts from 'typescript';
import type { HandlerPlan, QuestionPlan } from '../../src/analysis/index.js';
import { completesNormally } from '../../src/analysis/cfg.js';
import { statementList } from '../../src/analysis/continuation.js';
import { urlMembers, type UrlMember } from '../../src/analysis/detect.js';
import { declaredDecls, type RoundsPlan, type Suspension } from '../../src/analysis/rounds.js';
import { bindingIdentifiers, forEachValueIdentifier, isAssignedIn, isFunctionLike, resolveIdentifier, type LocalDecl } from '../../src/analysis/scope.js';
import { isPureExpression } from '../../src/analysis/flow.js';
import { guardsAfter, isPureExitGuard, localsReadBy } from '../../src/analysis/sharedState.js';
import { skipOuter } from '../../src/analysis/sdk.js';
import { fileTypeNames, printType } from '../../src/analysis/typeNames.js';
import type { LiveLocal, SiteApi, TS } from '../../src/analysis/types.js';
import { Generator, type Renamed } from './generate.js';
import { BLANK_LINE, chunk, condition, line, render, START, type Chunk, type Piece, type StepTest } from './pieces.js';
import {
  answerTypeOf, bindingArgsExpr, bindingNameExpr, ensureParameter, firstParameterName, guardEdit, formParamsNeedCast, helperPartCall, LocalNames, stateReadText, uniqueStep, widenReturnType,
  type HandlerRewrite, type RewriteEnv,
} from './rewriteHandler.js';
import { caseLabelName, indentAt, quoteStyle, reindentProtected, trailingCommas, type Edit } from './text.js';
import { droppedUrlIds } from './urlQuestion.js';

/**
 * Prints one handler from its rounds plan (src/analysis/rounds.ts), in the shape of the SDK guide:
 *
 *   const call = ...; const state = ctx.mcpReq.requestState<XState>(); assertStateFor(state, call);
 *   if (state === undefined) { ...the code up to the first question...; return inputRequired(...) }
 *   if (state?.step === 'a') { ...restore, read the answer, the code up to the next question...; return inputRequired(...) }
 *   ...restore, read the last answer, the rest...
 *
 * The plan decides everything; this file only follows it, statement list by statement list. In a
 * list, the last statement holding a question the round may resume at is the pivot:
 *
 * - a statement the plan keeps once (`shared`: a loop, or a statement whose code after the question
 *   the first round also reaches) is written once; the statements before it run in the rounds that
 *   do not resume inside it, and what it needs from them comes back from the state;
 * - any other is written twice: as the rounds that do not resume in it run it (its questions ask
 *   and return), and resumed (from the question on). When the first copy always returns, it becomes
 *   a guard clause and the resumed copy follows at the list's level.
 *
 * Original statements are copied with their comments and formatting (re-indented only when they
 * move into or out of a block); new code is built as nodes and printed (generate.ts).
 */

type Susp = Suspension<QuestionPlan>;

interface Cx {
  /** Inside a shared loop: dispatch on `resuming`, which is cleared once the round's answer is read. */
  dynamic: boolean;
  /** The state values possible here (START for the first round), for static dispatch. */
  possible: ReadonlySet<string>;
  /** Locals whose `let` was written above: their original declarations become assignments. */
  hoisted: ReadonlySet<LocalDecl>;
  /** Breaks of a switch the resumed copy left (unwound): `break <label>;`, or '' when it ends the copy. */
  breaks: ReadonlyMap<ts.BreakStatement, string>;
  /** Restores a mode still needs, written where the code is that mode's alone. */
  pending: ReadonlyMap<Susp, readonly LiveLocal[]>;
  /**
   * Code written after the list in the same block (the first-round form of the pivot that follows a
   * prefix): a declaration it reads must stay in scope there. Read by the next emitList only.
   */
  later?: readonly ts.Statement[];
}

/** The push calls that validated accepted elicitation content against the requested schema. */
const VALIDATING_APIS = new Set<SiteApi>(['server.elicitInput', 'ctx.mcpReq.elicitInput']);

const VIEW_KIND = { elicitation: 'elicit', sampling: 'sampling', roots: 'roots' } as const;

/** The keys every state keeps for itself (see stateType); a carried local never travels under one. */
const STATE_KEYS: ReadonlySet<string> = new Set(['step', 'call', 'request', 'requests']);

/** Generated statements longer than this (without their indentation) are written one property a line. */
const LINE_WIDTH = 130;

export function printHandler(env: RewriteEnv, plan: HandlerPlan): HandlerRewrite {
  const { ts, sourceFile, text } = env;
  const rounds = plan.rounds as RoundsPlan<QuestionPlan>;
  const fn = plan.handler.fn;
  const body = fn.body as ts.Block;
  const locals = new LocalNames(ts, fn);
  for (const names of env.helperNames.values()) locals.reserve(names.request, names.result);
  const sdkValues = new Set<string>(['inputRequired']);
  const sdkTypes = new Set<string>();
  let usesElicitResultOf = false;
  let usesElicitAnswerOf = false;
  let usesCheckedResponse = false;

  const paramEdits: Edit[] = [];
  const addedParams = new Map<number, string>();
  const ctxName = ensureParameter(env, fn, plan.handler.ctxParamIndex, 'ctx', locals, paramEdits, addedParams, sdkTypes, { firstName: firstParameterName(plan.handler), typed: plan.handler.wrapper !== undefined || plan.handler.data !== undefined });
  const guards = plan.guards.map(site => guardEdit(env, site, ctxName));
  const stateVar = locals.take('state');
  const callVar = locals.take('call');
  const resumingVar = rounds.dynamic ? locals.take('resuming') : undefined;
  const askedVar = rounds.finallyFlag ? locals.take('askedForInput') : undefined;
  const gen = new Generator({ ts, unit: env.unit, newline: env.newline, singleQuote: quoteStyle(ts, env.sourceFile) === "'", trailingComma: trailingCommas(ts, env.sourceFile) });
  const f = gen.f;

  const suspensions = rounds.suspensions;
  // The state's type names InputRequest where a step carries its questions.
  if (suspensions.some(s => !s.requestRebuilt)) sdkTypes.add('InputRequest');
  const allSteps = new Set(suspensions.map(s => s.step));
  const byStatement = new Map<ts.Node, Susp>(suspensions.map(s => [s.statement, s]));
  const names = new Map<Susp, { request: string[]; response: string[] }>(suspensions.map(s => [s, s.list ? {
    request: [locals.take(locals.has(`${s.step}Requests`) ? `${s.step}InputRequests` : `${s.step}Requests`)],
    response: [locals.take(`${s.step}Responses`)],
  } : {
    request: s.questions.map(q => locals.take(locals.has(`${q.key}Request`) ? `${q.key}InputRequest` : `${q.key}Request`)),
    response: s.questions.map(q => locals.take(`${q.key}Response`)),
  }]));
  /** The parameters of the callbacks a list round is read and asked again with (scoped to them, but never a handler's name). */
  const listParams = suspensions.some(s => s.list) ? { request: locals.take('request'), index: locals.take('index'), response: locals.take('response') } : undefined;
  /** In a loop: the state of the round a suspension resumes, taken from `resuming` as it is read. */
  const resumedVars = new Map<Susp, string>();
  const resumedVar = (s: Susp): string => resumedVars.get(s) ?? resumedVars.set(s, locals.take(`${s.step}State`)).get(s)!;
  const caseLabels = new Map<ts.CaseOrDefaultClause, string>();
  const carried = (s: Susp): LiveLocal[] => s.live.locals.filter(l => l.how === 'carry');
  /**
   * The key each carried local travels under in the state: its name, unless the state keeps that
   * name for itself (`step`, `call`, `request`, `requests`): then `<name>Value` (or `<name>Value2`, ...),
   * never a key another carried local of the handler has.
   */
  const carriedNames = new Set(suspensions.flatMap(s => carried(s).map(l => l.name)));
  const takenKeys = new Set([...STATE_KEYS, ...carriedNames]);
  const stateKeys = new Map([...carriedNames].filter(name => STATE_KEYS.has(name)).map(name => [name, uniqueStep(`${name}Value`, takenKeys)]));
  const keyed = (name: string): Renamed => ({ key: stateKeys.get(name) ?? name, name });
  const localOf = (s: Susp, decl: LocalDecl): LiveLocal | undefined => [...s.live.decls].find(([, d]) => d === decl)?.[0];
  const declOf = (s: Susp, local: LiveLocal): LocalDecl => s.live.decls.get(local)!;
  for (const s of suspensions) for (const l of carried(s)) for (const t of l.typeImports) sdkTypes.add(t);

  /** `const confirmationId = randomUUID();` that only held a URL question's dropped elicitationId (urlQuestion.ts). */
  const droppedIds = new Set<ts.Node>(droppedUrlIds(ts, [plan]).declarations);

  const within = (node: ts.Node, modes: Iterable<Susp>): Susp[] =>
    [...modes].filter(s => s.statement === node || (s.statement.pos >= node.pos && s.statement.end <= node.end && s.statement !== node && isInside(s.statement, node)));

  // ---------------------------------------------------------------------------------------------
  // Original text

  /** A statement with its leading comment lines (and blank lines) and the comments trailing its last line. */
  const rangeOf = (s: ts.Node): [number, number] => {
    const start = s.getStart(sourceFile);
    const trivia = text.slice(s.pos, start);
    const newline = trivia.indexOf('\n');
    const from = newline < 0 ? start : s.pos + newline + 1;
    let end = s.getEnd();
    for (const c of ts.getTrailingCommentRanges(text, end) ?? []) {
      if (text.slice(end, c.pos).includes('\n')) break;
      end = c.end;
    }
    return [from, end];
  };

  /** The comment lines between a list's last statement and the end of its block. */
  const closingTrivia = (list: readonly ts.Statement[], close: number): Piece[] => {
    const last = list[list.length - 1];
    if (!last) return [];
    const from = rangeOf(last)[1];
    const trivia = text.slice(from, close);
    const newline = trivia.indexOf('\n');
    if (newline < 0) return [];
    const lines = trivia.slice(newline + 1);
    const lastNewline = lines.lastIndexOf('\n');
    const kept = lastNewline < 0 ? '' : lines.slice(0, lastNewline);
    if (kept.trim() === '') return [];
    return [chunk(kept, indentAt(text, from + newline + 1), [])];
  };

  const literalsIn = (start: number, end: number, base: number): Array<[number, number]> =>
    env.literals.filter(([s, e]) => s >= start && e <= end).map(([s, e]) => [s - base, e - base] as [number, number]);

  /** Original text [start, end) with replacements (their text written at the original indentation there). */
  const original = (start: number, end: number, edits: Array<Edit & { protect?: Array<[number, number]> }>): Chunk => {
    const sorted = edits.filter(e => e.start >= start && e.end <= end).sort((a, b) => a.start - b.start || a.end - b.end);
    let out = '';
    const protect: Array<[number, number]> = [];
    let at = start;
    for (const e of sorted) {
      if (e.start < at) continue; // inside an earlier replacement
      protect.push(...literalsIn(at, e.start, at - out.length));
      out += text.slice(at, e.start);
      for (const [s, t] of e.protect ?? []) protect.push([s + out.length, t + out.length]);
      out += e.text;
      at = e.end;
    }
    protect.push(...literalsIn(at, end, at - out.length));
    out += text.slice(at, end);
    // Lines move by the indentation of the first one with code (blank lines before it have none).
    const firstCode = /\S/.exec(text.slice(start, end));
    return { text: out, from: indentAt(text, firstCode ? start + firstCode.index : start), protect };
  };

  /** A chunk rendered at the original indentation of `at`, as replacement text inside an original slice. */
  const asEdit = (start: number, end: number, pieces: Piece[]): Edit & { protect: Array<[number, number]> } => {
    const indent = indentAt(text, start);
    const lines = render(pieces, indent, env);
    const joined = lines.join('\n');
    // The first line continues where the replaced text started.
    return { start, end, text: joined.slice(indent.length), protect: [] };
  };

  /**
   * Edits that turn an original statement into its first-round form: each question statement
   * becomes its ask (what follows it in its list cannot run in that round and goes), a finally
   * skips the round that asks, capability reads become per-request, breaks of an unwound switch
   * leave its resumed copy.
   */
  const normalEdits = (node: ts.Node, cx: Cx, resumedHere?: ts.Node): Array<Edit & { protect?: Array<[number, number]> }> => {
    const edits: Array<Edit & { protect?: Array<[number, number]> }> = [];
    const visit = (n: ts.Node): void => {
      if (isFunctionLike(ts, n) && n !== fn) return;
      if (n !== node && droppedIds.has(n)) {
        edits.push(dropStatement(n as ts.Statement));
        return;
      }
      const asking = n === resumedHere ? undefined : byStatement.get(n);
      if (asking) {
        const list = statementList(ts, n);
        const last = list ? list[list.length - 1]! : n;
        const start = n.getStart(sourceFile);
        // The edit starts after the comments above the question: they stay where they are.
        edits.push(asEdit(start, Math.max(n.getEnd(), rangeOf(last)[1]), askPieces(asking, false)));
        return;
      }
      const list = ts.isBlock(n) || ts.isCaseClause(n) || ts.isDefaultClause(n) ? n.statements : undefined;
      if (list) {
        // After a statement that asks on every path, nothing runs in this round.
        const stop = list.findIndex(st => within(st, suspensions).length > 0 && !completesNormally(rounds.flow, st));
        if (stop >= 0 && stop < list.length - 1) {
          edits.push({ start: list[stop]!.getEnd(), end: rangeOf(list[list.length - 1]!)[1], text: '' });
          for (const st of list.slice(0, stop + 1)) visit(st);
          return;
        }
      }
      if (ts.isTryStatement(n) && n.finallyBlock && askedVar && within(n, suspensions).some(s => !isInside(s.statement, n.finallyBlock!))) {
        n.tryBlock.forEachChild(visit);
        n.catchClause?.forEachChild(visit);
        edits.push(guardedFinally(n.finallyBlock, cx));
        return;
      }
      if (ts.isBreakStatement(n) && cx.breaks.has(n)) {
        const replacement = cx.breaks.get(n)!;
        edits.push(replacement === '' ? dropStatement(n) : { start: n.getStart(sourceFile), end: n.getEnd(), text: replacement });
        return;
      }
      n.forEachChild(visit);
    };
    visit(node);
    for (const g of guards) if (g.start >= node.pos && g.end <= node.end && !edits.some(e => g.start < e.end && g.end > e.start)) edits.push(g);
    return edits;
  };

  /** Removes a statement together with the line break before it. */
  const dropStatement = (s: ts.Statement): Edit => {
    const list = statementList(ts, s);
    const previous = list && list[list.indexOf(s) - 1];
    return { start: previous ? rangeOf(previous)[1] : s.getStart(sourceFile), end: rangeOf(s)[1], text: '' };
  };

  /** `finally { if (!askedForInput) { ... } }`: the round that ends with a question does not run it. */
  const guardedFinally = (block: ts.Block, cx: Cx): Edit & { protect?: Array<[number, number]> } =>
    asEdit(block.getStart(sourceFile), block.getEnd(), [{ kind: 'compound', parts: [line('{'), finallyBody(block, cx), line('}')] }]);

  /** A statement in its first-round form (see normalEdits), with its comments. */
  const emitNormal = (s: ts.Statement, cx: Cx): Piece => {
    if (droppedIds.has(s)) return leadingComments(s)[0] ?? (blankLinesBefore(s) ? chunk(BLANK_LINE) : chunk(''));
    const [start, end] = rangeOf(s);
    const edits = normalEdits(s, cx);
    if (ts.isVariableStatement(s) && declaredDecls(ts, s, rounds.flow).some(d => cx.hoisted.has(d))) {
      // `let x;` whose `let` moved above: nothing is left of it here.
      if (s.declarationList.declarations.every(d => !d.initializer)) {
        const comments = leadingComments(s);
        if (comments.length > 0) return comments[0]!;
        return blankLinesBefore(s) ? chunk(BLANK_LINE) : chunk('');
      }
      edits.push(...asAssignment(s));
    }
    return { kind: 'chunk', chunk: original(start, end, edits) };
  };

  /**
   * The comment lines above a statement that is written anew (a compound statement whose header
   * changes, a question replaced by its ask): they stay with it, as does a blank line above it
   * (a block's first statement gets none: render drops it).
   */
  const leadingComments = (s: ts.Statement): Piece[] => {
    const [from] = rangeOf(s);
    const trivia = text.slice(from, s.getStart(sourceFile));
    if (trivia.trim() === '') return blankLinesBefore(s) ? [chunk(BLANK_LINE)] : [];
    return [chunk(trivia.replace(/[ \t]*$/, '').replace(/\r?\n$/, ''), indentAt(text, s.getStart(sourceFile)))];
  };

  /** Whether a blank line separates `s` from what comes before it (kept when `s` itself goes). */
  const blankLinesBefore = (s: ts.Statement): boolean => /\n[ \t]*\r?\n/.test(text.slice(s.pos, s.getStart(sourceFile)));

  /** `const { a } = f(), b = 1;` → `({ a } = f()), b = 1;`: its `let` is written above. */
  const asAssignment = (s: ts.VariableStatement): Edit[] => {
    const list = s.declarationList;
    const edits: Edit[] = [];
    const keywordEnd = list.declarations[0]!.getStart(sourceFile);
    const withInit = list.declarations.filter(d => d.initializer);
    if (withInit.length === 0) return [{ start: s.getStart(sourceFile), end: rangeOf(s)[1], text: '' }];
    edits.push({ start: list.getStart(sourceFile), end: keywordEnd, text: '' });
    for (const d of list.declarations) {
      const destructured = !ts.isIdentifier(d.name);
      const nameEnd = d.type ? d.type.getEnd() : d.name.getEnd();
      if (destructured) edits.push({ start: d.name.getStart(sourceFile), end: d.name.getStart(sourceFile), text: '(' });
      if (d.type) edits.push({ start: d.name.getEnd(), end: nameEnd, text: '' });
      if (destructured && d.initializer) edits.push({ start: d.initializer.getEnd(), end: d.initializer.getEnd(), text: ')' });
    }
    return edits;
  };

  // ---------------------------------------------------------------------------------------------
  // New code

  const disc = (cx: Cx): string => (cx.dynamic ? resumingVar! : stateVar);
  const test = (truth: Iterable<Susp>, cx: Cx, negate = false): StepTest => {
    const steps = new Set([...truth].map(s => s.step));
    const possible = cx.dynamic ? new Set([START, ...allSteps]) : cx.possible;
    const t = negate ? new Set([...possible].filter(v => !steps.has(v))) : steps;
    return { variable: disc(cx), truth: t, possible };
  };
  const narrow = (cx: Cx, to: Iterable<Susp>): Cx => (cx.dynamic ? cx : { ...cx, possible: new Set([...to].map(s => s.step)) });
  const without = (cx: Cx, modes: Iterable<Susp>): Cx => {
    if (cx.dynamic) return cx;
    const drop = new Set([...modes].map(s => s.step));
    return { ...cx, possible: new Set([...cx.possible].filter(v => !drop.has(v))) };
  };

  /** `inputRequired.elicit(<params as written>)` (or the helper's request part). */
  const requestOf = (q: QuestionPlan): ts.Expression => {
    if (q.helper) return gen.id(helperPartCall(env, q.helper.split, q.helper.call, 'request'));
    const raw = q.raw;
    if (raw.kind === 'roots') return gen.call('inputRequired.listRoots', []);
    if (raw.kind === 'url-elicitation') return urlRequestOf(raw.params!);
    const params = raw.params;
    // A request built in a local is asked as the push call sent it: through that local.
    const written = raw.paramsVia ? gen.id(`${raw.paramsVia.text}.params`)
      : params ? gen.slot(original(params.getStart(sourceFile), params.getEnd(), guards)) : f.createObjectLiteralExpression();
    let arg: ts.Expression = written;
    if (formParamsNeedCast(env, raw)) {
      sdkTypes.add('ElicitRequestFormParams');
      const operand = raw.paramsVia || ts.isIdentifier(params!) || ts.isPropertyAccessExpression(params!) ? written : f.createParenthesizedExpression(written);
      arg = f.createAsExpression(operand, gen.type('ElicitRequestFormParams'));
    }
    return gen.call(raw.kind === 'sampling' ? 'inputRequired.createMessage' : 'inputRequired.elicit', [arg]);
  };

  /**
   * `inputRequired.elicitUrl({ message, url })` from the push call's params, their message and url as
   * written; the mode is implied and the elicitationId, used nowhere else (urlPushProblem), goes.
   */
  const urlRequestOf = (params: ts.Expression): ts.Expression => {
    const shape = urlMembers(ts, skipOuter(ts, params) as ts.ObjectLiteralExpression) as { members: Map<string, UrlMember> };
    const kept = [...shape.members].filter(([name]) => name === 'message' || name === 'url').map(([, member]) => member).sort((a, b) => a.pos - b.pos);
    // Each slot holds a whole member as written (`message: ...`, or `url` alone): printed as a shorthand, it reads as written.
    const properties = kept.map(p => gen.slot(original(p.getStart(sourceFile), p.getEnd(), guards)));
    return gen.call('inputRequired.elicitUrl', [f.createObjectLiteralExpression(properties.map(slot => f.createShorthandPropertyAssignment(slot)))]);
  };

  const mintExpr = (payload: ts.Expression): ts.Expression => gen.await(gen.call(`${env.module.codec}.mint`, [payload, gen.id(ctxName)]));

  /** Ends the round: `return inputRequired({ inputRequests, requestState })`, the finally flag set once the state is minted. */
  const endRound = (requests: ts.Expression, payload: ts.Expression): ts.Statement[] => {
    // On one line when it reads well there, one property a line otherwise.
    const result = (stateField: [string, ts.Expression] | string): ts.Statement => {
      const oneLine = gen.ret(gen.call('inputRequired', [gen.object([['inputRequests', requests], stateField])]));
      return gen.fits(oneLine, LINE_WIDTH) ? oneLine : gen.ret(gen.call('inputRequired', [gen.object([['inputRequests', requests], stateField], true)]));
    };
    if (!askedVar) return [result(['requestState', mintExpr(payload)])];
    const stateName = 'requestState';
    return [
      gen.declare('const', stateName, mintExpr(payload)),
      gen.stmt(f.createAssignment(gen.id(askedVar), f.createTrue())),
      result(stateName),
    ];
  };

  /** The state's fields for the locals a suspension carries (`name`, or `key: name` where the state keeps the name). */
  const carriedFields = (s: Susp): Array<[string, ts.Expression] | string> => carried(s).map(l => {
    const { key, name } = keyed(l.name);
    return key === name ? name : [key, gen.id(name)];
  });

  /** The first round's end at a question: build each request, mint the state with what the rest needs. */
  const askPieces = (s: Susp, withComments = true): Piece[] => {
    if (s.list) return askListPieces(s, s.list, withComments);
    const n = names.get(s)!;
    const statements: ts.Statement[] = s.questions.map((q, i) => gen.declare('const', n.request[i]!, requestOf(q.question)));
    const stateFields: Array<[string, ts.Expression] | string> = [['step', gen.str(s.step)], ['call', gen.id(callVar)]];
    // Carried only when the resumed round cannot build them again.
    if (!s.requestRebuilt) {
      stateFields.push(s.combinator
        ? ['requests', gen.object(s.questions.map((q, i) => [q.key, gen.id(n.request[i]!)] as [string, ts.Expression]))]
        : ['request', gen.id(n.request[0]!)]);
    }
    stateFields.push(...carriedFields(s));
    const requests = gen.object(s.questions.map((q, i) => [q.key, gen.id(n.request[i]!)] as [string, ts.Expression]));
    statements.push(...endRound(requests, gen.object(stateFields)));
    // The question's own leading comments (or blank line) stay with it.
    return [...(withComments ? leadingComments(s.statement) : []), { kind: 'chunk', chunk: gen.print(statements) }];
  };

  /** `` `<step>-${index}` ``: the inputRequests key of one item of a list round. */
  const listKey = (s: Susp): ts.Expression =>
    f.createTemplateExpression(f.createTemplateHead(`${s.step}-`), [f.createTemplateSpan(gen.id(listParams!.index), f.createTemplateTail(''))]);

  /** `Object.fromEntries(requests.map((request, index) => [`<step>-${index}`, request] as const))`: one key per item. */
  const keyedRequests = (s: Susp, requests: ts.Expression): ts.Expression => {
    const p = listParams!;
    const entry = f.createAsExpression(f.createArrayLiteralExpression([listKey(s), gen.id(p.request)]), f.createTypeReferenceNode('const'));
    return gen.call('Object.fromEntries', [gen.call(f.createPropertyAccessExpression(requests, 'map'), [gen.arrow([p.request, p.index], entry)])]);
  };

  /**
   * A question per item: `const answersRequests = items.map((item) => inputRequired.elicit(...))`, the
   * callback as written with its question turned into the request, every request under its own key.
   */
  const askListPieces = (s: Susp, list: NonNullable<Susp['list']>, withComments: boolean): Piece[] => {
    const n = names.get(s)!;
    const q = s.questions[0]!.question;
    // Printed from column 0: its lines move to where the question's lines were.
    const request = reindentProtected(gen.expression(requestOf(q)), '', indentAt(text, list.returned.getStart(sourceFile)));
    const edits: Array<Edit & { protect?: Array<[number, number]> }> = [{ start: list.returned.getStart(sourceFile), end: list.returned.getEnd(), text: request.text, protect: request.protect }];
    // The request is built, not awaited: an async callback would make it a promise.
    const asyncModifier = list.callback.modifiers?.find(m => m.kind === ts.SyntaxKind.AsyncKeyword);
    if (asyncModifier) edits.push({ start: asyncModifier.getStart(sourceFile), end: asyncModifier.getEnd() + (/^\s+/.exec(text.slice(asyncModifier.getEnd()))?.[0].length ?? 0), text: '' });
    // A declared return type (`(item): Promise<ElicitResult> =>`) was the question's, not the request's.
    const returnType = list.callback.type;
    if (returnType) edits.push({ start: text.lastIndexOf(':', returnType.getStart(sourceFile)), end: returnType.getEnd(), text: '' });
    const built = gen.slot(original(list.map.getStart(sourceFile), list.map.getEnd(), [...edits, ...guards]));
    const stateFields: Array<[string, ts.Expression] | string> = [['step', gen.str(s.step)], ['call', gen.id(callVar)], ['requests', gen.id(n.request[0]!)], ...carriedFields(s)];
    const statements = [gen.declare('const', n.request[0]!, built), ...endRound(keyedRequests(s, gen.id(n.request[0]!)), gen.object(stateFields))];
    return [...(withComments ? leadingComments(s.statement) : []), { kind: 'chunk', chunk: gen.print(statements) }];
  };

  /** Reads a list round's answers, one per request the state carries; asks again when any is missing. */
  const readListPieces = (s: Susp, d: string, taken: ts.Statement[]): Piece[] => {
    const n = names.get(s)!;
    const p = listParams!;
    const q = s.questions[0]!;
    const responses = f.createPropertyAccessExpression(f.createPropertyAccessExpression(gen.id(ctxName), 'mcpReq'), 'inputResponses');
    const requests = f.createPropertyAccessExpression(gen.id(d), 'requests');
    const key = listKey(s);
    const read = readAnswer(q.question, [responses, key, gen.id(p.request)]);
    const reader = gen.arrow([p.request, p.index], read);
    const kind = (e: ts.Expression): ts.Expression => f.createPropertyAccessExpression(e, 'kind');
    const missing = gen.call(f.createPropertyAccessExpression(gen.id(n.response[0]!), 'some'), [
      gen.arrow([p.response], f.createStrictInequality(kind(gen.id(p.response)), gen.str(VIEW_KIND[q.question.kind]))),
    ]);
    const askAgain = endRound(keyedRequests(s, requests), gen.id(d));
    gen.comment(askAgain[0]!, 'The retry came without this round\'s answers: ask again.');
    const statements = [...taken, gen.declare('const', n.response[0]!, gen.call(f.createPropertyAccessExpression(requests, 'map'), [reader])), f.createIfStatement(missing, f.createBlock(askAgain, true))];
    return [{ kind: 'chunk', chunk: gen.print(statements) }];
  };

  /** `answersResponses.flatMap(response => response.kind === 'elicit' ? [elicitResultOf(response)] : [])`: every one is, once read. */
  const listAnswer = (s: Susp): ts.Expression => {
    const p = listParams!;
    const q = s.questions[0]!.question;
    const value = answerOf(q, p.response);
    const item = s.combinator === 'allSettled'
      ? gen.object([['status', f.createAsExpression(gen.str('fulfilled'), f.createTypeReferenceNode('const'))], ['value', value]])
      : value;
    const each = f.createConditionalExpression(f.createStrictEquality(f.createPropertyAccessExpression(gen.id(p.response), 'kind'), gen.str(VIEW_KIND[q.kind])),
      undefined, f.createArrayLiteralExpression([item]), undefined, f.createArrayLiteralExpression([]));
    return gen.call(f.createPropertyAccessExpression(gen.id(names.get(s)!.response[0]!), 'flatMap'), [gen.arrow([p.response], each)]);
  };

  /**
   * `elicitAnswerOf(responses, key, question)` where elicitInput() asked (it checked accepted content
   * against the question's schema; a raw elicitation/create request did not), else
   * `checkedInputResponse(responses, key, question)`: either way the answer is a valid result of the
   * question's method, as the SDK checked the result of every request.
   */
  const readAnswer = (q: QuestionPlan, args: ts.Expression[]): ts.Expression => {
    if (q.kind === 'elicitation' && VALIDATING_APIS.has(q.raw.api)) {
      usesElicitAnswerOf = true;
      return gen.call(env.module.elicitAnswerOf, args);
    }
    usesCheckedResponse = true;
    return gen.call(env.module.checkedResponse, args);
  };

  /** What the answer read from this round's inputResponses stands for where the await was. */
  const answerOf = (q: QuestionPlan, response: string): ts.Expression => {
    let answer: ts.Expression;
    switch (q.kind) {
      case 'elicitation':
        usesElicitResultOf = true;
        answer = gen.call(env.module.elicitResultOf, [gen.id(response)]);
        break;
      case 'sampling': {
        const type = answerTypeOf(ts, q);
        const result = f.createPropertyAccessExpression(gen.id(response), 'result');
        if (type !== 'CreateMessageResult | CreateMessageResultWithTools') sdkTypes.add(type);
        answer = type === 'CreateMessageResult | CreateMessageResultWithTools' ? result : f.createAsExpression(result, gen.type(type));
        break;
      }
      default:
        answer = gen.object([['roots', f.createPropertyAccessExpression(gen.id(response), 'roots')]]);
    }
    const helper = q.helper;
    if (!helper || helper.split.identity) return answer;
    return gen.id(helperPartCall(env, helper.split, helper.call, 'result', helper.split.readsAnswer ? gen.expression(answer).text : undefined));
  };

  /** Reads the round's answers; asks again when the retry came without them. */
  const readPieces = (s: Susp, cx: Cx): Piece[] => {
    const n = names.get(s)!;
    // In a loop the round's state is taken, and `resuming` cleared, before anything can throw: an
    // answer that fails validation inside a try goes to its catch, and the loop must then go on as
    // in the first round (as it did when elicitInput() threw there), not resume this round again.
    const d = cx.dynamic ? resumedVar(s) : disc(cx);
    const taken = cx.dynamic
      ? [gen.declare('const', d, gen.id(resumingVar!)), gen.comment(gen.stmt(f.createAssignment(gen.id(resumingVar!), gen.id('undefined'))), 'Resumed: the next iterations run as in the first round.')]
      : [];
    if (s.list) return readListPieces(s, d, taken);
    const responses = f.createPropertyAccessExpression(f.createPropertyAccessExpression(gen.id(ctxName), 'mcpReq'), 'inputResponses');
    const askedWith = (q: Susp['questions'][number], i: number): ts.Expression => s.requestRebuilt ? gen.id(n.request[i]!) : s.combinator
      ? f.createPropertyAccessExpression(f.createPropertyAccessExpression(gen.id(d), 'requests'), q.key)
      : f.createPropertyAccessExpression(gen.id(d), 'request');
    // Built again as the first round built them rather than carried in the state (Suspension.requestRebuilt):
    // up front, as each answer is checked against its question where the await was.
    const rebuilt = s.requestRebuilt ? s.questions.map((q, i) => gen.declare('const', n.request[i]!, requestOf(q.question))) : [];
    const statements: ts.Statement[] = [...taken, ...rebuilt,
      ...s.questions.map((q, i) => gen.declare('const', n.response[i]!, readAnswer(q.question, [responses, gen.str(q.key), askedWith(q, i)])))];
    const missing = s.questions.map((q, i) => f.createStrictInequality(f.createPropertyAccessExpression(gen.id(n.response[i]!), 'kind'), gen.str(VIEW_KIND[q.question.kind])))
      .reduce((a, b) => f.createLogicalOr(a, b));
    const again = s.requestRebuilt
      ? gen.object(s.questions.map((q, i) => [q.key, gen.id(n.request[i]!)] as [string, ts.Expression]))
      : s.combinator
        ? f.createPropertyAccessExpression(gen.id(d), 'requests')
        : gen.object([[s.questions[0]!.key, f.createPropertyAccessExpression(gen.id(d), 'request')]]);
    const askAgain = endRound(again, gen.id(d));
    gen.comment(askAgain[0]!, 'The retry came without this round\'s answer: ask again.');
    statements.push(f.createIfStatement(missing, f.createBlock(askAgain, true)));
    return [{ kind: 'chunk', chunk: gen.print(statements) }];
  };

  /** The question's statement, resumed: the answer where the await was. */
  const bindPieces = (s: Susp, cx: Cx): Piece[] => {
    const n = names.get(s)!;
    let answer: ts.Expression;
    if (s.list) answer = listAnswer(s);
    else if (s.combinator) {
      const values = s.questions.map((q, i) => answerOf(q.question, n.response[i]!));
      answer = f.createArrayLiteralExpression(s.combinator === 'all' ? values : values.map(v => gen.object([
        ['status', f.createAsExpression(gen.str('fulfilled'), f.createTypeReferenceNode('const'))], ['value', v]])));
    } else answer = answerOf(s.questions[0]!.question, n.response[0]!);
    const piece = (): Piece[] => {
      if (s.form === 'discard' && !(s.questions[0]!.question.helper && !s.questions[0]!.question.helper.split.identity)) return [];
      const answerText = gen.expression(answer);
      const [start, end] = rangeOf(s.statement);
      // `(await ask()).content` reads `answer.content` when the answer is a call: no parentheses left around it.
      const replaced = ts.isParenthesizedExpression(s.awaited.parent) && !ts.isAsExpression(answer) ? s.awaited.parent : s.awaited;
      const edits = [{ start: replaced.getStart(sourceFile), end: replaced.getEnd(), text: answerText.text, protect: answerText.protect }, ...normalEdits(s.statement, cx, s.statement).filter(e => e.start >= replaced.getEnd() || e.end <= replaced.getStart(sourceFile))];
      if (ts.isVariableStatement(s.statement) && declaredDecls(ts, s.statement, rounds.flow).some(d => cx.hoisted.has(d))) edits.push(...asAssignment(s.statement));
      // The comment lines above the question stay with it, in the asking branch: not written again here (blank lines are).
      for (const c of ts.getLeadingCommentRanges(text, s.statement.pos) ?? []) {
        const lineStart = text.lastIndexOf('\n', c.pos - 1) + 1;
        const lineEnd = text.indexOf('\n', c.end);
        if (c.pos >= start && lineEnd >= 0 && text.slice(lineStart, c.pos).trim() === '' && text.slice(c.end, lineEnd).trim() === '') edits.push({ start: lineStart, end: lineEnd + 1, text: '' });
      }
      return [{ kind: 'chunk', chunk: original(start, end, edits) }];
    };
    return [...pendingFor(s, cx), ...readPieces(s, cx), ...piece()];
  };

  const pendingFor = (s: Susp, cx: Cx): Piece[] => {
    const owed = cx.pending.get(s);
    return owed && owed.length > 0 ? restoreLocals(s, owed, cx) : [];
  };

  /**
   * The locals a resumed round needs from skipped code: carried ones from the state, side-effect-free
   * declarations written again, and ones only written later declared again.
   */
  const restoreLocals = (s: Susp, needed: readonly LiveLocal[], cx: Cx): Piece[] => {
    const d = disc(cx);
    const out: Piece[] = [];
    const fresh = { const: [] as Renamed[], let: [] as Renamed[] };
    const assigned: Renamed[] = [];
    for (const l of needed.filter(l => l.how === 'carry')) {
      const decl = declOf(s, l);
      if (cx.hoisted.has(decl) || decl.kind === 'parameter' || decl.kind === 'var') assigned.push(keyed(l.name));
      else if (decl.kind === 'const') fresh.const.push(keyed(l.name));
      else fresh.let.push(keyed(l.name));
    }
    const statements: ts.Statement[] = [];
    if (fresh.const.length > 0) statements.push(gen.declare('const', gen.pattern(fresh.const), gen.id(d)));
    if (fresh.let.length > 0) statements.push(gen.declare('let', gen.pattern(fresh.let), gen.id(d)));
    if (assigned.length > 0) statements.push(gen.assignFrom(assigned, gen.id(d)));
    for (const l of needed.filter(l => l.how === 'declare')) {
      const decl = declOf(s, l);
      if (cx.hoisted.has(decl)) continue;
      statements.push(gen.declare('let', l.name, undefined, l.type ? gen.type(l.type) : undefined));
    }
    if (statements.length > 0) out.push({ kind: 'chunk', chunk: gen.print(statements) });
    // Rebuilt declarations, in their original order, as written; each with the guards that narrowed it.
    const rebuilt = [...new Set(needed.filter(l => l.how === 'rebuild').map(l => l.declaration))].sort((a, b) => a.pos - b.pos);
    const rebuiltDecls = new Set(needed.filter(l => l.how === 'rebuild').map(l => declOf(s, l)));
    for (const declaration of rebuilt) {
      out.push(rebuiltDeclaration(declaration, cx));
      const st = declarationStatement(ts, declaration);
      for (const guard of st ? guardsAfter(ts, st, rebuiltDecls, s.statement) : []) {
        if (isRepeatableGuard(guard, rebuiltDecls)) out.push(emitNormal(guard, cx));
      }
    }
    return out;
  };

  /** A side-effect-free declaration written again: the whole statement, or only its declarator (an assignment when its `let` is above). */
  const rebuiltDeclaration = (declaration: ts.Node, cx: Cx): Piece => {
    const st = declarationStatement(ts, declaration);
    if (!st) throw new Error('rebuilt local without a declaration statement');
    const hoisted = declaredDecls(ts, st, rounds.flow).some(d => cx.hoisted.has(d));
    // Declared above already, and nothing to assign.
    if (hoisted && ts.isVariableDeclaration(declaration) && !declaration.initializer) return { kind: 'chunk', chunk: { text: '', from: '', protect: [] } };
    if (!ts.isVariableDeclaration(declaration) || (st as ts.VariableStatement).declarationList.declarations.length === 1) {
      const edits = normalEdits(st, cx);
      if (hoisted && ts.isVariableStatement(st)) edits.push(...asAssignment(st));
      return { kind: 'chunk', chunk: original(st.getStart(sourceFile), rangeOf(st)[1], edits) };
    }
    const list = declaration.parent as ts.VariableDeclarationList;
    const keyword = hoisted ? '' : `${list.flags & ts.NodeFlags.Const ? 'const' : list.flags & ts.NodeFlags.Let ? 'let' : 'var'} `;
    const edits = normalEdits(declaration, cx);
    if (hoisted && declaration.type) edits.push({ start: declaration.name.getEnd(), end: declaration.type.getEnd(), text: '' });
    const own = original(declaration.getStart(sourceFile), declaration.getEnd(), edits);
    const open = hoisted && !ts.isIdentifier(declaration.name) ? '(' : '';
    const close = open ? ')' : '';
    return { kind: 'chunk', chunk: { ...own, text: `${keyword}${open}${own.text}${close};`, protect: own.protect.map(([a, b]) => [a + keyword.length + open.length, b + keyword.length + open.length]) } };
  };

  /** What mode `s` needs from the declarations in `before` (statements of the list it skips). */
  const neededFrom = (s: Susp, before: readonly ts.Statement[]): LiveLocal[] => {
    const declared = new Set(before.flatMap(st => declaredDecls(ts, st, rounds.flow)));
    return s.live.locals.filter(l => declared.has(declOf(s, l)));
  };

  // ---------------------------------------------------------------------------------------------
  // Statement lists

  /**
   * `list` run by the modes in `modes` (resuming inside it) and, when `normal`, by rounds that
   * enter it from the top. `close`: where its block ends (for the comments before the brace).
   */
  const emitList = (list: readonly ts.Statement[], close: number | undefined, normal: boolean, modes: ReadonlySet<Susp>, outer: Cx): Piece[] => {
    const later = outer.later ?? [];
    const cx: Cx = { ...outer, later: undefined };
    const tail = close === undefined ? [] : closingTrivia(list, close);
    let last = -1;
    list.forEach((st, i) => { if (within(st, modes).length > 0) last = i; });
    if (last < 0) return normal ? [...emitNormalList(list, cx), ...tail] : [];
    // Side-effect-free declarations at the top of the list run in every round, as written.
    const lead = leadingRebuilt(list.slice(0, last), modes);
    const leadPieces = lead.map(st => emitNormal(st, cx));
    const before = list.slice(lead.length, last);
    const pivot = list[last]!;
    const after = list.slice(last + 1);
    const here = new Set(within(pivot, modes));
    const earlier = new Set([...modes].filter(m => !here.has(m)));
    const runsBefore = normal || earlier.size > 0;
    const afterPieces = [...emitNormalList(after, cx), ...tail];

    if (rounds.shared.has(pivot)) {
      return [...leadPieces, ...skipPrefix(before, pivot, [...after, ...later], normal, earlier, here, cx), ...emitShared(pivot, runsBefore, here, cx), ...afterPieces];
    }

    // Two copies: the rounds that do not resume here run `before` and the pivot's first-round form.
    const hoist = runsBefore && completesNormally(rounds.flow, pivot)
      ? new Set(before.flatMap(st => declaredDecls(ts, st, rounds.flow)).filter(d => referencedIn(d, [...after, ...later]) || carriedByAsk(d, later)))
      : new Set<LocalDecl>();
    const inner: Cx = { ...cx, hoisted: new Set([...cx.hoisted, ...hoist]) };
    const resumed = resumeAt(pivot, before, after, here, narrow(inner, here));
    if (!runsBefore) return [...leadPieces, ...resumed, ...afterPieces];
    // The pivot's first-round form follows `before` in the same block.
    const first = [...emitList(before, undefined, normal, earlier, { ...without(inner, here), later: [pivot] }), ...emitFirst(pivot, without(inner, here))];
    if (!completesNormally(rounds.flow, pivot)) {
      // The first-round copy always returns: a guard clause, and the resumed code at this level.
      return [...leadPieces, { kind: 'test', test: test(here, cx, true), then: first, else: undefined, exits: true }, ...resumed, ...afterPieces];
    }
    return [...leadPieces, ...hoistedLets(hoist, cx), { kind: 'test', test: test(here, cx), then: resumed, else: first }, ...afterPieces];
  };

  /**
   * The declarations at the top of a list that every mode resuming in it rebuilds (side-effect free,
   * reading nothing declared later in the list): they can run in every round where they stand.
   */
  const leadingRebuilt = (before: readonly ts.Statement[], modes: ReadonlySet<Susp>): ts.Statement[] => {
    const lead: ts.Statement[] = [];
    const leadDecls = new Set<LocalDecl>();
    const laterInList = new Set(before.flatMap(st => declaredDecls(ts, st, rounds.flow)));
    for (const st of before) {
      if (isRepeatableGuard(st, leadDecls)) {
        lead.push(st);
        continue;
      }
      if (!ts.isVariableStatement(st)) break;
      const decls = declaredDecls(ts, st, rounds.flow);
      const rebuiltEverywhere = decls.length > 0 && decls.every(d => [...modes].some(m => localOf(m, d)?.how === 'rebuild') && [...modes].every(m => { const l = localOf(m, d); return !l || l.how === 'rebuild'; }));
      if (!rebuiltEverywhere) break;
      for (const d of decls) laterInList.delete(d);
      let readsLater = false;
      forEachValueIdentifier(ts, st, id => { const d = resolveIdentifier(ts, id); if (d && laterInList.has(d)) readsLater = true; });
      if (readsLater) break;
      lead.push(st);
      for (const d of decls) leadDecls.add(d);
    }
    return lead;
  };

  /**
   * `if (!cart) return { isError: true, ... };` after a rebuilt lookup: a guard that only computes and
   * leaves, reading what the rebuilt declarations above it give (and parameters the handler never
   * changes, and names from outside the handler). It runs again on resume, so the value read again is
   * narrowed there as in the first round, and a record gone in between is answered as it would have been.
   */
  const isRepeatableGuard = (st: ts.Statement, leadDecls: ReadonlySet<LocalDecl>): boolean => {
    if (!isPureExitGuard(ts, st, env.checker) || within(st, suspensions).length > 0) return false;
    const read = localsReadBy(ts, st, fn);
    const unchangedParameter = (d: LocalDecl): boolean => d.kind === 'parameter' && d.scope === fn && !isAssignedIn(ts, fn, d);
    return read.some(d => leadDecls.has(d)) && read.every(d => leadDecls.has(d) || unchangedParameter(d));
  };

  /** Statements in their first-round form; after one that asks on every path, the rest cannot run. */
  const emitNormalList = (list: readonly ts.Statement[], cx: Cx): Piece[] => {
    const out: Piece[] = [];
    for (const st of list) {
      out.push(emitNormal(st, cx));
      if (within(st, suspensions).length > 0 && !completesNormally(rounds.flow, st)) break;
    }
    return out;
  };

  const emitFirst = (pivot: ts.Statement, cx: Cx): Piece[] => {
    const s = byStatement.get(pivot);
    if (s) return askPieces(s);
    return [emitNormal(pivot, cx)];
  };

  /** `let` declarations for `hoist`, except those an enclosing list already declared (one binding, or the outer one stays unassigned). */
  const hoistedLets = (hoist: ReadonlySet<LocalDecl>, cx: Cx): Piece[] => {
    const fresh = [...hoist].filter(d => !cx.hoisted.has(d));
    if (fresh.length === 0) return [];
    const statements = fresh.sort((a, b) => a.nameNode.pos - b.nameNode.pos).map(d => gen.declare('let', d.name, undefined, typeOf(d)));
    return [{ kind: 'chunk', chunk: gen.print(statements) }];
  };

  /** A hoisted local keeps its declared type (narrowing after its assignment works as before). */
  const typeOf = (decl: LocalDecl): ts.TypeNode | undefined => {
    const declaration = decl.declaration;
    if (ts.isVariableDeclaration(declaration) && declaration.type && ts.isIdentifier(declaration.name)) return gen.type(declaration.type.getText(sourceFile));
    // `const answer = await ask()`: the SDK's name for the answer, not its expanded structure.
    const asking = suspensions.find(s => !s.combinator && ts.isVariableDeclaration(declaration) && declaration.initializer &&
      skipOuter(ts, declaration.initializer) === s.awaited && ts.isIdentifier(declaration.name));
    if (asking) {
      const question = asking.questions[0]!.question;
      if (!question.helper) {
        const type = answerTypeOf(ts, question);
        for (const name of type.split(' | ')) sdkTypes.add(name);
        return gen.type(type);
      }
    }
    const checker = env.checker;
    if (checker) {
      const symbol = checker.getSymbolAtLocation(decl.nameNode);
      if (symbol) {
        const printed = printType(ts, checker, checker.getTypeOfSymbolAtLocation(symbol, decl.nameNode), sourceFile, fileTypeNames(ts, checker, sourceFile));
        for (const name of printed.sdkImports) sdkTypes.add(name);
        return gen.type(printed.text);
      }
    }
    for (const s of suspensions) {
      const l = localOf(s, decl);
      if (l?.type) return gen.type(l.type);
    }
    return undefined;
  };

  /** Whether the first-round form of a question among `nodes` puts `decl` into the state it mints (its ask reads it). */
  const carriedByAsk = (decl: LocalDecl, nodes: readonly ts.Node[]): boolean =>
    nodes.some(n => within(n, suspensions).some(s => carried(s).some(l => declOf(s, l) === decl)));

  const referencedIn = (decl: LocalDecl, nodes: readonly ts.Node[]): boolean => {
    let found = false;
    for (const node of nodes) {
      forEachValueIdentifier(ts, node, id => { if (!found && resolveIdentifier(ts, id) === decl) found = true; });
      if (found) break;
    }
    return found;
  };

  /**
   * The statements before a shared pivot, for the rounds that run them; the modes resuming in the
   * pivot skip them and take what the pivot and the rest need from the state instead.
   */
  const skipPrefix = (before: readonly ts.Statement[], pivot: ts.Statement, after: readonly ts.Statement[], normal: boolean, earlier: ReadonlySet<Susp>, here: ReadonlySet<Susp>, cx: Cx): Piece[] => {
    if (before.length === 0) return [];
    const runs = normal || earlier.size > 0;
    // Declarations the code after them (here or in the pivot and beyond) refers to: they must stay in scope.
    const needed = new Set(before.flatMap((st, i) => declaredDecls(ts, st, rounds.flow).filter(d => referencedIn(d, [...before.slice(i + 1), pivot, ...after]))));
    const skipped = test(here, cx, true);
    // Only first-round code before the pivot: each declaration takes its value from the state when
    // resuming, or runs again when that changes nothing.
    if (earlier.size === 0 && [...needed].every(d => inPlace(d, here))) {
      return prefixInPlace(before, needed, here, cx, runs);
    }
    // The prefix runs whole in its own branch: only what the pivot and the rest read goes above it.
    const outside = new Set([...needed].filter(d => referencedIn(d, [pivot, ...after])));
    const inner: Cx = { ...without(cx, here), hoisted: new Set([...cx.hoisted, ...outside]) };
    // Modes that restore the same locals share one restore; the last group needs no test, so the
    // compiler sees every hoisted local assigned on every path.
    const groups: Array<{ modes: Susp[]; locals: readonly LiveLocal[] }> = [];
    for (const m of here) {
      const locals = neededFrom(m, before).filter(l => outside.has(declOf(m, l)));
      const key = locals.map(l => `${declOf(m, l).nameNode.pos}:${l.how}`).sort().join(',');
      const group = groups.find(g => g.locals.map(l => `${declOf(g.modes[0]!, l).nameNode.pos}:${l.how}`).sort().join(',') === key);
      if (group) group.modes.push(m);
      else groups.push({ modes: [m], locals });
    }
    const restoreGroups = (rest: typeof groups, rcx: Cx): Piece[] => {
      const [first, ...others] = rest;
      if (!first) return [];
      const own = restoreLocals(first.modes[0]!, first.locals, { ...narrow(rcx, first.modes), hoisted: inner.hoisted });
      if (others.length === 0) return own;
      const remaining = others.flatMap(g => g.modes);
      return [{ kind: 'test', test: test(first.modes, rcx), then: own, else: restoreGroups(others, narrow(rcx, remaining)) }];
    };
    const restores = restoreGroups(groups, narrow(cx, here));
    return [...hoistedLets(outside, cx), { kind: 'test', test: skipped, then: runs ? emitList(before, undefined, normal, earlier, inner) : [], else: restores }];
  };

  /**
   * First-round statements before a shared pivot, kept in place: a declaration the pivot needs
   * takes the state's value when resuming (`const x = resuming ? state.x : <as written>`), a
   * side-effect-free one runs in every round, and the other statements run in the first round only.
   */
  const prefixInPlace = (before: readonly ts.Statement[], needed: ReadonlySet<LocalDecl>, here: ReadonlySet<Susp>, cx: Cx, runs: boolean): Piece[] => {
    const out: Piece[] = [];
    let guarded: Piece[] = [];
    const flush = (): void => {
      if (guarded.length > 0) out.push({ kind: 'test', test: test(here, cx, true), then: guarded, else: undefined });
      guarded = [];
    };
    const modes = [...here];
    for (const st of before) {
      const decls = declaredDecls(ts, st, rounds.flow).filter(d => needed.has(d));
      if (decls.length === 0) {
        // A check like `if (!item) return ...` on values that no longer change runs again harmlessly,
        // and keeps its narrowing for the code after it.
        if (runs && rerunnable(st)) {
          flush();
          out.push(emitNormal(st, cx));
        } else if (runs) guarded.push(emitNormal(st, cx));
        continue;
      }
      flush();
      // Rebuilt or not needed by the modes that resume past it, and side-effect free: it runs in every round as written.
      const everyRound = decls.every(d => modes.every(s => localOf(s, d)?.how !== 'carry'));
      if (everyRound || !ts.isVariableStatement(st)) {
        out.push(emitNormal(st, cx));
        continue;
      }
      // Declared above (hoisted by an enclosing prefix): assigned here.
      const assigned = declaredDecls(ts, st, rounds.flow).some(d => cx.hoisted.has(d)) ? asAssignment(st) : [];
      out.push({ kind: 'chunk', chunk: original(rangeOf(st)[0], rangeOf(st)[1], [...normalEdits(st, cx), ...resumedInitializers(st, here, cx), ...assigned]) });
    }
    flush();
    return out;
  };

  /**
   * Whether running `st` again in a resumed round changes nothing: no side effects, and it reads
   * only values that are the same then (consts, parameters the handler never reassigns, module names).
   */
  const rerunnable = (st: ts.Statement): boolean => {
    const steady = (n: ts.Node): boolean => {
      let ok = true;
      forEachValueIdentifier(ts, n, id => {
        const d = resolveIdentifier(ts, id);
        if (!d || !rounds.flow.isLocal(d)) return;
        if (d.kind === 'const') return;
        if (d.kind === 'parameter' && !isAssignedIn(ts, fn, d)) return;
        ok = false;
      });
      return ok;
    };
    const pure = (n: ts.Statement): boolean => {
      if (ts.isBlock(n)) return n.statements.every(pure);
      if (ts.isIfStatement(n)) return isPureExpression(ts, n.expression) && pure(n.thenStatement) && (!n.elseStatement || pure(n.elseStatement));
      if (ts.isReturnStatement(n)) return !n.expression || isPureExpression(ts, n.expression);
      if (ts.isThrowStatement(n)) {
        const e = skipOuter(ts, n.expression);
        return ts.isNewExpression(e) && ts.isIdentifier(e.expression) && /Error$/.test(e.expression.text) && (e.arguments ?? []).every(a => isPureExpression(ts, a));
      }
      return false;
    };
    return pure(st) && steady(st) && within(st, suspensions).length === 0;
  };
  /** Whether a declaration before a shared statement can stay where it is (see prefixInPlace). */
  const inPlace = (d: LocalDecl, here: ReadonlySet<Susp>): boolean => {
    const modes = [...here];
    if (modes.every(m => localOf(m, d)?.how === 'carry')) return true;
    // Rebuilt, or assigned before the resumed code reads it: a side-effect-free declaration runs as written.
    if (!modes.every(m => { const l = localOf(m, d); return !l || l.how === 'rebuild' || l.how === 'declare'; })) return false;
    const declaration = d.declaration;
    return !ts.isVariableDeclaration(declaration) || !declaration.initializer || isPureExpression(ts, declaration.initializer);
  };

  /** `const x = init` → `const x = <resuming here> ? state.x : init`. */
  const resumedInitializers = (st: ts.VariableStatement, here: ReadonlySet<Susp>, cx: Cx): Edit[] => {
    const edits: Edit[] = [];
    const t = test(here, cx);
    for (const d of st.declarationList.declarations) {
      const ids = bindingIdentifiers(ts, d.name);
      const value = ts.isIdentifier(d.name)
        ? gen.expression(f.createPropertyAccessExpression(gen.id(t.variable), keyed(d.name.text).key)).text
        : gen.expression(gen.object(ids.map(id => [id.text, f.createPropertyAccessExpression(gen.id(t.variable), keyed(id.text).key)] as [string, ts.Expression]))).text;
      const cond = conditionText(t);
      if (d.initializer) {
        edits.push({ start: d.initializer.getStart(sourceFile), end: d.initializer.getStart(sourceFile), text: `${cond} ? ${value} : ` });
        if (needsParens(ts, d.initializer)) {
          edits.push({ start: d.initializer.getStart(sourceFile), end: d.initializer.getStart(sourceFile), text: '(' });
          edits.push({ start: d.initializer.getEnd(), end: d.initializer.getEnd(), text: ')' });
        }
      } else {
        edits.push({ start: d.name.getEnd() + (d.type ? d.type.getEnd() - d.name.getEnd() : 0), end: d.getEnd(), text: ` = ${cond} ? ${value} : undefined` });
      }
    }
    return edits;
  };

  // ---------------------------------------------------------------------------------------------
  // Statements the round resumes in

  /** `pivot` resumed by the modes in `here` (each at its question), after `before` was skipped. */
  const resumeAt = (pivot: ts.Statement, before: readonly ts.Statement[], after: readonly ts.Statement[], here: ReadonlySet<Susp>, cx: Cx): Piece[] => {
    const modes = [...here];
    if (modes.length === 1) {
      const s = modes[0]!;
      return [...restoreLocals(s, neededFrom(s, before), cx), ...emitResume(pivot, here, cx)];
    }
    // Several modes: what all of them need alike is restored here, the rest where each one is alone
    // (declared here first when the code after the pivot reads it).
    const needs = modes.map(s => neededFrom(s, before));
    const key = (s: Susp, l: LiveLocal): string => `${declOf(s, l).nameNode.pos}:${l.how}`;
    const common = needs[0]!.filter(l => modes.every((s, i) => needs[i]!.some(o => key(s, o) === key(modes[0]!, l))));
    const commonDecls = new Set(common.map(l => declOf(modes[0]!, l)));
    const owed = new Map(cx.pending);
    const hoist = new Set<LocalDecl>();
    modes.forEach((s, i) => {
      const rest = needs[i]!.filter(l => !commonDecls.has(declOf(s, l)));
      for (const l of rest) if (referencedIn(declOf(s, l), after)) hoist.add(declOf(s, l));
      owed.set(s, [...(owed.get(s) ?? []), ...rest]);
    });
    const inner: Cx = { ...cx, pending: owed, hoisted: new Set([...cx.hoisted, ...hoist]) };
    return [...hoistedLets(hoist, cx), ...restoreLocals(modes[0]!, common, inner), ...emitResume(pivot, here, inner)];
  };

  /** A statement that is not shared, resumed inside by `here`. */
  /** A statement that is not shared, resumed inside by `here` (its comments first when it is written anew). */
  const emitResume = (s: ts.Statement, here: ReadonlySet<Susp>, cx: Cx): Piece[] => {
    const own = byStatement.get(s);
    // The question's statement itself is a slice with its comments.
    return own && here.has(own) && here.size === 1 ? resumeWithin(s, here, cx) : [...leadingComments(s), ...resumeWithin(s, here, cx)];
  };

  const resumeWithin = (s: ts.Statement, here: ReadonlySet<Susp>, cx: Cx): Piece[] => {
    const own = byStatement.get(s);
    if (own && here.has(own)) {
      const others = new Set([...here].filter(m => m !== own));
      if (others.size === 0) return bindPieces(own, cx);
      return [{ kind: 'test', test: test([own], cx), then: bindPieces(own, narrow(cx, [own])), else: resumeWithin(s, others, narrow(cx, others)) }];
    }
    if (ts.isBlock(s)) return [{ kind: 'compound', parts: [line('{'), emitList(s.statements, s.getEnd() - 1, false, here, cx), line('}')] }];
    if (ts.isIfStatement(s)) {
      const thenModes = new Set(within(s.thenStatement, here));
      const elseModes = new Set([...here].filter(m => !thenModes.has(m)));
      const branch = (b: ts.Statement, modes: ReadonlySet<Susp>, bcx: Cx): Piece[] => (ts.isBlock(b) ? emitList(b.statements, b.getEnd() - 1, false, modes, bcx) : emitList([b], undefined, false, modes, bcx));
      if (elseModes.size === 0) return inBlockIfClashing(s.thenStatement, branch(s.thenStatement, thenModes, cx), s);
      if (thenModes.size === 0) return inBlockIfClashing(s.elseStatement!, branch(s.elseStatement!, elseModes, cx), s);
      return [{ kind: 'test', test: test(thenModes, cx), then: branch(s.thenStatement, thenModes, narrow(cx, thenModes)), else: branch(s.elseStatement!, elseModes, narrow(cx, elseModes)) }];
    }
    if (ts.isTryStatement(s)) return resumeTry(s, here, cx);
    if (ts.isSwitchStatement(s)) return resumeSwitch(s, here, cx);
    if (ts.isLabeledStatement(s)) {
      const inner = resumeWithin(s.statement, here, cx);
      return [{ kind: 'compound', parts: [line(`${s.label.text}: {`), inner, line('}')] }];
    }
    throw new Error(`cannot resume inside a ${ts.SyntaxKind[s.kind]}`);
  };

  /** A branch's statements at the level of the list around it, unless a name they declare is also declared there. */
  const inBlockIfClashing = (branch: ts.Statement, pieces: Piece[], around: ts.Statement): Piece[] => {
    const list = statementList(ts, around) ?? [];
    const outer = new Set(list.flatMap(st => declaredDecls(ts, st, rounds.flow).map(d => d.name)));
    const inner = ts.isBlock(branch) ? branch.statements.flatMap(st => declaredDecls(ts, st, rounds.flow).map(d => d.name)) : [];
    return inner.some(n => outer.has(n)) ? [{ kind: 'compound', parts: [line('{'), pieces, line('}')] }] : pieces;
  };

  /** Resumed in a try block: the try again around the rest (its catch and finally copied); in a catch: the rest of the catch. */
  const resumeTry = (s: ts.TryStatement, here: ReadonlySet<Susp>, cx: Cx): Piece[] => {
    const inTry = new Set(within(s.tryBlock, here));
    const inCatch = new Set([...here].filter(m => !inTry.has(m)));
    const handlers = (): Array<Chunk | Piece[]> => {
      const parts: Array<Chunk | Piece[]> = [];
      if (s.catchClause) {
        const c = s.catchClause;
        parts.push(original(s.tryBlock.getEnd() - 1, c.block.getStart(sourceFile) + 1, []));
        parts.push([...emitNormalList(c.block.statements, cx), ...closingTrivia(c.block.statements, c.block.getEnd() - 1)]);
      }
      if (s.finallyBlock) {
        const from = s.catchClause ? s.catchClause.block.getEnd() - 1 : s.tryBlock.getEnd() - 1;
        parts.push(original(from, s.finallyBlock.getStart(sourceFile) + 1, []));
        parts.push(finallyBody(s.finallyBlock, cx));
        parts.push(line('}'));
      } else parts.push(line('}'));
      return parts;
    };
    const tryCopy = (modes: ReadonlySet<Susp>, tcx: Cx): Piece[] => [{ kind: 'compound', parts: [
      original(s.getStart(sourceFile), s.tryBlock.getStart(sourceFile) + 1, []),
      emitList(s.tryBlock.statements, s.tryBlock.getEnd() - 1, false, modes, tcx),
      ...handlers(),
    ] }];
    const catchCopy = (modes: ReadonlySet<Susp>, ccx: Cx): Piece[] => {
      const c = s.catchClause!;
      const rest = emitList(c.block.statements, c.block.getEnd() - 1, false, modes, ccx);
      if (!s.finallyBlock) return inBlockIfClashing(c.block, rest, s);
      return [{ kind: 'compound', parts: [line('try {'), rest, original(c.block.getEnd() - 1, s.finallyBlock.getStart(sourceFile) + 1, []), finallyBody(s.finallyBlock, ccx), line('}')] }];
    };
    if (inCatch.size === 0) return tryCopy(inTry, cx);
    if (inTry.size === 0) return catchCopy(inCatch, cx);
    return [{ kind: 'test', test: test(inTry, cx), then: tryCopy(inTry, narrow(cx, inTry)), else: catchCopy(inCatch, narrow(cx, inCatch)) }];
  };

  /** A finally block's statements, skipped by a round that ended with a question when a question can be asked inside its try. */
  const finallyBody = (block: ts.Block, cx: Cx): Piece[] => {
    const statements = [...emitNormalList(block.statements, cx), ...closingTrivia(block.statements, block.getEnd() - 1)];
    if (!askedVar) return statements;
    return [{ kind: 'compound', parts: [line(`if (!${askedVar}) {`), statements, line('}')] }];
  };

  /**
   * Resumed in a switch case: the rest of the case, the cases it falls through into, as a block.
   * Its breaks leave that block (`break <label>`), the one that ends it goes.
   */
  const resumeSwitch = (s: ts.SwitchStatement, here: ReadonlySet<Susp>, cx: Cx): Piece[] => {
    const clauses = s.caseBlock.clauses;
    const groups = clauses.map(c => ({ clause: c, modes: new Set(within(c, here)) })).filter(g => g.modes.size > 0);
    const copy = (g: { clause: ts.CaseOrDefaultClause; modes: ReadonlySet<Susp> }, ccx: Cx): Piece[] => {
      const index = clauses.indexOf(g.clause);
      const included: ts.CaseOrDefaultClause[] = [g.clause];
      for (let i = index; i + 1 < clauses.length && fallsInto(clauses[i]!, clauses[i + 1]!); i++) included.push(clauses[i + 1]!);
      const label = caseLabels.get(g.clause) ?? locals.take(caseLabelName(ts, g.clause));
      caseLabels.set(g.clause, label);
      const breaks = new Map(ccx.breaks);
      const lastStatement = included[included.length - 1]!.statements[included[included.length - 1]!.statements.length - 1];
      let labelled = false;
      for (const b of switchBreaks(ts, s)) {
        if (!included.some(c => isInside(b, c)) || (isInside(b, g.clause) && b.pos < earliest(g.modes))) continue;
        if (b === endingBreak(ts, lastStatement)) breaks.set(b, '');
        else {
          breaks.set(b, `break ${label};`);
          labelled = true;
        }
      }
      const bcx: Cx = { ...ccx, breaks };
      const pieces = [
        ...emitList(g.clause.statements, undefined, false, g.modes, bcx),
        ...included.slice(1).flatMap(c => emitNormalList(c.statements, bcx)),
      ];
      return labelled ? [{ kind: 'compound', parts: [line(`${label}: {`), pieces, line('}')] }] : pieces;
    };
    const chain = (rest: typeof groups, ccx: Cx): Piece[] => {
      const [g, ...others] = rest;
      if (others.length === 0) return copy(g!, ccx);
      return [{ kind: 'test', test: test(g!.modes, ccx), then: copy(g!, narrow(ccx, g!.modes)), else: chain(others, narrow(ccx, others.flatMap(o => [...o.modes]))) }];
    };
    return chain(groups, cx);
  };

  const earliest = (modes: ReadonlySet<Susp>): number => Math.min(...[...modes].map(m => m.awaited.pos));

  /** Whether the end of `clause` can be reached from inside it (falling into `next`). */
  const fallsInto = (clause: ts.CaseOrDefaultClause, next: ts.CaseOrDefaultClause): boolean => {
    const last = clause.statements[clause.statements.length - 1];
    if (!last) return true;
    const entry = rounds.flow.statementEntry.get(next);
    const exit = rounds.flow.statementExit.get(last);
    return !!entry && !!exit && exit.succ.includes(entry);
  };

  // ---------------------------------------------------------------------------------------------
  // Shared statements: written once, entered by the first round and by the rounds resuming inside

  const emitShared = (s: ts.Statement, normal: boolean, here: ReadonlySet<Susp>, cx: Cx): Piece[] => [...leadingComments(s), ...sharedWithin(s, normal, here, cx)];

  const sharedWithin = (s: ts.Statement, normal: boolean, here: ReadonlySet<Susp>, cx: Cx): Piece[] => {
    if (ts.isLabeledStatement(s)) {
      const inner = sharedWithin(s.statement, normal, here, cx);
      const head = inner[0];
      if (head && head.kind === 'compound' && !Array.isArray(head.parts[0])) {
        const first = head.parts[0] as Chunk;
        return [{ ...head, parts: [{ ...first, text: `${s.label.text}: ${first.text.trimStart()}` }, ...head.parts.slice(1)] }, ...inner.slice(1)];
      }
      return inner;
    }
    if (ts.isBlock(s)) return [{ kind: 'compound', parts: [line('{'), emitList(s.statements, s.getEnd() - 1, normal, here, cx), line('}')] }];
    if (ts.isIterationStatement(s, false)) return sharedLoop(s, normal, here, cx);
    if (ts.isIfStatement(s)) {
      const thenModes = new Set(within(s.thenStatement, here));
      const elseModes = new Set([...here].filter(m => !thenModes.has(m)));
      const cond = s.expression;
      const into = thenModes.size > 0 ? conditionText(test(thenModes, cx)) : '';
      const away = elseModes.size > 0 ? conditionText(test(elseModes, cx, true)) : '';
      const original_ = text.slice(cond.getStart(sourceFile), cond.getEnd());
      const operand = wrap(ts, cond, original_);
      const overridden = [into, away ? `${away} && ${ts.isBinaryExpression(skipOuter(ts, cond)) && (skipOuter(ts, cond) as ts.BinaryExpression).operatorToken.kind === ts.SyntaxKind.BarBarToken ? `(${original_})` : operand}` : operand].filter(Boolean).join(' || ');
      const head = original(s.getStart(sourceFile), s.thenStatement.getStart(sourceFile), [{ start: cond.getStart(sourceFile), end: cond.getEnd(), text: elseModes.size > 0 || thenModes.size > 0 ? overridden : original_ }]);
      const branch = (b: ts.Statement, modes: ReadonlySet<Susp>): Piece[] => (ts.isBlock(b) ? emitList(b.statements, b.getEnd() - 1, normal, modes, cx) : emitList([b], undefined, normal, modes, cx));
      const parts: Array<Chunk | Piece[]> = [{ ...head, text: `${head.text.trimEnd()} {` }, branch(s.thenStatement, thenModes)];
      if (s.elseStatement) {
        parts.push(line('} else {'), branch(s.elseStatement, elseModes));
      }
      parts.push(line('}'));
      return [{ kind: 'compound', parts }];
    }
    if (ts.isTryStatement(s)) {
      const parts: Array<Chunk | Piece[]> = [
        original(s.getStart(sourceFile), s.tryBlock.getStart(sourceFile) + 1, []),
        emitList(s.tryBlock.statements, s.tryBlock.getEnd() - 1, normal, here, cx),
      ];
      if (s.catchClause) {
        parts.push(original(s.tryBlock.getEnd() - 1, s.catchClause.block.getStart(sourceFile) + 1, []));
        parts.push([...emitNormalList(s.catchClause.block.statements, cx), ...closingTrivia(s.catchClause.block.statements, s.catchClause.block.getEnd() - 1)]);
      }
      if (s.finallyBlock) {
        parts.push(original((s.catchClause ?? s.tryBlock).getEnd() - 1, s.finallyBlock.getStart(sourceFile) + 1, []));
        parts.push(finallyBody(s.finallyBlock, cx));
      }
      parts.push(line('}'));
      return [{ kind: 'compound', parts }];
    }
    if (ts.isSwitchStatement(s)) {
      // Resuming inside a case enters the switch at that case's label.
      let disc_ = text.slice(s.expression.getStart(sourceFile), s.expression.getEnd());
      for (const clause of [...s.caseBlock.clauses].reverse()) {
        const modes = within(clause, here);
        if (modes.length === 0 || !ts.isCaseClause(clause)) continue;
        disc_ = `${conditionText(test(modes, cx))} ? ${clause.expression.getText(sourceFile)} : ${disc_}`;
      }
      const parts: Array<Chunk | Piece[]> = [original(s.getStart(sourceFile), s.caseBlock.getStart(sourceFile) + 1, [{ start: s.expression.getStart(sourceFile), end: s.expression.getEnd(), text: disc_ }])];
      const clauses: Piece[] = [];
      for (const clause of s.caseBlock.clauses) {
        const headEnd = clause.statements[0] ? rangeOf(clause.statements[0])[0] : clause.getEnd();
        const head = original(rangeOf(clause)[0], headEnd, []);
        const modes = new Set(within(clause, here));
        clauses.push({ kind: 'compound', parts: [{ ...head, text: head.text.replace(/\s+$/, '') }, emitList(clause.statements, undefined, normal, modes, cx)] });
      }
      parts.push(clauses, line('}'));
      return [{ kind: 'compound', parts }];
    }
    throw new Error(`cannot keep a ${ts.SyntaxKind[s.kind]} once`);
  };

  /**
   * A loop entered again by the rounds resuming inside it: its variables come back from the state,
   * and its condition, checked when the question was asked, is not checked again on the way in.
   */
  const sharedLoop = (s: ts.IterationStatement, normal: boolean, here: ReadonlySet<Susp>, cx: Cx): Piece[] => {
    const loop: Cx = { ...cx, dynamic: true };
    const entering = test(here, loop);
    const bodyList = ts.isBlock(s.statement) ? s.statement.statements : [s.statement];
    const close = ts.isBlock(s.statement) ? s.statement.getEnd() - 1 : undefined;
    const inner = emitList(bodyList, close, true, here, loop);
    const bodyStart = s.statement.getStart(sourceFile);
    const edits: Edit[] = [];
    if (ts.isForStatement(s) && s.initializer && ts.isVariableDeclarationList(s.initializer)) {
      for (const d of s.initializer.declarations) {
        if (!d.initializer || !ts.isIdentifier(d.name)) continue;
        edits.push({ start: d.initializer.getStart(sourceFile), end: d.initializer.getStart(sourceFile), text: `${conditionText(entering)} ? ${resumingVar}.${keyed(d.name.text).key} : ` });
      }
    }
    const cond = ts.isForStatement(s) ? s.condition : ts.isWhileStatement(s) ? s.expression : undefined;
    if (cond) edits.push({ start: cond.getStart(sourceFile), end: cond.getEnd(), text: `${conditionText(entering)} || ${wrap(ts, cond, text.slice(cond.getStart(sourceFile), cond.getEnd()))}` });
    if (ts.isDoStatement(s)) {
      const head = original(s.getStart(sourceFile), bodyStart + 1, []);
      const tailText = original(s.statement.getEnd() - 1, s.getEnd(), []);
      return [{ kind: 'compound', parts: [head, inner, tailText] }];
    }
    const head = original(s.getStart(sourceFile), ts.isBlock(s.statement) ? bodyStart + 1 : bodyStart, edits);
    void normal;
    return [{ kind: 'compound', parts: [ts.isBlock(s.statement) ? head : { ...head, text: `${head.text.trimEnd()} {` }, inner, line('}')] }];
  };

  const conditionText = (t: StepTest): string => condition(t);

  // ---------------------------------------------------------------------------------------------
  // The handler

  const prologue: ts.Statement[] = [
    gen.comment(gen.declare('const', callVar, gen.await(gen.call(env.module.callDigest, [gen.id(bindingNameExpr(env, plan, fn, addedParams)), gen.id(bindingArgsExpr(env, plan, fn, addedParams))]))),
      `Multi round-trip (SEP-2322): each round's state is verified and bound to this call; see ${env.stateTypeName}.`),
    gen.declare('const', stateVar, gen.id(stateReadText(env, fn, plan.handler.ctxParamIndex, ctxName))),
    gen.stmt(gen.call(env.module.assertState, [gen.id(stateVar), gen.id(callVar)])),
  ];
  if (resumingVar) {
    prologue.push(gen.comment(gen.declare('let', resumingVar, gen.id(stateVar)), 'The round being resumed inside a loop; cleared once its answer is read.'));
  }
  if (askedVar) {
    prologue.push(gen.comment(gen.declare('let', askedVar, f.createFalse()), 'Set when this round ends with a question: the finally blocks then wait for the round that finishes the call.'));
  }
  // Parameters the handler reassigns come back from the state of the round that carried them.
  for (const s of suspensions) {
    const params = carried(s).filter(l => declOf(s, l).kind === 'parameter');
    if (params.length > 0) {
      prologue.push(f.createIfStatement(conditionNode(gen, test([s], { dynamic: false, possible: new Set([START, ...allSteps]), hoisted: new Set(), breaks: new Map(), pending: new Map() })), gen.assignFrom(params.map(p => keyed(p.name)), gen.id(stateVar))));
    }
  }
  const top: Cx = { dynamic: false, possible: new Set([START, ...allSteps]), hoisted: new Set(), breaks: new Map(), pending: new Map() };
  const statePayload = new Map(suspensions.map(s => [s, carried(s).map(l => ({ name: l.name, type: l.type! }))]));
  const bodyPieces = emitList(body.statements, body.getEnd() - 1, true, new Set(suspensions), top);

  const bodyIndent = body.statements.length > 0 && text.slice(body.getStart(sourceFile), body.statements[0]!.getStart(sourceFile)).includes('\n')
    ? indentAt(text, body.statements[0]!.getStart(sourceFile))
    : indentAt(text, body.getStart(sourceFile)) + env.unit;
  const closeIndent = text.slice(rangeOf(body.statements[body.statements.length - 1] ?? body)[1], body.getEnd() - 1).includes('\n')
    ? indentAt(text, body.getEnd() - 1)
    : indentAt(text, body.getStart(sourceFile));
  const lines = render([{ kind: 'chunk', chunk: gen.print(prologue) }, ...flatten(bodyPieces)], bodyIndent, env);
  const bodyText = `{${env.newline}${lines.join(env.newline)}${env.newline}${closeIndent}}`;

  return {
    edits: [...paramEdits, ...widenReturnType(env, fn, sdkTypes), { start: body.getStart(sourceFile), end: body.getEnd(), text: bodyText }],
    stateTypeDeclaration: stateType(),
    questions: suspensions.map(s => ({ step: s.step, carried: statePayload.get(s)! })),
    sdkValues,
    sdkTypes,
    usesElicitResultOf,
    usesElicitAnswerOf,
    usesCheckedResponse,
  };

  function stateType(): string {
    const members = suspensions.map(s => {
      const requests = s.requestRebuilt ? [] : [s.list ? 'requests: InputRequest[]' : s.combinator ? `requests: { ${s.questions.map(q => `${q.key}: InputRequest`).join('; ')} }` : 'request: InputRequest'];
      const fields = [`step: '${s.step}'`, 'call: string', ...requests, ...statePayload.get(s)!.map(c => `${keyed(c.name).key}: ${c.type}`)];
      return `{ ${fields.join('; ')} }`;
    });
    // One member per line, each after a `|`; one round's type is that member alone.
    if (members.length === 1) return `type ${env.stateTypeName} = ${members[0]};`;
    return `type ${env.stateTypeName} =${env.newline}${members.map(m => `${env.unit}| ${m}`).join(env.newline)};`;
  }
}

/**
 * Guard clauses that are the first statement of another guard clause move out of it when they
 * imply it and always return: `if (A) { if (B) { ...return } ...return }` with B ⇒ A reads as
 * `if (B) {...} if (A) {...}`,
 * the chain of the SDK guide.
 */
function flatten(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    if (p.kind === 'test' && !p.else) {
      let guard: Piece & { kind: 'test' } = { ...p, then: flatten(p.then) };
      for (;;) {
        const first = guard.then[0];
        // Only a guard that returns can move out: code after it in the outer guard would run otherwise.
        if (!first || first.kind !== 'test' || first.else || !first.exits || first.test.variable !== guard.test.variable) break;
        const inner = [...first.test.truth].filter(v => first.test.possible.has(v));
        if (!inner.every(v => guard.test.truth.has(v))) break;
        out.push({ ...first, test: { ...first.test, possible: guard.test.possible } });
        const possible: Set<string> = new Set([...guard.test.possible].filter(v => !inner.includes(v)));
        guard = { ...guard, test: { ...guard.test, possible }, then: guard.then.slice(1) };
      }
      out.push(guard);
      continue;
    }
    if (p.kind === 'test') out.push({ ...p, then: flatten(p.then), else: flatten(p.else!) });
    else if (p.kind === 'compound') out.push({ ...p, parts: p.parts.map(x => (Array.isArray(x) ? flatten(x) : x)) });
    else out.push(p);
  }
  return out;
}

/** An inline condition (loop headers, initializers) in the same words as a dispatch test. */
function conditionNode(gen: Generator, t: StepTest): ts.Expression {
  return gen.id(condition(t));
}

/** Whether `node` is `ancestor` or lies inside it. */
function isInside(node: ts.Node, ancestor: ts.Node): boolean {
  for (let n: ts.Node | undefined = node; n; n = n.parent) if (n === ancestor) return true;
  return false;
}

/** The statement that declares a local (its variable statement, or the function / class itself). */
function declarationStatement(ts: TS, declaration: ts.Node): ts.Statement | undefined {
  if (ts.isVariableDeclaration(declaration)) {
    const statement = declaration.parent.parent;
    return ts.isVariableStatement(statement) ? statement : undefined;
  }
  if (ts.isFunctionDeclaration(declaration) || ts.isClassDeclaration(declaration)) return declaration;
  return undefined;
}

function needsParens(ts: TS, e: ts.Expression): boolean {
  const x = skipOuter(ts, e);
  return ts.isConditionalExpression(x) || (ts.isBinaryExpression(x) && x.operatorToken.kind === ts.SyntaxKind.CommaToken) || ts.isArrowFunction(x) || ts.isYieldExpression(x);
}

/** An operand of `||`, in parentheses only when its operators bind looser (or cannot mix with `||`). */
function wrap(ts: TS, e: ts.Expression, source: string): string {
  const x = ts.isParenthesizedExpression(e) ? e : skipOuter(ts, e);
  const loose = ts.isConditionalExpression(x) || ts.isArrowFunction(x) || ts.isYieldExpression(x) ||
    (ts.isBinaryExpression(x) && (x.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || x.operatorToken.kind === ts.SyntaxKind.CommaToken ||
      (x.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && x.operatorToken.kind <= ts.SyntaxKind.LastAssignment)));
  return loose ? `(${source})` : source;
}

/** Unlabeled breaks that leave `sw` (not a loop or switch nested in it, not a nested function). */
function switchBreaks(ts: TS, sw: ts.SwitchStatement): ts.BreakStatement[] {
  const found: ts.BreakStatement[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isBreakStatement(node) && !node.label) found.push(node);
    if (isFunctionLike(ts, node) || ts.isIterationStatement(node, false) || ts.isSwitchStatement(node)) return;
    node.forEachChild(visit);
  };
  sw.caseBlock.forEachChild(visit);
  return found;
}

/** The `break` that ends a case's code (its last statement, or the last of a block that is), if any. */
function endingBreak(ts: TS, s: ts.Statement | undefined): ts.BreakStatement | undefined {
  if (!s) return undefined;
  if (ts.isBreakStatement(s)) return s.label ? undefined : s;
  if (ts.isBlock(s) && s.statements.length > 0) return endingBreak(ts, s.statements[s.statements.length - 1]!);
  return undefined;
}
