import path from 'node:path';
import type { ts as TsNamespace } from 'ts-morph';
import type { Diagnostic } from '../src/report/model.js';
import { SdkResolver } from '../src/analysis/sdk.js';
import type { TS as AnalysisTS } from '../src/analysis/types.js';
import { applyEdits, type Edit } from './mrtr/text.js';
import type { Transform, TransformContext, TransformResult } from './types.js';

type TS = typeof TsNamespace;
type Node = TsNamespace.Node;

/**
 * The serving entry: a server connected with `server.connect(new StdioServerTransport())` keeps
 * speaking only the 2025 protocol; `serveStdio(() => server)` from `@modelcontextprotocol/server/stdio`
 * negotiates the era per connection and serves both. Rewritten only in the plain shape where the
 * two are equivalent; everything else (HTTP, SSE, custom stdio streams, chained promises) is
 * reported with the SDK's guidance and left as it is.
 *
 * Diagnostic codes: `serving/stdio-rewritten`, `serving/stdio-manual`, `serving/http-manual`,
 * `serving/already` (the file already serves through serveStdio / createMcpHandler).
 */

const STDIO_V2 = '@modelcontextprotocol/server/stdio';
const HTTP_TRANSPORTS = new Set(['StreamableHTTPServerTransport', 'NodeStreamableHTTPServerTransport', 'WebStandardStreamableHTTPServerTransport']);
const SERVER_CLASSES = new Set(['McpServer', 'Server']);

const STDIO_GUIDANCE = `replace it with serveStdio(() => buildServer()) from ${STDIO_V2}, a factory that returns the server`;
const HTTP_GUIDANCE =
  'serve the 2026-07-28 revision with createMcpHandler(() => buildServer()) from @modelcontextprotocol/server: one factory builds a fresh server per request and the handler also serves 2025 clients statelessly; mount it with toNodeHandler(handler) from @modelcontextprotocol/node on Express or node:http. To keep a sessionful 2025 setup, route isLegacyRequest(request) to it in front of createMcpHandler(factory, { legacy: "reject" }). Not rewritten: moving to a per-request factory changes where state lives';

export const servingEntryTransform: Transform = {
  id: 'serving-entry',
  title: 'server.connect(new StdioServerTransport()) to serveStdio(() => server)',
  apply(sourceFile, context): TransformResult {
    const text = sourceFile.getFullText();
    const none: TransformResult = { changed: false, diagnostics: [], sites: [], alreadyMigrated: [] };
    if (!/Transport|serveStdio|createMcpHandler/.test(text)) return none;
    const ts = context.ts;
    const file = sourceFile.compilerNode;
    const display = path.relative(context.cwd, sourceFile.getFilePath()).split(path.sep).join('/');
    const found = findEntries(ts, file);
    const diagnostics: Diagnostic[] = [];
    const say = (node: Node, level: Diagnostic['level'], code: string, message: string) =>
      diagnostics.push({ level, source: 'serving', code, file: display, line: lineOf(file, node), message });

    for (const entry of found.already) say(entry.node, 'info', 'serving/already', `already served through ${entry.name}(...), which negotiates the 2026-07-28 era.`);
    for (const node of found.http) {
      say(node, 'warning', 'serving/http-manual', `${transportName(ts, node)} serves only the 2025 protocol through server.connect(transport): ${HTTP_GUIDANCE}.`);
    }

    const edits: Edit[] = [];
    const plans: StdioPlan[] = [];
    for (const construction of found.stdio) {
      const plan = planStdio(ts, file, construction, found, context);
      if (typeof plan === 'string') say(construction, 'warning', 'serving/stdio-manual', `new StdioServerTransport() is connected with server.connect(), which serves only the 2025 protocol; not rewritten because ${plan}: ${STDIO_GUIDANCE}.`);
      else plans.push(plan);
    }
    if (plans.length === 0) return { ...none, diagnostics };

    for (const plan of plans) {
      edits.push({ start: plan.call.getStart(file), end: plan.call.getEnd(), text: `serveStdio(() => ${plan.server})` });
      if (plan.transportStatement) edits.push(wholeLines(file.text, plan.transportStatement.getStart(file), plan.transportStatement.getEnd()));
      say(plan.call, 'info', 'serving/stdio-rewritten',
        `server.connect(new StdioServerTransport()) became serveStdio(() => ${plan.server}): this entry now serves 2026-07-28 clients as well as 2025 ones. serveStdio asks the factory for a server once per connection (and once more for a server/discover probe it may discard); this factory returns your one instance, so if clients probe and then fall back to initialize, build a fresh server inside the factory instead.`);
    }
    edits.push(...importEdits(ts, file, found, plans));
    const next = applyEdits(file.text, edits);
    if (next === file.text) return { ...none, diagnostics };
    sourceFile.replaceWithText(next);
    return { changed: true, diagnostics, sites: [], alreadyMigrated: [] };
  },
};

