import type * as ts from 'typescript';
import { skipOuter } from './sdk.js';
import type { TS } from './types.js';

/**
 * The requestState codec an earlier run of mrtr-migrate wrote into a server's file and wired into its
 * `requestState` option. A second run (a handler fixed, or added, since) mints with it and adds its
 * State type to the codec's union, where a codec of its own would be a second verify hook.
 */
export interface WrittenCodec {
  /** The `requestState` option of the server construction. */
  option: ts.ObjectLiteralElementLike;
  /** `requestStateCodec` of `verify: requestStateCodec.verify`. */
  codec: string;
  /**
   * The file that declares the codec (`imported`: another module than the server's, the shared module
   * an earlier run wrote for a server in several files), or, where no checker resolves the import, the
   * specifier it is imported from.
   */
  declaredIn: { file: ts.SourceFile; statement: ts.VariableStatement; imported: boolean } | { specifier: string };
  /** The union of the handlers' State types the codec mints (`type RequestState = A | B;`); none in JavaScript. */
  stateUnion?: ts.TypeAliasDeclaration | undefined;
  /** The helpers the earlier run declared beside the codec, by their role. */
  helpers: Partial<Record<WrittenHelper, ts.FunctionDeclaration>>;
  /** The codec is wired beside the server's own hook (`verify: keepRequestStateHook(codec.verify)`). */
  keeps: boolean;
}

export type WrittenHelper = 'callDigest' | 'assertState' | 'checkedResponse' | 'elicitAnswerOf' | 'elicitResultOf' | 'keepHook' | 'migratedState';

/**
 * A server that keeps requestState of its own, where this run wires the rewrite's codec beside it
 * (`verify: keepRequestStateHook(codec.verify)`; one an earlier run wired is not listed): its verify
 * hook (`codec.verify` of `requestState: { verify: codec.verify }`), or none where its handlers read
 * the state unverified. The rewritten handlers read only states the codec minted (`migratedRequestState(ctx)`).
 */
export interface KeptStateHook {
  construction: ts.NewExpression;
  /** An expression, or a `verify(requestState, ctx) { ... }` method of the option. */
  hook: ts.Expression | ts.MethodDeclaration | undefined;
}

/** Each helper by its parameters (names survive the erasure of types in JavaScript) and a telling part of its body. */
const HELPER_SHAPES: Record<WrittenHelper, { params: string[]; body: string }> = {
  callDigest: { params: ['name', 'args'], body: 'crypto.subtle.digest(' },
  assertState: { params: ['state', 'call'], body: '.call !== call' },
  checkedResponse: { params: ['responses', 'key', 'question'], body: 'specTypeSchemas as' },
  // Earlier runs wrote it over inputResponse(), later ones over checkedInputResponse(): both check the content.
  elicitAnswerOf: { params: ['responses', 'key', 'question'], body: "'requestedSchema' in question.params" },
  elicitResultOf: { params: ['answer'], body: 'answer.action' },
  keepHook: { params: ['own'], body: 'own(requestState, ctx)' },
  migratedState: { params: ['ctx'], body: '.mcpReq.requestState' },
};

/** The `requestState` option of a server construction, if it has one it can name. */
export function requestStateOption(ts: TS, construction: ts.NewExpression): ts.ObjectLiteralElementLike | undefined {
  const options = construction.arguments?.[1] && skipOuter(ts, construction.arguments[1]);
  if (!options || !ts.isObjectLiteralExpression(options)) return undefined;
  return options.properties.find(p => p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === 'requestState');
}

/** Where `--runtime package` takes the support code from: mrtr-migrate's runtime entry (src/runtime). */
export const RUNTIME_SPECIFIER = 'mrtr-migrate/runtime';

/**
 * The codec an earlier run wrote, when the construction's option is `requestState: { verify: X.verify }`
 * and X is that run's codec: declared as `const X = { mint, verify }` beside its call digest and state
 * check, in the server's file or in a module it imports X from (resolved by the checker; without one,
 * only the module's specifier is known), or mrtr-migrate/runtime's, of which only the specifier is known.
 */
