import type * as ts from 'typescript';
import { resolveIdentifier } from './scope.js';
import { skipOuter } from './sdk.js';
import type { TS } from './types.js';

/**
 * The per-request options of a push call (`elicitInput(params, { timeout, signal })`). The rewrite
 * replaces the call with `return inputRequired(...)`, so the options are dropped; this says, per
 * option, what takes its place in a multi round-trip flow, or why dropping it is not safe.
 */
export interface CallOptions {
  /** Option names as written (`<spread>` / `<expression>` when they cannot be named). */
  names: string[];
  /** One note per dropped option, for the verdict. */
  notes: string[];
  /** Why the options cannot be dropped; the site is refused when set. */
  problem: string | undefined;
  /** The option that ties the question to a task (`task`, `relatedTask`), which decides before any other. */
  task?: string | undefined;
}

/** What replaces each `RequestOptions` member (v1 `shared/protocol` and v2 `RequestOptions` / `TransportSendOptions`). */
const REPLACEMENT: Record<string, string> = {
  timeout: 'timeout dropped: there is no per-question wait any more; the client answers in its own time and retries, and the requestState TTL bounds how long a round may take (a timeout error the old code caught can no longer happen)',
  maxTotalTimeout: 'maxTotalTimeout dropped: there is no per-question wait any more; the requestState TTL bounds how long a round may take',
  resetTimeoutOnProgress: 'resetTimeoutOnProgress dropped: the question has no timeout to reset',
  signal: 'signal dropped: the question is no longer a request of its own to abort; the round ends when the handler returns inputRequired(), and cancelling the tool call (ctx.mcpReq.signal) ends the flow, since a cancelled call is not retried',
  onprogress: 'onprogress dropped: the client sends no progress notifications for an embedded question',
  relatedRequestId: 'relatedRequestId dropped: the question now travels in the result of the call itself, so it is related to that call by construction',
};

/** Options that change where or how the question is delivered, which MRTR has no equivalent for. */
const NOT_DROPPABLE: Record<string, string> = {
  resumptionToken: 'resumptionToken resumes an interrupted transport stream; it has no meaning for a question carried in a result',
  onresumptiontoken: 'onresumptiontoken tracks transport stream resumption; it has no meaning for a question carried in a result',
  allowInputRequired: 'allowInputRequired is a client-side option',
};

/**
 * Options that make the question a task's (asked as one, or queued on one): the reason task-augmented.
 * The v2 SDK removed the task interception layer and keeps the task types only as deprecated wire
 * vocabulary (docs/migration/support-2026-07-28.md, "Tasks: deprecated wire vocabulary").
 */
const TASK_OPTIONS: ReadonlySet<string> = new Set(['task', 'relatedTask']);

export function analyzeCallOptions(ts: TS, options: ts.Expression | undefined, checker: ts.TypeChecker | undefined): CallOptions {
  if (!options) return { names: [], notes: [], problem: undefined };
  const e = skipOuter(ts, options);
  if (e.kind === ts.SyntaxKind.UndefinedKeyword || (ts.isIdentifier(e) && e.text === 'undefined')) return { names: [], notes: [], problem: undefined };
  if (ts.isObjectLiteralExpression(e)) return fromLiteral(ts, e, true);
  if (ts.isIdentifier(e)) {
    // Reading a variable has no side effect; what matters is which options it holds.
    const decl = resolveIdentifier(ts, e);
    const init = decl && decl.kind === 'const' && ts.isVariableDeclaration(decl.declaration) && decl.declaration.initializer
      ? skipOuter(ts, decl.declaration.initializer) : undefined;
    // Its initializer already ran before the question (and still does, in the asking round).
    if (init && ts.isObjectLiteralExpression(init)) return fromLiteral(ts, init, false);
    if (checker) {
      const names = checker.getTypeAtLocation(e).getProperties().map(p => p.name);
      return { names, ...judge(names) };
    }
    return { names: [`<${e.text}>`], notes: [], problem: `the call options are passed as \`${e.text}\`, whose options cannot be told without type information; pass them as an object literal or run with a tsconfig / typed linting.` };
  }
  return { names: ['<expression>'], notes: [], problem: `the call options \`${short(e.getText())}\` are computed by an expression the rewrite would drop (it may have side effects); compute them in a statement of their own or pass an object literal.` };
}

