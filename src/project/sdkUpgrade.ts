import { getMigration, type Diagnostic as CodemodDiagnostic, type TransformContext as CodemodContext } from '@modelcontextprotocol/codemod';
import { Node, SyntaxKind, ts, type SourceFile } from 'ts-morph';
import { CONTEXT_NAME, contextRename } from '../analysis/contextParam.js';
import { discoverHandlers } from '../analysis/handlers.js';
import { SdkResolver } from '../analysis/sdk.js';
import type { Handler, TS } from '../analysis/types.js';
import type { Diagnostic } from '../report/model.js';
import { applyEdits, type Edit } from '../../transforms/mrtr/text.js';
import { restoreIndentation } from './indentation.js';

/**
 * The v1-to-v2 stage: the official `@modelcontextprotocol/codemod` transforms, run on our in-memory
 * project so the MRTR rewrite sees v2 code. Per file this mirrors the official runner: a transform
 * that throws rolls the file back, advisory notes are dropped for files it did not change, comment
 * markers (`@mcp-codemod-error`) are inserted for diagnostics that ask for one, a lost shebang is
 * put back.
 */

export type ProjectType = CodemodContext['projectType'];

export const CODEMOD_MARKER = '@mcp-codemod-error';

export interface SdkStageResult {
  changed: boolean;
  diagnostics: Diagnostic[];
  /** The stage added `import { z } from 'zod'`: the manifest may need zod. */
  zodInjected: boolean;
}

export { mentionsV1Sdk } from './prefilter.js';

/**
 * The official stage writes the module specifiers it rewrites in double quotes. In a file whose
 * imports all used single quotes, they get single quotes back, so the import lines read as the
 * file's other lines do.
 */
