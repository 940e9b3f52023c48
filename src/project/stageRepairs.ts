import type { Diagnostic as CodemodDiagnostic } from '@modelcontextprotocol/codemod';
import { Node, SyntaxKind, ts, type CallExpression, type ParameterDeclaration, type SourceFile, type StringLiteral, type VariableDeclaration } from 'ts-morph';
import { CONTEXT_NAME, contextRename } from '../analysis/contextParam.js';
import { discoverHandlers } from '../analysis/handlers.js';
import { QUESTION_METHODS, REQUEST_SCHEMA_METHODS, SdkResolver } from '../analysis/sdk.js';
import { resolveIdentifier } from '../analysis/scope.js';
import type { Handler, TS } from '../analysis/types.js';
import { applyEdits, type Edit } from '../../transforms/mrtr/text.js';
import { CONTEXT_MEMBERS, remapContextMemberTypes, remapPickedContexts } from './contextTypes.js';

/**
 * Repairs around the official v1-to-v2 transforms (sdkUpgrade.ts runs them), for what they leave
 * broken in real servers. In this order:
 *
 * before the official transforms
 *   1. nameDestructuredContexts  `async (args, { sendRequest })`: the context gets a name
 *      remapLoneContexts         `async (extra) => extra.sendRequest(...)`: its members, as the stage maps them in longer callbacks
 *   2. retargetRegistrarPatches  `(server as any).tool = (...args) => original(...args)`: patches `registerTool`
 *   3. inlineBoundRegistrars     `const tool = server.tool.bind(server); tool(...)`: `server.tool(...)`
 *   4. holdRegistrationTexts     non-literal names and descriptions held in placeholder literals
 *   5. registerByMethodString    `setRequestHandler(z.object({ method: z.literal(m) }).passthrough(), h)`: `setRequestHandler(m, h)`
 * after them
 *   6. restoreRegistrationTexts  the held texts back
 *   7. remapContextMemberTypes   `ServerContext['sendRequest']` to `ServerContext['mcpReq']['send']` (contextTypes.ts)
 *   8. remapPickedContexts       `Pick<ServerContext, 'signal'>` to `{ mcpReq: Pick<ServerContext['mcpReq'], 'signal'> }` (contextTypes.ts)
 *   9. settleSchemaArguments     a raw shape held in a value: `inputSchema: z.object(shape)`
 *  10. keepJsonSchemas           a JSON Schema's properties the stage wrapped in `z.object(...)`: as written
 */

/**
 * Steps 1-5; returns whether the file changed, the texts held and the repairs' notes. `registeredDirectly`:
 * the v2 registration methods (`registerTool`, ...) the project's v1 code already calls, in any file.
 */
export function beforeOfficialStage(sourceFile: SourceFile, registeredDirectly: ReadonlySet<string>): { changed: boolean; held: Map<string, string>; notes: CodemodDiagnostic[] } {
  const named = nameDestructuredContexts(sourceFile);
  const lone = remapLoneContexts(sourceFile);
  const patches = retargetRegistrarPatches(sourceFile, registeredDirectly);
  const inlined = inlineBoundRegistrars(sourceFile, patches.patched);
  const held = holdRegistrationTexts(sourceFile);
  const notes = registerByMethodString(sourceFile);
  return { changed: named || lone || patches.changed || inlined || notes.length > 0, held, notes };
}

/** The v1 registration methods and the v2 methods that take their place. */
const REGISTRARS: Record<string, string> = { tool: 'registerTool', prompt: 'registerPrompt', resource: 'registerResource' };

/** The v2 registration methods a v1 source calls already (`server.registerTool(`): a patch of `tool` never saw those calls. */
export function directRegistrations(texts: Iterable<string>): Set<string> {
  const found = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(/\.(register(?:Tool|Prompt|Resource))\s*\(/g)) found.add(match[1]!);
  return found;
}

/**
 * Steps 6-10, once the stage's diagnostics have found their lines (these edits keep every line where
 * it is). Returns the diagnostics that still stand: a type alias remapped names a v2 type, so the
 * stage's doubt about parameters annotated with it is settled, as is its doubt about handing the
 * context to a helper of the file that takes a v2 context, and its doubt about a schema argument
 * the checker has read.
 */
