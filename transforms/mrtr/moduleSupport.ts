import type * as ts from 'typescript';
import type { TS } from '../../src/analysis/types.js';
import { requiredModule, skipOuter } from '../../src/analysis/sdk.js';
import { isEsModule, serverRequire } from '../../src/analysis/moduleFormat.js';
import { isJavaScriptFile } from '../../src/analysis/typeSyntax.js';
import type { ModuleNames } from './rewriteHandler.js';
import { applyEdits, quoteStyle, indentAt, indentUnit, newlineOf, requote, type Edit } from './text.js';
import { eraseTypes } from './eraseTypes.js';
import { ownVerifyHook, requestStateOption, RUNTIME_SPECIFIER, writtenHelpers, type KeptStateHook, type WrittenCodec, type WrittenHelper } from '../../src/analysis/writtenCodec.js';
import type { SupportHelper } from '../types.js';

/**
 * What a file with rewritten handlers needs once: the phase types, one requestState codec wired
 * into every server construction, a few small helpers, and the SDK imports. Written as ordinary
 * code into the user's module: no runtime dependency on mrtr-migrate.
 */

/** Module-level names of the codec block, each unique in the file. */
export interface CodecNames {
  stateUnion: string;
  keyLoader: string;
  /** The sealing codec the wrapper mints with and opens through, and the function that makes it. */
  signed: string;
  sealer: string;
  /** The record of used states, and its map. */
  replays: string;
  nonces: string;
  ttl: string;
  /** Beside a server's own requestState hook: the hook that keeps it, the reader of the rewrite's states, and their key. */
  keepHook: string;
  migratedState: string;
  migratedKey: string;
}

export interface ModuleSupportInput {
  ts: TS;
  sourceFile: ts.SourceFile;
  text: string;
  newline: string;
  unit: string;
  names: ModuleNames & CodecNames;
  /** Whether handlers were rewritten to multi round-trip (the codec and its helpers); false when only guards were. */
  withCodec: boolean;
  usesCapabilitiesOf: boolean;
  stateTypes: string[];
  stateTypeNames: string[];
  usesElicitResultOf: boolean;
  /** Whether an elicitation answer is read (the accepted content is validated on the way in). */
  usesElicitAnswerOf: boolean;
  /** Whether an answer is read without its content checked against a schema (checked as a result of its method only). */
  usesCheckedResponse: boolean;
  sdkValues: Set<string>;
  sdkTypes: Set<string>;
  constructions: ts.NewExpression[];
  /** SDK imports the rewrite left unused (`UrlElicitationRequiredError` once its throws are gone). */
  unusedImports?: Set<string>;
  /**
   * The codec lives in a generated module shared by the files of a server (see SharedRequestState):
   * this file imports it from `specifier` instead of declaring it, and keeps its State types.
   */
  shared?: { specifier: string; keeps: boolean } | undefined;
  /** The codec an earlier run wrote into this file: minted with again, its union and helpers added to. */
  written?: WrittenCodec | undefined;
  /** Servers of the file that keep requestState of their own: the codec is wired beside that (keepRequestStateHook). */
  kept?: KeptStateHook[];
}

/** SDK types the support code names (besides those of the rewritten handlers), by what names them. */
const SUPPORT_TYPE = {
  codec: ['ServerContext'],
  elicitResultOf: ['InputResponseView', 'ElicitResult'],
  elicitAnswerOf: ['InputResponseView', 'InputRequest'],
  checkedResponse: ['InputResponseView', 'InputRequest'],
  keepHook: ['ServerContext'],
  capabilitiesOf: ['ClientCapabilities'],
} as const;

/** SDK values the support code calls, by what calls them. */
const SUPPORT_VALUE = {
  codec: ['ProtocolError', 'ProtocolErrorCode'],
  elicitAnswerOf: ['fromJsonSchema', 'ProtocolError', 'ProtocolErrorCode'],
  checkedResponse: ['inputResponse', 'SdkError', 'SdkErrorCode', 'specTypeSchemas'],
  keepHook: ['ProtocolError', 'ProtocolErrorCode'],
  capabilitiesOf: ['CLIENT_CAPABILITIES_META_KEY'],
} as const;

/** All of them: a JavaScript file's rewrite takes them out of its code again (eraseTypes). */
export const SUPPORT_TYPES: readonly string[] = [...new Set(Object.values(SUPPORT_TYPE).flat())];

/** The names the shared module exports (it is generated fresh, so they are free there). */
export const SHARED_NAMES: ModuleNames & CodecNames = {
  codec: 'requestStateCodec',
  signed: 'sealedRequestState',
  sealer: 'createRequestStateSeal',
  replays: 'requestStateReplays',
  nonces: 'usedRequestStates',
  ttl: 'requestStateTtlSeconds',
  elicitAnswerOf: 'elicitAnswerOf',
  checkedResponse: 'checkedInputResponse',
  callDigest: 'requestStateCall',
  assertState: 'assertStateFor',
  elicitResultOf: 'elicitResultOf',
  capabilitiesOf: 'clientCapabilitiesOf',
  stateUnion: 'RequestState',
  keyLoader: 'requestStateKeys',
  keepHook: 'keepRequestStateHook',
  migratedState: 'migratedRequestState',
  migratedKey: 'migratedRequestStateKey',
};