interface Entries {
  /** `new StdioServerTransport(...)` with the class imported from the v1 or v2 SDK. */
  stdio: TsNamespace.NewExpression[];
  http: TsNamespace.NewExpression[];
  already: { node: Node; name: string }[];
  /** Local names bound to SDK exports: local name -> { exported, module }. */
  imports: Map<string, { exported: string; module: string; specifier: TsNamespace.ImportSpecifier | undefined }>;
  /** Every identifier use, by name (to tell whether a binding is used elsewhere). */
  uses: Map<string, TsNamespace.Identifier[]>;
}

function findEntries(ts: TS, file: TsNamespace.SourceFile): Entries {
  const imports: Entries['imports'] = new Map();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const module = statement.moduleSpecifier.text;
    if (!module.startsWith('@modelcontextprotocol/')) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings) && !statement.importClause?.isTypeOnly) {
      for (const element of bindings.elements) {
        if (element.isTypeOnly) continue;
        imports.set(element.name.text, { exported: (element.propertyName ?? element.name).text, module, specifier: element });
      }
    }
  }
  const entries: Entries = { stdio: [], http: [], already: [], imports, uses: new Map() };
  const visit = (node: Node): void => {
    if (ts.isIdentifier(node)) {
      const list = entries.uses.get(node.text) ?? [];
      list.push(node);
      entries.uses.set(node.text, list);
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) {
      const imported = imports.get(node.expression.text);
      if (imported?.exported === 'StdioServerTransport' && /^@modelcontextprotocol\/(server\/stdio|sdk\/server\/stdio(\.js)?)$/.test(imported.module)) entries.stdio.push(node);
      else if (imported && HTTP_TRANSPORTS.has(imported.exported)) entries.http.push(node);
      else if (imported?.exported === 'SSEServerTransport') entries.http.push(node);
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      const imported = imports.get(node.expression.text);
      if (imported && (imported.exported === 'serveStdio' || imported.exported === 'createMcpHandler')) entries.already.push({ node, name: imported.exported });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return entries;
}

interface StdioPlan {
  /** The `server.connect(...)` call, with its `await` when awaited. */
  call: Node;
  /** The server expression's text (`server`). */
  server: string;
  /** `const transport = new StdioServerTransport();`, removed when the transport was only connected. */
  transportStatement: TsNamespace.VariableStatement | undefined;
  construction: TsNamespace.NewExpression;
}

/** The rewrite for one stdio transport, or why it is not safe. */
function planStdio(ts: TS, file: TsNamespace.SourceFile, construction: TsNamespace.NewExpression, found: Entries, context: TransformContext): StdioPlan | string {
  const imported = found.imports.get((construction.expression as TsNamespace.Identifier).text)!;
  if (imported.module !== STDIO_V2) return 'the file is still on the v1 SDK (run without --no-sdk-upgrade, or upgrade it first)';
  if ((construction.arguments?.length ?? 0) > 0) return 'the transport is built on custom streams (pass it as serveStdio(factory, { transport }) by hand)';
  if (found.stdio.length > 1) return 'the file creates more than one stdio transport';
  const existing = found.imports.get('serveStdio');
  if (found.uses.has('serveStdio') && !(existing && existing.module === STDIO_V2)) return 'the name serveStdio is already used in this file';

  let argument: Node = construction;
  let transportStatement: TsNamespace.VariableStatement | undefined;
  const parent = outerOfParens(ts, construction.parent);
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) {
    const list = parent.parent;
    const statement = list.parent;
    if (!ts.isVariableDeclarationList(list) || !(list.flags & ts.NodeFlags.Const) || list.declarations.length !== 1 || !ts.isVariableStatement(statement)) {
      return 'the transport is not held in its own const declaration';
    }
    const uses = (found.uses.get(parent.name.text) ?? []).filter(id => id !== parent.name);
    if (uses.length !== 1) return `the transport variable ${parent.name.text} is used more than once (its events or streams are wired by hand)`;
    argument = uses[0]!;
    transportStatement = statement;
  }
  const call = argument.parent;
  if (!call || !ts.isCallExpression(call) || call.arguments.length !== 1 || call.arguments[0] !== argument) return 'the transport is not passed straight to server.connect()';
  if (!ts.isPropertyAccessExpression(call.expression) || call.expression.name.text !== 'connect') return 'the transport is not passed straight to server.connect()';
  const receiver = call.expression.expression;
  if (!ts.isIdentifier(receiver)) return 'the server is not a plain variable';
  if (transportStatement && transportStatement.parent !== statementOf(ts, call)?.parent) return 'the transport is declared in another block than the connect call';

  // `await server.connect(t);` or `server.connect(t);` as a statement of its own: nothing reads the promise.
  const awaited = ts.isAwaitExpression(call.parent) ? call.parent : undefined;
  const outer = awaited ?? call;
  if (!ts.isExpressionStatement(outer.parent)) return 'the promise of server.connect() is used (chained, returned or assigned), and serveStdio reports errors through its onerror option instead';

  const server = serverBinding(ts, receiver, found);
  if (server !== true && !isSdkServerByType(ts, receiver, context)) return server;
  const otherConnects = [...(found.uses.get(receiver.text) ?? [])].filter(id => id !== receiver && ts.isPropertyAccessExpression(id.parent) && id.parent.expression === id && id.parent.name.text === 'connect');
  if (otherConnects.length > 0) return `${receiver.text} is connected more than once`;
  return { call: outer, server: receiver.text, transportStatement, construction };
}

