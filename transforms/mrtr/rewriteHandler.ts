import type * as ts from 'typescript';
import type { Site, TS } from '../../src/analysis/types.js';
import type { HandlerPlan, QuestionPlan } from '../../src/analysis/index.js';
import type { HelperSplit } from '../../src/analysis/helpers.js';
import { statementList } from '../../src/analysis/continuation.js';
import { breaksOf } from '../../src/analysis/switchCase.js';
import { bindingIdentifiers, scopeDeclarations } from '../../src/analysis/scope.js';
import { skipOuter } from '../../src/analysis/sdk.js';
import { camelCase, indentAt, reindent, reindentProtected, splice, type Edit, type Protected } from './text.js';


/**
 * Rewrites one handler into the multi round-trip shape of the SDK guide:
 *
 *   const call = await requestStateCall(name, args);       // what this state is for
 *   const state = ctx.mcpReq.requestState<HandlerState>();  // verified by the codec at the seam
 *   assertStateFor(state, call);
 *   if (state?.step === 'confirm') { ...read the answer (ask again if missing), restore locals, run the rest... }
 *   ...the original code, each question replaced by `return inputRequired(...)` carrying its live locals...
 *
 * Code before a question runs once, in the round that asks; the code after it runs in the round
 * that brings the answer. Everything is spliced from the original text.
 */

/** Names shared by every handler of the file (module-level declarations the rewrite adds). */
export interface ModuleNames {
  codec: string;
  callDigest: string;
  assertState: string;
  elicitResultOf: string;
  /** `(ctx, server) => ClientCapabilities | undefined`: the request's capabilities (see moduleSupport). */
  capabilitiesOf: string;
}

export interface RewriteEnv {
  ts: TS;
  sourceFile: ts.SourceFile;
  text: string;
  newline: string;
  unit: string;
  /** Multi-line string and template literals of the file (absolute offsets). */
  literals: Array<[number, number]>;
  module: ModuleNames;
  /** Type name for this handler's phase union, already unique in the file. */
  stateTypeName: string;
  checker: ts.TypeChecker | undefined;
  /** The handler's capability reads rewritten to per-request reads: applied to every copy of its code. */
  guards?: Edit[];
  /** Names of the split parts of each asking helper (see splitHelper.ts). */
  helperNames: ReadonlyMap<HelperSplit, HelperPartNames>;
}

export interface HelperPartNames {
  request: string;
  result: string;
}

export interface QuestionOutput {
  step: string;
  carried: { name: string; type: string }[];
}

export interface HandlerRewrite {
  edits: Edit[];
  /** `type X = | {...} | {...};` */
  stateTypeDeclaration: string;
  questions: QuestionOutput[];
  /** Value and type names the rewritten handler uses from @modelcontextprotocol/server. */
  sdkValues: Set<string>;
  sdkTypes: Set<string>;
  usesElicitResultOf: boolean;
}

interface Question {
  plan: QuestionPlan;
  step: string;
  statement: ts.Statement;
  /** The statement and every later one in its list: the range the ask replaces. */
  dropEnd: number;
  requestVar: string;
  answerVar: string;
  carried: { name: string; type: string; isParameter: boolean; kind: 'const' | 'let' }[];
  rebuilt: ts.Node[];
  answerType: string;
}

const VIEW_KIND = { elicitation: 'elicit', sampling: 'sampling', roots: 'roots' } as const;