export function moduleSupportEdits(given: ModuleSupportInput): Edit[] {
  // Every string the support code writes is in the file's quote style, the State types' step names too.
  const quote = quoteStyle(given.ts, given.sourceFile);
  const input = { ...given, stateTypes: given.stateTypes.map(t => requote(given.ts, t, quote)) };
  const { ts, sourceFile, newline: nl } = input;
  const edits: Edit[] = [];
  const insertAt = supportOffset(ts, sourceFile);
  const written = input.withCodec ? input.written : undefined;
  const inline = input.withCodec && !input.shared && !written;

  const values = new Set(input.sdkValues);
  const addValues = (names: readonly string[]): void => names.forEach(name => values.add(name));
  if (inline) addValues(SUPPORT_VALUE.codec);
  // Helpers the file does not have yet: all of them, or those an earlier run's codec was written without.
  const addsElicitAnswerOf = (inline || (!!written && !written.helpers.elicitAnswerOf)) && input.usesElicitAnswerOf;
  const addsElicitResultOf = (inline || (!!written && !written.helpers.elicitResultOf)) && input.usesElicitResultOf;
  // elicitAnswerOf reads the answer through checkedInputResponse.
  const addsCheckedResponse = (inline || (!!written && !written.helpers.checkedResponse)) && (input.usesCheckedResponse || addsElicitAnswerOf);
  if (addsCheckedResponse) addValues(SUPPORT_VALUE.checkedResponse);
  if (addsElicitAnswerOf) addValues(SUPPORT_VALUE.elicitAnswerOf);
  const types = new Set(input.sdkTypes);
  const addTypes = (names: readonly string[]): void => names.forEach(name => types.add(name));
  if (inline) addTypes(SUPPORT_TYPE.codec);
  if (addsElicitResultOf) addTypes(SUPPORT_TYPE.elicitResultOf);
  if (addsElicitAnswerOf) addTypes(SUPPORT_TYPE.elicitAnswerOf);
  if (addsCheckedResponse) addTypes(SUPPORT_TYPE.checkedResponse);
  if (input.usesCapabilitiesOf) {
    addValues(SUPPORT_VALUE.capabilitiesOf);
    addTypes(SUPPORT_TYPE.capabilitiesOf);
  }
  const kept = new Map((input.withCodec ? input.kept ?? [] : []).map(k => [k.construction, k]));
  // Shared by several files, the module has the hook (and the file imports it, sharedSpecifiers).
  const keeps = kept.size > 0 && !input.shared && !written?.helpers.keepHook;
  if (keeps) addValues(SUPPORT_VALUE.keepHook);
  if (keeps) addTypes(SUPPORT_TYPE.keepHook);
  const sharedImport = input.withCodec && input.shared ? sharedImportOf(ts, sourceFile, input.shared.specifier) : undefined;
  if (sharedImport) edits.push(...sharedAdditions(input, sharedImport));
  const importsModule = input.withCodec && !written && !sharedImport && !inline;
  const block = inline ? codecBlock(input, 'file', keeps) : importsModule ? sharedImportBlock(input) : [];
  // The module's import joins the imports; the rest goes after the file's header comments.
  const moduleImport = importsModule ? block.shift()! : undefined;
  if (written) edits.push(...writtenCodecEdits(input, written, { checkedResponse: addsCheckedResponse, elicitAnswerOf: addsElicitAnswerOf, elicitResultOf: addsElicitResultOf, keeps }));
  if (input.usesCapabilitiesOf) block.push(...capabilitiesBlock(input));
  // A file that only holds a split helper needs no block, only the SDK names its parts use.
  const blockAt = afterHeader(ts, sourceFile, insertAt);
  if (block.length > 0) edits.push({ start: blockAt, end: blockAt, text: (blockAt === 0 ? '' : nl) + requote(ts, block.join(nl), quote) + (blockAt === 0 ? nl : '') });
  // Pushed after the block, a new import line lands before it at the same offset (applyEdits).
  if (moduleImport) edits.push({ start: insertAt, end: insertAt, text: insertAt === 0 ? moduleImport + nl : nl + moduleImport });
  edits.push(...importEdits(input, values, types, insertAt));

  for (const construction of input.constructions) edits.push(...wiringEdits(input, construction, kept.get(construction) ?? (input.shared?.keeps ? keptOf(ts, construction) : undefined)));
  return edits;
}

/** The shared module's names a file imports already, by their role (the local name, aliased or not). */
export function importedSharedNames(ts: TS, sourceFile: ts.SourceFile, specifier: string): Partial<ModuleNames & CodecNames> {
  const named: Partial<ModuleNames & CodecNames> = {};
  const declaration = sharedImportOf(ts, sourceFile, specifier);
  const elements = declaration && (declaration.importClause!.namedBindings as ts.NamedImports).elements;
  for (const key of SHARED_ROLES) {
    const element = elements?.find(e => (e.propertyName ?? e.name).getText(sourceFile) === SHARED_NAMES[key]);
    if (element) named[key] = element.name.text;
  }
  return named;
}

/** What a handler file imports from the shared module. */
const SHARED_ROLES = ['codec', 'callDigest', 'assertState', 'checkedResponse', 'elicitAnswerOf', 'elicitResultOf', 'keepHook', 'migratedState'] as const;

function sharedImportOf(ts: TS, sourceFile: ts.SourceFile, specifier: string): ts.ImportDeclaration | undefined {
  return sourceFile.statements.find((s): s is ts.ImportDeclaration => ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) &&
    s.moduleSpecifier.text === specifier && !s.importClause?.isTypeOnly && !!s.importClause?.namedBindings && ts.isNamedImports(s.importClause.namedBindings));
}

/** The names a file of a shared codec imports from its module, each as the role's local name. */
function sharedSpecifiers(input: ModuleSupportInput): Map<string, string> {
  const { names } = input;
  const used: Array<(typeof SHARED_ROLES)[number]> = ['codec', 'callDigest', 'assertState'];
  if (input.usesCheckedResponse) used.push('checkedResponse');
  if (input.usesElicitAnswerOf) used.push('elicitAnswerOf');
  if (input.usesElicitResultOf) used.push('elicitResultOf');
  // Beside requestState a server keeps of its own: its wiring (where it is built here) and the handlers' reads.
  if (input.shared?.keeps && input.constructions.length > 0) used.push('keepHook');
  if (input.shared?.keeps) used.push('migratedState');
  return new Map(used.map(key => [names[key], names[key] === SHARED_NAMES[key] ? names[key] : `${SHARED_NAMES[key]} as ${names[key]}`]));
}

/**
 * A file whose handlers an earlier run rewrote with the shared module: the names it does not import
 * yet join its import, and the new State types follow the ones it has (after its imports otherwise).
 */
function sharedAdditions(input: ModuleSupportInput, declaration: ts.ImportDeclaration): Edit[] {
  const { ts, sourceFile, newline: nl } = input;
  const named = declaration.importClause!.namedBindings as ts.NamedImports;
  const present = new Set(named.elements.map(e => e.name.text));
  const missing = [...sharedSpecifiers(input)].filter(([local]) => !present.has(local)).map(([, specifier]) => specifier);
  const edits: Edit[] = [];
  const last = named.elements[named.elements.length - 1];
  if (missing.length > 0 && last) edits.push({ start: last.getEnd(), end: last.getEnd(), text: `, ${missing.join(', ')}` });
  if (input.stateTypes.length === 0) return edits;
  // The State types the earlier run wrote: the type aliases that follow the imports.
  const statements = [...sourceFile.statements];
  let at = statements.findIndex(s => !ts.isImportDeclaration(s));
  while (at >= 0 && at < statements.length && ts.isTypeAliasDeclaration(statements[at]!)) at++;
  const after = statements[at - 1]!;
  edits.push({ start: after.getEnd(), end: after.getEnd(), text: input.stateTypes.map(t => nl + nl + t).join('') });
  return edits;
}

/** A file of a server whose codec is shared: the import of the codec and helpers, and its handlers' State types. */
function sharedImportBlock(input: ModuleSupportInput): string[] {
  const specifiers = [...sharedSpecifiers(input).values()];
  const quote = quoteStyle(input.ts, input.sourceFile);
  return [
    `import { ${specifiers.join(', ')} } from ${quote}${input.shared!.specifier}${quote};`,
    '',
    `// requestState of the multi round-trip handlers below (SEP-2322), added by mrtr-migrate. The codec that seals`,
    input.shared!.specifier === RUNTIME_SPECIFIER
      ? `// it is ${RUNTIME_SPECIFIER}'s (see its useRequestStateReplays): the client can neither read nor change it.`
      : `// it is in ${input.shared!.specifier}, with the support code of every migrated file: the client can neither read nor change it.`,
    ...input.stateTypes.flatMap((t, i) => [...(i > 0 ? [''] : []), ...t.split(input.newline)]),
  ];
}

/** The names of the codec an earlier run wrote into the file, and of the helpers it has. */
export function writtenNames(written: WrittenCodec): Partial<ModuleNames & CodecNames> {
  const named: Partial<ModuleNames & CodecNames> = { codec: written.codec };
  for (const [role, fn] of Object.entries(written.helpers)) if (fn.name) named[role as WrittenHelper] = fn.name.text;
  if (written.stateUnion) named.stateUnion = written.stateUnion.name.text;
  return named;
}

