import type * as ts from 'typescript';
import { forEachValueIdentifier, isWriteReference, resolveIdentifier, scopeDeclarations } from './scope.js';
import type { TS } from './types.js';

/**
 * A v1 handler that destructures its context (`async ({ path }, { sendRequest }) => ...`, as the
 * protocol's conformance server does) is given a named context parameter before the official
 * v1-to-v2 stage, which then maps its members (`extra.sendRequest(...)` → `ctx.mcpReq.send(...)`),
 * so the MRTR rewrite has the whole context. Each use of a binding becomes a read of that member.
 */

/** The name the parameter takes: the one v1 code and the official codemod call it. */
export const CONTEXT_NAME = 'extra';

export interface ContextRename {
  /** The binding pattern, replaced by the name. */
  pattern: ts.ObjectBindingPattern;
  /** Each use of a binding: the text that replaces it. */
  uses: Array<{ node: ts.Identifier; text: string }>;
}

/**
 * The edits that name `param`'s destructured context, or why it cannot be named: every binding a
 * plain `member` or `member: alias` (no default, rest or nested pattern), only read (a read of the
 * member each time is the same value), and `extra` free in the handler.
 */
export function contextRename(ts: TS, fn: ts.FunctionLikeDeclaration, param: ts.ParameterDeclaration): ContextRename | { problem: string } {
  const pattern = param.name;
  if (!ts.isObjectBindingPattern(pattern)) return { problem: 'the context parameter is not an object pattern' };
  const members = new Map<ts.Identifier, string>();
  for (const element of pattern.elements) {
    if (element.dotDotDotToken || element.initializer || !ts.isIdentifier(element.name)) {
      return { problem: 'the handler destructures its context with a default, a rest element or a nested pattern; name the parameter (e.g. `extra`) and read its members from it' };
    }
    const property = element.propertyName;
    if (property && !ts.isIdentifier(property) && !ts.isStringLiteral(property)) return { problem: 'the handler destructures a computed member of its context; name the parameter' };
    members.set(element.name, property ? property.text : element.name.text);
  }
  if (fn.body === undefined || nameTaken(ts, fn)) return { problem: `\`${CONTEXT_NAME}\` is already a name in the handler; name the context parameter yourself` };
  const uses: ContextRename['uses'] = [];
  let problem: string | undefined;
  forEachValueIdentifier(ts, fn.body, id => {
    const decl = resolveIdentifier(ts, id);
    if (!decl || decl.declaration !== param || !members.has(decl.nameNode)) return;
    if (isWriteReference(ts, id)) {
      problem ??= `\`${id.text}\`, destructured from the context, is assigned in the handler; name the context parameter`;
      return;
    }
    const member = `${CONTEXT_NAME}.${members.get(decl.nameNode)!}`;
    uses.push({ node: id, text: ts.isShorthandPropertyAssignment(id.parent) && id.parent.name === id ? `${id.text}: ${member}` : member });
  });
  return problem ? { problem } : { pattern, uses };
}

/** Whether `extra` is declared in or above the handler, or read in it (a global of that name). */
function nameTaken(ts: TS, fn: ts.FunctionLikeDeclaration): boolean {
  for (let scope: ts.Node | undefined = fn; scope; scope = scope.parent) {
    if (scopeDeclarations(ts, scope).has(CONTEXT_NAME)) return true;
  }
  let taken = false;
  const visit = (node: ts.Node): void => {
    if (taken) return;
    if (ts.isIdentifier(node) && node.text === CONTEXT_NAME) taken = true;
    else node.forEachChild(visit);
  };
  visit(fn);
  return taken;
}
