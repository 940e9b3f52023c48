import type * as ts from 'typescript';
import type { HandlerWrapper, TS } from '../../src/analysis/types.js';
import { handlerParameterType, passThrough } from '../../src/analysis/wrappedHandlers.js';
import { skipParens } from '../../src/analysis/context.js';
import { skipOuter } from '../../src/analysis/sdk.js';
import { ensureParameter, isPlainType, LocalNames, widenReturnType, type RewriteEnv } from './rewriteHandler.js';
import { expressionBodyBlock, indentAt, type Edit } from './text.js';

export type WrapperEnv = Pick<RewriteEnv, 'ts' | 'sourceFile' | 'text' | 'newline' | 'unit' | 'literals'>;

export interface WrapperRewrite {
  edits: Edit[];
  sdkValues: Set<string>;
  sdkTypes: Set<string>;
}

/**
 * The wrapper a rewritten handler is called through (see wrappedHandlers.ts) passes the handler the
 * request's context and hands an input-required result back to the SDK unchanged:
 *
 *   async (ctx) => {
 *     const result = await handler(ctx);
 *     if (isInputRequiredResult(result)) return result;
 *     return { content: [{ type: 'text', text: result }] };
 *   }
 *
 * and the parameter it is given the handler through says so in its type
 * (`handler: (ctx: ServerContext) => Promise<string | InputRequiredResult>`).
 */
export function rewriteWrapper(env: WrapperEnv, w: HandlerWrapper, checker: ts.TypeChecker | undefined): WrapperRewrite {
  const { ts, sourceFile, text } = env;
  const edits: Edit[] = [];
  const sdkValues = new Set<string>();
  const sdkTypes = new Set<string>();
  const names = new LocalNames(ts, w.outer);
  // A callback a wrapper returns has no contextual type: its context gets its type written out.
  const uncontextual = !ts.isCallExpression(skipParens(ts, w.outer).parent);
  const ctx = ensureParameter(env, w.outer, w.outerCtxParamIndex, 'ctx', names, edits, new Map(), sdkTypes, { typed: uncontextual });
  const addsContext = w.call.arguments.length === w.outerCtxParamIndex;
  const args = [...w.call.arguments.map(a => a.getText(sourceFile)), ...(addsContext ? [ctx] : [])];
  const callText = `${w.call.expression.getText(sourceFile)}(${args.join(', ')})`;
  edits.push(...parameterTypeEdits(env, w.parameter, addsContext, sdkTypes));

  edits.push(...widenReturnType(env, w.outer, sdkTypes));
  const through = passThrough(ts, w, checker);
  if (through.kind === 'problem') {
    const line = sourceFile.getLineAndCharacterOfPosition(w.call.getStart(sourceFile)).line + 1;
    throw new Error(`the wrapper at ${sourceFile.fileName}:${line} cannot pass input-required results on: ${through.problem}`);
  }
  if (through.kind === 'returned') {
    if (addsContext) edits.push({ start: w.call.getStart(sourceFile), end: w.call.getEnd(), text: callText });
    return { edits, sdkValues, sdkTypes };
  }
  sdkValues.add('isInputRequiredResult');
  const { awaited, statement } = through;
  const nl = env.newline;
  const declared = statement && ts.isVariableStatement(statement) ? onlyDeclared(ts, statement, awaited) : undefined;
  if (declared) {
    // `const text = await fn(args);` already names the result.
    const end = statement!.getEnd();
    const lineEnd = text.indexOf('\n', end);
    const gap = text.slice(end, lineEnd === -1 ? text.length : lineEnd).trim() === '' ? `${nl}${indentAt(text, statement!.getStart(sourceFile))}` : ' ';
    if (addsContext) edits.push({ start: w.call.getStart(sourceFile), end: w.call.getEnd(), text: callText });
    edits.push({ start: end, end, text: `${gap}if (isInputRequiredResult(${declared})) return ${declared};` });
    return { edits, sdkValues, sdkTypes };
  }
  const result = names.take('result');
  const passOn = [`const ${result} = await ${callText};`, `if (isInputRequiredResult(${result})) return ${result};`];
  if (statement) {
    // Line by line, or on the statement's own line when it shares it (`{ try { return ...; } ... }`).
    const start = statement.getStart(sourceFile);
    const own = text.slice(text.lastIndexOf('\n', start - 1) + 1, start).trim() === '';
    const gap = own ? `${nl}${indentAt(text, start)}` : ' ';
    edits.push({ start, end: start, text: passOn.map(l => `${l}${gap}`).join('') });
    edits.push({ start: awaited.getStart(sourceFile), end: awaited.getEnd(), text: result });
    return { edits, sdkValues, sdkTypes };
  }
  // An expression body becomes a block that awaits the handler first.
  edits.push(expressionBodyBlock(env, w.outer, passOn, [{ start: awaited.getStart(sourceFile), end: awaited.getEnd(), text: result }]));
  return { edits, sdkValues, sdkTypes };
}

