import type * as ts from 'typescript';
import type { RawSite } from './detect.js';
import { sideEffectsBefore } from './effects.js';
import { analyzeFlow, isPureExpression, type AnswerForm } from './flow.js';
import { liveLocals } from './locals.js';
import { moduleFormatProblem } from './moduleFormat.js';
import { forEachValueIdentifier, isAssignedIn, isFunctionLike, isValueReference, isWithinNode, resolveIdentifier } from './scope.js';
import { functionNameNode, skipOuter } from './sdk.js';
import type { QuestionKind, TS } from './types.js';
import type { SplitMember } from './interfaceSplit.js';

/**
 * Helpers that ask on behalf of their callers (`confirmAction(server, message)` shared by several
 * tools). A helper cannot return `inputRequired` itself: only the handler can end the round. So the
 * helper is split once, into a part that builds the request (its code up to the question) and a part
 * that turns the answer into the helper's result (its code after the question); each calling handler
 * asks with the first and resumes with the second. A chain (a helper calling an asking helper) splits
 * the same way, one level at a time.
 */

/** What one helper's question is: the push call itself, or the call of the next helper down the chain. */
export type HelperQuestion =
  | { type: 'push'; raw: RawSite }
  | { type: 'helper'; call: ts.CallExpression; split: HelperSplit };

export interface HelperSplit {
  fn: ts.FunctionLikeDeclaration;
  name: string;
  kind: QuestionKind;
  /** The innermost push call of the chain. */
  raw: RawSite;
  /** The question's statement: a statement of the helper's own body. */
  statement: ts.Statement;
  awaited: ts.Expression;
  form: AnswerForm;
  question: HelperQuestion;
  /** Declarations before the question that the code after it reads; side-effect free, re-run there. */
  rebuilt: ts.Node[];
  /** Side effects of the code before the question (run in the asking round only). */
  effects: string[];
  /** Parameter indices the request part and the result part need. */
  requestParams: number[];
  resultParams: number[];
  /** Whether the result part reads the answer, and whether it is only the answer (no result part). */
  readsAnswer: boolean;
  identity: boolean;
  requestAsync: boolean;
  resultAsync: boolean;
  /**
   * The parts' names when the helper is used from other files (exported): chosen once, free in its
   * file and in every file that imports it, so each file's rewrite names them alike.
   */
  partNames?: { request: string; result: string } | undefined;
  /** The interface member the helper (a method) implements, split with it where its calls go through it (interfaceSplit.ts). */
  member?: SplitMember | undefined;
}

export interface HelperContext {
  ts: TS;
  checker: ts.TypeChecker | undefined;
  /** The question kind of an `await`ed question (push call or asking-helper call), if `expr` is one. */
  questionOf: (expr: ts.Expression) => QuestionKind | undefined;
  isQuestionCall: (node: ts.Node) => boolean;
  /** Whether an exported helper may be split (its callers in other files are rewritten with it). */
  exportsAllowed?: boolean | undefined;
}