export function rewriteHandler(env: RewriteEnv, plan: HandlerPlan): HandlerRewrite {
  const { ts } = env;
  const fn = plan.handler.fn;
  const body = fn.body as ts.Block;
  const locals = new LocalNames(ts, fn);
  // The split helpers' parts are module names the handler calls: never shadow them.
  for (const names of env.helperNames.values()) locals.reserve(names.request, names.result);
  const sdkValues = new Set<string>(['inputRequired', 'inputResponse']);
  const sdkTypes = new Set<string>(['InputRequest']);
  let usesElicitResultOf = false;

  // Parameters: the context (added when the handler did not take it), the arguments for the binding.
  const paramEdits: Edit[] = [];
  const addedParams = new Map<number, string>();
  const ctxName = ensureParameter(env, fn, plan.handler.ctxParamIndex, 'ctx', locals, paramEdits, addedParams);
  env = { ...env, guards: plan.guards.map(site => guardEdit(env, site, ctxName)) };
  const stateVar = locals.take('state');
  const callVar = locals.take('call');

  const usedSteps = new Set<string>();
  const questions: Question[] = plan.questions.map(q => {
    const statement = q.flow.statement!;
    const step = uniqueStep(preferredStep(ts, q), usedSteps);
    const list = statementList(ts, statement);
    const dropEnd = list ? list[list.length - 1]!.getEnd() : statement.getEnd();
    const kind = q.site.kind as 'elicitation' | 'sampling' | 'roots';
    const answerType = answerTypeOf(ts, q);
    // The sampling answer is cast to the push call's result type.
    if (kind === 'sampling' && answerType !== 'CreateMessageResult | CreateMessageResultWithTools') sdkTypes.add(answerType);
    if (kind === 'elicitation') {
      usesElicitResultOf = true;
    }
    const carried = q.live.locals
      .filter(l => l.how === 'carry')
      .map(l => {
        for (const name of l.typeImports) sdkTypes.add(name);
        const declKind: 'const' | 'let' = ts.isVariableDeclaration(l.declaration) && (l.declaration.parent.flags & ts.NodeFlags.Const) ? 'const' : 'let';
        return { name: l.name, type: typeForState(env, plan, l), isParameter: l.isParameter, kind: declKind };
      });
    const rebuilt = q.live.locals.filter(l => l.how === 'rebuild').map(l => l.declaration);
    return {
      plan: q, step, statement, dropEnd,
      requestVar: locals.take(locals.has(`${step}Request`) ? `${step}InputRequest` : `${step}Request`),
      answerVar: locals.take(`${step}Response`),
      carried, rebuilt, answerType,
    };
  });

  /**
   * `try { ... ask ... } finally { F }`: returning the ask would run F in the asking round, and
   * again when the answer comes back. A flag set just before the ask skips F in that round.
   */
  const finallyFlags = new Map<ts.TryStatement, string>();
  const guardingTries = (node: ts.Node): ts.TryStatement[] => {
    const tries: ts.TryStatement[] = [];
    for (let n: ts.Node | undefined = node; n && n !== fn; n = n.parent) {
      const parent: ts.Node | undefined = n.parent;
      if (parent && ts.isTryStatement(parent) && parent.tryBlock === n && parent.finallyBlock) tries.unshift(parent);
    }
    return tries;
  };
  const flagOf = (t: ts.TryStatement): string => {
    let flag = finallyFlags.get(t);
    if (!flag) finallyFlags.set(t, (flag = locals.take('askedForInput')));
    return flag;
  };

  /** The ask that replaces a question (and the rest of its list), written at `indent`. */
  const askText = (q: Question, indent: string): Protected => {
    const nl = env.newline + indent;
    const request = requestBuilder(env, q);
    const payload = [`step: '${q.step}'`, callVar === 'call' ? 'call' : `call: ${callVar}`, `request: ${q.requestVar}`, ...q.carried.map(c => c.name)].join(', ');
    const lone = !statementList(ts, q.statement);
    const pad = lone ? env.unit : '';
    const head = `${lone ? `{${nl}${pad}` : ''}const ${q.requestVar} = ${request.prefix}`;
    const tail = [
      `${request.suffix};`,
      ...guardingTries(q.statement).map(t => `${pad}${flagOf(t)} = true;`),
      `${pad}return inputRequired({`,
      `${pad}${env.unit}inputRequests: { ${q.step}: ${q.requestVar} },`,
      `${pad}${env.unit}requestState: await ${env.module.codec}.mint({ ${payload} }, ${ctxName}),`,
      `${pad}});`,
    ].join(nl) + (lone ? `${nl.slice(0, -env.unit.length || undefined)}}` : '');
    const protect = request.params.protect.map(([a, b]) => [a + head.length, b + head.length] as [number, number]);
    return { text: head + request.params.text + tail, protect };
  };

  const questionStatements = new Set(questions.map(q => q.statement));

  /** One label per switch case a resumed question sits in (the same in every branch). */
  const caseLabels = new Map<ts.CaseOrDefaultClause, string>();
  const labelOf = (clause: ts.CaseOrDefaultClause): string => {
    let label = caseLabels.get(clause);
    if (!label) caseLabels.set(clause, (label = locals.take(caseLabelName(ts, clause))));
    return label;
  };

  /**
   * Edits replacing each first-reached question inside [start, end) with its ask, and dropping
   * statements that the asks made unreachable (after an `if` whose branches all ask, say).
   */
  const askEdits = (start: number, end: number, except?: Question): Array<Edit & { protect: Array<[number, number]> }> => {
    const edits: Array<Edit & { protect: Array<[number, number]> }> = [];
    const asking = new Set([...questionStatements].filter(st => st !== except?.statement));
    for (const q of questions) {
      if (q === except) continue;
      const s = q.statement.getStart(env.sourceFile);
      if (s < start || q.dropEnd > end) continue;
      if (edits.some(e => s >= e.start && s < e.end)) continue;
      const ask = askText(q, indentAt(env.text, s));
      edits.push({ start: s, end: q.dropEnd, text: ask.text, protect: ask.protect });
    }
    const visit = (node: ts.Node): void => {
      if (node.getEnd() <= start || node.getStart(env.sourceFile) >= end || isFunctionLikeNode(ts, node) && node !== fn) return;
      const list = ts.isBlock(node) || ts.isCaseClause(node) || ts.isDefaultClause(node) ? node.statements : undefined;
      if (list) {
        const stop = list.findIndex(st => !asking.has(st) && containsAny(st, asking) && !completes(ts, st, asking));
        const dead = stop >= 0 ? list.slice(stop + 1) : [];
        const from = dead[0]?.getStart(env.sourceFile);
        if (from !== undefined && from >= start && dead[dead.length - 1]!.getEnd() <= end && !edits.some(e => from >= e.start && from < e.end)) {
          // Drop from the end of the statement that cannot complete, so no blank lines are left behind.
          const at = list[stop]!.getEnd();
          for (let i = edits.length - 1; i >= 0; i--) if (edits[i]!.start >= at && edits[i]!.end <= dead[dead.length - 1]!.getEnd()) edits.splice(i, 1);
          edits.push({ start: at, end: dead[dead.length - 1]!.getEnd(), text: '', protect: [] });
        }
      }
      node.forEachChild(visit);
    };
    visit(fn.body!);
    for (const [t, flag] of finallyFlags) {
      const tStart = t.getStart(env.sourceFile);
      if (tStart < start || t.getEnd() > end || edits.some(e => tStart >= e.start && tStart < e.end)) continue;
      const tryBlock = t.tryBlock;
      if (!edits.some(e => e.text.includes(`${flag} = true;`) && e.start >= tryBlock.getStart(env.sourceFile) && e.end <= tryBlock.getEnd())) continue;
      const indent = indentAt(env.text, tStart);
      edits.push({ start: tStart, end: tStart, text: `let ${flag} = false;${env.newline}${indent}`, protect: [] });
      const guarded = guardedFinally(env, t, flag, indent);
      edits.push({ start: t.finallyBlock!.getStart(env.sourceFile), end: t.finallyBlock!.getEnd(), text: guarded.text, protect: guarded.protect });
    }
    edits.push(...guardsIn(env, start, end, edits).map(e => ({ ...e, protect: [] })));
    return edits;
  };

  // Phase 0: the original body, each first-reached question replaced by its ask.
  const bodyStart = body.getStart(env.sourceFile) + 1;
  const bodyEnd = body.getEnd() - 1;
  const phaseZero: Edit[] = askEdits(bodyStart, bodyEnd).map(({ start, end, text }) => ({ start, end, text }));

  // The resume branches, inserted before the original code.
  const bodyIndent = body.statements.length > 0 ? indentAt(env.text, body.statements[0]!.getStart(env.sourceFile)) : indentAt(env.text, fn.getStart(env.sourceFile)) + env.unit;
  const inner = bodyIndent + env.unit;
  const nl = env.newline;
  const prologue: string[] = [
    `// Multi round-trip (SEP-2322): each round's state is verified and bound to this call; see ${env.stateTypeName}.`,
    `const ${callVar} = await ${env.module.callDigest}(${bindingNameExpr(env, plan, fn)}, ${bindingArgsExpr(env, plan, fn, addedParams)});`,
    `const ${stateVar} = ${ctxName}.mcpReq.requestState<${env.stateTypeName}>();`,
    `${env.module.assertState}(${stateVar}, ${callVar});`,
  ];
  const branches = questions.map(q => {
    const lines: string[] = [];
    const viewKind = VIEW_KIND[q.plan.site.kind as keyof typeof VIEW_KIND];
    lines.push(`const ${q.answerVar} = inputResponse(${ctxName}.mcpReq.inputResponses, '${q.step}');`);
    lines.push(`if (${q.answerVar}.kind !== '${viewKind}') {`);
    lines.push(`${env.unit}// The retry came without this round's answer: ask again.`);
    lines.push(`${env.unit}return inputRequired({ inputRequests: { ${q.step}: ${stateVar}.request }, requestState: await ${env.module.codec}.mint(${stateVar}, ${ctxName}) });`);
    lines.push('}');
    const cont = continuation(env, q, fn, askEdits, rebuildExpr(q), inner, new Set([...questionStatements].filter(st => st !== q.statement)), flagOf, labelOf);
    // Restore only what this branch's code uses: a later question cuts off reads that its own round restores.
    const rebuilt = q.rebuilt.map(node => ({ name: rebuiltName(ts, node), text: rebuiltDeclaration(env, node, inner) }));
    let used = cont.text;
    for (let changed = true; changed;) {
      changed = false;
      for (const r of rebuilt) {
        if (!used.includes(r.text) && mentions(used, r.name)) {
          used += `\n${r.text}`;
          changed = true;
        }
      }
    }
    lines.push(...restoreLines({ ...q, carried: q.carried.filter(c => mentions(used, c.name)) }, stateVar));
    for (const r of rebuilt) if (used.includes(r.text)) lines.push(r.text);
    // Running off the end of the branch would fall into the first round's code: return, as the original did.
    const fallsThrough = cont.completes && endReachable(env, fn);
    const text = `if (${stateVar}?.step === '${q.step}') {${nl}${inner}${lines.join(nl + inner)}${cont.text ? nl + inner + cont.text : ''}${fallsThrough ? `${nl}${inner}return;` : ''}${nl}${bodyIndent}}`;
    return text;
  });
  const header = nl + bodyIndent + [...prologue, ...branches].join(nl + bodyIndent);

  return {
    edits: [...paramEdits, ...widenReturnType(env, fn, sdkTypes), { start: bodyStart, end: bodyStart, text: header }, ...phaseZero],
    stateTypeDeclaration: stateType(env, questions),
    questions: questions.map(q => ({ step: q.step, carried: q.carried.map(c => ({ name: c.name, type: c.type })) })),
    sdkValues,
    sdkTypes,
    usesElicitResultOf,
  };

  function rebuildExpr(q: Question): string {
    const answer = answerExpr(q);
    const helper = q.plan.helper;
    if (!helper || helper.split.identity) return answer;
    return helperPartCall(env, helper.split, helper.call, 'result', helper.split.readsAnswer ? answer : undefined);
  }

  function answerExpr(q: Question): string {
    switch (q.plan.site.kind) {
      case 'elicitation':
        return `${env.module.elicitResultOf}(${q.answerVar})`;
      case 'sampling':
        return q.answerType === 'CreateMessageResult | CreateMessageResultWithTools' ? `${q.answerVar}.result` : `${q.answerVar}.result as ${q.answerType}`;
      default:
        return `{ roots: ${q.answerVar}.roots }`;
    }
  }
}

/**
 * `server.server.getClientCapabilities()` → `clientCapabilitiesOf(ctx, server.server)`: the
 * capabilities of the request being handled, so a guard decides per request on 2026-07-28.
 */
export function guardEdit(env: Pick<RewriteEnv, 'ts' | 'sourceFile' | 'text' | 'module'>, site: Site, ctxName: string): Edit {
  const { ts } = env;
  const call = site.node as ts.CallExpression;
  const callee = skipOuter(ts, call.expression) as ts.PropertyAccessExpression;
  const receiver = env.text.slice(callee.expression.getStart(env.sourceFile), callee.expression.getEnd());
  return { start: call.getStart(env.sourceFile), end: call.getEnd(), text: `${env.module.capabilitiesOf}(${ctxName}, ${receiver})` };
}

/** The handler's guard edits inside [start, end) that no other edit already covers. */
function guardsIn(env: RewriteEnv, start: number, end: number, others: Edit[] = []): Edit[] {
  return (env.guards ?? []).filter(g => g.start >= start && g.end <= end && !others.some(o => g.start < o.end && g.end > o.start));
}

function restoreLines(q: Question, stateVar: string): string[] {
  const lines: string[] = [];
  const consts = q.carried.filter(c => !c.isParameter && c.kind === 'const').map(c => c.name);
  const lets = q.carried.filter(c => !c.isParameter && c.kind === 'let').map(c => c.name);
  if (consts.length > 0) lines.push(`const { ${consts.join(', ')} } = ${stateVar};`);
  if (lets.length > 0) lines.push(`let { ${lets.join(', ')} } = ${stateVar};`);
  for (const c of q.carried.filter(c => c.isParameter)) lines.push(`${c.name} = ${stateVar}.${c.name};`);
  return lines;
}

function rebuiltName(ts: TS, node: ts.Node): string {
  const name = (node as ts.NamedDeclaration).name;
  return name && ts.isIdentifier(name) ? name.text : '';
}

/** Whether `text` mentions `name` as a whole word (a cheap, conservative use check). */
function mentions(text: string, name: string): boolean {
  // Not after a lone `.` (a property of the same name), but after a spread's `...`.
  return new RegExp(`(^|[^A-Za-z0-9_$.]|\\.\\.\\.)${name.replace(/\$/g, '\\$')}($|[^A-Za-z0-9_$])`).test(text);
}

/** Re-emits a side-effect-free declaration (function, class, or `const f = () => ...`). */
export function rebuiltDeclaration(env: Pick<RewriteEnv, 'ts' | 'sourceFile' | 'text' | 'literals'>, node: ts.Node, indent: string): string {
  const { ts } = env;
  const start = node.getStart(env.sourceFile);
  const own = splice(env.text, start, node.getEnd(), [], env.literals);
  if (ts.isVariableDeclaration(node)) {
    const list = node.parent as ts.VariableDeclarationList;
    const keyword = list.flags & ts.NodeFlags.Const ? 'const ' : list.flags & ts.NodeFlags.Let ? 'let ' : 'var ';
    own.text = `${keyword}${own.text};`;
    own.protect = own.protect.map(([a, b]) => [a + keyword.length, b + keyword.length]);
  }
  return reindent(own, indentAt(env.text, start), indent);
}

/**
 * The code that runs after the answer: the rest of the question's statement list, then, going out
 * through each enclosing `if` / block / `try`, the rest of the enclosing list. A `try` is rebuilt
 * around the inner part so errors still reach the same `catch`.
 */
function continuation(
  env: RewriteEnv,
  q: Question,
  fn: ts.FunctionLikeDeclaration,
  askEdits: (start: number, end: number, except?: Question) => Array<Edit & { protect: Array<[number, number]> }>,
  answerExpr: string,
  indent: string,
  asking: ReadonlySet<ts.Statement>,
  flagOf: (t: ts.TryStatement) => string,
  labelOf: (clause: ts.CaseOrDefaultClause) => string,
): { text: string; completes: boolean } {
  const { ts, text, sourceFile } = env;
  const nl = env.newline;
  const body = fn.body as ts.Block;
  type Piece = (target: string) => string;

  /**
   * `break`s of the switch cases the question sits in: the resumed case is no longer inside its
   * switch, so a break becomes `break <case label>` (or goes, when it ends the case).
   */
  const jumps: Edit[] = [];
  const withJumps = (start: number, end: number, edits: Edit[]): Edit[] => {
    const inRange = jumps.filter(j => j.end <= end && j.end > start).map(j => ({ ...j, start: Math.max(j.start, start) }));
    return [...edits, ...inRange.filter(j => !edits.some(e => j.start < e.end && j.end > e.start))];
  };

  /** Source ranges the continuation copies (its breaks are the ones that matter). */
  const copied: Array<[number, number]> = [];
  /** Original statements of a list, later questions replaced by their asks, at `target` indentation. */
  const statementsAt = (statements: readonly ts.Statement[]): Piece => {
    const start = statements[0]!.getStart(sourceFile);
    const end = statements[statements.length - 1]!.getEnd();
    copied.push([start, end]);
    return target => reindent(splice(text, start, end, withJumps(start, end, askEdits(start, end, q)), env.literals), indentAt(text, start), target);
  };
  const nest = (inner: Piece[], target: string): string =>
    inner.map(p => p(target + env.unit)).filter(Boolean).join(nl + target + env.unit);

  // The question's own statement, the answer in place of the await (a bare `await ask();` goes away).
  const statement = q.statement;
  const form = q.plan.flow.form;
  let parts: Piece[] = [];
  // `await helper();`: the helper's result part may still have work to do after the answer.
  const helperWork = q.plan.helper !== undefined && !q.plan.helper.split.identity;
  if (form !== 'discard' || helperWork) {
    const sStart = statement.getStart(sourceFile);
    const awaited = q.plan.flow.awaited;
    const answer = { start: awaited.getStart(sourceFile), end: awaited.getEnd(), text: answerExpr };
    const own = (): Protected => splice(text, sStart, statement.getEnd(), withJumps(sStart, statement.getEnd(), [answer, ...guardsIn(env, sStart, statement.getEnd(), [answer])]), env.literals);
    copied.push([sStart, statement.getEnd()]);
    parts.push(target => reindent(own(), indentAt(text, sStart), target));
  }
  const list = statementList(ts, statement);
  const after = list ? list.slice(list.indexOf(statement) + 1) : [];
  if (after.length > 0) parts.push(statementsAt(after));
  let last: ts.Statement | undefined = after[after.length - 1] ?? (form === 'return' ? statement : undefined);
  let declared = declaredNames(ts, [statement, ...after]);

  // Outwards: each enclosing statement, then what follows it in its own list.
  for (let node: ts.Node | undefined = statement.parent; node && node !== body; node = node.parent) {
    if (ts.isTryStatement(node)) {
      // Rebuild the try around what ran inside it, so a later throw reaches the same catch.
      const tryStatement = node;
      const inner = parts;
      const tailStart = tryStatement.tryBlock.getEnd();
      const tryIndent = indentAt(text, tryStatement.getStart(sourceFile));
      copied.push([tailStart, tryStatement.getEnd()]);
      parts = [target => {
        const innerText = nest(inner, target);
        const flag = tryStatement.finallyBlock && flagOf(tryStatement);
        if (!flag || !innerText.includes(`${flag} = true;`)) {
          return `try {${nl}${target}${env.unit}${innerText}${nl}${target}}${reindent(splice(text, tailStart, tryStatement.getEnd(), withJumps(tailStart, tryStatement.getEnd(), guardsIn(env, tailStart, tryStatement.getEnd())), env.literals), tryIndent, target)}`;
        }
        // A later question inside the same try asks again: guard its finally as in the first round.
        const catchText = tryStatement.catchClause
          ? reindent(splice(text, tailStart, tryStatement.catchClause.getEnd(), withJumps(tailStart, tryStatement.catchClause.getEnd(), guardsIn(env, tailStart, tryStatement.catchClause.getEnd())), env.literals), tryIndent, target)
          : '';
        const guarded = guardedFinally(env, tryStatement, flag, target).text;
        return `let ${flag} = false;${nl}${target}try {${nl}${target}${env.unit}${innerText}${nl}${target}}${catchText} finally ${guarded}`;
      }];
      last = tryStatement;
      declared = new Set();
    }
    if (ts.isCaseClause(node) || ts.isDefaultClause(node)) {
      const resumed = resumeCase(node, parts, last);
      parts = resumed.parts;
      last = resumed.last;
      declared = new Set([...declared, ...resumed.declared]);
      continue;
    }
    if (!ts.isStatement(node)) continue;
    const outer = statementList(ts, node);
    if (!outer) continue; // a block that is an if branch: its if statement comes next
    const rest = outer.slice(outer.indexOf(node as ts.Statement) + 1);
    if (rest.length === 0) continue;
    // The code so far returns, throws (or leaves its switch case) on every path: what follows the
    // enclosing statement is unreachable from the answer.
    if (last && !completes(ts, last, asking, insideCase(ts, node, body))) continue;
    const restNames = declaredNames(ts, rest);
    if ([...restNames].some(n => declared.has(n))) {
      // Same name declared inside and after the block: keep the block so both stay in scope.
      const inner = parts;
      parts = [target => `{${nl}${target}${env.unit}${nest(inner, target)}${nl}${target}}`];
    }
    parts.push(statementsAt(rest));
    last = rest[rest.length - 1];
    declared = new Set([...declared, ...restNames]);
  }
  const rendered = parts.map(p => p(indent)).filter(Boolean).join(nl + indent);
  return { text: rendered, completes: !last || completes(ts, last, asking) };

  /**
   * The rest of a switch case after the answer, as its own block: the cases it falls through
   * into follow it, its `break`s leave the block (labelled after the case when any is left besides
   * the one ending the case), and the code after the switch comes next.
   */
  function resumeCase(clause: ts.CaseOrDefaultClause, inner: Piece[], innerLast: ts.Statement | undefined): { parts: Piece[]; last: ts.Statement | undefined; declared: Set<string> } {
    const sw = clause.parent.parent;
    const pieces = [...inner];
    let lastStatement = innerLast;
    const names = new Set<string>();
    const clauses = clause.parent.clauses;
    for (let i = clauses.indexOf(clause); i + 1 < clauses.length && fallsThrough(ts, clauses[i]!, asking); i++) {
      const next = clauses[i + 1]!.statements;
      if (next.length === 0) continue;
      pieces.push(statementsAt(next));
      lastStatement = next[next.length - 1];
      for (const n of declaredNames(ts, next)) names.add(n);
    }
    const label = labelOf(clause);
    const ending = lastStatement && endingBreak(ts, lastStatement);
    let leaves = false;
    for (const b of breaksOf(ts, sw)) {
      if (!copied.some(([from, to]) => b.pos >= from && b.end <= to)) continue;
      if (b === ending) {
        // Drop the break with the line break before it, so no blank line is left.
        const list = statementList(ts, b);
        const previous = list && list[list.indexOf(b) - 1];
        jumps.push({ start: previous ? previous.getEnd() : b.getStart(sourceFile), end: b.getEnd(), text: '' });
      } else {
        jumps.push({ start: b.getStart(sourceFile), end: b.getEnd(), text: `break ${label};` });
        leaves = true;
      }
    }
    // Leaving by the break that ends the case, or running off the last case: the code after the switch comes next.
    if (!leaves) return { parts: pieces, last: ending ? undefined : lastStatement, declared: names };
    const wrapped: Piece = target => {
      const body = nest(pieces, target);
      // A later question may have replaced every break: then the block needs no label.
      if (!mentions(body, `break ${label}`)) return pieces.map(p => p(target)).filter(Boolean).join(nl + target);
      return `${label}: {${nl}${target}${env.unit}${body}${nl}${target}}`;
    };
    // A break leaves the block: the code after the switch is reachable.
    return { parts: [wrapped], last: undefined, declared: names };
  }
}

/** Whether `node` sits in a switch case (below `body`): an unlabeled break there leaves the case. */
function insideCase(ts: TS, node: ts.Node, body: ts.Node): boolean {
  for (let n: ts.Node | undefined = node.parent; n && n !== body; n = n.parent) if (ts.isCaseClause(n) || ts.isDefaultClause(n)) return true;
  return false;
}

/** The `break` that ends a case's code (last statement, or last of a block that is), if any. */
function endingBreak(ts: TS, s: ts.Statement): ts.BreakStatement | undefined {
  if (ts.isBreakStatement(s)) return s.label ? undefined : s;
  if (ts.isBlock(s) && s.statements.length > 0) return endingBreak(ts, s.statements[s.statements.length - 1]!);
  return undefined;
}

/** Whether control can run off the end of a case into the next one. */
function fallsThrough(ts: TS, clause: ts.CaseOrDefaultClause, asking: ReadonlySet<ts.Statement>): boolean {
  const list = clause.statements;
  return list.length === 0 || completes(ts, list[list.length - 1]!, asking, true);
}

/** `archiveProjectCase` for `case 'archive_project':`, `defaultCase` for `default:`. */
function caseLabelName(ts: TS, clause: ts.CaseOrDefaultClause): string {
  if (ts.isDefaultClause(clause)) return 'defaultCase';
  const e = skipOuter(ts, clause.expression);
  const words = ts.isStringLiteralLike(e) || ts.isNumericLiteral(e) ? camelCase(e.text) : ts.isPropertyAccessExpression(e) ? camelCase(e.name.text) : '';
  return /^[A-Za-z_$][\w$]*$/.test(words) ? `${words}Case` : 'resumedCase';
}

function declaredNames(ts: TS, statements: readonly ts.Statement[]): Set<string> {
  const names = new Set<string>();
  for (const s of statements) {
    if (ts.isVariableStatement(s)) for (const d of s.declarationList.declarations) for (const id of bindingIdentifiers(ts, d.name)) names.add(id.text);
    if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name) names.add(s.name.text);
  }
  return names;
}