/** True when the server variable is a const built with `new McpServer(...)` / `new Server(...)` from the v2 SDK, else why not. */
function serverBinding(ts: TS, receiver: TsNamespace.Identifier, found: Entries): true | string {
  const declarations = (found.uses.get(receiver.text) ?? []).map(id => id.parent).filter((p): p is TsNamespace.VariableDeclaration => ts.isVariableDeclaration(p) && ts.isIdentifier(p.name) && p.name.text === receiver.text);
  if (declarations.length !== 1) return `the server ${receiver.text} is not declared once in this file`;
  const declaration = declarations[0]!;
  if (!(declaration.parent.flags & ts.NodeFlags.Const)) return `the server ${receiver.text} is not a const (it may be replaced before it is served)`;
  const init = declaration.initializer && innerOfParens(ts, declaration.initializer);
  if (init && ts.isNewExpression(init) && ts.isIdentifier(init.expression)) {
    const imported = found.imports.get(init.expression.text);
    if (imported && SERVER_CLASSES.has(imported.exported) && imported.module === '@modelcontextprotocol/server') return true;
    // `new AppServer(...)` of a class of the file that extends one of them (at any depth).
    const analysisTs = ts as unknown as AnalysisTS;
    const built = new SdkResolver(analysisTs, init.getSourceFile() as never, undefined).serverClassOf(init.expression as never);
    // Not one that overrides connect: serveStdio would pass it by.
    const overridesConnect = built?.subclasses.some(cls => cls.members.some(m => m.name?.getText() === 'connect'));
    if (built && built.subclasses.length > 0 && built.value.sdk === 'v2' && !overridesConnect) return true;
  }
  return `${receiver.text} is not visibly a McpServer or Server of @modelcontextprotocol/server`;
}