/** The split of `fn` around `call` (its one question), or why it cannot be split. */
export function splitHelper(cx: HelperContext, fn: ts.FunctionLikeDeclaration, call: ts.CallExpression | ts.NewExpression, question: HelperQuestion):
    HelperSplit | { problem: string } {
  const { ts } = cx;
  const name = functionNameNode(ts, fn)?.text ?? '<anonymous>';
  const shape = helperShapeProblem(ts, fn, name, cx.exportsAllowed === true);
  if (shape) return { problem: shape };
  const body = fn.body as ts.Block;

  const others: ts.Node[] = [];
  const findOthers = (node: ts.Node): void => {
    if (node !== call && cx.isQuestionCall(node)) others.push(node);
    node.forEachChild(findOthers);
  };
  findOthers(body);
  if (others.length > 0) return { problem: `helper ${name}() asks more than one question; only helpers with a single question are split` };

  const flow = analyzeFlow(ts, call, fn);
  const where = flow.tags.filter(t => t !== 'straight-line');
  if (where.length > 0 || !flow.statement || flow.statement.parent !== body) {
    return { problem: `the question in helper ${name}() is not a statement of its body (${where.join(', ') || 'nested'}); only helpers that always ask, at their top level, are split` };
  }
  if (flow.consumption !== 'await' && flow.consumption !== 'return') return { problem: `helper ${name}() does not await its question` };
  const form = flow.form;
  if (form !== 'declare' && form !== 'discard' && form !== 'return') {
    return { problem: `helper ${name}() uses the answer inside a larger statement; give it its own \`const answer = await ...\`` };
  }
  const statement = flow.statement;
  const before = body.statements.slice(0, body.statements.indexOf(statement));
  const exit = before.map(s => earlyExit(ts, s)).find(Boolean);
  if (exit) return { problem: `helper ${name}() may ${exit} before its question, so not every call asks; only helpers that always ask are split` };

  const live = liveLocals({ ts, checker: cx.checker, fn, statement, awaited: flow.awaited, paramsResupplied: true, questionOf: cx.questionOf });
  const carried = live.locals.find(l => l.how === 'carry');
  if (carried) {
    return {
      problem: carried.isParameter
        ? `helper ${name}() reassigns its parameter \`${carried.name}\` before the question and reads it after`
        : `helper ${name}() computes \`${carried.name}\` before its question and reads it after; only side-effect-free values can be recomputed there`,
    };
  }
  const effects = sideEffectsBefore(ts, fn, statement, flow.awaited, call, cx.isQuestionCall, cx.checker);

  const after = body.statements.slice(body.statements.indexOf(statement) + 1);
  const params = fn.parameters;
  const paramIndex = (id: ts.Identifier): number => {
    const decl = resolveIdentifier(ts, id);
    return decl?.kind === 'parameter' ? params.findIndex(p => isWithinNode(decl.declaration, p)) : -1;
  };
  const collect = (nodes: readonly ts.Node[], into: Set<number>, skip?: ts.Node): void => {
    for (const node of nodes) {
      forEachValueIdentifier(ts, node, id => {
        if (skip && id.pos >= skip.pos && id.end <= skip.end) return;
        const i = paramIndex(id);
        if (i >= 0) into.add(i);
      });
    }
  };
  const inner = question.type === 'helper' ? question : undefined;
  const innerArgs = (indices: number[]): ts.Node[] => (inner ? indices.map(i => inner.call.arguments[i]).filter((a): a is ts.Expression => !!a) : []);

  const requestParams = new Set<number>();
  collect(before, requestParams);
  if (question.type === 'push') collect(question.raw.params ? [question.raw.params] : [], requestParams);
  else collect(innerArgs(question.split.requestParams), requestParams);

  const rebuilt = live.locals.filter(l => l.how === 'rebuild').map(l => l.declaration);
  const resultParams = new Set<number>();
  collect([...rebuilt, ...after], resultParams);
  collect([statement], resultParams, flow.awaited);
  collect(innerArgs(inner?.split.resultParams ?? []), resultParams);

  // A kept parameter's default (or a default inside its pattern) may read earlier parameters: keep those too.
  for (const kept of [requestParams, resultParams]) {
    for (let grew = true; grew;) {
      const size = kept.size;
      for (const i of [...kept]) collect(defaultsOf(ts, params[i]!), kept);
      grew = kept.size > size;
    }
  }
  // Each part evaluates the defaults of what it keeps again: only values that are the same each time.
  for (const i of resultParams) {
    const impure = defaultsOf(ts, params[i]!).find(d => !isPureExpression(ts, d, cx.checker));
    if (impure) {
      return { problem: `helper ${name}()'s parameter \`${params[i]!.name.getText()}\` defaults to \`${impure.getText().slice(0, 40)}\`, which would be evaluated again when the answer comes back; pass it from the callers` };
    }
  }

  const hasAwait = (nodes: readonly ts.Node[], skip?: ts.Node): boolean => nodes.some(n => containsAwait(ts, n, skip));
  const answerName = form === 'declare' ? (statement as ts.VariableStatement).declarationList.declarations[0]!.name : undefined;
  let readsAnswer: boolean;
  if (!inner) {
    // `const answer = await ask()` becomes the result part's parameter; `await ask();` needs no answer.
    readsAnswer = form === 'return' || (form === 'declare' && (!ts.isIdentifier(answerName!) || after.some(s => mentionsDecl(ts, s, answerName as ts.Identifier))));
  } else {
    const passes = inner.split.identity || inner.split.readsAnswer;
    readsAnswer = form === 'discard' ? !inner.split.identity && inner.split.readsAnswer : passes;
  }
  // `return await ask()` is the answer itself: no result part, the caller uses the answer directly.
  const identity = form === 'return' && (!inner || inner.split.identity);
  return {
    fn, name, kind: question.type === 'push' ? (question.raw.kind as QuestionKind) : question.split.kind,
    raw: question.type === 'push' ? question.raw : question.split.raw,
    statement, awaited: flow.awaited, form, question,
    rebuilt, effects,
    requestParams: [...requestParams].sort((a, b) => a - b),
    resultParams: [...resultParams].sort((a, b) => a - b),
    readsAnswer,
    identity,
    requestAsync: hasAwait(before) || (inner?.split.requestAsync ?? false),
    resultAsync: hasAwait([...rebuilt, ...after]) || hasAwait([statement], flow.awaited) || (!!inner && !inner.split.identity && inner.split.resultAsync),
  };
}