/**
 * A file whose codec an earlier run wrote: the new State types go before its union and join it, and
 * the helpers it was written without go after its last one. The rest of it (a store of used states
 * swapped in by the user, say) is left as it is.
 */
function writtenCodecEdits(input: ModuleSupportInput, written: WrittenCodec, adds: { checkedResponse: boolean; elicitAnswerOf: boolean; elicitResultOf: boolean; keeps: boolean }): Edit[] {
  const { sourceFile, newline: nl, names, unit } = input;
  if (!('file' in written.declaredIn)) return [];
  const edits: Edit[] = [];
  const union = written.stateUnion;
  if (union) {
    const at = union.getStart(sourceFile);
    edits.push({ start: at, end: at, text: input.stateTypes.map(t => t + nl + nl).join('') });
    edits.push({ start: union.type.getEnd(), end: union.type.getEnd(), text: input.stateTypeNames.map(n => ` | ${n}`).join('') });
  } else if (input.stateTypes.length > 0) {
    // JavaScript has no union: the State types (JSDoc once erased) go before the codec and its comment.
    const at = written.declaredIn.statement.getFullStart();
    edits.push({ start: at, end: at, text: input.stateTypes.map(t => nl + nl + t).join('') });
  }
  const helpers = [
    ...(adds.checkedResponse ? checkedResponseLines(names, unit, '') : []),
    ...(adds.elicitAnswerOf ? elicitAnswerOfLines(names, unit, '') : []),
    ...(adds.elicitResultOf ? elicitResultOfLines(names, unit, '') : []),
    ...(adds.keeps ? keepHookLines(names, unit) : []),
  ];
  const last = Object.values(written.helpers).reduce((a, b) => (b.end > a.end ? b : a));
  if (helpers.length > 0) edits.push({ start: last.getEnd(), end: last.getEnd(), text: nl + requote(input.ts, helpers.join(nl), quoteStyle(input.ts, sourceFile)) });
  return edits;
}

/**
 * The support module: the codec every migrated file of the project mints with, exported with its helpers.
 * As `package`, the runtime entry of mrtr-migrate (src/runtime/index.ts, `--runtime package`): every
 * helper, and the record of used states set through a function rather than edited in place.
 */
export function sharedModuleText(options: { ts: TS; uses: ReadonlySet<SupportHelper>; keeps: boolean; newline: string; unit: string; quote: '"' | "'"; flavour?: 'module' | 'package' }): string {
  const usesElicitAnswerOf = options.uses.has('elicitAnswerOf');
  const usesElicitResultOf = options.uses.has('elicitResultOf');
  const usesCheckedResponse = options.uses.has('checkedResponse') || usesElicitAnswerOf;
  const helpers = [...(usesCheckedResponse ? ['checkedResponse'] as const : []), ...(usesElicitAnswerOf ? ['elicitAnswerOf'] as const : [])];
  const values = new Set<string>([...SUPPORT_VALUE.codec, ...helpers.flatMap(h => SUPPORT_VALUE[h])]);
  const types = new Set<string>([...SUPPORT_TYPE.codec, ...[...helpers, ...(usesElicitResultOf ? ['elicitResultOf'] as const : [])].flatMap(h => SUPPORT_TYPE[h])]);
  const q = options.quote;
  const lines = [
    `import { ${[...[...values].sort(), ...[...types].sort().map(t => `type ${t}`)].join(', ')} } from ${q}@modelcontextprotocol/server${q};`,
    ...codecBlock({ names: SHARED_NAMES, unit: options.unit, newline: options.newline, usesCheckedResponse, usesElicitAnswerOf, usesElicitResultOf, stateTypes: [], stateTypeNames: [] }, options.flavour ?? 'module', options.keeps),
  ];
  return requote(options.ts, lines.join(options.newline), options.quote) + options.newline;
}

export { RUNTIME_SPECIFIER };

/** The text of the runtime entry `--runtime package` imports (src/runtime/index.ts). */
export function runtimeText(ts: TS): string {
  return sharedModuleText({ ts, uses: new Set(['checkedResponse', 'elicitAnswerOf', 'elicitResultOf']), keeps: true, newline: '\n', unit: '  ', quote: "'", flavour: 'package' });
}

/**
 * The shared module an earlier run wrote, with the helpers this run's handlers need and it was written
 * without (exported after its last one, their SDK names imported); undefined when it has them all.
 */
export function sharedModuleAdditions(ts: TS, sourceFile: ts.SourceFile, uses: ReadonlySet<SupportHelper>, keeps = false): string | undefined {
  const helpers = writtenHelpers(ts, sourceFile);
  const text = sourceFile.text;
  const unit = indentUnit(text);
  const answerOf = uses.has('elicitAnswerOf') && !helpers.elicitAnswerOf;
  const checked = (uses.has('checkedResponse') || answerOf) && !helpers.checkedResponse;
  const resultOf = uses.has('elicitResultOf') && !helpers.elicitResultOf;
  const keepHook = keeps && !helpers.keepHook;
  const last = Object.values(helpers).reduce<ts.FunctionDeclaration | undefined>((a, b) => (!a || b.end > a.end ? b : a), undefined);
  if ((!checked && !answerOf && !resultOf && !keepHook) || !last) return undefined;
  const newline = newlineOf(text);
  const lines = [
    ...(checked ? checkedResponseLines(SHARED_NAMES, unit, 'export ') : []),
    ...(answerOf ? elicitAnswerOfLines(SHARED_NAMES, unit, 'export ') : []),
    ...(resultOf ? elicitResultOfLines(SHARED_NAMES, unit, 'export ') : []),
    ...(keepHook ? keepHookLines(SHARED_NAMES, unit, 'export ') : []),
  ];
  const adding = [...(checked ? ['checkedResponse'] as const : []), ...(answerOf ? ['elicitAnswerOf'] as const : []), ...(keepHook ? ['keepHook'] as const : [])];
  const values = new Set<string>(adding.flatMap(h => SUPPORT_VALUE[h]));
  const types = new Set<string>([...adding, ...(resultOf ? ['elicitResultOf'] as const : [])].flatMap(h => SUPPORT_TYPE[h]));
  const input = { ts, sourceFile, text, newline, unit, names: SHARED_NAMES, withCodec: true, usesCapabilitiesOf: false, stateTypes: [], stateTypeNames: [], usesElicitResultOf: resultOf, usesElicitAnswerOf: answerOf, usesCheckedResponse: checked, sdkValues: values, sdkTypes: types, constructions: [] };
  const edits = [{ start: last.getEnd(), end: last.getEnd(), text: newline + requote(ts, lines.join(newline), quoteStyle(ts, sourceFile)) }, ...importEdits(input, values, types, supportOffset(ts, sourceFile))];
  const added = applyEdits(text, edits);
  return isJavaScriptFile(sourceFile.fileName) ? eraseTypes(ts, sourceFile.fileName, added, SUPPORT_TYPES) : added;
}

/**
 * The capabilities of the request being handled. 2026-07-28 requests carry them in their `_meta`
 * envelope; `getClientCapabilities()` holds what a 2025 client declared at initialize, and is
 * undefined on 2026 requests unless the server was built per request by createMcpHandler.
 */
