import type { Diagnostic as CodemodDiagnostic } from '@modelcontextprotocol/codemod';
import { Node, SyntaxKind, ts, type SourceFile } from 'ts-morph';
import { CONTEXT_NAME, contextRename } from '../analysis/contextParam.js';
import { discoverHandlers } from '../analysis/handlers.js';
import { SdkResolver } from '../analysis/sdk.js';
import type { Handler, TS } from '../analysis/types.js';
import { applyEdits, type Edit } from '../../transforms/mrtr/text.js';

/**
 * Repairs around the official v1-to-v2 transforms (sdkUpgrade.ts runs them), for what they leave
 * broken in real servers. In this order:
 *
 * before the official transforms
 *   1. nameDestructuredContexts  `async (args, { sendRequest })`: the context gets a name
 *   2. inlineBoundRegistrars     `const tool = server.tool.bind(server); tool(...)`: `server.tool(...)`
 *   3. holdRegistrationTexts     non-literal names and descriptions held in placeholder literals
 * after them
 *   4. restoreRegistrationTexts  the held texts back
 *   5. remapContextMemberTypes   `ServerContext['sendRequest']` to `ServerContext['mcpReq']['send']`
 *   6. settleSchemaArguments     a raw shape held in a value: `inputSchema: z.object(shape)`
 */

/** Steps 1-3; returns whether the file changed and the texts held. */
export function beforeOfficialStage(sourceFile: SourceFile): { changed: boolean; held: Map<string, string> } {
  const named = nameDestructuredContexts(sourceFile);
  const inlined = inlineBoundRegistrars(sourceFile);
  return { changed: named || inlined, held: holdRegistrationTexts(sourceFile) };
}

/**
 * Steps 4-6, once the stage's diagnostics have found their lines (these edits keep every line where
 * it is). Returns the diagnostics that still stand: a type alias remapped names a v2 type, so the
 * stage's doubt about parameters annotated with it is settled, and so is its doubt about a schema
 * argument the checker has read.
 */
export function afterOfficialStage(sourceFile: SourceFile, held: Map<string, string>, diagnostics: CodemodDiagnostic[]): CodemodDiagnostic[] {
  restoreRegistrationTexts(sourceFile, held, diagnostics);
  const remapped = remapContextMemberTypes(sourceFile);
  const settled = settleSchemaArguments(sourceFile);
  return diagnostics.filter(d =>
    !remapped.has(/^Parameter annotation '([\w$]+)' mentions a context type/.exec(d.message)?.[1] ?? '') &&
    !(settled.has(d.line) && d.message.startsWith(SCHEMA_DOUBT)));
}

/** The stage's doubt about a schema argument that is not written as a literal. */
const SCHEMA_DOUBT = 'Could not verify the schema argument is a schema object.';

/**
 * The stage moves a v1 schema argument that is not a literal into `inputSchema` (`argsSchema`) as it
 * is, doubting it: v2 takes a Standard Schema (`z.object({...})`), its raw-shape overload only
 * shapes of zod classic types. The checker settles it: a schema (it has `~standard`) stays; a raw
 * shape is wrapped in `z.object(...)`, as v1 wrapped it itself, where the file imports zod as `z`.
 * Returns the lines whose doubt is settled.
 */
function settleSchemaArguments(sourceFile: SourceFile): Set<number> {
  const settled = new Set<number>();
  const doubted = sourceFile.getDescendantsOfKind(SyntaxKind.PropertyAssignment).filter(p => {
    const value = p.getInitializer();
    const config = p.getParent();
    const call = config?.getParent();
    return ['inputSchema', 'argsSchema'].includes(p.getName()) && value !== undefined && !Node.isObjectLiteralExpression(value) &&
      Node.isCallExpression(call) && call.getArguments()[1] === config && /^register(?:Tool|Prompt)$/.test(call.getExpression().getText().split('.').pop() ?? '');
  });
  if (doubted.length === 0) return settled;
  const z = zodNamespace(sourceFile);
  const checker = sourceFile.getProject().getTypeChecker().compilerObject;
  const edits: Edit[] = [];
  for (const property of doubted) {
    const value = property.getInitializerOrThrow();
    // The stage's doubt sits on the call's line or on the property's.
    const lines = [property.getParentOrThrow().getParentOrThrow().getStartLineNumber(), property.getStartLineNumber()];
    const type = checker.getTypeAtLocation(value.compilerNode);
    if (type.getProperty('~standard')) lines.forEach(l => settled.add(l));
    // A shape: an object (a type parameter's constraint included), never a string the stage took for one.
    else if (z && !isStringTyped(type) && (checker.getApparentType(type).flags & ts.TypeFlags.Object) !== 0) {
      edits.push({ start: value.getStart(), end: value.getEnd(), text: `${z}.object(${value.getText()})` });
      lines.forEach(l => settled.add(l));
    }
  }
  if (edits.length > 0) sourceFile.replaceWithText(applyEdits(sourceFile.getFullText(), edits));
  return settled;
}