/** The default values in a parameter: its own (`limit = 10`) and those of its pattern (`{ title = id }`). */
function defaultsOf(ts: TS, param: ts.ParameterDeclaration): ts.Expression[] {
  const defaults: ts.Expression[] = param.initializer ? [param.initializer] : [];
  const walk = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) return;
    for (const element of name.elements) {
      if (ts.isOmittedExpression(element)) continue;
      if (element.initializer) defaults.push(element.initializer);
      if (element.propertyName && ts.isComputedPropertyName(element.propertyName)) defaults.push(element.propertyName.expression);
      walk(element.name);
    }
  };
  walk(param.name);
  return defaults;
}

/** Helper shapes the split does not produce code for. */
function helperShapeProblem(ts: TS, fn: ts.FunctionLikeDeclaration, name: string, exportsAllowed: boolean): string | undefined {
  const format = moduleFormatProblem(ts, fn.getSourceFile());
  if (format) return `helper ${name}(): ${format.replace(/; migrate by hand.*$|\.$/, '')}`;
  if (!ts.getModifiers(fn)?.some(m => m.kind === ts.SyntaxKind.AsyncKeyword) || fn.asteriskToken) return `helper ${name}() is not an async function`;
  if (!fn.body || !ts.isBlock(fn.body)) return `helper ${name}() has an expression body; give it a block body`;
  if (ts.canHaveDecorators(fn) && ts.getDecorators(fn)?.length) return `helper ${name}() is decorated; the split parts would not carry its decorators`;
  if (fn.typeParameters?.length) return `helper ${name}() is generic; the split parts would need its type parameters`;
  // A `this` parameter is not an argument: the calls' argument positions would not match.
  if (fn.parameters.some(p => ts.isIdentifier(p.name) && p.name.text === 'this')) return `helper ${name}() declares a \`this\` parameter`;
  if (!helperDeclaration(ts, fn)) {
    return `helper ${name}() is not a module-level function, a module-level \`const\` arrow function or a class method; the split parts replace its declaration`;
  }
  if (!exportsAllowed && isExportedHelper(ts, fn)) {
    return `helper ${name}() is exported; callers in other modules would lose it when it is split (run mrtr-migrate on the project, which rewrites them too)`;
  }
  return undefined;
}

/** The statement or member that declares the helper, which the split parts replace. */
export function helperDeclaration(ts: TS, fn: ts.FunctionLikeDeclaration): ts.Statement | ts.MethodDeclaration | undefined {
  if (ts.isFunctionDeclaration(fn) && fn.name && ts.isSourceFile(fn.parent)) return fn;
  if (ts.isMethodDeclaration(fn) && ts.isIdentifier(fn.name) && ts.isClassLike(fn.parent) && !ts.getModifiers(fn)?.some(m => m.kind === ts.SyntaxKind.StaticKeyword)) return fn;
  if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(fn.parent) && fn.parent.initializer === fn && ts.isIdentifier(fn.parent.name)) {
    const list = fn.parent.parent;
    const statement = list.parent;
    if (ts.isVariableDeclarationList(list) && list.declarations.length === 1 && (list.flags & ts.NodeFlags.Const) && ts.isVariableStatement(statement) && ts.isSourceFile(statement.parent) && !fn.parent.type) {
      return statement;
    }
  }
  return undefined;
}

export function isExportedHelper(ts: TS, fn: ts.FunctionLikeDeclaration): boolean {
  return helperExport(ts, fn) !== undefined;
}

/** How a module-level helper is exported: where it is declared (`export async function`), in an `export { }` list, or not. */
export function helperExport(ts: TS, fn: ts.FunctionLikeDeclaration): 'declaration' | 'list' | undefined {
  const decl = helperDeclaration(ts, fn);
  if (!decl || ts.isMethodDeclaration(decl)) return undefined;
  if (ts.getModifiers(decl as ts.FunctionDeclaration | ts.VariableStatement)?.some(m => m.kind === ts.SyntaxKind.ExportKeyword)) return 'declaration';
  const name = functionNameNode(ts, fn)?.text;
  const listed = fn.getSourceFile().statements.some(s => ts.isExportDeclaration(s) && !!s.exportClause && ts.isNamedExports(s.exportClause) &&
    s.exportClause.elements.some(e => (e.propertyName ?? e.name).text === name));
  return listed ? 'list' : undefined;
}

/**
 * Why a call of a split helper cannot be rewritten, if it cannot: the split parts are called with
 * the same arguments in both rounds, so the arguments must be free of side effects; and the call
 * must be awaited (or returned) so its answer flows back into the caller.
 */
