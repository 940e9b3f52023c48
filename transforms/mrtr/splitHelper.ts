import type * as ts from 'typescript';
import { helperDeclaration, isExportedHelper, type HelperSplit } from '../../src/analysis/helpers.js';
import { answerTypeOf, formParamsNeedCast, helperPartCall, LocalNames, rebuiltDeclaration, type RewriteEnv } from './rewriteHandler.js';
import { indentAt, reindentProtected, splice, type Edit } from './text.js';

/**
 * Replaces an asking helper with its two parts (see src/analysis/helpers.ts):
 *
 *   function confirmRequest(message: string): InputRequest { ...code before the question...; return inputRequired.elicit({...}); }
 *   function confirmResult(answer: ElicitResult, message: string): boolean { ...code after the question... }
 *
 * Each calling handler sends the request in the round that asks and passes the answer to the
 * result part in the round that brings it. A helper whose question is its return value has no
 * result part: its callers use the answer as it is.
 */

export type SplitEnv = Omit<RewriteEnv, 'module' | 'stateTypeName'> & { module: Pick<RewriteEnv['module'], 'elicitResultOf'> };

export interface HelperSplitRewrite {
  edit: Edit;
  /** The interface member the helper implements, split with it (src/analysis/interfaceSplit.ts). */
  memberEdit: Edit | undefined;
  sdkTypes: Set<string>;
  /** SDK values the parts use (`inputRequired`, when the helper asks itself). */
  sdkValues: Set<string>;
}

export function splitHelperEdit(env: SplitEnv, split: HelperSplit): HelperSplitRewrite {
  const { ts, text, newline: nl, unit, sourceFile } = env;
  const fn = split.fn;
  const declaration = helperDeclaration(ts, fn)!;
  const names = env.helperNames.get(split)!;
  const body = fn.body as ts.Block;
  const indent = indentAt(text, declaration.getStart(sourceFile));
  const inner = indent + unit;
  const sdkTypes = new Set<string>(['InputRequest']);
  const answerType = answerTypeOf(ts, { site: { kind: split.raw.kind, api: split.raw.api } as never, raw: split.raw });
  sdkTypes.add(answerType.includes('|') ? 'CreateMessageResult' : answerType);
  if (answerType.includes('WithTools')) sdkTypes.add('CreateMessageResultWithTools');

  const params = (indices: number[]): string[] => indices.map(i => fn.parameters[i]!.getText(sourceFile));
  const statementStart = split.statement.getStart(sourceFile);
  const own = (start: number, end: number, edits: Edit[] = []): string => text.slice(start, end).trim() === '' ? '' : splice(text, start, end, edits, env.literals).text.trim();

  // The request part: the code before the question, then the question as a request.
  const before = own(body.getStart(sourceFile) + 1, statementStart);
  const castToForm = split.question.type === 'push' && formParamsNeedCast(env, split.raw);
  if (castToForm) sdkTypes.add('ElicitRequestFormParams');
  const requestExpr = split.question.type === 'push'
    ? pushRequest(env, split, indentAt(text, statementStart), castToForm)
    : helperPartCall(env, split.question.split, split.question.call, 'request');
  const requestBody = [before, `return ${requestExpr};`].filter(Boolean).join(nl + inner);

  // The result part: the declarations it re-runs, the question's statement with the answer in place of the await, the rest.
  let answerParam = 'answer';
  let answerParamType = answerType;
  const statementText = (): string => {
    const replacement = split.question.type === 'push' || split.question.split.identity
      ? answerParam
      : helperPartCall(env, split.question.split, split.question.call, 'result', split.question.split.readsAnswer ? answerParam : undefined);
    return own(statementStart, split.statement.getEnd(), [{ start: split.awaited.getStart(sourceFile), end: split.awaited.getEnd(), text: replacement }]);
  };
  let questionStatement: string;
  const declared = split.form === 'declare' ? (split.statement as ts.VariableStatement).declarationList.declarations[0]! : undefined;
  if (split.question.type === 'push' && declared && ts.isIdentifier(declared.name)) {
    // `const answer: ElicitResult = await ask(...)`: the answer comes in as that parameter.
    answerParam = declared.name.text;
    if (declared.type) answerParamType = declared.type.getText(sourceFile);
    questionStatement = '';
  } else if (split.form === 'discard' && (split.question.type === 'push' || split.question.split.identity)) {
    questionStatement = '';
  } else {
    answerParam = new LocalNames(ts, fn).take('answer');
    questionStatement = statementText();
  }
  const rebuilt = split.rebuilt.map(node => rebuiltDeclaration(env, node, inner));
  const after = own(split.statement.getEnd(), body.getEnd() - 1);
  const resultBody = [...rebuilt, questionStatement, after].filter(Boolean).join(nl + inner);
  const resultParams = [...(split.readsAnswer ? [`${answerParam}: ${answerParamType}`] : []), ...params(split.resultParams)];

  const returnType = fn.type && ts.isTypeReferenceNode(fn.type) && fn.type.typeName.getText(sourceFile) === 'Promise' && fn.type.typeArguments?.length === 1
    ? fn.type.typeArguments[0]!.getText(sourceFile)
    : undefined;
  const request = part(env, fn, names.request, params(split.requestParams), split.requestAsync ? 'Promise<InputRequest>' : 'InputRequest', split.requestAsync, requestBody, indent);
  const lines = [
    `// ${split.name}() asked the client mid-call; mrtr-migrate split it in two for multi round-trip requests (SEP-2322):`,
    split.identity
      ? `// its callers send ${names.request}() in the round that asks and use the answer when it comes back.`
      : `// its callers send ${names.request}() in the round that asks and pass the answer to ${names.result}().`,
    request,
  ];
  if (!split.identity) {
    const type = returnType && (split.resultAsync ? `Promise<${returnType}>` : returnType);
    lines.push('', part(env, fn, names.result, resultParams, type, split.resultAsync, resultBody, indent));
  }
  // The helper's doc comment stays with the request part, below the note on the split.
  const start = declaration.getStart(sourceFile, true);
  const docs = text.slice(start, declaration.getStart(sourceFile)).trim();
  if (docs) lines.splice(2, 0, ...docs.split(/\r?\n/).map(l => l.trim().startsWith('*') ? ` ${l.trim()}` : l.trim()));
  // The blank line between the parts carries no indentation (nothing else is touched: literals keep their spaces).
  const joined = lines.map((line, i) => (i === 0 ? line : line === '' ? nl : nl + indent + line)).join('');
  const sdkValues = new Set<string>(split.question.type === 'push' ? ['inputRequired'] : []);
  const answer = split.readsAnswer ? `${answerParam}: ${answerParamType}` : undefined;
  return { edit: { start, end: declaration.getEnd(), text: joined }, memberEdit: memberPartsEdit(env, split, answer), sdkTypes, sdkValues };
}

