import { readFileSync } from 'node:fs';
import { Project, ts, type SourceFile } from 'ts-morph';
import { classify, type FileRole } from './prefilter.js';
import { splitBom } from './sourceText.js';

export { classify };

/** A discovered file as read from disk. */
export interface ReadFile {
  path: string;
  /** The bytes as text, BOM included. */
  raw: string;
  /** Without BOM: what the compiler and the transforms see. */
  text: string;
  /** Why the file goes into the project: `rewrite` (it may change) or `context` (read for cross-file facts). */
  role: FileRole;
}

export function readSource(path: string, sdkUpgrade: boolean): ReadFile {
  const raw = readFileSync(path, 'utf8');
  const { text } = splitBom(raw);
  return { path, raw, text, role: classify(text, sdkUpgrade) };
}

/** One in-memory project for the run; files are added from the texts read, never from the tsconfig's list. */
export function createProject(options: ts.CompilerOptions): Project {
  return new Project({ compilerOptions: options, skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
}

/** The first syntax error of a file, as `line:column message`, or undefined when it parses. */
export function syntaxError(project: Project, sourceFile: SourceFile): string | undefined {
  const program = project.getProgram().compilerObject;
  const compiled = program.getSourceFile(sourceFile.getFilePath()) ?? sourceFile.compilerNode;
  const first = program.getSyntacticDiagnostics(compiled).find(d => d.category === ts.DiagnosticCategory.Error);
  if (!first) return undefined;
  const where = first.start !== undefined ? compiled.getLineAndCharacterOfPosition(first.start) : { line: 0, character: 0 };
  return `${where.line + 1}:${where.character + 1} ${ts.flattenDiagnosticMessageText(first.messageText, ' ')}`;
}