export function afterOfficialStage(sourceFile: SourceFile, original: string, held: Map<string, string>, diagnostics: CodemodDiagnostic[]): CodemodDiagnostic[] {
  restoreRegistrationTexts(sourceFile, held, diagnostics);
  const remapped = remapContextMemberTypes(sourceFile);
  const picked = remapPickedContexts(sourceFile);
  const settled = settleSchemaArguments(sourceFile);
  diagnostics = keepJsonSchemas(sourceFile, original, diagnostics);
  return diagnostics.filter(d =>
    !remapped.has(/^Parameter annotation '([\w$]+)' mentions a context type/.exec(d.message)?.[1] ?? '') &&
    !picked.annotations.has(/^Parameter annotation '(.*)' mentions a context type/.exec(d.message)?.[1] ?? '') &&
    !picked.helpers.has(/^The context object is forwarded to (?:[\w$]+\.)*([\w$]+)\(/.exec(d.message)?.[1] ?? '') &&
    !(settled.has(d.line) && d.message.startsWith(SCHEMA_DOUBT)));
}

/** The code a repair's note is about, to give it the line that code ends up on (sdkUpgrade.ts). */
export const LOCATED = new WeakMap<CodemodDiagnostic, string>();

/** The official stage's note on each object literal it wraps, and on the import of zod it adds for them. */
const WRAP_NOTE = 'wrapped with z.object().';

/**
 * The stage wraps each object literal it moves into `inputSchema` or `argsSchema` in `z.object(...)`,
 * taking it for a raw shape of zod schemas. One whose every value is JSON (`{ message: { type:
 * 'string' } }`, the properties of a JSON Schema) is none: v1 never read it as a schema, and z.object()
 * of it throws when it parses. It is put back as written, with a warning in place of the stage's note
 * (whether v2 takes it is the type check's: a file it rejects stays on v1, holdBack.ts), and the import
 * of zod the stage added goes when nothing else uses it. Returns the diagnostics that still stand.
 */
function keepJsonSchemas(sourceFile: SourceFile, original: string, diagnostics: CodemodDiagnostic[]): CodemodDiagnostic[] {
  // The stage's wraps: `z.object(<literal>)` where the file had the literal alone.
  const wrapped = sourceFile.getDescendantsOfKind(SyntaxKind.CallExpression).filter(call => {
    const callee = call.getExpression();
    const [shape] = call.getArguments();
    return Node.isPropertyAccessExpression(callee) && callee.getName() === 'object' && callee.getExpression().getText() === 'z' &&
      call.getArguments().length === 1 && Node.isObjectLiteralExpression(shape) && original.includes(shape.getText()) && !original.includes(call.getText());
  });
  const wraps = wrapped.filter(call => isJsonObject(call.getArguments()[0]!));
  if (wraps.length === 0) return diagnostics;
  // The stage's notes name lines of a text it printed since: they go when none of its wraps is left.
  const allKept = wraps.length === wrapped.length;
  const notes = wraps.map(call => {
    const note: CodemodDiagnostic = {
      level: 'warning' as CodemodDiagnostic['level'], file: sourceFile.getFilePath(), line: call.getStartLineNumber(),
      message: 'This schema is written as JSON Schema properties, not zod schemas: it stays as written instead of being wrapped in z.object(), which would throw when it parses. Write it with zod (v2 takes a Standard Schema) by hand.',
    };
    LOCATED.set(note, call.getArguments()[0]!.getText());
    return note;
  });
  const text = sourceFile.getFullText();
  sourceFile.replaceWithText(applyEdits(text, wraps.map(call => ({ start: call.getStart(), end: call.getEnd(), text: call.getArguments()[0]!.getText() }))));
  // The import of zod the stage added for its wraps, when no other `z` is left to need it.
  const added = diagnostics.some(d => d.tag === 'zod-injected')
    ? sourceFile.getImportDeclarations().find(d => d.getModuleSpecifierValue() === 'zod' && d.getNamedImports().map(n => n.getText()).join() === 'z')
    : undefined;
  const unused = added !== undefined && !sourceFile.getDescendantsOfKind(SyntaxKind.Identifier).some(id => id.getText() === 'z' && !id.getFirstAncestorByKind(SyntaxKind.ImportDeclaration));
  if (unused) added.remove();
  return [...diagnostics.filter(d => !(allKept && d.message.includes(WRAP_NOTE)) && !(unused && d.tag === 'zod-injected')), ...notes];
}

/** An object literal whose properties are all written as JSON values (objects, arrays, strings, numbers, booleans, null). */
function isJsonObject(literal: Node): boolean {
  if (!Node.isObjectLiteralExpression(literal)) return false;
  const properties = literal.getProperties();
  return properties.length > 0 && properties.every(p => Node.isPropertyAssignment(p) && isJsonValue(p.getInitializerOrThrow()));
}

function isJsonValue(value: Node): boolean {
  if (Node.isObjectLiteralExpression(value)) return value.getProperties().every(p => Node.isPropertyAssignment(p) && isJsonValue(p.getInitializerOrThrow()));
  if (Node.isArrayLiteralExpression(value)) return value.getElements().every(isJsonValue);
  if (Node.isPrefixUnaryExpression(value)) return Node.isNumericLiteral(value.getOperand());
  return Node.isStringLiteral(value) || Node.isNoSubstitutionTemplateLiteral(value) || Node.isNumericLiteral(value) ||
    Node.isTrueLiteral(value) || Node.isFalseLiteral(value) || Node.isNullLiteral(value);
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

/**
 * The spec's methods the official stage registers by their string (its map of v1 schemas): the
 * requests a server takes, the questions a client takes, and the notifications.
 */
const SPEC_REQUESTS: ReadonlySet<string> = new Set([...Object.values(REQUEST_SCHEMA_METHODS), ...Object.keys(QUESTION_METHODS)]);
const SPEC_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/message', 'notifications/tools/list_changed', 'notifications/resources/list_changed', 'notifications/prompts/list_changed',
  'notifications/resources/updated', 'notifications/progress', 'notifications/cancelled', 'notifications/initialized',
  'notifications/roots/list_changed', 'notifications/elicitation/complete',
]);

