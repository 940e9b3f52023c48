import type * as ts from 'typescript';
import { forEachValueIdentifier, isWriteReference, resolveIdentifier } from './scope.js';
import { isLogging, isPureExpression } from './purity.js';
import { skipOuter } from './sdk.js';
import type { TS } from './types.js';

/**
 * A question's request or params written in a local before the call, as servers that log or reuse
 * them do (`const request = { method: 'elicitation/create' as const, params: {...} }`, then
 * `send(request as ...)`): the local's initializer, typed, cast or `satisfies` as it may be. The
 * rewrite reads the local where the question was, so what it asks is what the push call sent, as
 * long as nothing changes the local before; where something may, the question is refused.
 */

export interface FollowedLocal {
  /** The local the question reads (`request` in `send(request as X)`). */
  local: ts.Identifier;
  /** Its initializer, outer casts and parentheses removed. */
  literal: ts.ObjectLiteralExpression;
  /** Why the value at the question may differ from the initializer, when it may. */
  changed: string | undefined;
}

/** The object literal a question argument names through a local, when it does. */
export function followLocal(ts: TS, argument: ts.Expression, question: ts.Node, checker: ts.TypeChecker | undefined): FollowedLocal | undefined {
  const id = skipOuter(ts, argument);
  if (!ts.isIdentifier(id)) return undefined;
  const decl = resolveIdentifier(ts, id);
  if (!decl || (decl.kind !== 'const' && decl.kind !== 'let')) return undefined;
  const declaration = decl.declaration;
  if (!ts.isVariableDeclaration(declaration) || !ts.isIdentifier(declaration.name) || !declaration.initializer) return undefined;
  const literal = skipOuter(ts, declaration.initializer);
  if (!ts.isObjectLiteralExpression(literal)) return undefined;
  return { local: id, literal, changed: changeOf(ts, decl.scope, declaration.name, question, checker) };
}

/** What a question's argument is written as: the literal of a local nothing changes, else the argument itself. */
export function writtenValue(ts: TS, argument: ts.Expression, question: ts.Node, checker: ts.TypeChecker | undefined): ts.Expression {
  const followed = followLocal(ts, argument, question, checker);
  return followed && !followed.changed ? followed.literal : skipOuter(ts, argument);
}

/**
 * Whether anything but the question may change the local's value: an assignment to it or to one
 * of its properties (`request.params.message = ...`, `delete`, `++`), a call of one of its methods
 * or one it is handed to (`Object.assign(request, ...)`, `log(request)`), or a second reference
 * through which either could happen (`const alias = request`).
 */
function changeOf(ts: TS, scope: ts.Node, name: ts.Identifier, question: ts.Node, checker: ts.TypeChecker | undefined): string | undefined {
  const line = (node: ts.Node) => node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1;
  let found: string | undefined;
  forEachValueIdentifier(ts, scope, id => {
    if (found || id.text !== name.text || resolveIdentifier(ts, id)?.nameNode !== name) return;
    if (isQuestionArgument(ts, id, question)) return;
    if (isWriteReference(ts, id)) {
      found = `\`${name.text}\` is assigned again (line ${line(id)})`;
      return;
    }
    const use = useOf(ts, id, checker);
    if (use) found = `\`${name.text}\` ${use} (line ${line(id)}), so what the question sends may not be its initializer`;
  });
  return found;
}

/** How a reference may change the value it reads, if it may; undefined for a plain read. */
function useOf(ts: TS, id: ts.Identifier, checker: ts.TypeChecker | undefined): string | undefined {
  // Climb the reads of its members: `request.params.message`, `request['params']`.
  let node: ts.Expression = id;
  for (;;) {
    const parent: ts.Node = node.parent;
    if ((ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) && parent.expression === node) node = parent;
    else if (ts.isParenthesizedExpression(parent) || ts.isAsExpression(parent) || ts.isNonNullExpression(parent) || ts.isSatisfiesExpression(parent)) node = parent;
    else break;
  }
  const parent = node.parent;
  if (ts.isBinaryExpression(parent) && parent.left === node && parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
    return 'has a member assigned';
  }
  if ((ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) &&
      (parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken)) {
    return 'has a member updated';
  }
  if (ts.isDeleteExpression(parent)) return 'has a member deleted';
  if (ts.isCallExpression(parent)) {
    // `request.params.message.trim()`, `JSON.stringify(request)`, `console.error(request)`: reads.
    if (isPureExpression(ts, parent, checker) || isLogging(ts, parent)) return undefined;
    return parent.expression === node ? 'has a method called' : 'is handed to a call';
  }
  if (ts.isNewExpression(parent)) return 'is handed to a constructor';
  // Used where the value cannot be kept: a comparison or arithmetic operand, a template span, a test, a spread copy.
  if ((ts.isBinaryExpression(parent) && !passesValue(ts, parent.operatorToken.kind)) || (ts.isConditionalExpression(parent) && parent.condition === node) ||
      ts.isTemplateSpan(parent) || ts.isIfStatement(parent) || ts.isSwitchStatement(parent) || ts.isSpreadAssignment(parent) ||
      ts.isTypeOfExpression(parent) || ts.isPrefixUnaryExpression(parent) || ts.isExpressionStatement(parent)) {
    return undefined;
  }
  return 'is held by another reference';
}

/** Operators whose value may be an operand itself (`a || request`), which may then be kept. */
function passesValue(ts: TS, operator: ts.SyntaxKind): boolean {
  return operator === ts.SyntaxKind.BarBarToken || operator === ts.SyntaxKind.AmpersandAmpersandToken ||
    operator === ts.SyntaxKind.QuestionQuestionToken || operator === ts.SyntaxKind.CommaToken;
}

function isQuestionArgument(ts: TS, id: ts.Identifier, question: ts.Node): boolean {
  if (!ts.isCallExpression(question)) return false;
  const first = question.arguments[0];
  return first !== undefined && skipOuter(ts, first) === id;
}

