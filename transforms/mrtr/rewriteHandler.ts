import type * as ts from 'typescript';
import type { Handler, Site, TS } from '../../src/analysis/types.js';
import type { HandlerPlan, QuestionPlan } from '../../src/analysis/index.js';
import type { HelperSplit } from '../../src/analysis/helpers.js';
import { bindingIdentifiers, scopeDeclarations } from '../../src/analysis/scope.js';
import { skipOuter } from '../../src/analysis/sdk.js';
import { takesRequest } from '../../src/analysis/handlers.js';
import { indentAt, quoteStyle, reindent, splice, stringLiteral, type Edit } from './text.js';


/**
 * Shared pieces of the handler rewrite (printHandler.ts): names, parameters, bindings. The rewrite
 * itself is in printHandler.ts; it turns a handler into the multi round-trip shape of the SDK guide:
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
  /** `(responses, key, question) => InputResponseView`: the answer, its accepted content validated (see moduleSupport). */
  elicitAnswerOf: string;
  /** `(responses, key, question) => InputResponseView`: the answer, a valid result of the question's method (see moduleSupport). */
  checkedResponse: string;
  /** `(ctx, server) => ClientCapabilities | undefined`: the request's capabilities (see moduleSupport). */
  capabilitiesOf: string;
  /**
   * `<T>(ctx) => T | undefined`, where the server keeps requestState of its own: the handler's state, only
   * if the rewrite's codec minted it. Elsewhere the state is `ctx.mcpReq.requestState<T>()`.
   */
  readState?: string | undefined;
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
  usesElicitAnswerOf: boolean;
  usesCheckedResponse: boolean;
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
 * `confirmRequest(message)` / `await this.confirmResult(answer, message)`: a call of an asking
 * helper's split part, with the original call's arguments for the parameters that part keeps.
 */
