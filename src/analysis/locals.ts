import type * as ts from 'typescript';
import { codeAfter } from './continuation.js';
import { isPureExpression } from './flow.js';
import { jsonnessOfInitializer, jsonnessOfType, type Jsonness } from './jsonType.js';
import { forEachValueIdentifier, isFunctionLike, isWriteReference, resolveIdentifier, scopeDeclarations, type LocalDecl } from './scope.js';
import { skipOuter } from './sdk.js';
import type { LiveLocal, QuestionKind, TS } from './types.js';

/**
 * The handler-local values a question splits: declared before it, referenced after it. Each one
 * either travels in requestState (it must survive JSON) or has a side-effect-free declaration that
 * can simply run again on resume.
 */

export interface LiveLocalsInput {
  ts: TS;
  checker: ts.TypeChecker | undefined;
  fn: ts.FunctionLikeDeclaration;
  statement: ts.Statement;
  awaited: ts.Expression;
  /** Whether the function's parameters are supplied again on every round (handlers: yes; helpers: no). */
  paramsResupplied: boolean;
  /** The question kind of an `await` of a question in this function, if `expr` is one. */
  questionOf: (expr: ts.Expression) => QuestionKind | undefined;
}

export interface LiveLocalsResult {
  locals: LiveLocal[];
  decls: Map<LiveLocal, LocalDecl>;
}

export const ANSWER_TYPES: Record<QuestionKind, string> = {
  elicitation: 'ElicitResult',
  sampling: 'CreateMessageResult',
  roots: 'ListRootsResult',
};

export function liveLocals(input: LiveLocalsInput): LiveLocalsResult {
  const { ts, fn, statement, awaited } = input;
  const body = fn.body!;
  const visible = visibleBefore(ts, fn, statement, awaited);
  const references = referencesIn(ts, fn);

  // Referenced after the question: code after it, plus the rest of its own statement.
  const live = new Set<LocalDecl>();
  const markFrom = (node: ts.Node, skip?: ts.Node): void => {
    forEachValueIdentifier(ts, node, id => {
      if (skip && id.pos >= skip.pos && id.end <= skip.end) return;
      const decl = resolveIdentifier(ts, id);
      if (decl && visible.has(decl)) live.add(decl);
    });
  };
  for (const node of codeAfter(ts, statement, body)) markFrom(node);
  markFrom(statement, awaited);

  // Parameters come back with every retry unless the handler reassigns them.
  for (const decl of [...live]) {
    if (decl.kind === 'parameter' && input.paramsResupplied && !(references.get(decl)?.writes ?? 0)) live.delete(decl);
  }

  // A rebuilt declaration needs what it refers to; carry or rebuild those too.
  const how = new Map<LocalDecl, 'carry' | 'rebuild'>();
  const pending = [...live];
  while (pending.length > 0) {
    const decl = pending.pop()!;
    const mode = rebuildable(ts, decl, references, awaited.pos) ? 'rebuild' : 'carry';
    how.set(decl, mode);
    if (mode !== 'rebuild') continue;
    forEachValueIdentifier(ts, rebuildSource(ts, decl), id => {
      const dep = resolveIdentifier(ts, id);
      if (!dep || dep === decl || !visible.has(dep) || live.has(dep)) return;
      if (dep.kind === 'parameter' && input.paramsResupplied && !(references.get(dep)?.writes ?? 0)) return;
      live.add(dep);
      pending.push(dep);
    });
  }

  const locals: LiveLocal[] = [];
  const decls = new Map<LiveLocal, LocalDecl>();
  for (const decl of [...live].sort((a, b) => a.nameNode.pos - b.nameNode.pos)) {
    const mode = how.get(decl)!;
    const { type, jsonness } = describe(input, decl);
    const local: LiveLocal = {
      name: decl.name,
      type,
      json: mode === 'rebuild' ? 'yes' : jsonness.json,
      how: mode,
      why: mode === 'carry' && jsonness.json !== 'yes' ? jsonness.why : undefined,
      isParameter: decl.kind === 'parameter',
      declaration: decl.declaration,
    };
    locals.push(local);
    decls.set(local, decl);
  }
  return { locals, decls };
}

/** Locals in scope at the question and declared before it (function declarations hoist). */
function visibleBefore(ts: TS, fn: ts.FunctionLikeDeclaration, statement: ts.Statement, awaited: ts.Expression): Set<LocalDecl> {
  const visible = new Set<LocalDecl>();
  for (let node: ts.Node | undefined = statement.parent; node; node = node.parent) {
    for (const decl of scopeDeclarations(ts, node).values()) {
      const insideStatement = decl.nameNode.pos >= statement.pos && decl.nameNode.end <= statement.end;
      if (insideStatement) continue;
      if (decl.kind === 'parameter' || decl.kind === 'function' || decl.nameNode.end <= awaited.pos) visible.add(decl);
    }
    if (node === fn) break;
  }
  return visible;
}

interface RefCounts {
  reads: number;
  writes: number;
  /** Start offsets of the writes. */
  writeAt: number[];
}