/** The name the file imports zod's namespace under (`import { z } from 'zod'`, `import * as z from 'zod/v4'`). */
function zodNamespace(sourceFile: SourceFile): string | undefined {
  for (const declaration of sourceFile.getImportDeclarations()) {
    if (!/^zod(?:\/v4)?$/.test(declaration.getModuleSpecifierValue()) || declaration.isTypeOnly()) continue;
    const namespace = declaration.getNamespaceImport()?.getText();
    const named = declaration.getNamedImports().find(n => n.getName() === 'z' && !n.isTypeOnly());
    const name = namespace ?? (named ? (named.getAliasNode()?.getText() ?? 'z') : undefined);
    if (name) return name;
  }
  return undefined;
}

/**
 * `const tool = server.tool.bind(server)` (with a cast or not), then `tool('echo', ...)`: v2 has no
 * `tool`, and the official stage converts `server.tool(...)` calls only. Where every use of such a
 * `const` is a call in its scope (and `this` is the same there), each call becomes
 * `server.tool(...)` and the declaration goes, its comments staying; otherwise it stays as it is.
 */
function inlineBoundRegistrars(sourceFile: SourceFile): boolean {
  const edits: Edit[] = [];
  const text = sourceFile.getFullText();
  for (const statement of sourceFile.getDescendantsOfKind(SyntaxKind.VariableStatement)) {
    const [declaration, ...others] = statement.getDeclarations();
    const bound = declaration && others.length === 0 && statement.getDeclarationKind() === 'const' ? boundRegistrar(declaration.getInitializer()) : undefined;
    const name = declaration?.getNameNode();
    if (!bound || !Node.isIdentifier(name)) continue;
    const scope = statement.getParentOrThrow();
    const same = scope.getDescendantsOfKind(SyntaxKind.Identifier).filter(id => id !== name && id.getText() === name.getText() && !isMemberName(id));
    const declared = (id: Node) => Node.isVariableDeclaration(id.getParent()) || Node.isParameterDeclaration(id.getParent()) || Node.isFunctionDeclaration(id.getParent());
    const thisOf = (node: Node) => node.getFirstAncestor(a => Node.isFunctionDeclaration(a) || Node.isFunctionExpression(a) || Node.isMethodDeclaration(a) || Node.isConstructorDeclaration(a) || Node.isClassDeclaration(a));
    const callee = (id: Node) => { const call = id.getParent(); return Node.isCallExpression(call) && call.getExpression() === id; };
    if (same.length === 0 || same.some(id => declared(id) || !callee(id) || (bound.startsWith('this') && thisOf(id) !== thisOf(statement)))) continue;
    const lineStart = text.lastIndexOf('\n', statement.getStart() - 1) + 1;
    const alone = /^[ \t]*$/.test(text.slice(lineStart, statement.getStart())) && /^[ \t]*\r?\n/.test(text.slice(statement.getEnd()));
    const end = alone ? statement.getEnd() + /^[ \t]*\r?\n/.exec(text.slice(statement.getEnd()))![0].length : statement.getEnd();
    edits.push({ start: alone ? lineStart : statement.getStart(), end, text: '' });
    for (const id of same) edits.push({ start: id.getStart(), end: id.getEnd(), text: bound });
  }
  if (edits.length === 0) return false;
  sourceFile.replaceWithText(applyEdits(text, edits));
  return true;
}

/** A property or member name (`server.tool`, `{ tool: 1 }`, `tool() {}`), not a reference to a variable. */
function isMemberName(id: Node): boolean {
  const parent = id.getParent();
  return (Node.isPropertyAccessExpression(parent) && parent.getNameNode() === id) ||
    ((Node.isPropertyAssignment(parent) || Node.isMethodDeclaration(parent) || Node.isPropertyDeclaration(parent) || Node.isPropertySignature(parent) || Node.isMethodSignature(parent)) && parent.getNameNode() === id);
}