export function writtenCodecOf(ts: TS, construction: ts.NewExpression, checker?: ts.TypeChecker): WrittenCodec | undefined {
  const option = requestStateOption(ts, construction);
  const hook = option && ownVerifyHook(ts, option);
  if (!option || !hook) return undefined;
  const file = construction.getSourceFile();
  if (ts.isMethodDeclaration(hook)) return undefined;
  let reference = skipOuter(ts, hook);
  // `keepRequestStateHook(codec.verify)`: the codec beside the server's own hook, wired by an earlier run.
  const keeps = ts.isCallExpression(reference) && ts.isIdentifier(reference.expression) && reference.arguments.length === 1 ? reference.expression.text : undefined;
  // Imported, the hook is the shared module's (a server whose handlers span files).
  let keptIn: ts.SourceFile | undefined;
  // The runtime's hook (an earlier `--runtime package` run): its codec is the runtime's too.
  if (keeps !== undefined && importedFrom(ts, file, keeps) === RUNTIME_SPECIFIER) {
    return { option, codec: runtimeCodecName(ts, file), declaredIn: { specifier: RUNTIME_SPECIFIER }, helpers: {}, keeps: true };
  }
  if (keeps !== undefined) {
    const own = writtenHelpers(ts, file).keepHook;
    const shared = own ? undefined : importedValue(ts, (reference as ts.CallExpression).expression as ts.Identifier, checker);
    const keepHook = own ?? (shared && writtenHelpers(ts, shared.file).keepHook);
    const codecRead = keepHook && memberRead(ts, keepHook, 'verify');
    if (keepHook?.name?.text !== (shared?.name ?? keeps) || !codecRead) return undefined;
    reference = codecRead;
    keptIn = shared?.file;
  }
  if (!ts.isPropertyAccessExpression(reference) || reference.name.text !== 'verify' || !ts.isIdentifier(reference.expression)) return undefined;
  const codec = reference.expression.text;
  const specifier = keeps === undefined ? importedFrom(ts, file, codec) : undefined;
  const imported = specifier === undefined ? undefined : importedValue(ts, reference.expression, checker);
  const home = keptIn ?? (specifier === undefined ? file : imported?.file);
  if (!home) return { option, codec, declaredIn: { specifier: specifier! }, helpers: {}, keeps: false };
  const found = codecDeclaration(ts, home, imported?.name ?? codec);
  if (!found) return undefined;
  const helpers = writtenHelpers(ts, home);
  if (!helpers.callDigest || !helpers.assertState) return undefined;
  return { option, codec, declaredIn: { file: home, statement: found.statement, imported: home !== file }, stateUnion: stateUnionOf(ts, home, found.mint), helpers, keeps: keeps !== undefined };
}

/** `const X = { mint, verify }` at the top of a file. */
function codecDeclaration(ts: TS, file: ts.SourceFile, name: string): { statement: ts.VariableStatement; mint: ts.ObjectLiteralElementLike } | undefined {
  const statement = file.statements.filter(ts.isVariableStatement).find(s => s.declarationList.declarations.some(d => ts.isIdentifier(d.name) && d.name.text === name));
  const declaration = statement?.declarationList.declarations.find(d => ts.isIdentifier(d.name) && d.name.text === name);
  const literal = declaration?.initializer && skipOuter(ts, declaration.initializer);
  if (!statement || !literal || !ts.isObjectLiteralExpression(literal)) return undefined;
  const member = (key: string) => literal.properties.find(p => p.name && ts.isIdentifier(p.name) && p.name.text === key);
  const mint = member('mint');
  return mint && member('verify') ? { statement, mint } : undefined;
}

/** What an imported binding stands for: the project file that declares it and its name there (`import { a as b }`: `a`). */
function importedValue(ts: TS, name: ts.Identifier, checker: ts.TypeChecker | undefined): { file: ts.SourceFile; name: string } | undefined {
  let symbol = checker?.getSymbolAtLocation(name);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker!.getAliasedSymbol(symbol);
  const file = symbol?.valueDeclaration?.getSourceFile();
  return symbol && file && !file.isDeclarationFile ? { file, name: symbol.name } : undefined;
}