export function helperPartCall(env: Pick<RewriteEnv, 'ts' | 'sourceFile' | 'helperNames'>, split: HelperSplit, call: ts.CallExpression, part: 'request' | 'result', answer?: string): string {
  const { ts } = env;
  const callee = skipOuter(ts, call.expression);
  const name = env.helperNames.get(split)![part];
  const target = ts.isPropertyAccessExpression(callee) ? `${callee.expression.getText(env.sourceFile)}.${name}` : name;
  const indices = part === 'request' ? split.requestParams : split.resultParams;
  // A rest parameter takes every argument from its position on.
  const params = split.fn.parameters;
  const args = indices.flatMap(i => (params[i]?.dotDotDotToken
    ? call.arguments.slice(i).map(a => a.getText(env.sourceFile))
    : [call.arguments[i] ? call.arguments[i]!.getText(env.sourceFile) : 'undefined']));
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

export function uniqueStep(preferred: string, used: Set<string>): string {
  let step = preferred;
  for (let i = 2; used.has(step); i++) step = `${preferred}${i}`;
  used.add(step);
  return step;
}

/** The tool / prompt / resource name the state is bound to. */
export function bindingNameExpr(env: RewriteEnv, plan: HandlerPlan, fn: ts.FunctionLikeDeclaration, added: Map<number, string>): string {
  const h = plan.handler;
  if (!takesRequest(h)) return h.nameExpression ? h.nameExpression.getText(env.sourceFile) : quoteLike(env, h.name!);
  const request = parameterName(fn, 0, added);
  return h.method === 'resources/read' ? `${request}.params.uri` : `${request}.params.name`;
}

/** A parameter's name: as declared (an identifier: the analysis refuses patterns here), or as ensureParameter added it. */
function parameterName(fn: ts.FunctionLikeDeclaration, index: number, added: Map<number, string>): string {
  const parameter = fn.parameters[index];
  return parameter ? (parameter.name as ts.Identifier).text : added.get(index)!;
}

/** What a handler's first parameter is called where the rewrite adds it to bind the state to it. */
export function firstParameterName(handler: Handler): string {
  if (takesRequest(handler)) return 'request';
  return handler.method === 'resources/read' ? 'url' : '_args';
}

/** A string literal in the file's quote style. */
export function quoteLike(env: Pick<RewriteEnv, 'ts' | 'sourceFile'>, value: string): string {
  return stringLiteral(value, quoteStyle(env.ts, env.sourceFile));
}

/** The arguments the state is bound to: what the handler receives besides its context. */
export function bindingArgsExpr(env: RewriteEnv, plan: HandlerPlan, fn: ts.FunctionLikeDeclaration, added: Map<number, string>): string {
  const { ts } = env;
  const h = plan.handler;
  if (takesRequest(h)) {
    const request = parameterName(fn, 0, added);
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
  const text = isPlainType(ts, result) ? result.getText(env.sourceFile) : `(${result.getText(env.sourceFile)})`;
  return [{ start: result.getStart(env.sourceFile), end: result.getEnd(), text: `${text} | InputRequiredResult` }];
}

/** A type that joins a union without parentheses (a function or conditional type needs them). */
export function isPlainType(ts: TS, type: ts.TypeNode): boolean {
  return ts.isUnionTypeNode(type) || ts.isTypeReferenceNode(type) || ts.isTypeLiteralNode(type) || ts.isArrayTypeNode(type) ||
    [ts.SyntaxKind.StringKeyword, ts.SyntaxKind.NumberKeyword, ts.SyntaxKind.BooleanKeyword].includes(type.kind);
}

/**
 * Makes sure the callback declares parameters up to `index` and returns the context parameter's
 * name; missing ones are added (`_args`, `ctx`). `typed`: write the context's type even where the
 * function has a contextual type (a wrapper's generic parameter would infer it as unknown).
 */
export function ensureParameter(env: Pick<RewriteEnv, 'ts' | 'sourceFile'>, fn: ts.FunctionLikeDeclaration, index: number, preferred: string, locals: LocalNames, edits: Edit[], added: Map<number, string>, sdkTypes?: Set<string>, { firstName = '_args', typed = false }: { firstName?: string; typed?: boolean } = {}): string {
  const { ts } = env;
  const existing = fn.parameters[index];
  if (existing) return (existing.name as ts.Identifier).text;
  // A method or declared function has no contextual type (a handler registered as `this.m.bind(this)`),
  // nor has a function whose parameters are annotated: the context gets its type written out.
  const annotate = sdkTypes !== undefined && (typed || ts.isMethodDeclaration(fn) || ts.isFunctionDeclaration(fn) || fn.parameters.some(p => p.type !== undefined));
  const names: string[] = [];
  const declared: string[] = [];
  for (let i = fn.parameters.length; i <= index; i++) {
    const name = i === index ? locals.take(preferred) : locals.take(i === 0 ? firstName : `_arg${i}`);
    names.push(name);
    declared.push(annotate ? `${name}: ${i === index ? 'ServerContext' : 'unknown'}` : name);
    added.set(i, name);
  }
  if (annotate) sdkTypes.add('ServerContext');
  const params = fn.parameters;
  if (params.length === 0) {
    const open = fn.getChildren(env.sourceFile).find(c => c.kind === ts.SyntaxKind.OpenParenToken);
    if (!open) throw new Error('arrow function without parentheses and parameters');
    edits.push({ start: open.getEnd(), end: open.getEnd(), text: declared.join(', ') });
  } else {
    const last = params[params.length - 1]!;
    const hasParens = fn.getChildren(env.sourceFile).some(c => c.kind === ts.SyntaxKind.OpenParenToken);
    if (hasParens) edits.push({ start: last.getEnd(), end: last.getEnd(), text: `, ${declared.join(', ')}` });
    else edits.push({ start: last.getStart(env.sourceFile), end: last.getEnd(), text: `(${last.getText(env.sourceFile)}, ${declared.join(', ')})` });
  }
  return names[names.length - 1]!;
}

/**
 * How the handler reads its state: `ctx.mcpReq.requestState<T>()`, or through the support module where
 * the server keeps requestState of its own. A context typed `any` (`async (args, extra: any) => ...`)
 * takes no type argument (TS2347), so there the read is cast instead.
 */
export function stateReadText(env: Pick<RewriteEnv, 'ts' | 'checker' | 'module' | 'stateTypeName'>, fn: ts.FunctionLikeDeclaration, ctxIndex: number, ctxName: string): string {
  if (env.module.readState) return `${env.module.readState}<${env.stateTypeName}>(${ctxName})`;
  return contextIsAny(env, fn, ctxIndex)
    ? `${ctxName}.mcpReq.requestState() as ${env.stateTypeName} | undefined`
    : `${ctxName}.mcpReq.requestState<${env.stateTypeName}>()`;
}

function contextIsAny(env: Pick<RewriteEnv, 'ts' | 'checker'>, fn: ts.FunctionLikeDeclaration, index: number): boolean {
  const { ts } = env;
  const parameter = fn.parameters[index];
  if (!parameter) return false;
  if (!env.checker) return parameter.type?.kind === ts.SyntaxKind.AnyKeyword;
  return (env.checker.getTypeAtLocation(parameter.name).flags & ts.TypeFlags.Any) !== 0;
}

/**
 * Whether a form question's params, as the rewrite writes them, are typed wider than a form's: a
 * request local declared `ElicitRequest` has params that may be URL mode, which
 * `inputRequired.elicit()` does not take (TS2345). The analysis proved the value is a form's
 * (questionCallProblem), so the rewrite writes them `as ElicitRequestFormParams`.
 */
export function formParamsNeedCast(env: Pick<RewriteEnv, 'ts' | 'checker'>, raw: QuestionPlan['raw']): boolean {
  const { ts, checker } = env;
  if (raw.kind !== 'elicitation' || !checker) return false;
  let type: ts.Type | undefined;
  if (raw.paramsVia) {
    const params = checker.getTypeAtLocation(raw.paramsVia).getProperty('params');
    type = params && checker.getTypeOfSymbolAtLocation(params, raw.paramsVia);
  } else if (raw.params && !ts.isObjectLiteralExpression(raw.params)) {
    // An object literal written where it is asked takes its type from there: `mode: 'form'` stays 'form'.
    type = checker.getTypeAtLocation(raw.params);
  }
  if (!type) return false;
  return (type.isUnion() ? type.types : [type]).some(member => {
    if (member.getProperty('url')) return true;
    const mode = member.getProperty('mode');
    if (!mode) return false;
    const modeType = checker.getTypeOfSymbolAtLocation(mode, raw.paramsVia ?? raw.params!);
    return (modeType.isUnion() ? modeType.types : [modeType]).some(t => (t.flags & ts.TypeFlags.Undefined) === 0 && !(t.isStringLiteral() && t.value === 'form'));
  });
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

export { printHandler as rewriteHandler } from './printHandler.js';