/** `{ if (!flag) { ...the original finally statements... } }`, written at `indent`. */
function guardedFinally(env: RewriteEnv, t: ts.TryStatement, flag: string, indent: string): Protected {
  const block = t.finallyBlock!;
  const nl = env.newline;
  const statements = block.statements;
  const head = `{${nl}${indent}${env.unit}if (!${flag}) {`;
  if (statements.length === 0) return { text: `${head}${nl}${indent}${env.unit}}${nl}${indent}}`, protect: [] };
  const start = statements[0]!.getStart(env.sourceFile);
  const end = statements[statements.length - 1]!.getEnd();
  const inner = reindentProtected(splice(env.text, start, end, guardsIn(env, start, end), env.literals), indentAt(env.text, start), indent + env.unit + env.unit);
  const prefix = `${head}${nl}${indent}${env.unit}${env.unit}`;
  return {
    text: `${prefix}${inner.text}${nl}${indent}${env.unit}}${nl}${indent}}`,
    protect: inner.protect.map(([a, b]) => [a + prefix.length, b + prefix.length] as [number, number]),
  };
}

/** Whether control can run past the end of a statement, when the `asking` statements return. */
function completes(ts: TS, s: ts.Statement, asking: ReadonlySet<ts.Statement> = new Set(), breakLeaves = false): boolean {
  if (asking.has(s)) return false;
  if (ts.isReturnStatement(s) || ts.isThrowStatement(s)) return false;
  // With `breakLeaves`, an unlabeled break leaves the enclosing switch case instead of completing.
  if (breakLeaves && ts.isBreakStatement(s) && !s.label) return false;
  if (ts.isBlock(s)) return s.statements.every(x => completes(ts, x, asking, breakLeaves));
  if (ts.isIfStatement(s)) return !s.elseStatement || completes(ts, s.thenStatement, asking, breakLeaves) || completes(ts, s.elseStatement, asking, breakLeaves);
  if (ts.isTryStatement(s)) {
    if (s.finallyBlock && !completes(ts, s.finallyBlock, asking, breakLeaves)) return false;
    return completes(ts, s.tryBlock, asking, breakLeaves) || (!!s.catchClause && completes(ts, s.catchClause.block, asking, breakLeaves));
  }
  return true;
}