/** With the checker: the receiver's type is the v2 SDK's McpServer or Server class. */
function isSdkServerByType(ts: TS, receiver: TsNamespace.Identifier, context: TransformContext): boolean {
  const program = context.program?.() ?? context.project.getProgram().compilerObject;
  const current = program.getSourceFile(receiver.getSourceFile().fileName);
  if (!current) return false;
  const node = findAt(ts, current, receiver.getStart(), receiver.getEnd());
  if (!node) return false;
  const checker = program.getTypeChecker();
  const symbol = checker.getTypeAtLocation(node).getSymbol();
  const declaration = symbol?.declarations?.[0];
  if (!symbol || !declaration || !SERVER_CLASSES.has(symbol.getName())) return false;
  const home = declaration.getSourceFile().fileName.replaceAll('\\', '/');
  if (!/\/@modelcontextprotocol\/(server|core)\//.test(home)) return false;
  // A const (or a never-reassigned parameter) only: the same instance is what gets served.
  let resolved = checker.getSymbolAtLocation(node);
  if (resolved && resolved.flags & ts.SymbolFlags.Alias) resolved = checker.getAliasedSymbol(resolved);
  const decl = resolved?.valueDeclaration;
  return !!decl && ts.isVariableDeclaration(decl) && !!(decl.parent.flags & ts.NodeFlags.Const);
}

function importEdits(ts: TS, file: TsNamespace.SourceFile, found: Entries, plans: StdioPlan[]): Edit[] {
  if (found.imports.get('serveStdio')?.module === STDIO_V2) return [];
  const transportName = (plans[0]!.construction.expression as TsNamespace.Identifier).text;
  const imported = found.imports.get(transportName)!;
  const specifier = imported.specifier!;
  const removedUses = plans.length;
  const stillUsed = (found.uses.get(transportName) ?? []).filter(id => id !== specifier.name && !ts.isImportSpecifier(id.parent)).length > removedUses;
  if (!stillUsed) return [{ start: specifier.getStart(file), end: specifier.getEnd(), text: 'serveStdio' }];
  return [{ start: specifier.getEnd(), end: specifier.getEnd(), text: ', serveStdio' }];
}

function transportName(ts: TS, node: TsNamespace.NewExpression): string {
  return ts.isIdentifier(node.expression) ? node.expression.text : 'this transport';
}

function statementOf(ts: TS, node: Node): TsNamespace.Statement | undefined {
  let current: Node | undefined = node;
  while (current && !ts.isBlock(current.parent) && !ts.isSourceFile(current.parent)) current = current.parent;
  return current as TsNamespace.Statement | undefined;
}

function outerOfParens(ts: TS, node: Node): Node {
  let current = node;
  while (ts.isParenthesizedExpression(current)) current = current.parent;
  return current;
}

function innerOfParens(ts: TS, node: TsNamespace.Expression): TsNamespace.Expression {
  let current = node;
  while (ts.isParenthesizedExpression(current) || ts.isAsExpression(current) || ts.isNonNullExpression(current)) current = current.expression;
  return current;
}

function findAt(ts: TS, file: TsNamespace.SourceFile, start: number, end: number): Node | undefined {
  let found: Node | undefined;
  const visit = (node: Node): void => {
    if (node.getStart(file) === start && node.getEnd() === end && ts.isIdentifier(node)) found = node;
    else if (node.getStart(file) <= start && node.getEnd() >= end) ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function lineOf(file: TsNamespace.SourceFile, node: Node): number {
  return file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
}

/** The statement's full lines, so removing it leaves no blank line behind. */
function wholeLines(text: string, start: number, end: number): Edit {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const onlyIndentBefore = /^[ \t]*$/.test(text.slice(lineStart, start));
  const newline = text.indexOf('\n', end);
  const onlySpaceAfter = newline !== -1 && /^[ \t]*\r?$/.test(text.slice(end, newline));
  if (onlyIndentBefore && onlySpaceAfter) return { start: lineStart, end: newline + 1, text: '' };
  return { start, end, text: '' };
}