function capabilitiesBlock(input: ModuleSupportInput): string[] {
  const { unit, names } = input;
  return [
    '',
    '/** The client\'s capabilities for this request: its own on 2026-07-28, the ones declared at initialize on 2025 connections. */',
    `function ${names.capabilitiesOf}(`,
    `${unit}ctx: { mcpReq: { envelope?: unknown } },`,
    `${unit}server: { getClientCapabilities(): ClientCapabilities | undefined },`,
    '): ClientCapabilities | undefined {',
    `${unit}// The SDK types the envelope loosely; it is keyed by the reserved _meta names.`,
    `${unit}const envelope = ctx.mcpReq.envelope as { [CLIENT_CAPABILITIES_META_KEY]?: ClientCapabilities } | undefined;`,
    `${unit}return envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities();`,
    '}',
  ];
}

type CodecInput = Pick<ModuleSupportInput, 'names' | 'unit' | 'newline' | 'usesCheckedResponse' | 'usesElicitAnswerOf' | 'usesElicitResultOf' | 'stateTypes' | 'stateTypeNames'>;

/** The opening comment of the codec: where it is, and what it asks of the servers that use it. */
const CODEC_INTRO = {
  file: ['// requestState of the multi round-trip handlers below (SEP-2322), added by mrtr-migrate. It is sealed'],
  module: [
    '// requestState of the multi round-trip handlers of this project (SEP-2322), added by mrtr-migrate. Every file',
    '// with such handlers mints its state with this codec, and their servers verify it. It is sealed',
  ],
  package: [
    '// The runtime of mrtr-migrate (`mrtr-migrate/runtime`): the requestState codec and helpers that the handlers',
    '// rewritten with `--runtime package` import (SEP-2322), generated by scripts/write-runtime.ts from the support',
    '// module a run writes into a project (transforms/mrtr/moduleSupport.ts): edit that. It is sealed',
  ],
};

/** The codec and its helpers: declared in the file of the handlers, exported from the shared module, or the runtime entry. */
function codecBlock(input: CodecInput, flavour: 'file' | 'module' | 'package', keeps = false): string[] {
  const { unit, names } = input;
  const u2 = unit + unit;
  const shared = flavour !== 'file';
  const exp = shared ? 'export ' : '';
  const block = [
    '',
    ...CODEC_INTRO[flavour],
    '// (AES-256-GCM): the client can neither read nor change it. Every server instance that may receive',
    '// a retry needs the same MCP_REQUEST_STATE_KEY (at least 32 bytes); without it this process seals with a',
    '// random key, which only works while one process serves every round of a call (stdio). Each state is',
    flavour === 'package'
      ? '// accepted once: several instances must also share the record of used states (see useRequestStateReplays).'
      : `// accepted once: several instances must also share the record of used states (see ${names.replays}).`,
    ...input.stateTypes.flatMap(t => [...t.split(input.newline), '']),
    ...(shared ? [''] : []),
    shared
      ? `/** What every state has; each handler's own State type, in its file, says what it carries. */${input.newline}export type ${names.stateUnion} = { step: string; call: string; [carried: string]: unknown };`
      : `type ${names.stateUnion} = ${input.stateTypeNames.join(' | ')};`,
    '',
    `const ${names.ttl} = 600;`,
    '',
    `const ${names.signed} = ${names.sealer}<{ nonce: string; state: ${names.stateUnion} }>({`,
    `${unit}keys: ${names.keyLoader}(),`,
    `${unit}ttlSeconds: ${names.ttl},`,
    `${unit}// Bound to the method, the caller and (over HTTP) the Mcp-Name header; each handler also checks its`,
    `${unit}// tool / prompt / resource name and arguments.`,
    `${unit}bind: ctx => [ctx.mcpReq.method, ctx.http?.authInfo?.clientId ?? '', ctx.http?.req?.headers.get('mcp-name') ?? ''].join('\\u0000'),`,
    '});',
    '',
    '/** Mints each state with a fresh nonce and accepts each nonce once, so a replayed round cannot run its code again. */',
    `${exp}const ${names.codec} = {`,
    `${unit}mint: (state: ${names.stateUnion}, ctx: ServerContext): Promise<string> => ${names.signed}.mint({ nonce: crypto.randomUUID(), state }, ctx),`,
    `${unit}verify: async (requestState: string, ctx: ServerContext): Promise<${names.stateUnion}> => {`,
    `${u2}const { nonce, state } = await ${names.signed}.verify(requestState, ctx);`,
    `${u2}if (!(await ${names.replays}.claim(nonce, ${names.ttl} * 1000))) throw new Error('requestState already used');`,
    `${u2}return state;`,
    `${unit}},`,
    '};',
    '',
    `const ${names.nonces} = new Map<string, number>(); // nonce → when its state expires`,
    '',
    '/**',
    ` * The nonces of resumed states, each kept while its state could still verify. In this process's memory,`,
    ' * which is enough while one process serves every round of a call (stdio, a single HTTP instance). Behind',
    ...(flavour === 'package'
      ? [' * several instances, give useRequestStateReplays a shared store with the same claim.']
      : [
        ' * several instances use a shared store with the same claim, e.g. Redis, where only the first SET of a key succeeds:',
        " *   claim: async (nonce, ttlMs) => (await redis.set(`mcp-request-state:${nonce}`, '1', { NX: true, PX: ttlMs })) === 'OK'",
      ]),
    ' */',
    `${flavour === 'package' ? 'let' : 'const'} ${names.replays}: { claim(nonce: string, ttlMs: number): boolean | Promise<boolean> } = {`,
    `${unit}claim(nonce, ttlMs) {`,
    `${u2}const now = Date.now();`,
    `${u2}// One TTL for all, so insertion order is expiry order: drop the expired ones (and the oldest past 100 000).`,
    `${u2}for (const [old, expires] of ${names.nonces}) {`,
    `${u2}${unit}if (expires > now && ${names.nonces}.size < 100_000) break;`,
    `${u2}${unit}${names.nonces}.delete(old);`,
    `${u2}}`,
    `${u2}if (${names.nonces}.has(nonce)) return false;`,
    `${u2}${names.nonces}.set(nonce, now + ttlMs);`,
    `${u2}return true;`,
    `${unit}},`,
    '};',
    ...(flavour === 'package' ? replaysSetterLines(names, unit) : []),
    '',
    ...keyLoaderLines(names, unit),
    ...sealerLines(names, unit),
    '',
    '/** Digest of the tool / prompt / resource name and the arguments a requestState was minted for, keys sorted at every level. */',
    `${exp}async function ${names.callDigest}(name: string, args: unknown): Promise<string> {`,
    `${unit}const json = JSON.stringify([name, args], (_key, value: unknown) =>`,
    `${u2}value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : value);`,
    `${unit}const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(json)));`,
    `${unit}return btoa(String.fromCharCode(...digest));`,
    '}',
    '',
    '/** State minted for another call (another tool, other arguments) must not resume this one. */',
    `${exp}function ${names.assertState}(state: { call: string } | undefined, call: string): void {`,
    `${unit}if (state !== undefined && state.call !== call) {`,
    `${u2}throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState');`,
    `${unit}}`,
    '}',
  ];
  if (input.usesCheckedResponse || input.usesElicitAnswerOf) block.push(...checkedResponseLines(names, unit, exp));
  if (input.usesElicitAnswerOf) block.push(...elicitAnswerOfLines(names, unit, exp));
  if (input.usesElicitResultOf) block.push(...elicitResultOfLines(names, unit, exp));
  if (keeps) block.push(...keepHookLines(names, unit, exp));
  return block;
}