/**
 * The hook the server had before the rewrite: `codec.verify` of `requestState: { verify: codec.verify }`
 * (any expression, evaluated where it was), or a `verify(requestState, ctx) { ... }` method; undefined
 * for any other shape of the option.
 */
export function ownVerifyHook(ts: TS, option: ts.ObjectLiteralElementLike): ts.Expression | ts.MethodDeclaration | undefined {
  if (!ts.isPropertyAssignment(option)) return undefined;
  const value = skipOuter(ts, option.initializer);
  if (!ts.isObjectLiteralExpression(value) || value.properties.length !== 1) return undefined;
  const verify = value.properties[0]!;
  const named = verify.name && (ts.isIdentifier(verify.name) || ts.isStringLiteral(verify.name)) && verify.name.text === 'verify';
  if (named && ts.isPropertyAssignment(verify)) return verify.initializer;
  if (named && ts.isShorthandPropertyAssignment(verify)) return verify.name;
  if (named && ts.isMethodDeclaration(verify) && verify.body && !verify.asteriskToken) return verify;
  return undefined;
}

/** Whether a handler mints with the codec (the earlier run's handlers, or one written by hand with it). */
export function mintsWith(ts: TS, fn: ts.FunctionLikeDeclaration, codec: string): boolean {
  return memberRead(ts, fn, 'mint', codec) !== undefined;
}

/** The first `<object>.<member>` in a function's body, `object` an identifier (the one named, if given). */
function memberRead(ts: TS, fn: ts.FunctionLikeDeclaration, member: string, object?: string): ts.PropertyAccessExpression | undefined {
  let found: ts.PropertyAccessExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isPropertyAccessExpression(node) && node.name.text === member && ts.isIdentifier(node.expression) && (object === undefined || node.expression.text === object)) found = node;
    else node.forEachChild(visit);
  };
  if (fn.body) visit(fn.body);
  return found;
}

/** The local name of the runtime's codec in a file (the name it has there when the file does not import it). */
function runtimeCodecName(ts: TS, file: ts.SourceFile): string {
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || statement.moduleSpecifier.text !== RUNTIME_SPECIFIER) continue;
    const bindings = statement.importClause?.namedBindings;
    const element = bindings && ts.isNamedImports(bindings) ? bindings.elements.find(e => (e.propertyName ?? e.name).text === 'requestStateCodec') : undefined;
    if (element) return element.name.text;
  }
  return 'requestStateCodec';
}

function importedFrom(ts: TS, file: ts.SourceFile, name: string): string | undefined {
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings) && bindings.elements.some(e => e.name.text === name)) return statement.moduleSpecifier.text;
  }
  return undefined;
}

export function writtenHelpers(ts: TS, file: ts.SourceFile): WrittenCodec['helpers'] {
  const helpers: WrittenCodec['helpers'] = {};
  for (const statement of file.statements) {
    if (!ts.isFunctionDeclaration(statement) || !statement.name || !statement.body) continue;
    const params = statement.parameters.map(p => (ts.isIdentifier(p.name) ? p.name.text : ''));
    const body = statement.body.getText(file);
    for (const [role, shape] of Object.entries(HELPER_SHAPES) as Array<[WrittenHelper, (typeof HELPER_SHAPES)[WrittenHelper]]>) {
      if (!helpers[role] && params.join() === shape.params.join() && body.includes(shape.body)) helpers[role] = statement;
    }
  }
  return helpers;
}

/** `type RequestState = A | B;`, named by the type of `mint`'s state parameter. */
function stateUnionOf(ts: TS, file: ts.SourceFile, mint: ts.ObjectLiteralElementLike): ts.TypeAliasDeclaration | undefined {
  const fn = ts.isPropertyAssignment(mint) ? skipOuter(ts, mint.initializer) : mint;
  if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn) && !ts.isMethodDeclaration(fn)) return undefined;
  const type = fn.parameters[0]?.type;
  if (!type || !ts.isTypeReferenceNode(type) || !ts.isIdentifier(type.typeName)) return undefined;
  const name = type.typeName.text;
  return file.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === name);
}
