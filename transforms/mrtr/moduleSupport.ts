import type * as ts from 'typescript';
import type { TS } from '../../src/analysis/types.js';
import { skipOuter } from '../../src/analysis/sdk.js';
import type { ModuleNames } from './rewriteHandler.js';
import { indentAt, type Edit } from './text.js';

/**
 * What a file with rewritten handlers needs once: the phase types, one requestState codec wired
 * into every server construction, a few small helpers, and the SDK imports. Written as ordinary
 * code into the user's module: no runtime dependency on mrtr-migrate.
 */

export interface ModuleSupportInput {
  ts: TS;
  sourceFile: ts.SourceFile;
  text: string;
  newline: string;
  unit: string;
  names: ModuleNames & { stateUnion: string; keyLoader: string };
  /** Whether handlers were rewritten to multi round-trip (the codec and its helpers); false when only guards were. */
  withCodec: boolean;
  usesCapabilitiesOf: boolean;
  stateTypes: string[];
  stateTypeNames: string[];
  usesElicitResultOf: boolean;
  sdkValues: Set<string>;
  sdkTypes: Set<string>;
  constructions: ts.NewExpression[];
  /** SDK imports the rewrite left unused (`UrlElicitationRequiredError` once its throws are gone). */
  unusedImports?: Set<string>;
}