export function helperCallProblem(ts: TS, call: ts.CallExpression, name: string, checker: ts.TypeChecker | undefined): string | undefined {
  const callee = skipOuter(ts, call.expression);
  // `confirm(...)`, `this.confirm(...)`, `this.confirmer.confirm(...)`, `tools.drop.run(...)`: the parts are
  // called on the same receiver, which each round reads again without side effects.
  if (!ts.isIdentifier(callee) && !(ts.isPropertyAccessExpression(callee) && isPlainReceiver(ts, callee.expression))) {
    return `${name}() is called through \`${callee.getText()}\`; only \`${name}(...)\` and calls on a chain of properties of \`this\` or of a constant are rewritten`;
  }
  if (call.questionDotToken || (ts.isPropertyAccessExpression(callee) && callee.questionDotToken)) return `${name}() is called with \`?.\``;
  if (call.typeArguments?.length) return `${name}() is called with type arguments`;
  const impure = call.arguments.find(a => !isPureExpression(ts, a, checker));
  if (impure) {
    // Without types only calls on literals and on consts holding them are known to be pure.
    const effect = checker || !containsCall(ts, impure) ? 'has side effects' : 'may have side effects (lint with type information to tell)';
    return `the argument \`${impure.getText().slice(0, 60)}\` of ${name}() ${effect}, and the split parts evaluate the arguments in both rounds`;
  }
  if (call.arguments.some(a => ts.isSpreadElement(a))) return `${name}() is called with a spread argument`;
  if (call.arguments.some(a => a.getText().includes('\n'))) return `an argument of ${name}() spans several lines; hold it in a \`const\` first`;
  return undefined;
}

/**
 * `this`, `this.a.b`, or a name that always holds the same object (a `const`, a parameter never
 * assigned) and property reads on it: no call, no `?.`, no computed key.
 */
function isPlainReceiver(ts: TS, expr: ts.Expression): boolean {
  if (expr.kind === ts.SyntaxKind.ThisKeyword) return true;
  if (ts.isIdentifier(expr)) {
    const decl = resolveIdentifier(ts, expr);
    // Not an import: a namespace's member is another module's export, which the split renames there.
    return decl !== undefined && (decl.kind === 'const' || (decl.kind === 'parameter' && !isAssignedIn(ts, decl.scope, decl)));
  }
  return ts.isPropertyAccessExpression(expr) && !expr.questionDotToken && isPlainReceiver(ts, expr.expression);
}

/**
 * References to the helper other than its calls (`tools.map(confirm)`, `const f = this.confirm`):
 * the helper disappears when it is split, so those would break.
 */
export function otherHelperReference(ts: TS, fn: ts.FunctionLikeDeclaration, calls: readonly ts.CallExpression[]): ts.Node | undefined {
  const nameNode = functionNameNode(ts, fn);
  if (!nameNode) return undefined;
  const callees = new Set(calls.map(c => skipOuter(ts, c.expression)));
  const isMethod = ts.isMethodDeclaration(fn);
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (isMethod && ts.isPropertyAccessExpression(node) && node.name.text === nameNode.text && !callees.has(node)) found = node;
    if (!isMethod && ts.isIdentifier(node) && node !== nameNode && node.text === nameNode.text && !callees.has(node) &&
        isValueReference(ts, node) && resolveIdentifier(ts, node)?.nameNode === nameNode) {
      found = node;
    }
    node.forEachChild(visit);
  };
  visit(fn.getSourceFile());
  return found;
}

function earlyExit(ts: TS, node: ts.Node): string | undefined {
  if (ts.isReturnStatement(node)) return 'return';
  if (ts.isThrowStatement(node)) return 'throw';
  if (isFunctionLike(ts, node) || ts.isClassLike(node)) return undefined;
  let found: string | undefined;
  node.forEachChild(child => { found ??= earlyExit(ts, child); });
  return found;
}

function containsCall(ts: TS, node: ts.Node): boolean {
  return ts.isCallExpression(node) || (!isFunctionLike(ts, node) && (node.forEachChild(child => containsCall(ts, child) || undefined) ?? false));
}

function containsAwait(ts: TS, node: ts.Node, skip?: ts.Node): boolean {
  if (skip && node === skip) return false;
  if (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier)) return true;
  if (isFunctionLike(ts, node)) return false;
  let found = false;
  node.forEachChild(child => { found ||= containsAwait(ts, child, skip); });
  return found;
}

function mentionsDecl(ts: TS, node: ts.Node, name: ts.Identifier): boolean {
  let found = false;
  forEachValueIdentifier(ts, node, id => { if (!found && id.text === name.text && resolveIdentifier(ts, id)?.nameNode === name) found = true; });
  return found;
}
