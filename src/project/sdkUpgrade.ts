import { getMigration, type Diagnostic as CodemodDiagnostic, type TransformContext as CodemodContext } from '@modelcontextprotocol/codemod';
import { Node, SyntaxKind, ts, type SourceFile } from 'ts-morph';
import type { Diagnostic } from '../report/model.js';
import { applyEdits, type Edit } from '../../transforms/mrtr/text.js';
import { restoreIndentation } from './indentation.js';
import { lineAfterRelayout, restoreRegistrationLayout } from './registrationLayout.js';
import { afterOfficialStage, beforeOfficialStage, LOCATED } from './stageRepairs.js';

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

/** `registeredDirectly`: the v2 registration methods the project's v1 code already calls (stageRepairs.ts). */
export function runSdkUpgrade(sourceFile: SourceFile, projectType: ProjectType, displayPath: string, registeredDirectly: ReadonlySet<string>): SdkStageResult {
  const migration = getMigration('v1-to-v2');
  if (!migration) throw new Error('@modelcontextprotocol/codemod has no v1-to-v2 migration; reinstall mrtr-migrate.');
  const original = sourceFile.getFullText();
  const header = headerOf(sourceFile);
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
    const before = beforeOfficialStage(sourceFile, registeredDirectly);
    if (before.changed) changes++;
    held = before.held;
    for (const transform of migration.transforms) {
      const result = transform.apply(sourceFile, { projectType });
      changes += result.changesCount;
      found.push(...result.diagnostics);
    }
    found.push(...before.notes);
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
  try {
    found = afterOfficialStage(sourceFile, original, held, found);
  } catch (error) {
    return failed(error);
  }
  const shift = restoreHeader(sourceFile, header);
  for (const d of found) d.line += shift;
  insertMarkerComments(sourceFile, found);
  // Whitespace at line starts only: the lines (and the diagnostics' line numbers) stay where they are.
  const reindented = restoreIndentation(sourceFile.getFilePath(), original, sourceFile.getFullText());
  if (reindented !== sourceFile.getFullText()) sourceFile.replaceWithText(reindented);
  // A registration written an argument per line is written so again (this adds lines: the diagnostics follow).
  const relaid = sourceFile.getFullText() === original ? undefined : restoreRegistrationLayout(sourceFile.getFilePath(), original, sourceFile.getFullText());
  if (relaid && relaid.added.length > 0) {
    sourceFile.replaceWithText(relaid.text);
    for (const d of found) d.line = lineAfterRelayout(d.line, relaid.added);
  }
  requoteModuleSpecifiers(sourceFile, original);
  // A repair's note on a piece of code names the line it ends up on.
  const final = sourceFile.getFullText();
  for (const d of found) {
    const at = LOCATED.has(d) ? final.indexOf(LOCATED.get(d)!) : -1;
    if (at !== -1) d.line = lineCount(final.slice(0, at)) + 1;
  }
  return {
    changed: final !== original,
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

/** What comes before a file's first statement: its shebang, header comments and the blank lines between them. */
function headerOf(sourceFile: SourceFile): string {
  const first = sourceFile.getStatements()[0];
  return sourceFile.getFullText().slice(0, first ? first.getStart() : 0);
}

/**
 * The official transforms rewrite a file's imports whole, and with the first one go the shebang and
 * the header comment it leads (a file's licence or its doc comment): they are put back above the
 * first statement, where nothing else took their place. Returns the lines added.
 */
function restoreHeader(sourceFile: SourceFile, header: string): number {
  const now = headerOf(sourceFile);
  if (header.trim() === '' || now === header) return 0;
  const text = sourceFile.getFullText();
  const comments = (ts.getLeadingCommentRanges(header, header.startsWith('#!') ? header.indexOf('\n') + 1 : 0) ?? []).map(c => header.slice(c.pos, c.end));
  const shebang = /^#![^\n]*\n(?:[ \t]*\r?\n)*/.exec(header)?.[0];
  let restored: string;
  let replaced: number;
  // The header comments gone, and nothing but a shebang in their place: the whole header goes back.
  if (comments.length > 0 && comments.every(c => !text.includes(c)) && now.replace(/^#![^\n]*/, '').trim() === '') [restored, replaced] = [header, now.length];
  else if (shebang && !text.startsWith('#!')) [restored, replaced] = [shebang, 0];
  else return 0;
  sourceFile.replaceWithText(restored + text.slice(replaced));
  return lineCount(restored) - lineCount(text.slice(0, replaced));
}

function lineCount(text: string): number {
  return text.match(/\n/g)?.length ?? 0;
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