/**
 * The key loader: MCP_REQUEST_STATE_KEYS (newest first, to rotate: states are minted with the first and
 * opened with any) or MCP_REQUEST_STATE_KEY, each refused when its bytes are easy to guess; a random key
 * of the process without either.
 */
function keyLoaderLines(names: Pick<CodecNames, 'keyLoader'>, unit: string): string[] {
  const [u2, u3] = [unit.repeat(2), unit.repeat(3)];
  return [
    `function ${names.keyLoader}(): Array<string | Uint8Array> {`,
    `${unit}// Read through globalThis so the module also type-checks without Node's types.`,
    `${unit}const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};`,
    `${unit}// MCP_REQUEST_STATE_KEYS, newest first, to rotate: states are minted with the first and opened with any.`,
    `${unit}const [name, keys]: [string, string[]] = env['MCP_REQUEST_STATE_KEYS']`,
    `${u2}? ['MCP_REQUEST_STATE_KEYS', env['MCP_REQUEST_STATE_KEYS'].split(',').map(key => key.trim()).filter(key => key !== '')]`,
    `${u2}: ['MCP_REQUEST_STATE_KEY', env['MCP_REQUEST_STATE_KEY'] ? [env['MCP_REQUEST_STATE_KEY']] : []];`,
    `${unit}if (keys.length === 0 && name === 'MCP_REQUEST_STATE_KEYS') {`,
    `${u2}throw new Error('MCP_REQUEST_STATE_KEYS holds no key: list them newest first, separated by commas. Make one with: openssl rand -base64 32');`,
    `${unit}}`,
    `${unit}if (keys.length === 0) {`,
    `${u2}console.error('MCP_REQUEST_STATE_KEY is not set: requestState is sealed with a random key of this process, so a retry that reaches another server instance fails.');`,
    `${u2}return [crypto.getRandomValues(new Uint8Array(32))];`,
    `${unit}}`,
    `${unit}for (const key of keys) {`,
    `${u2}// Judged by its bytes (a hex key by the bytes it spells): long enough, varied, not a short pattern repeated.`,
    `${u2}const bytes = /^(?:[0-9a-fA-F]{2}){32,}$/.test(key) ? Uint8Array.from(key.match(/../g)!, pair => parseInt(pair, 16)) : new TextEncoder().encode(key);`,
    `${u2}const repeats = (period: number): boolean => bytes.every((byte, i) => byte === bytes[i % period]);`,
    `${u2}const weakness = bytes.length < 32 ? 'shorter than 32 bytes'`,
    `${u3}: new Set(bytes).size < 16 ? 'fewer than 16 distinct bytes'`,
    `${u3}: Array.from({ length: bytes.length >> 1 }, (_, i) => i + 1).some(repeats) ? 'a short pattern repeated'`,
    `${u3}: undefined;`,
    `${u2}if (weakness !== undefined) {`,
    `${u3}throw new Error(\`\${name} holds a key too easy to guess (\${weakness}); it seals the requestState of multi round-trip requests. Make one with: openssl rand -base64 32\`);`,
    `${u2}}`,
    `${unit}}`,
    `${unit}return keys;`,
    '}',
  ];
}

/**
 * The codec under the nonce and replay record: AES-256-GCM through Web Crypto (Node 20+, Workers, Deno),
 * a key derived with HKDF, the binding as additional data, the expiry inside; decrypted (so verified)
 * before anything is parsed, and only from the exact string it minted.
 */
function sealerLines(names: Pick<CodecNames, 'sealer'>, unit: string): string[] {
  const [u2, u3] = [unit.repeat(2), unit.repeat(3)];
  return [
    '',
    '/**',
    ' * A requestState codec that seals each state with AES-256-GCM (Web Crypto): the client can neither read nor',
    ' * change it. It mints with the first key and opens with any, each derived from its secret with HKDF-SHA-256;',
    ' * the binding is authenticated with the state, so a state opened for another method or caller fails; the expiry',
    ' * travels sealed. Only the exact string minted opens: any other encoding of the same bytes fails.',
    ' */',
    `function ${names.sealer}<T>(options: { keys: Array<string | Uint8Array>; ttlSeconds: number; bind: (ctx: ServerContext) => string }): {`,
    `${unit}mint(payload: T, ctx: ServerContext): Promise<string>;`,
    `${unit}verify(requestState: string, ctx: ServerContext): Promise<T>;`,
    '} {',
    `${unit}const utf8 = new TextEncoder();`,
    `${unit}const keys = options.keys.map(secret => crypto.subtle.importKey('raw', typeof secret === 'string' ? utf8.encode(secret) : Uint8Array.from(secret), 'HKDF', false, ['deriveKey'])`,
    `${u2}.then(base => crypto.subtle.deriveKey(`,
    `${u3}{ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info: utf8.encode('mrtr-migrate requestState AES-256-GCM') },`,
    `${u3}base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'])));`,
    `${unit}const base64url = (bytes: Uint8Array): string => {`,
    `${u2}let binary = '';`,
    `${u2}for (const byte of bytes) binary += String.fromCharCode(byte);`,
    `${u2}return btoa(binary).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');`,
    `${unit}};`,
    `${unit}return {`,
    `${u2}async mint(payload, ctx) {`,
    `${u3}const iv = crypto.getRandomValues(new Uint8Array(12));`,
    `${u3}const plain = utf8.encode(JSON.stringify({ payload, exp: Math.floor(Date.now() / 1000) + options.ttlSeconds }));`,
    `${u3}const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: utf8.encode(options.bind(ctx)) }, await keys[0]!, plain);`,
    `${u3}return base64url(new Uint8Array([...iv, ...new Uint8Array(sealed)]));`,
    `${u2}},`,
    `${u2}async verify(requestState, ctx) {`,
    `${u3}// The sealed bytes in canonical base64url, nothing else: no padding, no other alphabet, no spare bits.`,
    `${u3}if (!/^[\\w-]{38,}$/.test(requestState)) throw new Error('requestState is malformed');`,
    `${u3}const bytes = Uint8Array.from(atob(requestState.replace(/-/g, '+').replace(/_/g, '/')), c => c.charCodeAt(0));`,
    `${u3}if (base64url(bytes) !== requestState) throw new Error('requestState is malformed');`,
    `${u3}const sealing = { name: 'AES-GCM', iv: bytes.subarray(0, 12), additionalData: utf8.encode(options.bind(ctx)) };`,
    `${u3}let plain: ArrayBuffer | undefined;`,
    `${u3}for (const key of keys) if (!plain) plain = await crypto.subtle.decrypt(sealing, await key, bytes.subarray(12)).catch(() => undefined);`,
    `${u3}if (plain === undefined) throw new Error('requestState does not open with any key');`,
    `${u3}const { payload, exp } = JSON.parse(new TextDecoder().decode(plain)) as { payload: T; exp: number };`,
    `${u3}if (!(exp >= Math.floor(Date.now() / 1000))) throw new Error('requestState has expired');`,
    `${u3}return payload;`,
    `${u2}},`,
    `${unit}};`,
    '}',
  ];
}