/**
 * Whether the original handler could run off its end (returning undefined). The checker knows
 * (exhaustive switches, calls returning never): an inferred return type without undefined says no.
 */
function endReachable(env: RewriteEnv, fn: ts.FunctionLikeDeclaration): boolean {
  const { ts, checker } = env;
  if (!checker || fn.type) return true;
  const signature = checker.getSignatureFromDeclaration(fn);
  if (!signature) return true;
  const returned = checker.getAwaitedType(checker.getReturnTypeOfSignature(signature));
  if (!returned || returned.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return true;
  const members = returned.isUnion() ? returned.types : [returned];
  return members.some(t => (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) !== 0);
}

function containsAny(node: ts.Node, statements: ReadonlySet<ts.Statement>): boolean {
  for (const st of statements) if (st.pos >= node.pos && st.end <= node.end) return true;
  return false;
}

function isFunctionLikeNode(ts: TS, node: ts.Node): boolean {
  return ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node);
}

/** The inputRequired builder for a question, around the original call's request parameters. */
function requestBuilder(env: RewriteEnv, q: Question): { prefix: string; params: Protected; suffix: string } {
  const helper = q.plan.helper;
  if (helper) return { prefix: helperPartCall(env, helper.split, helper.call, 'request'), params: { text: '', protect: [] }, suffix: '' };
  const raw = q.plan.raw;
  const none: Protected = { text: '', protect: [] };
  if (raw.kind === 'roots') return { prefix: 'inputRequired.listRoots(', params: none, suffix: ')' };
  // Written where the question's statement was: re-indent from the line the parameters started on.
  const start = raw.params?.getStart(env.sourceFile);
  const params: Protected = raw.params && start !== undefined
    ? reindentProtected(splice(env.text, start, raw.params.getEnd(), guardsIn(env, start, raw.params.getEnd()), env.literals), indentAt(env.text, start), indentAt(env.text, q.statement.getStart(env.sourceFile)))
    : { text: '{}', protect: [] };
  return { prefix: raw.kind === 'sampling' ? 'inputRequired.createMessage(' : 'inputRequired.elicit(', params, suffix: ')' };
}