export function moduleSupportEdits(input: ModuleSupportInput): Edit[] {
  const { ts, sourceFile, newline: nl, unit, names } = input;
  const edits: Edit[] = [];
  const imports = sourceFile.statements.filter(ts.isImportDeclaration);
  const lastImport = imports[imports.length - 1];
  const insertAt = lastImport ? lastImport.getEnd() : 0;

  const values = new Set(input.sdkValues);
  if (input.withCodec) values.add('createRequestStateCodec').add('ProtocolError').add('ProtocolErrorCode');
  const types = new Set(input.sdkTypes);
  if (input.usesElicitResultOf) types.add('InputResponseView').add('ElicitResult');
  if (input.usesCapabilitiesOf) {
    values.add('CLIENT_CAPABILITIES_META_KEY');
    types.add('ClientCapabilities');
  }
  edits.push(...importEdits(input, values, types, insertAt));

  const block = input.withCodec ? codecBlock(input) : [];
  if (input.usesCapabilitiesOf) block.push(...capabilitiesBlock(input));
  edits.push({ start: insertAt, end: insertAt, text: (insertAt === 0 ? '' : nl) + block.join(nl) + (insertAt === 0 ? nl : '') });

  for (const construction of input.constructions) edits.push(...wiringEdits(input, construction));
  return edits;
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

function codecBlock(input: ModuleSupportInput): string[] {
  const { newline: nl, unit, names } = input;
  const block = [
    '',
    '// requestState of the multi round-trip handlers below (SEP-2322), added by mrtr-migrate. It is signed, not',
    '// encrypted: the client can read it, so it must carry no secrets. Every server instance that may receive',
    '// a retry needs the same MCP_REQUEST_STATE_KEY (at least 32 bytes); without it this process signs with a',
    '// random key, which only works while one process serves every round of a call (stdio).',
    ...input.stateTypes.flatMap(t => [...t.split(nl), '']),
    `type ${names.stateUnion} = ${input.stateTypeNames.join(' | ')};`,
    '',
    `const ${names.codec} = createRequestStateCodec<${names.stateUnion}>({`,
    `${unit}key: ${names.keyLoader}(),`,
    `${unit}ttlSeconds: 600,`,
    `${unit}// Bound to the method, the caller and (over HTTP) the Mcp-Name header; each handler also checks its`,
    `${unit}// tool / prompt / resource name and arguments.`,
    `${unit}bind: ctx => [ctx.mcpReq.method, ctx.http?.authInfo?.clientId ?? '', ctx.http?.req?.headers.get('mcp-name') ?? ''].join('\\u0000'),`,
    '});',
    '',
    `function ${names.keyLoader}(): string | Uint8Array {`,
    `${unit}// Read through globalThis so the module also type-checks without Node's types.`,
    `${unit}const key = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.['MCP_REQUEST_STATE_KEY'];`,
    `${unit}if (key === undefined || key === '') return crypto.getRandomValues(new Uint8Array(32));`,
    `${unit}if (new TextEncoder().encode(key).length < 32) {`,
    `${unit}${unit}throw new Error('MCP_REQUEST_STATE_KEY must be at least 32 bytes: it signs the requestState of multi round-trip requests.');`,
    `${unit}}`,
    `${unit}return key;`,
    '}',
    '',
    '/** Digest of the tool / prompt / resource name and the arguments a requestState was minted for. */',
    `async function ${names.callDigest}(name: string, args: unknown): Promise<string> {`,
    `${unit}const bytes = new TextEncoder().encode(JSON.stringify([name, args]));`,
    `${unit}const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));`,
    `${unit}return btoa(String.fromCharCode(...digest));`,
    '}',
    '',
    '/** State minted for another call (another tool, other arguments) must not resume this one. */',
    `function ${names.assertState}(state: { call: string } | undefined, call: string): void {`,
    `${unit}if (state !== undefined && state.call !== call) {`,
    `${unit}${unit}throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState');`,
    `${unit}}`,
    '}',
  ];
  if (input.usesElicitResultOf) {
    block.push(
      '',
      '/** An elicitation answer from this round\'s inputResponses, shaped like the result elicitInput() resolved with. */',
      `function ${names.elicitResultOf}(answer: Extract<InputResponseView, { kind: 'elicit' }>): ElicitResult {`,
      `${unit}return answer.content === undefined`,
      `${unit}${unit}? { action: answer.action }`,
      `${unit}${unit}: { action: answer.action, content: answer.content as ElicitResult['content'] };`,
      '}',
    );
  }
  return block;
}

/** Adds the SDK names to an existing `@modelcontextprotocol/server` import, or adds one. */
function importEdits(input: ModuleSupportInput, values: Set<string>, types: Set<string>, insertAt: number): Edit[] {
  const { ts, sourceFile } = input;
  const drop = input.unusedImports ?? new Set<string>();
  const isServerImport = (s: ts.Statement): s is ts.ImportDeclaration =>
    ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text === '@modelcontextprotocol/server';
  const existing = sourceFile.statements.find((s): s is ts.ImportDeclaration =>
    isServerImport(s) && !s.importClause?.isTypeOnly && !!s.importClause?.namedBindings && ts.isNamedImports(s.importClause.namedBindings));
  const imported = new Set<string>();
  for (const s of sourceFile.statements) {
    if (!isServerImport(s)) continue;
    const bindings = s.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) imported.add(e.name.text);
  }
  const missing = [
    ...[...values].filter(v => !imported.has(v)).sort(),
    ...[...types].filter(t => !imported.has(t) && !values.has(t)).sort().map(t => `type ${t}`),
  ];
  const edits: Edit[] = [];
  const dropped = (named: ts.NamedImports) => named.elements.filter(e => drop.has(e.name.text) && !e.isTypeOnly);
  // An unused name is removed from its import; the import with the new names is rewritten whole.
  for (const s of sourceFile.statements) {
    if (!isServerImport(s) || s === existing) continue;
    const named = s.importClause?.namedBindings;
    if (!named || !ts.isNamedImports(named) || dropped(named).length === 0) continue;
    const kept = named.elements.filter(e => !dropped(named).includes(e));
    if (kept.length === 0 && !s.importClause!.name) {
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
  if (missing.length === 0) return edits;
  if (existing) {
    const named = existing.importClause!.namedBindings as ts.NamedImports;
    const last = named.elements[named.elements.length - 1];
    if (!last) return [...edits, { start: named.getStart(sourceFile), end: named.getEnd(), text: `{ ${missing.join(', ')} }` }];
    return [...edits, { start: last.getEnd(), end: last.getEnd(), text: `, ${missing.join(', ')}` }];
  }
  const quote = sourceFile.statements.find(ts.isImportDeclaration)?.moduleSpecifier.getText(sourceFile).startsWith('"') ? '"' : "'";
  const line = `import { ${missing.join(', ')} } from ${quote}@modelcontextprotocol/server${quote};`;
  return [...edits, { start: insertAt, end: insertAt, text: insertAt === 0 ? line + input.newline : input.newline + line }];
}

/** `new McpServer(info)` → `new McpServer(info, { requestState: { verify: codec.verify } })`, merging options. */
function wiringEdits(input: ModuleSupportInput, construction: ts.NewExpression): Edit[] {
  const { ts, sourceFile, text } = input;
  const option = `requestState: { verify: ${input.names.codec}.verify }`;
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
    if (existing.getText(sourceFile).includes(`${input.names.codec}.verify`)) return [];
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