/** `server.tool` for `server.tool.bind(server)` (through a cast or parentheses), else undefined. */
function boundRegistrar(initializer: Node | undefined): string | undefined {
  let node = initializer;
  while (node && (Node.isAsExpression(node) || Node.isSatisfiesExpression(node) || Node.isParenthesizedExpression(node) || Node.isTypeAssertion(node))) node = node.getExpression();
  if (!Node.isCallExpression(node) || node.getArguments().length !== 1) return undefined;
  const bind = node.getExpression();
  const method = Node.isPropertyAccessExpression(bind) && bind.getName() === 'bind' ? bind.getExpression() : undefined;
  if (!Node.isPropertyAccessExpression(method) || !['tool', 'prompt', 'resource'].includes(method.getName())) return undefined;
  const receiver = method.getExpression().getText();
  return /^[\w$]+(?:\.[\w$]+)*$/.test(receiver) && node.getArguments()[0]!.getText() === receiver ? `${receiver}.${method.getName()}` : undefined;
}

/**
 * Handlers that destructure their context get it as one parameter (src/analysis/contextParam.ts),
 * so the official transforms map its members and the MRTR rewrite has the whole context. Returns
 * whether the file changed.
 */
function nameDestructuredContexts(sourceFile: SourceFile): boolean {
  const tsApi = ts as unknown as TS;
  const file = sourceFile.compilerNode as unknown as import('typescript').SourceFile;
  const edits: Edit[] = [];
  for (const handler of requestHandlers(sourceFile.compilerNode)) {
    const param = handler.fn.parameters[handler.ctxParamIndex];
    if (handler.sdk !== 'v1' || !param || !tsApi.isObjectBindingPattern(param.name)) continue;
    const rename = contextRename(tsApi, handler.fn, param);
    if ('problem' in rename) continue;
    edits.push({ start: rename.pattern.getStart(file), end: rename.pattern.getEnd(), text: CONTEXT_NAME });
    for (const use of rename.uses) edits.push({ start: use.node.getStart(file), end: use.node.getEnd(), text: use.text });
  }
  if (edits.length === 0) return false;
  sourceFile.replaceWithText(applyEdits(sourceFile.getFullText(), edits));
  return true;
}

/**
 * The official stage turns `server.tool('greet', ...)` into `server.registerTool('greet', {...}, cb)`
 * but leaves `server.tool(GREET, ...)` as it was (with a marker; v2 has no `tool`), and reads the
 * second of three or four arguments by its syntax: a description that is not a literal
 * (`server.tool(def.name, def.description, def.shape, cb)`) becomes `inputSchema`. While it runs, a
 * registration's name that is not a literal, and a description the checker types as a string, are
 * held in placeholder literals, then put back.
 */
function holdRegistrationTexts(sourceFile: SourceFile): Map<string, string> {
  const held = new Map<string, string>();
  const edits: Edit[] = [];
  const hold = (node: ts.Node, kind: string): void => {
    const placeholder = `__mrtr_migrate_${kind}_${held.size}__`;
    held.set(placeholder, node.getText());
    edits.push({ start: node.getStart(), end: node.getEnd(), text: `'${placeholder}'` });
  };
  let checker: ts.TypeChecker | undefined;
  for (const handler of requestHandlers(sourceFile.compilerNode)) {
    const [name, second, ...rest] = handler.registrationCall.arguments;
    if (handler.sdk !== 'v1' || !['tool', 'prompt', 'resource'].includes(handler.registration) || !name || !second) continue;
    if (!ts.isStringLiteralLike(name) && !name.getText().includes('\n')) hold(name, 'name');
    // tool(name, description, [shape,] cb) / prompt(...): the readings the stage cannot tell from tool(name, shape, [annotations,] cb).
    if (handler.registration === 'resource' || rest.length === 0 || ts.isStringLiteralLike(second) || ts.isObjectLiteralExpression(second) || second.getText().includes('\n')) continue;
    checker ??= sourceFile.getProject().getTypeChecker().compilerObject;
    if (isStringTyped(checker.getTypeAtLocation(second))) hold(second, 'text');
  }
  if (edits.length > 0) sourceFile.replaceWithText(applyEdits(sourceFile.getFullText(), edits));
  return held;
}