/** The runtime's way to share the record of used states between instances (the module is edited instead). */
function replaysSetterLines(names: Pick<CodecNames, 'replays'>, unit: string): string[] {
  return [
    '',
    '/**',
    ' * Behind several server instances, call this once at startup with a store they share, where only the first',
    ' * claim of a nonce succeeds, e.g. Redis:',
    " *   useRequestStateReplays({ claim: async (nonce, ttlMs) => (await redis.set(`mcp-request-state:${nonce}`, '1', { NX: true, PX: ttlMs })) === 'OK' })",
    ' */',
    'export function useRequestStateReplays(record: { claim(nonce: string, ttlMs: number): boolean | Promise<boolean> }): void {',
    `${unit}${names.replays} = record;`,
    '}',
  ];
}

/**
 * Beside requestState the server keeps of its own (a verify hook, or handlers that read it unverified):
 * one hook for both, and the reader that hands the rewritten handlers only the states their codec minted,
 * so neither side can be given the other's state.
 */
function keepHookLines(names: CodecNames & Pick<ModuleNames, 'codec'>, unit: string, exp = ''): string[] {
  const u2 = unit + unit;
  return [
    '',
    `/** Marks the states ${names.codec} minted once they are verified: no other handler of the server takes them for its own. */`,
    `const ${names.migratedKey} = Symbol('mrtr-migrate requestState');`,
    '',
    '/**',
    ` * The server's requestState hook, beside the one it had: a state ${names.codec} minted is verified by it and`,
    ` * reaches only the rewritten handlers (${names.migratedState}); any other state goes to the server's own hook, as before.`,
    ' */',
    `${exp}function ${names.keepHook}(own: (requestState: string, ctx: ServerContext) => unknown): (requestState: string, ctx: ServerContext) => Promise<unknown> {`,
    `${unit}return async (requestState, ctx) => {`,
    `${u2}let state: ${names.stateUnion};`,
    `${u2}try {`,
    `${u2}${unit}state = await ${names.codec}.verify(requestState, ctx);`,
    `${u2}} catch {`,
    `${u2}${unit}return own(requestState, ctx);`,
    `${u2}}`,
    `${u2}return { [${names.migratedKey}]: state };`,
    `${unit}};`,
    '}',
    '',
    `/** This call's state, if ${names.codec} minted it: a state of the server's own handlers does not resume a rewritten one. */`,
    `${exp}function ${names.migratedState}<T extends ${names.stateUnion}>(ctx: ServerContext): T | undefined {`,
    `${unit}const value = ctx.mcpReq.requestState<unknown>();`,
    `${unit}if (value === undefined) return undefined;`,
    `${unit}if (typeof value === 'object' && value !== null && ${names.migratedKey} in value) return (value as { [${names.migratedKey}]: T })[${names.migratedKey}];`,
    `${unit}throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState');`,
    '}',
  ];
}

/**
 * The answer check every read goes through: the answer a valid result of the question's method, as the
 * SDK checked the result of the request the question was (the same error and message when it is not).
 */
function checkedResponseLines(names: Pick<ModuleNames, 'checkedResponse'>, unit: string, exp: string): string[] {
  const u2 = unit + unit;
  return [
    '',
    '/**',
    ' * This round\'s answer to a question, as inputResponse() reads it, once it is a valid result of the question\'s',
    ' * method, as the SDK checked the result of the request the question was: an answer that is not fails the call',
    ' * with the error that request failed with. A question without an answer is asked again.',
    ' */',
    `${exp}function ${names.checkedResponse}(responses: Record<string, unknown> | undefined, key: string, question: InputRequest): InputResponseView {`,
    `${unit}const answer = responses?.[key];`,
    `${unit}if (answer === undefined) return { kind: 'missing' };`,
    `${unit}// Typed as far as used here: the SDK's type of all its schemas costs the type checker a second.`,
    `${unit}const schemas = specTypeSchemas as unknown as {`,
    `${u2}[name in 'ElicitResult' | 'ListRootsResult' | 'CreateMessageResult' | 'CreateMessageResultWithTools']: { '~standard': { validate(value: unknown): { issues?: readonly unknown[] } } };`,
    `${unit}};`,
    `${unit}const result = question.method === 'elicitation/create' ? schemas.ElicitResult`,
    `${u2}: question.method === 'roots/list' ? schemas.ListRootsResult`,
    `${u2}: schemas.CreateMessageResultWithTools;`,
    `${unit}let issues = result['~standard'].validate(answer).issues;`,
    `${unit}if (issues !== undefined) throw new SdkError(SdkErrorCode.InvalidResult, \`Invalid result for \${question.method}: \${JSON.stringify(issues, null, 2)}\`);`,
    `${unit}// createMessage() took tool use and tool results only for a question that offered tools.`,
    `${unit}if (question.method === 'sampling/createMessage' && question.params.tools === undefined && question.params.toolChoice === undefined) {`,
    `${u2}issues = schemas.CreateMessageResult['~standard'].validate(answer).issues;`,
    `${u2}if (issues !== undefined) throw new SdkError(SdkErrorCode.InvalidResult, \`Invalid sampling/createMessage result: \${JSON.stringify(issues, null, 2)}\`);`,
    `${unit}}`,
    `${unit}return inputResponse(responses, key);`,
    '}',
  ];
}

/** The elicitation answer check: accepted content validated against the schema the question asked with. */
function elicitAnswerOfLines(names: Pick<ModuleNames, 'elicitAnswerOf' | 'checkedResponse'>, unit: string, exp: string): string[] {
  const u2 = unit + unit;
  return [
    '',
    '/**',
    ` * This round's answer to an elicitation, as ${names.checkedResponse}() reads it. Accepted content is checked against`,
    ' * the schema the question asked with, as elicitInput() checked it: content that does not match fails the call.',
    ' */',
    `${exp}function ${names.elicitAnswerOf}(responses: Record<string, unknown> | undefined, key: string, question: InputRequest): InputResponseView {`,
    `${unit}const answer = ${names.checkedResponse}(responses, key, question);`,
    `${unit}if (answer.kind !== 'elicit' || answer.action !== 'accept' || answer.content === undefined) return answer;`,
    `${unit}if (question.method !== 'elicitation/create' || !('requestedSchema' in question.params)) return answer;`,
    `${unit}let outcome;`,
    `${unit}try {`,
    `${u2}outcome = fromJsonSchema(question.params.requestedSchema)['~standard'].validate(answer.content);`,
    `${unit}} catch (error) {`,
    `${u2}throw new ProtocolError(ProtocolErrorCode.InternalError, \`Error validating elicitation response: \${error instanceof Error ? error.message : String(error)}\`);`,
    `${unit}}`,
    `${unit}if (!(outcome instanceof Promise) && outcome.issues !== undefined) {`,
    `${u2}throw new ProtocolError(ProtocolErrorCode.InvalidParams, \`Elicitation response content does not match requested schema: \${outcome.issues[0]?.message}\`);`,
    `${unit}}`,
    `${unit}return answer;`,
    '}',
  ];
}

/** An elicitation answer as the result elicitInput() resolved with. */
function elicitResultOfLines(names: Pick<ModuleNames, 'elicitResultOf'>, unit: string, exp: string): string[] {
  const u2 = unit + unit;
  return [
    '',
    '/** An elicitation answer from this round\'s inputResponses, shaped like the result elicitInput() resolved with. */',
    `${exp}function ${names.elicitResultOf}(answer: Extract<InputResponseView, { kind: 'elicit' }>): ElicitResult {`,
    `${unit}return answer.content === undefined`,
    `${u2}? { action: answer.action }`,
    `${u2}: { action: answer.action, content: answer.content as ElicitResult['content'] };`,
    '}',
  ];
}