/**
 * `confirmRequest(message)` / `await this.confirmResult(answer, message)`: a call of an asking
 * helper's split part, with the original call's arguments for the parameters that part keeps.
 */
export function helperPartCall(env: Pick<RewriteEnv, 'ts' | 'sourceFile' | 'helperNames'>, split: HelperSplit, call: ts.CallExpression, part: 'request' | 'result', answer?: string): string {
  const { ts } = env;
  const callee = skipOuter(ts, call.expression);
  const name = env.helperNames.get(split)![part];
  const target = ts.isPropertyAccessExpression(callee) ? `${callee.expression.getText(env.sourceFile)}.${name}` : name;
  const indices = part === 'request' ? split.requestParams : split.resultParams;
  const args = indices.map(i => (call.arguments[i] ? call.arguments[i]!.getText(env.sourceFile) : 'undefined'));
  if (answer !== undefined) args.unshift(answer);
  const async = part === 'request' ? split.requestAsync : split.resultAsync;
  return `${async ? 'await ' : ''}${target}(${args.join(', ')})`;
}

/** The type a question's answer had as the push call's result. */
export function answerTypeOf(ts: TS, q: Pick<QuestionPlan, 'site' | 'raw'>): string {
  switch (q.site.kind) {
    case 'elicitation':
      return 'ElicitResult';
    case 'roots':
      return 'ListRootsResult';
    default: {
      if (q.site.api === 'ctx.mcpReq.requestSampling') return 'CreateMessageResult | CreateMessageResultWithTools';
      const params = q.raw.params && skipOuter(ts, q.raw.params);
      const withTools = params && ts.isObjectLiteralExpression(params) && params.properties.some(p => p.name?.getText() === 'tools');
      return withTools ? 'CreateMessageResultWithTools' : 'CreateMessageResult';
    }
  }
}

