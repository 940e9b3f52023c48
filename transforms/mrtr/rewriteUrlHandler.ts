import type * as ts from 'typescript';
import type { HandlerPlan } from '../../src/analysis/index.js';
import { statementList } from '../../src/analysis/continuation.js';
import type { TS } from '../../src/analysis/types.js';
import { bindingArgsExpr, bindingNameExpr, ensureParameter, firstParameterName, LocalNames, quoteLike, stateReadText, uniqueStep, widenReturnType, type HandlerRewrite, type RewriteEnv } from './rewriteHandler.js';
import { indentAt, reindentProtected, splice, trailingCommas, type Edit } from './text.js';

/** The message UrlElicitationRequiredError uses when given none (SDK v1 and v2, one elicitation). */
const DEFAULT_MESSAGE = 'URL elicitation required';

/**
 * Rewrites a handler that throws `UrlElicitationRequiredError` (the 2025 way to send the user to a
 * URL): the 2025 client gets the -32042 error, has the user open the URL, and sends the same call
 * again, which runs the handler from the top (typically it now finds the authorization done).
 *
 *   const call = ...; const state = ctx.mcpReq.requestState<HandlerState>(); assertStateFor(state, call);
 *   if (state !== undefined) { ...read the URL answer (ask again if missing); not accepted: fail as the 2025 client did... }
 *   ...the original code, each throw replaced by `return inputRequired({ <step>: inputRequired.elicitUrl(...) })`...
 *
 * An accepted answer falls through to the original code: the resume round is the legacy retry.
 */
export function rewriteUrlHandler(env: RewriteEnv, plan: HandlerPlan): HandlerRewrite {
  const { ts } = env;
  const fn = plan.handler.fn;
  const body = fn.body as ts.Block;
  const locals = new LocalNames(ts, fn);
  const paramEdits: Edit[] = [];
  const addedParams = new Map<number, string>();
  const sdkTypes = new Set(['InputRequest', 'ElicitRequestURLParams']);
  const ctxName = ensureParameter(env, fn, plan.handler.ctxParamIndex, 'ctx', locals, paramEdits, addedParams, sdkTypes, { firstName: firstParameterName(plan.handler), typed: plan.handler.wrapper !== undefined || plan.handler.data !== undefined });
  const stateVar = locals.take('state');
  const callVar = locals.take('call');
  const answerVar = locals.take('urlResponse');
  const nl = env.newline;
  const usedSteps = new Set<string>();

  const steps: string[] = [];
  const throwEdits: Edit[] = plan.urlThrows.map(q => {
    const step = uniqueStep('urlElicitation', usedSteps);
    steps.push(step);
    const elicitationVar = locals.take(step);
    const requestVar = locals.take(`${step}Request`);
    const newExpr = q.raw.call as ts.NewExpression;
    const statement = skipParens(ts, newExpr).parent;
    // The verdict only migrates `throw new UrlElicitationRequiredError(...)`.
    if (!statement || !ts.isThrowStatement(statement)) throw new Error('URL elicitation site is not a throw statement');
    const [list, messageArg] = newExpr.arguments!;
    const message = messageArg ? messageArg.getText(env.sourceFile) : quoteLike(env, DEFAULT_MESSAGE);
    const start = statement.getStart(env.sourceFile);
    const indent = indentAt(env.text, start);
    const lone = !statementList(ts, statement);
    const inner = lone ? indent + env.unit : indent;
    const listStart = list!.getStart(env.sourceFile);
    // The elicitation list as written (same evaluation, same order), typed as the constructor took it.
    const listText = reindentProtected(splice(env.text, listStart, list!.getEnd(), [], env.literals), indentAt(env.text, listStart), inner);
    const payload = [`step: '${step}'`, callVar === 'call' ? 'call' : `call: ${callVar}`, `request: ${requestVar}`,
      `elicitationId: ${elicitationVar}.elicitationId`, `message: ${message}`].join(', ');
    const lines = [
      `const [${elicitationVar}]: [ElicitRequestURLParams] = ${listText.text};`,
      `const ${requestVar} = inputRequired.elicitUrl({ message: ${elicitationVar}.message, url: ${elicitationVar}.url });`,
      'return inputRequired({',
      `${env.unit}inputRequests: { ${step}: ${requestVar} },`,
      `${env.unit}requestState: await ${env.module.codec}.mint({ ${payload} }, ${ctxName})${trailingCommas(env.ts, env.sourceFile) ? ',' : ''}`,
      '});',
    ];
    const text = lone
      ? `{${nl}${lines.map(l => inner + l).join(nl)}${nl}${indent}}`
      : lines.join(nl + indent);
    return { start, end: statement.getEnd(), text };
  });

  const bodyStart = body.getStart(env.sourceFile) + 1;
  const bodyIndent = body.statements.length > 0 ? indentAt(env.text, body.statements[0]!.getStart(env.sourceFile)) : indentAt(env.text, fn.getStart(env.sourceFile)) + env.unit;
  const u = env.unit;
  const header = [
    `// Multi round-trip (SEP-2322): each round's state is verified and bound to this call; see ${env.stateTypeName}.`,
    `const ${callVar} = await ${env.module.callDigest}(${bindingNameExpr(env, plan, fn, addedParams)}, ${bindingArgsExpr(env, plan, fn, addedParams)});`,
    `const ${stateVar} = ${stateReadText(env, fn, plan.handler.ctxParamIndex, ctxName)};`,
    `${env.module.assertState}(${stateVar}, ${callVar});`,
    `if (${stateVar} !== undefined) {`,
    `${u}const ${answerVar} = ${env.module.checkedResponse}(${ctxName}.mcpReq.inputResponses, ${stateVar}.step, ${stateVar}.request);`,
    `${u}if (${answerVar}.kind !== 'elicit') {`,
    `${u}${u}// The retry came without this round's answer: ask again.`,
    `${u}${u}return inputRequired({ inputRequests: { [${stateVar}.step]: ${stateVar}.request }, requestState: await ${env.module.codec}.mint(${stateVar}, ${ctxName}) });`,
    `${u}}`,
    `${u}// Was UrlElicitationRequiredError (-32042): a 2025 client had the user open the URL and sent this call`,
    `${u}// again, or gave up and surfaced the error. Accepted, this round runs the handler from the top, as that`,
    `${u}// retry did; declined or cancelled, the call fails with the error's message (2026-07-28 has no -32042).`,
    `${u}if (${answerVar}.action !== 'accept') throw new Error(${stateVar}.message);`,
    '}',
  ].join(nl + bodyIndent);

  const members = steps.map(step =>
    `${env.unit}| { step: '${step}'; call: string; request: InputRequest; elicitationId: ElicitRequestURLParams['elicitationId']; message: string }`);
  return {
    edits: [...paramEdits, ...widenReturnType(env, fn, sdkTypes), { start: bodyStart, end: bodyStart, text: nl + bodyIndent + header }, ...throwEdits],
    stateTypeDeclaration: `type ${env.stateTypeName} =${nl}${members.join(nl)};`,
    questions: steps.map(step => ({ step, carried: [] })),
    sdkValues: new Set(['inputRequired']),
    sdkTypes,
    usesElicitResultOf: false,
    usesElicitAnswerOf: false,
    usesCheckedResponse: true,
  };
}

function skipParens(ts: TS, node: ts.Node): ts.Node {
  let n = node;
  while (n.parent && ts.isParenthesizedExpression(n.parent)) n = n.parent;
  return n;
}