/**
 * `server.setRequestHandler(z.object({ method: z.literal('resources/subscribe') }).passthrough(), h)`:
 * a schema written for its method only (`.passthrough()` or `.loose()` keeps the params for the
 * handler). v2 takes no schema there, and the official stage leaves it (the file would stay on v1):
 * for a method of the spec it becomes `setRequestHandler('resources/subscribe', h)`, the form the
 * stage gives `SubscribeRequestSchema`. v2 then checks the params against the spec's schema of the
 * method, where this one checked none: a note says so. Returns the notes.
 */
function registerByMethodString(sourceFile: SourceFile): CodemodDiagnostic[] {
  const z = zodNamespace(sourceFile);
  if (!z) return [];
  const notes: CodemodDiagnostic[] = [];
  const edits: Edit[] = [];
  for (const call of sourceFile.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    const registrar = Node.isPropertyAccessExpression(callee) ? callee.getName() : undefined;
    const methods = registrar === 'setRequestHandler' ? SPEC_REQUESTS : registrar === 'setNotificationHandler' ? SPEC_NOTIFICATIONS : undefined;
    const [schema] = call.getArguments();
    if (!methods || call.getArguments().length !== 2 || !schema) continue;
    const literal = methodOnlySchema(schema, z);
    if (!literal || !methods.has(literal.getLiteralText())) continue;
    const method = literal.getLiteralText();
    edits.push({ start: schema.getStart(), end: schema.getEnd(), text: literal.getText() });
    const note: CodemodDiagnostic = {
      level: 'warning' as CodemodDiagnostic['level'], file: sourceFile.getFilePath(), line: schema.getStartLineNumber(),
      message: `${registrar}() registers '${method}' by its method string on v2 (it takes no schema there): the ${registrar === 'setRequestHandler' ? 'request' : 'notification'} is now checked against the spec's schema for ${method} before the handler runs, where the v1 schema checked its method only.`,
    };
    LOCATED.set(note, `${registrar}(${sourceFile.getFullText().slice(callee.getEnd() + 1, schema.getStart())}${literal.getText()}`);
    notes.push(note);
  }
  if (edits.length === 0) return [];
  sourceFile.replaceWithText(applyEdits(sourceFile.getFullText(), edits));
  // The import of zod, when these schemas were all it was for.
  const imported = sourceFile.getImportDeclarations().find(d => /^zod(\/v[34])?$/.test(d.getModuleSpecifierValue()) && (d.getNamespaceImport()?.getText() === z || d.getNamedImports().map(n => n.getText()).join() === z) && !d.getDefaultImport());
  const used = sourceFile.getDescendantsOfKind(SyntaxKind.Identifier).some(id => id.getText() === z && !id.getFirstAncestorByKind(SyntaxKind.ImportDeclaration));
  if (imported && !used) imported.remove();
  return notes;
}