function typeForState(env: RewriteEnv, plan: HandlerPlan, local: { name: string; type: string | undefined }): string {
  if (!local.type) throw new Error(`no type for carried local ${local.name} in ${plan.handler.name ?? plan.handler.method}`);
  return local.type;
}

function preferredStep(ts: TS, q: QuestionPlan): string {
  const statement = q.flow.statement!;
  if (q.flow.form === 'declare' && ts.isVariableStatement(statement)) {
    const name = statement.declarationList.declarations[0]!.name;
    if (ts.isIdentifier(name)) return camelCase(name.text);
  }
  if (q.flow.form === 'assign' && ts.isExpressionStatement(statement)) {
    const e = skipOuter(ts, statement.expression);
    if (ts.isBinaryExpression(e) && ts.isIdentifier(skipOuter(ts, e.left))) return camelCase((skipOuter(ts, e.left) as ts.Identifier).text);
  }
  return q.helper ? camelCase(q.helper.split.name) : q.site.kind;
}

export function uniqueStep(preferred: string, used: Set<string>): string {
  let step = preferred;
  for (let i = 2; used.has(step); i++) step = `${preferred}${i}`;
  used.add(step);
  return step;
}

function stateType(env: RewriteEnv, questions: Question[]): string {
  const nl = env.newline;
  const members = questions.map(q => {
    const fields = [`step: '${q.step}'`, 'call: string', 'request: InputRequest', ...q.carried.map(c => `${c.name}: ${c.type}`)];
    return `${env.unit}| { ${fields.join('; ')} }`;
  });
  return `type ${env.stateTypeName} =${nl}${members.join(nl)};`;
}