/** The name `const name = await fn(args);` declares, when the awaited call is its whole initializer. */
function onlyDeclared(ts: TS, statement: ts.VariableStatement, awaited: ts.AwaitExpression): string | undefined {
  const [d, ...rest] = statement.declarationList.declarations;
  // A type written on it (`const text: string`) would not admit the input-required result: the general form names it `result` first.
  if (!d || rest.length > 0 || d.type || !ts.isIdentifier(d.name) || !d.initializer || skipOuter(ts, d.initializer) !== awaited) return undefined;
  if (!(statement.declarationList.flags & ts.NodeFlags.Const)) return undefined;
  return d.name.text;
}

/** `handler: () => Promise<string>` → `handler: (ctx: ServerContext) => Promise<string | InputRequiredResult>`. */
function parameterTypeEdits(env: WrapperEnv, parameter: ts.ParameterDeclaration | undefined, addsContext: boolean, sdkTypes: Set<string>): Edit[] {
  const type = parameter && handlerParameterType(env.ts, parameter);
  return type ? functionTypeWidening(env, type, addsContext, sdkTypes) : [];
}

/**
 * A function type a handler is held under (a registrar's parameter, a list entry's member), widened
 * to pass the context (`addsContext`: after its last parameter) and to promise an input-required
 * result too. The type must return a `Promise<T>` (checked by the analysis).
 */
export function functionTypeWidening(env: Pick<WrapperEnv, 'ts' | 'sourceFile'>, type: ts.FunctionTypeNode, addsContext: boolean, sdkTypes: Set<string>): Edit[] {
  const { ts, sourceFile } = env;
  const edits: Edit[] = [];
  if (addsContext) {
    sdkTypes.add('ServerContext');
    // After the last parameter, before a trailing comma, as ensureParameter adds it to the function.
    const last = type.parameters[type.parameters.length - 1];
    const at = last ? last.getEnd() : type.parameters.end;
    edits.push({ start: at, end: at, text: `${last ? ', ' : ''}ctx: ServerContext` });
  }
  const promised = (type.type as ts.TypeReferenceNode).typeArguments![0]!;
  const own = promised.getText(sourceFile);
  if (!/\bInputRequiredResult\b/.test(own)) {
    sdkTypes.add('InputRequiredResult');
    edits.push({ start: promised.getStart(sourceFile), end: promised.getEnd(), text: `${isPlainType(ts, promised) ? own : `(${own})`} | InputRequiredResult` });
  }
  return edits;
}

/** The wrappers of the handlers a file rewrites, once each (one wrapper may call several handlers). */
export function wrappersOf(wrappers: Array<HandlerWrapper | undefined>): HandlerWrapper[] {
  const seen = new Map<ts.FunctionLikeDeclaration, HandlerWrapper>();
  for (const w of wrappers) if (w && !seen.has(w.outer)) seen.set(w.outer, w);
  return [...seen.values()];
}