function fromLiteral(ts: TS, literal: ts.ObjectLiteralExpression, valuesDropped: boolean): CallOptions {
  const names: string[] = [];
  for (const property of literal.properties) {
    if (ts.isSpreadAssignment(property)) {
      return { names: [...names, '<spread>'], notes: [], problem: 'the call options spread another object, so which options it sets cannot be told; write them out.' };
    }
    const name = property.name ? property.name.getText().replace(/['"]/g, '') : '<computed>';
    names.push(name);
    if (property.name && ts.isComputedPropertyName(property.name)) {
      return { names, notes: [], problem: 'the call options use a computed property name; write the option names out.' };
    }
    // An option MRTR has no place for is the first thing to say.
    const byName = judge([name]);
    if (byName.problem) return { names, notes: [], problem: byName.problem, task: byName.task };
    if (valuesDropped && ts.isPropertyAssignment(property) && !dropsSafely(ts, property.initializer)) {
      return { names, notes: [], problem: `call option ${name}'s value (\`${short(property.initializer.getText())}\`) would be dropped with the call and may have side effects; compute it in a statement before the call.` };
    }
    if (ts.isGetAccessorDeclaration(property) || ts.isSetAccessorDeclaration(property)) {
      return { names, notes: [], problem: `call option ${name} is an accessor; write a plain value.` };
    }
  }
  return { names, ...judge(names) };
}

function judge(names: string[]): { notes: string[]; problem: string | undefined; task?: string } {
  const notes: string[] = [];
  for (const name of names) {
    if (TASK_OPTIONS.has(name)) return { notes: [], problem: `call option ${name} ties the question to a task`, task: name };
    const blocker = NOT_DROPPABLE[name];
    if (blocker) return { notes: [], problem: `call option ${blocker}; drop the option by hand if the question may be asked in the call's own result.` };
    const note = REPLACEMENT[name];
    if (!note) return { notes: [], problem: `call option ${name} is not a known request option, so what dropping it changes cannot be told; remove it or migrate by hand.` };
    notes.push(note);
  }
  return { notes, problem: undefined };
}

/** Values whose evaluation cannot be observed: dropping them with the call loses nothing. */
function dropsSafely(ts: TS, expr: ts.Expression): boolean {
  const e = skipOuter(ts, expr);
  if (ts.isIdentifier(e) || ts.isLiteralExpression(e) || ts.isNoSubstitutionTemplateLiteral(e)) return true;
  if (e.kind === ts.SyntaxKind.TrueKeyword || e.kind === ts.SyntaxKind.FalseKeyword || e.kind === ts.SyntaxKind.NullKeyword ||
      e.kind === ts.SyntaxKind.UndefinedKeyword || e.kind === ts.SyntaxKind.ThisKeyword) return true;
  // `ctx.mcpReq.signal`, `extra.requestId`: reads of the request's own fields.
  if (ts.isPropertyAccessExpression(e)) return dropsSafely(ts, e.expression);
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return true;
  if (ts.isObjectLiteralExpression(e)) return e.properties.every(p => ts.isPropertyAssignment(p) ? dropsSafely(ts, p.initializer) : ts.isShorthandPropertyAssignment(p));
  if (ts.isArrayLiteralExpression(e)) return e.elements.every(x => !ts.isSpreadElement(x) && dropsSafely(ts, x));
  if (ts.isPrefixUnaryExpression(e) && (e.operator === ts.SyntaxKind.MinusToken || e.operator === ts.SyntaxKind.PlusToken)) return dropsSafely(ts, e.operand);
  if (ts.isBinaryExpression(e) && [ts.SyntaxKind.AsteriskToken, ts.SyntaxKind.PlusToken, ts.SyntaxKind.MinusToken, ts.SyntaxKind.SlashToken,
    ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.AmpersandAmpersandToken].includes(e.operatorToken.kind)) {
    return dropsSafely(ts, e.left) && dropsSafely(ts, e.right);
  }
  return false;
}

function short(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}