/**
 * Where the support code goes: after the imports, and where requires or `await import(...)` bind the
 * SDK, after the leading run of them and after the one that binds the SDK. Not after a later one: a
 * server built before it would read the codec before its declaration ran.
 */
function supportOffset(ts: TS, sourceFile: ts.SourceFile): number {
  const binds = (s: ts.Statement): boolean =>
    ts.isVariableStatement(s) && s.declarationList.declarations.some(d => d.initializer !== undefined && requiredModule(ts, d.initializer) !== undefined);
  let at = 0;
  let leading = true;
  for (const statement of sourceFile.statements) {
    const directive = ts.isExpressionStatement(statement) && ts.isStringLiteral(statement.expression);
    if (ts.isImportDeclaration(statement) || (leading && binds(statement))) at = statement.getEnd();
    else if (!directive) leading = false;
  }
  const sdk = serverRequire(ts, sourceFile);
  const binding = sdk && sourceFile.statements.find(s => s.pos <= sdk.pos && sdk.end <= s.end);
  return binding ? Math.max(at, binding.getEnd()) : at;
}

/**
 * Where the generated declarations go: after the comments that follow the imports and stand apart from
 * the next statement (a blank line between: the file's own description, a license), so they stay
 * where the author put them; before a comment that documents the next statement.
 */
function afterHeader(ts: TS, sourceFile: ts.SourceFile, at: number): number {
  const text = sourceFile.text;
  const next = sourceFile.statements.find(s => s.getStart(sourceFile) >= at);
  if (!next) return at;
  const comments = ts.getLeadingCommentRanges(text, at) ?? [];
  let end = at;
  for (const [i, comment] of comments.entries()) {
    const following = comments[i + 1]?.pos ?? next.getStart(sourceFile);
    if (comment.end > following) break;
    if (/\r?\n[ \t]*\r?\n/.test(text.slice(comment.end, following))) end = comment.end;
  }
  return end;
}

/** Adds the SDK names to an existing `@modelcontextprotocol/server` import, or adds one. */
function importEdits(input: ModuleSupportInput, values: Set<string>, types: Set<string>, insertAt: number): Edit[] {
  const { ts, sourceFile } = input;
  const drop = input.unusedImports ?? new Set<string>();
  const isServerImport = (s: ts.Statement): s is ts.ImportDeclaration =>
    ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text === '@modelcontextprotocol/server';
  const existing = sourceFile.statements.find((s): s is ts.ImportDeclaration =>
    isServerImport(s) && !s.importClause?.isTypeOnly && !!s.importClause?.namedBindings && ts.isNamedImports(s.importClause.namedBindings));
  const required = existing || sourceFile.statements.some(isServerImport) ? undefined : serverRequire(ts, sourceFile);
  if (required) return [...requireEdits(sourceFile, required, values), ...typeImportEdits(input, types)];
  // A name the file already imports from the SDK (any of its packages: core, client, the v1 sdk) under
  // its own name is used as it is; importing it again would be a duplicate identifier.
  const imported = new Set<string>();
  for (const s of sourceFile.statements) {
    const fromSdk = ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text.startsWith('@modelcontextprotocol/');
    const bindings = fromSdk ? s.importClause?.namedBindings : undefined;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const e of bindings.elements) if (isServerImport(s) || !e.propertyName || e.propertyName.text === e.name.text) imported.add(e.name.text);
  }
  const missing = [
    ...[...values].filter(v => !imported.has(v)).sort(),
    ...[...types].filter(t => !imported.has(t) && !values.has(t)).sort().map(t => `type ${t}`),
  ];
  const edits: Edit[] = [];
  const quote = quoteStyle(ts, sourceFile);
  const line = `import { ${missing.join(', ')} } from ${quote}@modelcontextprotocol/server${quote};`;
  // An import left empty where a new one is needed becomes the new one (a split helper's file).
  let replaced = false;
  const dropped = (named: ts.NamedImports) => named.elements.filter(e => drop.has(e.name.text) && !e.isTypeOnly);
  // An unused name is removed from its import; the import with the new names is rewritten whole.
  for (const s of sourceFile.statements) {
    if (!isServerImport(s) || s === existing) continue;
    const named = s.importClause?.namedBindings;
    if (!named || !ts.isNamedImports(named) || dropped(named).length === 0) continue;
    const kept = named.elements.filter(e => !dropped(named).includes(e));
    if (kept.length === 0 && !s.importClause!.name && !existing && !replaced && missing.length > 0) {
      edits.push({ start: s.getStart(sourceFile), end: s.getEnd(), text: line });
      replaced = true;
    } else if (kept.length === 0 && !s.importClause!.name) {
      // The line goes with its leading newline, so an insertion at the end of this import stays clear.
      const index = sourceFile.statements.indexOf(s);
      const previous = index > 0 ? sourceFile.statements[index - 1]! : undefined;
      if (previous) edits.push({ start: previous.getEnd(), end: s.getEnd(), text: '' });
      else edits.push({ start: s.getStart(sourceFile), end: input.text.startsWith(input.newline, s.getEnd()) ? s.getEnd() + input.newline.length : s.getEnd(), text: '' });
    } else {
      edits.push({ start: named.getStart(sourceFile), end: named.getEnd(), text: `{ ${kept.map(e => e.getText(sourceFile)).join(', ')} }` });
    }
  }
  if (existing) {
    const named = existing.importClause!.namedBindings as ts.NamedImports;
    const gone = dropped(named);
    if (gone.length > 0) {
      const kept = named.elements.filter(e => !gone.includes(e)).map(e => e.getText(sourceFile));
      edits.push({ start: named.getStart(sourceFile), end: named.getEnd(), text: `{ ${[...kept, ...missing].join(', ')} }` });
      return edits;
    }
  }
  if (missing.length === 0 || replaced) return edits;
  if (existing) {
    const named = existing.importClause!.namedBindings as ts.NamedImports;
    const last = named.elements[named.elements.length - 1];
    if (!last) return [...edits, { start: named.getStart(sourceFile), end: named.getEnd(), text: `{ ${missing.join(', ')} }` }];
    return [...edits, { start: last.getEnd(), end: last.getEnd(), text: `, ${missing.join(', ')}` }];
  }
  // `import type { McpServer } from '...'` takes the names too, rather than a second import of the SDK.
  const typeOnly = sourceFile.statements.find((s): s is ts.ImportDeclaration => isServerImport(s) && s.importClause?.isTypeOnly === true &&
    !s.importClause.name && !!s.importClause.namedBindings && ts.isNamedImports(s.importClause.namedBindings) && !edits.some(e => e.start < s.getEnd() && e.end > s.getStart(sourceFile)));
  if (typeOnly) {
    const named = (typeOnly.importClause!.namedBindings as ts.NamedImports).elements.map(e => `type ${e.getText(sourceFile)}`);
    const specifier = typeOnly.moduleSpecifier.getText(sourceFile);
    const semicolon = typeOnly.getText(sourceFile).endsWith(';') ? ';' : '';
    return [...edits, { start: typeOnly.getStart(sourceFile), end: typeOnly.getEnd(), text: `import { ${[...named, ...missing].join(', ')} } from ${specifier}${semicolon}` }];
  }
  return [...edits, { start: insertAt, end: insertAt, text: insertAt === 0 ? line + input.newline : input.newline + line }];
}