/** How often each local of the function is read and written. */
function referencesIn(ts: TS, fn: ts.FunctionLikeDeclaration): Map<LocalDecl, RefCounts> {
  const counts = new Map<LocalDecl, RefCounts>();
  forEachValueIdentifier(ts, fn, id => {
    const decl = resolveIdentifier(ts, id);
    if (!decl) return;
    let c = counts.get(decl);
    if (!c) counts.set(decl, (c = { reads: 0, writes: 0, writeAt: [] }));
    if (isWriteReference(ts, id)) {
      c.writes++;
      c.writeAt.push(id.pos);
    }
    else c.reads++;
  });
  // Property writes through a parameter (`args.x = 1`) change what a retry would see.
  forEachValueIdentifier(ts, fn, id => {
    const decl = resolveIdentifier(ts, id);
    if (decl?.kind !== 'parameter') return;
    let node: ts.Node = id;
    while (node.parent && (ts.isPropertyAccessExpression(node.parent) || ts.isElementAccessExpression(node.parent)) &&
           (node.parent as ts.PropertyAccessExpression).expression === node) {
      node = node.parent;
    }
    if (node !== id && node.parent && ts.isBinaryExpression(node.parent) && node.parent.left === node &&
        node.parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      counts.get(decl)!.writes++;
      counts.get(decl)!.writeAt.push(id.pos);
    }
  });
  return counts;
}

/**
 * Re-running the declaration gives the same value and does nothing else: function declarations,
 * and never-reassigned variables initialised with function values, literals or pure expressions of
 * such, and declarations without initializer that are assigned only after the question.
 */
function rebuildable(ts: TS, decl: LocalDecl, references: Map<LocalDecl, RefCounts>, questionAt: number): boolean {
  const writes = references.get(decl)?.writes ?? 0;
  const writtenBefore = (references.get(decl)?.writeAt ?? []).some(at => at < questionAt);
  if (decl.kind === 'function') return true;
  if (decl.kind === 'class') {
    const cls = decl.declaration as ts.ClassDeclaration;
    return cls.members.every(m => !ts.isClassStaticBlockDeclaration(m) && !(m.name && ts.isComputedPropertyName(m.name)));
  }
  if (decl.kind !== 'const' && decl.kind !== 'let' && decl.kind !== 'var') return false;
  const declaration = decl.declaration;
  if (!ts.isVariableDeclaration(declaration) || !ts.isIdentifier(declaration.name)) return false;
  // `let x;` given its value only after the question: declaring it again is all resume needs.
  if (!declaration.initializer) return !writtenBefore;
  if (writes > 0) return false;
  return isRebuildableValue(ts, declaration.initializer);
}

/** Values that are the same each time they are computed and that nothing can mutate unnoticed. */
function isRebuildableValue(ts: TS, init: ts.Expression): boolean {
  const e = skipOuter(ts, init);
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return true;
  if (ts.isStringLiteralLike(e) || ts.isNumericLiteral(e) || e.kind === ts.SyntaxKind.TrueKeyword ||
      e.kind === ts.SyntaxKind.FalseKeyword || e.kind === ts.SyntaxKind.NullKeyword) {
    return true;
  }
  if (ts.isTemplateExpression(e)) return e.templateSpans.every(span => isPureExpression(ts, span.expression) && !containsObjectLiteral(ts, span.expression));
  return false;
}

function containsObjectLiteral(ts: TS, node: ts.Node): boolean {
  if (ts.isObjectLiteralExpression(node) || ts.isArrayLiteralExpression(node)) return true;
  return !!node.forEachChild(child => (containsObjectLiteral(ts, child) ? true : undefined));
}

function rebuildSource(ts: TS, decl: LocalDecl): ts.Node {
  return ts.isVariableDeclaration(decl.declaration) ? (decl.declaration.initializer ?? decl.declaration) : decl.declaration;
}

function describe(input: LiveLocalsInput, decl: LocalDecl): { type: string | undefined; jsonness: Jsonness } {
  const { ts, checker } = input;
  const declaration = decl.declaration;
  const init = ts.isVariableDeclaration(declaration) && ts.isIdentifier(declaration.name) ? declaration.initializer : undefined;
  const answer = init && answerKind(ts, init, input.questionOf);
  if (answer) return { type: ANSWER_TYPES[answer], jsonness: { json: 'yes' } };
  if (decl.kind === 'function' || decl.kind === 'class') return { type: undefined, jsonness: { json: 'no', why: `${decl.kind} values cannot travel as JSON` } };
  if (checker) {
    const symbol = checker.getSymbolAtLocation(decl.nameNode);
    if (symbol) {
      const type = checker.getTypeOfSymbolAtLocation(symbol, decl.nameNode);
      const printed = checker.typeToString(type, input.fn, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope);
      const errorType = (type.flags & ts.TypeFlags.Any) !== 0 && printed === 'any' && init !== undefined;
      if (!errorType || !init) return { type: printed, jsonness: jsonnessOfType(ts, checker, type) };
      // `any` from an unresolved import: fall back to the initializer's shape.
      const syntactic = jsonnessOfInitializer(ts, init, e => answerKind(ts, e, input.questionOf) !== undefined);
      return { type: syntactic.json === 'yes' ? undefined : printed, jsonness: syntactic };
    }
  }
  return { type: undefined, jsonness: jsonnessOfInitializer(ts, init, e => answerKind(ts, e, input.questionOf) !== undefined) };
}

function answerKind(ts: TS, init: ts.Expression, questionOf: (e: ts.Expression) => QuestionKind | undefined): QuestionKind | undefined {
  const e = skipOuter(ts, init);
  return questionOf(e);
}

export { isFunctionLike };