/**
 * `confirm(message: string): Promise<boolean>;` of the interface the helper implements becomes the
 * parts' signatures, with the member's own parameters: `confirmRequest(message: string): InputRequest;`
 * and `confirmResult(answer: ElicitResult, message: string): boolean;`.
 */
function memberPartsEdit(env: SplitEnv, split: HelperSplit, answer: string | undefined): Edit | undefined {
  if (!split.member) return undefined;
  const { sourceFile, text, newline: nl } = env;
  const { member, resolved } = split.member;
  const names = env.helperNames.get(split)!;
  const params = (indices: number[]): string[] => indices.map(i => (member.parameters[i] ?? split.fn.parameters[i]!).getText(sourceFile));
  const request = `${names.request}(${params(split.requestParams).join(', ')}): ${split.requestAsync ? 'Promise<InputRequest>' : 'InputRequest'};`;
  const resolvedText = resolved.getText(sourceFile);
  const result = `${names.result}(${[...(answer ? [answer] : []), ...params(split.resultParams)].join(', ')}): ${split.resultAsync ? `Promise<${resolvedText}>` : resolvedText};`;
  const start = member.getStart(sourceFile);
  const signatures = split.identity ? [request] : [request, result];
  return { start, end: member.getEnd(), text: signatures.join(`${nl}${indentAt(text, start)}`) };
}

/** One part, in the helper's own style: a function declaration, a `const` arrow function, or a method. */
function part(env: SplitEnv, fn: ts.FunctionLikeDeclaration, name: string, params: string[], returnType: string | undefined, async: boolean, body: string, indent: string): string {
  const { ts, newline: nl, unit } = env;
  const signature = `(${params.join(', ')})${returnType ? `: ${returnType}` : ''}`;
  const block = `{${nl}${indent}${unit}${body}${nl}${indent}}`;
  const asyncWord = async ? 'async ' : '';
  // An exported helper's parts are exported in its place (its importers import them instead).
  const exportWord = !ts.isMethodDeclaration(fn) && isExportedHelper(ts, fn) ? 'export ' : '';
  if (ts.isMethodDeclaration(fn)) {
    const modifiers = (ts.getModifiers(fn) ?? []).filter(m => m.kind !== ts.SyntaxKind.AsyncKeyword).map(m => m.getText(env.sourceFile));
    return `${[...modifiers, ''].join(' ')}${asyncWord}${name}${signature} ${block}`;
  }
  if (ts.isArrowFunction(fn)) return `${exportWord}const ${name} = ${asyncWord}${signature} => ${block};`;
  if (ts.isFunctionExpression(fn)) return `${exportWord}const ${name} = ${asyncWord}function ${signature} ${block};`;
  return `${exportWord}${asyncWord}function ${name}${signature} ${block}`;
}

/** `inputRequired.elicit({...})` around the push call's own parameters. */
function pushRequest(env: SplitEnv, split: HelperSplit, statementIndent: string, castToForm: boolean): string {
  const raw = split.raw;
  if (raw.kind === 'roots') return 'inputRequired.listRoots()';
  const builder = raw.kind === 'sampling' ? 'inputRequired.createMessage' : 'inputRequired.elicit';
  const cast = castToForm ? ' as ElicitRequestFormParams' : '';
  if (raw.paramsVia) return `${builder}(${raw.paramsVia.text}.params${cast})`;
  if (!raw.params) return `${builder}({})`;
  const start = raw.params.getStart(env.sourceFile);
  const params = reindentProtected(splice(env.text, start, raw.params.getEnd(), [], env.literals), indentAt(env.text, start), statementIndent);
  const simple = env.ts.isIdentifier(raw.params) || env.ts.isPropertyAccessExpression(raw.params);
  return `${builder}(${cast && !simple ? `(${params.text})` : params.text}${cast})`;
}