/** The tool / prompt / resource name the state is bound to. */
export function bindingNameExpr(env: RewriteEnv, plan: HandlerPlan, fn: ts.FunctionLikeDeclaration): string {
  const h = plan.handler;
  if (h.registration !== 'setRequestHandler') return quoteLike(env.text, h.name!);
  const request = (fn.parameters[0]!.name as ts.Identifier).text;
  return h.method === 'resources/read' ? `${request}.params.uri` : `${request}.params.name`;
}

/** A string literal in the file's quote style. */
export function quoteLike(text: string, value: string): string {
  const single = (text.match(/'/g)?.length ?? 0) >= (text.match(/"/g)?.length ?? 0);
  const json = JSON.stringify(value);
  return single ? `'${json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'` : json;
}

/** The arguments the state is bound to: what the handler receives besides its context. */
export function bindingArgsExpr(env: RewriteEnv, plan: HandlerPlan, fn: ts.FunctionLikeDeclaration, added: Map<number, string>): string {
  const { ts } = env;
  const h = plan.handler;
  if (h.registration === 'setRequestHandler') {
    const request = (fn.parameters[0]!.name as ts.Identifier).text;
    return h.method === 'resources/read' ? 'null' : `${request}.params.arguments ?? null`;
  }
  if (h.ctxParamIndex === 0) return 'null';
  const values: string[] = [];
  for (let i = 0; i < h.ctxParamIndex; i++) {
    const parameter = fn.parameters[i];
    if (!parameter) values.push(added.get(i)!);
    else if (ts.isIdentifier(parameter.name)) values.push(parameter.name.text);
    else values.push(`{ ${bindingIdentifiers(ts, parameter.name).map(id => id.text).join(', ')} }`);
  }
  return values.length === 1 ? values[0]! : `[${values.join(', ')}]`;
}

/**
 * `async (...): Promise<CallToolResult> => ...`: the handler now also returns inputRequired(...), so a
 * declared result type gains `InputRequiredResult` (the SDK accepts the union for MRTR handlers).
 */
export function widenReturnType(env: Pick<RewriteEnv, 'ts' | 'sourceFile'>, fn: ts.FunctionLikeDeclaration, sdkTypes: Set<string>): Edit[] {
  const { ts } = env;
  const type = fn.type;
  if (!type || !ts.isTypeReferenceNode(type) || type.typeName.getText(env.sourceFile) !== 'Promise' || type.typeArguments?.length !== 1) return [];
  const result = type.typeArguments[0]!;
  if (result.kind === ts.SyntaxKind.AnyKeyword || result.kind === ts.SyntaxKind.UnknownKeyword || /\bInputRequiredResult\b/.test(result.getText(env.sourceFile))) return [];
  sdkTypes.add('InputRequiredResult');
  const text = ts.isUnionTypeNode(result) || ts.isTypeReferenceNode(result) || ts.isTypeLiteralNode(result) ? result.getText(env.sourceFile) : `(${result.getText(env.sourceFile)})`;
  return [{ start: result.getStart(env.sourceFile), end: result.getEnd(), text: `${text} | InputRequiredResult` }];
}

/**
 * Makes sure the callback declares parameters up to `index` and returns the context parameter's
 * name; missing ones are added (`_args`, `ctx`).
 */
export function ensureParameter(env: Pick<RewriteEnv, 'ts' | 'sourceFile'>, fn: ts.FunctionLikeDeclaration, index: number, preferred: string, locals: LocalNames, edits: Edit[], added: Map<number, string>): string {
  const { ts } = env;
  const existing = fn.parameters[index];
  if (existing) return (existing.name as ts.Identifier).text;
  const names: string[] = [];
  for (let i = fn.parameters.length; i <= index; i++) {
    const name = i === index ? locals.take(preferred) : locals.take(i === 0 ? '_args' : `_arg${i}`);
    names.push(name);
    added.set(i, name);
  }
  const params = fn.parameters;
  if (params.length === 0) {
    const open = fn.getChildren(env.sourceFile).find(c => c.kind === ts.SyntaxKind.OpenParenToken);
    if (!open) throw new Error('arrow function without parentheses and parameters');
    edits.push({ start: open.getEnd(), end: open.getEnd(), text: names.join(', ') });
  } else {
    const last = params[params.length - 1]!;
    const hasParens = fn.getChildren(env.sourceFile).some(c => c.kind === ts.SyntaxKind.OpenParenToken);
    if (hasParens) edits.push({ start: last.getEnd(), end: last.getEnd(), text: `, ${names.join(', ')}` });
    else edits.push({ start: last.getStart(env.sourceFile), end: last.getEnd(), text: `(${last.getText(env.sourceFile)}, ${names.join(', ')})` });
  }
  return names[names.length - 1]!;
}

/** Names free inside one handler: nothing it or its enclosing scopes declare or use. */
export class LocalNames {
  private readonly taken = new Set<string>();

  constructor(ts: TS, fn: ts.FunctionLikeDeclaration) {
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) this.taken.add(node.text);
      node.forEachChild(visit);
    };
    visit(fn);
    for (let node: ts.Node | undefined = fn.parent; node; node = node.parent) {
      for (const name of scopeDeclarations(ts, node).keys()) this.taken.add(name);
    }
  }

  take(preferred: string): string {
    let name = preferred;
    for (let i = 2; this.taken.has(name); i++) name = `${preferred}${i}`;
    this.taken.add(name);
    return name;
  }

  has(name: string): boolean {
    return this.taken.has(name);
  }

  reserve(...names: string[]): void {
    for (const name of names) this.taken.add(name);
  }
}