function requoteModuleSpecifiers(sourceFile: SourceFile, original: string): void {
  const specifiers = [...original.matchAll(/^\s*(?:import|export)\b[^;'"]*?\bfrom\s+(['"])/gm)].map(m => m[1]);
  if (specifiers.length === 0 || specifiers.some(q => q !== "'")) return;
  const edits: Edit[] = [];
  for (const statement of sourceFile.getStatements()) {
    if (!Node.isImportDeclaration(statement) && !Node.isExportDeclaration(statement)) continue;
    const literal = statement.getModuleSpecifier();
    if (!literal || !literal.getText().startsWith('"') || literal.getLiteralText().includes("'")) continue;
    edits.push({ start: literal.getStart(), end: literal.getEnd(), text: `'${literal.getLiteralText()}'` });
  }
  if (edits.length > 0) sourceFile.replaceWithText(applyEdits(sourceFile.getFullText(), edits));
}

/** Client, server or both, from the manifest's v2 dependencies, else from the v1 import paths. */
export function detectProjectType(dependencies: Set<string>, texts: Iterable<string>): ProjectType {
  const hasClient = dependencies.has('@modelcontextprotocol/client');
  const hasServer = dependencies.has('@modelcontextprotocol/server');
  if (hasClient && hasServer) return 'both';
  if (hasClient) return 'client';
  if (hasServer) return 'server';
  let client = false;
  let server = false;
  for (const text of texts) {
    client ||= /['"`]@modelcontextprotocol\/sdk\/client(?:\/|['"`])/.test(text);
    server ||= /['"`]@modelcontextprotocol\/sdk\/server(?:\/|['"`])/.test(text);
  }
  return client && server ? 'both' : client ? 'client' : server ? 'server' : 'unknown';
}

export function runSdkUpgrade(sourceFile: SourceFile, projectType: ProjectType, displayPath: string): SdkStageResult {
  const migration = getMigration('v1-to-v2');
  if (!migration) throw new Error('@modelcontextprotocol/codemod has no v1-to-v2 migration; reinstall mrtr-migrate.');
  const original = sourceFile.getFullText();
  const shebang = /^#![^\n]*\n(?:[ \t]*\r?\n)*/.exec(original)?.[0];
  /** A transform that throws leaves the file as it was, with the error. */
  const failed = (error: unknown): SdkStageResult => {
    sourceFile.replaceWithText(original);
    return {
      changed: false,
      zodInjected: false,
      diagnostics: [{
        level: 'error',
        source: 'sdk-upgrade',
        file: displayPath,
        line: 1,
        code: 'sdk-upgrade/transform-failed',
        message: `the v1-to-v2 SDK upgrade failed on this file and left it as it was: ${error instanceof Error ? error.message : String(error)}`,
      }],
    };
  };
  let changes = 0;
  let found: CodemodDiagnostic[] = [];
  let held = new Map<string, string>();
  try {
    if (nameDestructuredContexts(sourceFile)) changes++;
    held = holdRegistrationNames(sourceFile);
    for (const transform of migration.transforms) {
      const result = transform.apply(sourceFile, { projectType });
      changes += result.changesCount;
      found.push(...result.diagnostics);
    }
  } catch (error) {
    return failed(error);
  }
  if (changes === 0) found = found.filter(d => !d.advisoryOnly);
  for (const d of found) {
    if (!d.resolveCurrentLine) continue;
    try {
      d.line = d.resolveCurrentLine();
    } catch {
      delete d.insertComment;
    }
    delete d.resolveCurrentLine;
  }
  // After the diagnostics found their lines (its edits keep every line where it is). An alias it
  // remaps names a v2 type: the stage's doubt about parameters annotated with it is settled.
  let remapped: Set<string>;
  try {
    restoreRegistrationNames(sourceFile, held, found);
    remapped = remapContextMemberTypes(sourceFile);
  } catch (error) {
    return failed(error);
  }
  found = found.filter(d => !remapped.has(/^Parameter annotation '([\w$]+)' mentions a context type/.exec(d.message)?.[1] ?? ''));
  insertMarkerComments(sourceFile, found);
  if (shebang && !sourceFile.getFullText().startsWith('#!')) {
    sourceFile.insertText(0, shebang);
    const shift = shebang.match(/\n/g)?.length ?? 0;
    for (const d of found) d.line += shift;
  }
  // Whitespace at line starts only: the lines (and the diagnostics' line numbers) stay where they are.
  const reindented = restoreIndentation(sourceFile.getFilePath(), original, sourceFile.getFullText());
  if (reindented !== sourceFile.getFullText()) sourceFile.replaceWithText(reindented);
  requoteModuleSpecifiers(sourceFile, original);
  return {
    changed: sourceFile.getFullText() !== original,
    zodInjected: found.some(d => d.tag === 'zod-injected'),
    diagnostics: found.map(d => ({
      level: d.level === 'error' ? 'error' : d.level === 'warning' ? 'warning' : 'info',
      source: 'sdk-upgrade',
      file: displayPath,
      line: d.line,
      code: d.category === 'v2-gap' ? 'sdk-upgrade/v2-gap' : d.insertComment ? 'sdk-upgrade/marker' : `sdk-upgrade/${d.level}`,
      message: d.message,
    })),
  };
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
 * but leaves `server.tool(GREET, ...)` as it was (with a marker; v2 has no `tool`): while it runs, a
 * registration's name that is not a literal is held in a placeholder literal, then put back.
 */
function holdRegistrationNames(sourceFile: SourceFile): Map<string, string> {
  const held = new Map<string, string>();
  const edits: Edit[] = [];
  for (const handler of requestHandlers(sourceFile.compilerNode)) {
    const [name, ...rest] = handler.registrationCall.arguments;
    if (handler.sdk !== 'v1' || !['tool', 'prompt', 'resource'].includes(handler.registration) || !name || rest.length === 0) continue;
    if (ts.isStringLiteralLike(name) || name.getText().includes('\n')) continue;
    const placeholder = `__mrtr_migrate_name_${held.size}__`;
    held.set(placeholder, name.getText());
    edits.push({ start: name.getStart(), end: name.getEnd(), text: `'${placeholder}'` });
  }
  if (edits.length > 0) sourceFile.replaceWithText(applyEdits(sourceFile.getFullText(), edits));
  return held;
}

/** Each held name back where the stage put its placeholder (once), in the text and in the stage's messages. */
function restoreRegistrationNames(sourceFile: SourceFile, held: Map<string, string>, diagnostics: CodemodDiagnostic[]): void {
  if (held.size === 0) return;
  let text = sourceFile.getFullText();
  for (const [placeholder, original] of held) {
    const literal = new RegExp(`(['"\`])${placeholder}\\1`, 'g');
    if ((text.match(literal) ?? []).length !== 1) throw new Error(`the registration name ${original} could not be put back after the official upgrade`);
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

/** The official runner's marker insertion, for one file: one comment per line, never inside a literal. */
function insertMarkerComments(sourceFile: SourceFile, diagnostics: CodemodDiagnostic[]): void {
  const wanted = diagnostics.filter(d => d.insertComment).sort((a, b) => b.line - a.line);
  const merged: { line: number; message: string }[] = [];
  for (const d of wanted) {
    const previous = merged.at(-1);
    if (previous && previous.line === d.line) previous.message += ' | ' + d.message;
    else merged.push({ line: d.line, message: d.message });
  }
  for (const marker of merged) {
    const text = sourceFile.getFullText();
    const lines = text.split('\n');
    const index = marker.line - 1;
    if (index < 0 || index >= lines.length) continue;
    if (index > 0 && lines[index - 1]!.includes(CODEMOD_MARKER)) continue;
    const lineStart = lines.slice(0, index).reduce((sum, l) => sum + l.length + 1, 0);
    if (insideLiteral(sourceFile.getDescendantAtPos(lineStart))) continue;
    const indent = /^(\s*)/.exec(lines[index]!)?.[1] ?? '';
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    sourceFile.insertText(lineStart, `${indent}/* ${CODEMOD_MARKER} ${marker.message.replaceAll('*/', '* /')} */${eol}`);
  }
}

const LITERAL_KINDS = new Set([
  SyntaxKind.NoSubstitutionTemplateLiteral,
  SyntaxKind.TemplateHead,
  SyntaxKind.TemplateMiddle,
  SyntaxKind.TemplateTail,
  SyntaxKind.StringLiteral,
  SyntaxKind.JsxText,
]);

function insideLiteral(node: Node | undefined): boolean {
  for (let current = node; current; current = current.getParent()) {
    if (LITERAL_KINDS.has(current.getKind())) return true;
  }
  return false;
}