function isStringTyped(type: ts.Type): boolean {
  return type.isUnion() ? type.types.every(isStringTyped) : (type.flags & ts.TypeFlags.StringLike) !== 0;
}

/** Each held text back where the stage put its placeholder (once), in the text and in the stage's messages. */
function restoreRegistrationTexts(sourceFile: SourceFile, held: Map<string, string>, diagnostics: CodemodDiagnostic[]): void {
  if (held.size === 0) return;
  let text = sourceFile.getFullText();
  for (const [placeholder, original] of held) {
    const literal = new RegExp(`(['"\`])${placeholder}\\1`, 'g');
    if ((text.match(literal) ?? []).length !== 1) throw new Error(`${original} could not be put back in its registration after the official upgrade`);
    text = text.replace(literal, () => original);
    for (const d of diagnostics) d.message = d.message.replaceAll(placeholder, original);
  }
  sourceFile.replaceWithText(text);
}

/** v1 context members that v2 keeps under `mcpReq`, as the official stage maps them in expressions. */
const CONTEXT_MEMBER_PATHS: Record<string, string[]> = {
  sendRequest: ['mcpReq', 'send'],
  sendNotification: ['mcpReq', 'notify'],
  signal: ['mcpReq', 'signal'],
  requestId: ['mcpReq', 'id'],
  _meta: ['mcpReq', '_meta'],
};

/**
 * `RequestHandlerExtra<ServerRequest, ServerNotification>['sendRequest']` comes out of the official
 * stage as `ServerContext['sendRequest']`, which v2 does not have (a type error): it is
 * `ServerContext['mcpReq']['send']`, as the stage maps `extra.sendRequest` to `ctx.mcpReq.send`.
 */
function remapContextMemberTypes(sourceFile: SourceFile): Set<string> {
  const aliases = new Set<string>();
  const imported = sourceFile.getImportDeclarations().some(d => d.getModuleSpecifierValue() === '@modelcontextprotocol/server' &&
    d.getNamedImports().some(n => n.getName() === 'ServerContext' && !n.getAliasNode()));
  if (!imported) return aliases;
  const edits: Edit[] = [];
  for (const node of sourceFile.getDescendantsOfKind(SyntaxKind.IndexedAccessType)) {
    const object = node.getObjectTypeNode();
    const index = node.getIndexTypeNode();
    if (!isServerContext(object)) continue;
    const literal = Node.isLiteralTypeNode(index) ? index.getLiteral() : undefined;
    const path = literal && Node.isStringLiteral(literal) ? CONTEXT_MEMBER_PATHS[literal.getLiteralValue()] : undefined;
    if (!path) continue;
    const quote = literal!.getText()[0]!;
    edits.push({ start: index.getStart(), end: node.getEnd(), text: `${path.map(p => `${quote}${p}${quote}`).join('][')}]` });
    const alias = node.getParent();
    if (Node.isTypeAliasDeclaration(alias)) aliases.add(alias.getName());
  }
  if (edits.length > 0) sourceFile.replaceWithText(applyEdits(sourceFile.getFullText(), edits));
  return aliases;

  /** `ServerContext`, or a type alias of the file for it (`type Extra = ServerContext`, as the stage leaves `RequestHandlerExtra<...>`). */
  function isServerContext(type: Node, seen = new Set<string>()): boolean {
    if (!Node.isTypeReference(type) || type.getTypeArguments().length > 0) return false;
    const name = type.getTypeName().getText();
    if (name === 'ServerContext') return true;
    if (seen.has(name)) return false;
    seen.add(name);
    const alias = sourceFile.getTypeAlias(name);
    const aliased = alias && alias.getTypeParameters().length === 0 ? alias.getTypeNode() : undefined;
    return !!aliased && isServerContext(aliased, seen);
  }
}

/** The request handlers registered in a file, found by syntax alone (no checker). */
export function requestHandlers(file: ts.SourceFile): Handler[] {
  const tsApi = ts as unknown as TS;
  const compiled = file as unknown as import('typescript').SourceFile;
  return discoverHandlers(tsApi, compiled, new SdkResolver(tsApi, compiled, undefined));
}