/** `z.object({ method: z.literal('m') }).passthrough()` (or `.loose()`): its one literal, else undefined. */
function methodOnlySchema(schema: Node, z: string): StringLiteral | undefined {
  const loose = withoutCasts(schema);
  if (!Node.isCallExpression(loose) || loose.getArguments().length !== 0) return undefined;
  const keep = loose.getExpression();
  if (!Node.isPropertyAccessExpression(keep) || !['passthrough', 'loose'].includes(keep.getName())) return undefined;
  const object = keep.getExpression();
  if (!isZodCall(object, z, 'object')) return undefined;
  const [shape] = object.getArguments();
  const properties = Node.isObjectLiteralExpression(shape) ? shape.getProperties() : [];
  const only = properties.length === 1 && Node.isPropertyAssignment(properties[0]) ? properties[0] : undefined;
  if (!only || only.getName().replace(/['"]/g, '') !== 'method') return undefined;
  const value = only.getInitializerOrThrow();
  if (!isZodCall(value, z, 'literal')) return undefined;
  const [literal] = value.getArguments();
  return Node.isStringLiteral(literal) && value.getArguments().length === 1 ? literal : undefined;
}

function isZodCall(node: Node, z: string, name: string): node is CallExpression {
  if (!Node.isCallExpression(node)) return false;
  const callee = node.getExpression();
  return Node.isPropertyAccessExpression(callee) && callee.getName() === name && callee.getExpression().getText() === z;
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
function inlineBoundRegistrars(sourceFile: SourceFile, patched: ReadonlySet<string>): boolean {
  const edits: Edit[] = [];
  const text = sourceFile.getFullText();
  for (const statement of sourceFile.getDescendantsOfKind(SyntaxKind.VariableStatement)) {
    const [declaration, ...others] = statement.getDeclarations();
    const bound = declaration && others.length === 0 && statement.getDeclarationKind() === 'const' ? boundRegistrar(declaration.getInitializer()) : undefined;
    const name = declaration?.getNameNode();
    // Bound before its method is patched, it is the original, not a shorthand: calls through the
    // server would reach the patch (and the patch itself would call itself).
    if (!bound || !Node.isIdentifier(name) || patched.has(bound)) continue;
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

/**
 * `const original = server.tool.bind(server); (server as any).tool = (...args) => original(...args)`:
 * a patch that wraps every registration (to count, log or catch) without touching the handlers. v2
 * has no `tool`: the official stage turns the registrations into `registerTool(name, config,
 * handler)` calls, which such a patch would not see, and `server.tool.bind` would throw. Where the
 * patch only forwards the arguments, reading no more than the name (first) and the handler (last,
 * as in registerTool), and a wrapper it puts around the handler hands on all the handler's
 * arguments (the v2 context among them), it patches `registerTool` instead, and binds that. Not
 * where the project calls `registerTool` already: the patch never saw those registrations.
 * Returns the methods patched (`server.tool`), repaired or not.
 */
function retargetRegistrarPatches(sourceFile: SourceFile, registeredDirectly: ReadonlySet<string>): { changed: boolean; patched: Set<string> } {
  const patched = new Set<string>();
  const edits: Edit[] = [];
  for (const assignment of sourceFile.getDescendantsOfKind(SyntaxKind.BinaryExpression)) {
    const target = assignment.getLeft();
    if (assignment.getOperatorToken().getKind() !== SyntaxKind.EqualsToken || !Node.isPropertyAccessExpression(target) || !REGISTRARS[target.getName()]) continue;
    const receiver = withoutCasts(target.getExpression()).getText();
    if (!/^[\w$]+(?:\.[\w$]+)*$/.test(receiver)) continue;
    const method = `${receiver}.${target.getName()}`;
    patched.add(method);
    const originals = sourceFile.getDescendantsOfKind(SyntaxKind.VariableDeclaration).filter(d => boundRegistrar(d.getInitializer()) === method);
    const patch = withoutCasts(assignment.getRight());
    if (registeredDirectly.has(REGISTRARS[target.getName()]!) || originals.length !== 1 || !(Node.isArrowFunction(patch) || Node.isFunctionExpression(patch))) continue;
    const original = originals[0]!;
    if (!forwardsRegistration(patch, original)) continue;
    const bind = withoutCasts(original.getInitializerOrThrow());
    const bound = Node.isCallExpression(bind) ? bind.getExpression() : undefined;
    const name = Node.isPropertyAccessExpression(bound) ? bound.getExpression() : undefined;
    if (!Node.isPropertyAccessExpression(name)) continue;
    edits.push({ start: name.getNameNode().getStart(), end: name.getNameNode().getEnd(), text: REGISTRARS[target.getName()]! });
    edits.push({ start: target.getNameNode().getStart(), end: target.getNameNode().getEnd(), text: REGISTRARS[target.getName()]! });
  }
  if (edits.length > 0) sourceFile.replaceWithText(applyEdits(sourceFile.getFullText(), edits));
  return { changed: edits.length > 0, patched };
}

/**
 * Whether `patch` hands its arguments to the bound `original` as it got them: parameters `(...args)`
 * or `(name, ...args)`; `args` read as `args[0]` (the name, with no name parameter) or
 * `args[args.length - 1]` (the handler) and spread into calls of `original` only; the handler, if
 * replaced, replaced by a function that spreads all its own arguments into the calls it makes.
 */
function forwardsRegistration(patch: Node & { getParameters(): ParameterDeclaration[] }, original: VariableDeclaration): boolean {
  const params = patch.getParameters();
  const rest = params.at(-1);
  const first = params.length === 2 ? params[0]!.getNameNode() : undefined;
  if (!rest?.isRestParameter() || params.length > 2 || (params.length === 2 && (params[0]!.isRestParameter() || !Node.isIdentifier(first) || params[0]!.hasInitializer()))) return false;
  const args = rest.getNameNode();
  if (!Node.isIdentifier(args)) return false;
  const forwarded = first ? `${first.getText()}, ...${args.getText()}` : `...${args.getText()}`;
  const originalName = original.getNameNode();
  const uses = original.getSourceFile().getDescendantsOfKind(SyntaxKind.Identifier).filter(id => id !== originalName && id.getText() === originalName.getText() && !isMemberName(id));
  const calls = uses.map(id => { let node: Node = id; while (isCast(node.getParent())) node = node.getParentOrThrow(); return node.getParent(); });
  if (uses.length === 0 || calls.some((call, i) => !Node.isCallExpression(call) || withoutCasts(call.getExpression()) !== uses[i] || !call.getFirstAncestor(a => a === patch) || call.getArguments().map(a => a.getText()).join(', ') !== forwarded)) return false;
  for (const use of patch.getDescendantsOfKind(SyntaxKind.Identifier).filter(id => id.getText() === args.getText() && id !== args && !isMemberName(id))) {
    const parent = use.getParentOrThrow();
    if (Node.isSpreadElement(parent) && calls.includes(parent.getParent())) continue;
    if (Node.isPropertyAccessExpression(parent) && parent.getName() === 'length' && Node.isBinaryExpression(parent.getParent()) && isLastIndex(parent.getParentOrThrow().getParent(), args.getText())) continue;
    if (!Node.isElementAccessExpression(parent) || parent.getExpression() !== use) return false;
    const index = parent.getArgumentExpression()?.getText();
    if (index === '0' && !first) continue;
    if (!isLastIndex(parent, args.getText())) return false;
    const assigned = parent.getParent();
    if (Node.isBinaryExpression(assigned) && assigned.getLeft() === parent && assigned.getOperatorToken().getKind() === SyntaxKind.EqualsToken && !forwardsAll(withoutCasts(assigned.getRight()))) return false;
  }
  return true;
}

/** `args[args.length - 1]`. */
function isLastIndex(node: Node | undefined, array: string): boolean {
  return Node.isElementAccessExpression(node) && node.getExpression().getText() === array && node.getArgumentExpression()?.getText().replace(/\s+/g, '') === `${array}.length-1`;
}

/** A function whose one parameter `(...p)` is spread, whole, as the only argument of each call it is given to. */
function forwardsAll(node: Node): boolean {
  if (!(Node.isArrowFunction(node) || Node.isFunctionExpression(node))) return false;
  const [rest, ...others] = node.getParameters();
  const name = rest?.getNameNode();
  if (!rest?.isRestParameter() || others.length > 0 || !Node.isIdentifier(name)) return false;
  const uses = node.getDescendantsOfKind(SyntaxKind.Identifier).filter(id => id !== name && id.getText() === name.getText() && !isMemberName(id));
  return uses.length > 0 && uses.every(id => {
    const spread = id.getParent();
    const call = spread?.getParent();
    return Node.isSpreadElement(spread) && Node.isCallExpression(call) && call.getArguments().length === 1;
  });
}

function isCast(node: Node | undefined): boolean {
  return Node.isAsExpression(node) || Node.isSatisfiesExpression(node) || Node.isParenthesizedExpression(node) || Node.isTypeAssertion(node) || Node.isNonNullExpression(node);
}

function withoutCasts(node: Node): Node {
  let inner = node;
  while (isCast(inner)) inner = (inner as Node & { getExpression(): Node }).getExpression();
  return inner;
}

/** A property or member name (`server.tool`, `{ tool: 1 }`, `tool() {}`), not a reference to a variable. */
function isMemberName(id: Node): boolean {
  const parent = id.getParent();
  return (Node.isPropertyAccessExpression(parent) && parent.getNameNode() === id) ||
    ((Node.isPropertyAssignment(parent) || Node.isMethodDeclaration(parent) || Node.isPropertyDeclaration(parent) || Node.isPropertySignature(parent) || Node.isMethodSignature(parent)) && parent.getNameNode() === id);
}

/** `server.tool` for `server.tool.bind(server)` (through a cast or parentheses), else undefined. */
function boundRegistrar(initializer: Node | undefined): string | undefined {
  const node = initializer && withoutCasts(initializer);
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
 * `server.tool('survey', async (extra) => extra.sendRequest(...))`: a handler whose one parameter is
 * its context (a tool or prompt without arguments). The official stage maps the context's members
 * only in callbacks of two parameters or more, and leaves these on v1 names v2 does not have; here
 * they are mapped as it maps the others, in reads (`extra.mcpReq.send(...)`) and in type queries
 * (`typeof extra.mcpReq.send`; an optional `http?.` member has no type-query form and is left).
 * Returns whether the file changed.
 */
function remapLoneContexts(sourceFile: SourceFile): boolean {
  const tsApi = ts as unknown as TS;
  const file = sourceFile.compilerNode as unknown as import('typescript').SourceFile;
  const edits: Edit[] = [];
  for (const handler of requestHandlers(sourceFile.compilerNode)) {
    const param = handler.fn.parameters[0];
    if (handler.sdk !== 'v1' || handler.ctxParamIndex !== 0 || handler.fn.parameters.length !== 1 || !param || !tsApi.isIdentifier(param.name) || !handler.fn.body) continue;
    const context = param.name;
    const visit = (node: import('typescript').Node): void => {
      const member = tsApi.isPropertyAccessExpression(node) ? { left: node.expression, right: node.name } : tsApi.isQualifiedName(node) ? { left: node.left, right: node.right } : undefined;
      const path = member && tsApi.isIdentifier(member.left) && resolveIdentifier(tsApi, member.left)?.nameNode === context ? CONTEXT_MEMBERS[member.right.text] : undefined;
      // `sessionId` stays where it is; an optional `http?.` member has no type-query form.
      if (path && path !== member!.right.text && !(tsApi.isQualifiedName(node) && path.includes('?'))) edits.push({ start: member!.right.getStart(file), end: member!.right.getEnd(), text: path });
      else node.forEachChild(visit);
    };
    visit(handler.fn.body);
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
    // `description: description` reads as the shorthand a person writes.
    const sameName = new RegExp(`(?<![\\w$.])([\\w$]+)\\s*:\\s*(['"\`])${placeholder}\\2`);
    const shorthand = sameName.exec(text);
    if (shorthand && shorthand[1] === original) text = text.replace(sameName, () => original);
    text = text.replace(literal, () => original);
    for (const d of diagnostics) d.message = d.message.replaceAll(placeholder, original);
  }
  sourceFile.replaceWithText(text);
}

/**
 * The request handlers registered in a file, found by syntax alone (no checker), one per registration
 * call: a local registrar (`const guarded = (name, ...) => server.tool(name, ...)`) registers one
 * handler per call of it, all through the same call, which the repairs edit once.
 */
export function requestHandlers(file: ts.SourceFile): Handler[] {
  const tsApi = ts as unknown as TS;
  const compiled = file as unknown as import('typescript').SourceFile;
  const seen = new Set<import('typescript').CallExpression>();
  return discoverHandlers(tsApi, compiled, new SdkResolver(tsApi, compiled, undefined)).filter(h => {
    if (seen.has(h.registrationCall)) return false;
    seen.add(h.registrationCall);
    return true;
  });
}