/**
 * A server construction in a file without handlers of its own: wired with the shared module's codec,
 * imported after the file's last import.
 */
export function sharedWiringEdits(ts: TS, sourceFile: ts.SourceFile, constructions: ts.NewExpression[], specifier: string, keeps = false): Edit[] {
  const text = sourceFile.text;
  const newline = newlineOf(text);
  const input = { ts, sourceFile, text, newline, names: SHARED_NAMES };
  const imports = sourceFile.statements.filter(ts.isImportDeclaration);
  const last = imports[imports.length - 1];
  const quote = quoteStyle(ts, sourceFile);
  // Beside requestState a server of the module keeps of its own, every server is wired through the hook that keeps it.
  const wired = keeps ? 'keepHook' : 'codec';
  const line = `import { ${SHARED_NAMES[wired]} } from ${quote}${specifier}${quote};`;
  const at = last ? last.getEnd() : 0;
  const wiring = constructions.flatMap(c => wiringEdits(input, c, keeps ? keptOf(ts, c) : undefined));
  // Wired by an earlier run: the name is imported already.
  if (importedSharedNames(ts, sourceFile, specifier)[wired] === SHARED_NAMES[wired]) return wiring;
  return [{ start: at, end: at, text: last ? newline + line : line + newline }, ...wiring];
}

/** The requestState a server keeps of its own: its verify hook, or none (handlers that read their state unverified). */
function keptOf(ts: TS, construction: ts.NewExpression): KeptStateHook {
  const option = requestStateOption(ts, construction);
  return { construction, hook: option && ownVerifyHook(ts, option) };
}

/**
 * An ES module that binds the SDK with `const { ... } = await import('@modelcontextprotocol/server')`:
 * the types cannot be destructured, so they come with an `import type` (erased: the module still
 * loads the SDK where it did). A CommonJS module has none to add: its types are JSDoc, or (a
 * TypeScript script) the type check rolls the rewrite back.
 */
function typeImportEdits(input: ModuleSupportInput, types: Set<string>): Edit[] {
  const { ts, sourceFile } = input;
  if (types.size === 0 || !isEsModule(ts, sourceFile) || isJavaScriptFile(sourceFile.fileName)) return [];
  const quote = quoteStyle(ts, sourceFile);
  const line = `import type { ${[...types].sort().join(', ')} } from ${quote}@modelcontextprotocol/server${quote};`;
  const imports = sourceFile.statements.filter(ts.isImportDeclaration);
  const last = imports[imports.length - 1];
  if (last) return [{ start: last.getEnd(), end: last.getEnd(), text: input.newline + line }];
  const first = sourceFile.statements[0]!;
  return [{ start: first.getStart(sourceFile), end: first.getStart(sourceFile), text: line + input.newline }];
}

/**
 * A CommonJS module: the values go into its `const { ... } = require('@modelcontextprotocol/server')`.
 * Types are not imported; in a JavaScript file they appear only in JSDoc, as `import('...').Name`.
 */
function requireEdits(sourceFile: ts.SourceFile, pattern: ts.ObjectBindingPattern, values: Set<string>): Edit[] {
  const present = new Set(pattern.elements.map(e => e.name.getText(sourceFile)));
  const missing = [...values].filter(v => !present.has(v)).sort();
  if (missing.length === 0) return [];
  const last = pattern.elements[pattern.elements.length - 1];
  if (!last) return [{ start: pattern.getStart(sourceFile), end: pattern.getEnd(), text: `{ ${missing.join(', ')} }` }];
  return [{ start: last.getEnd(), end: last.getEnd(), text: `, ${missing.join(', ')}` }];
}

/** `new McpServer(info)` → `new McpServer(info, { requestState: { verify: codec.verify } })`, merging options. */
function wiringEdits(input: Pick<ModuleSupportInput, 'ts' | 'sourceFile' | 'text' | 'newline' | 'names'>, construction: ts.NewExpression, kept?: KeptStateHook): Edit[] {
  const { ts, sourceFile, text } = input;
  // The server's own hook is kept, evaluated where it was; handlers that read their state unverified get it as it came.
  const hook = kept?.hook;
  if (hook) {
    // Wired by an earlier run.
    const wired = hook.getText(sourceFile);
    if (wired.startsWith(`${input.names.keepHook}(`) || wired === `${input.names.codec}.verify`) return [];
    if (ts.isIdentifier(hook) && ts.isShorthandPropertyAssignment(hook.parent)) return [{ start: hook.getStart(sourceFile), end: hook.getEnd(), text: `verify: ${input.names.keepHook}(${hook.text})` }];
    if (ts.isMethodDeclaration(hook)) {
      // `async verify(s, ctx) { ... }` → `verify: keepRequestStateHook(async function verify(s, ctx) { ... })`.
      const modifiers = (hook.modifiers ?? []).map(m => m.getText(sourceFile)).join(' ');
      const fn = `${modifiers ? `${modifiers} ` : ''}function ${text.slice(hook.name.getStart(sourceFile), hook.getEnd())}`;
      return [{ start: hook.getStart(sourceFile), end: hook.getEnd(), text: `verify: ${input.names.keepHook}(${fn})` }];
    }
    return [{ start: hook.getStart(sourceFile), end: hook.getEnd(), text: `${input.names.keepHook}(${hook.getText(sourceFile)})` }];
  }
  const option = kept ? `requestState: { verify: ${input.names.keepHook}((requestState: string) => requestState) }` : `requestState: { verify: ${input.names.codec}.verify }`;
  const args = construction.arguments ?? ts.factory.createNodeArray();
  const info = args[0];
  if (!info) return [];
  const options = args[1];
  if (!options) return [{ start: info.getEnd(), end: info.getEnd(), text: `, { ${option} }` }];
  const literal = skipOuter(ts, options);
  if (!ts.isObjectLiteralExpression(literal)) {
    return [{ start: options.getStart(sourceFile), end: options.getEnd(), text: `{ ...${options.getText(sourceFile)}, ${option} }` }];
  }
  const existing = literal.properties.find(p => p.name?.getText(sourceFile).replace(/['"]/g, '') === 'requestState');
  if (existing) {
    if (existing.getText(sourceFile).includes(`${input.names.codec}.verify`) || existing.getText(sourceFile).includes(`${input.names.keepHook}(`)) return [];
    throw new Error(`the server at line ${sourceFile.getLineAndCharacterOfPosition(construction.getStart(sourceFile)).line + 1} already has a requestState option`);
  }
  const last = literal.properties[literal.properties.length - 1];
  if (!last) return [{ start: literal.getStart(sourceFile), end: literal.getEnd(), text: `{ ${option} }` }];
  const multiline = text.slice(literal.getStart(sourceFile), literal.getEnd()).includes('\n');
  if (!multiline) return [{ start: last.getEnd(), end: last.getEnd(), text: `, ${option}` }];
  const indent = indentAt(text, last.getStart(sourceFile));
  const afterLast = text.slice(last.getEnd()).match(/^\s*,/);
  const at = afterLast ? last.getEnd() + afterLast[0].length : last.getEnd();
  return [{ start: at, end: at, text: `${afterLast ? '' : ','}${input.newline}${indent}${option},` }];
}
