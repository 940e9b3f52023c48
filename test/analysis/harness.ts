import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { analyzeFile, type FileAnalysis } from '../../src/analysis/index.js';

/** Shared plumbing for the analysis tests: the fixture files, one typed program over them, and both analysis modes. */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = join(ROOT, 'fixtures/analysis');

const SOURCE_EXTENSIONS = /\.(ts|mts|cts|js|mjs|cjs)$/;

export function fixtureFiles(dir = FIXTURES): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...fixtureFiles(path));
    else if (SOURCE_EXTENSIONS.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files.sort();
}

export const isJavaScript = (file: string): boolean => /\.(js|mjs|cjs)$/.test(file);

/** Strict options resolving the installed SDK declarations from the package's node_modules. */
export const PROGRAM_OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node'],
  allowJs: false,
  checkJs: false,
  skipLibCheck: true,
  esModuleInterop: true,
  noEmit: true,
};

export function createFixtureProgram(files: string[]): ts.Program {
  return ts.createProgram({ rootNames: files, options: PROGRAM_OPTIONS });
}

export function analyzeUntyped(file: string, text = readFileSync(file, 'utf8')): FileAnalysis {
  const kind = file.endsWith('.js') || file.endsWith('.mjs') || file.endsWith('.cjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  return analyzeFile({ ts, sourceFile });
}

/** Typed analysis; files the program does not hold (JavaScript, since allowJs is off) have no checker. */
export function analyzeTyped(program: ts.Program, file: string): FileAnalysis {
  const sourceFile = program.getSourceFile(file);
  if (!sourceFile) return analyzeUntyped(file);
  return analyzeFile({ ts, sourceFile, program });
}

/** Declaration and library files parsed once and shared by the snippet programs of a test file. */
const sharedSourceFiles = new Map<string, ts.SourceFile | undefined>();

/** A one-file program over in-memory source (placed among the fixtures so the SDKs resolve). */
export function snippetProgram(text: string, fileName = '__snippet__.ts'): { program: ts.Program; sourceFile: ts.SourceFile } {
  const { program, sourceFiles } = snippetsProgram({ [fileName]: text });
  return { program, sourceFile: sourceFiles[0]! };
}

/** A program over several in-memory files (by name, placed among the fixtures), in the order given. */
export function snippetsProgram(files: Record<string, string>): { program: ts.Program; sourceFiles: ts.SourceFile[] } {
  const texts = new Map(Object.entries(files).map(([name, text]) => [join(FIXTURES, name), text]));
  const host = ts.createCompilerHost(PROGRAM_OPTIONS, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, languageVersion, onError, shouldCreate) => {
    const text = texts.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, languageVersion, true);
    if (!sharedSourceFiles.has(name)) sharedSourceFiles.set(name, getSourceFile(name, languageVersion, onError, shouldCreate));
    return sharedSourceFiles.get(name);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = name => texts.has(name) || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = name => texts.get(name) ?? readFile(name);
  // A folder that holds only in-memory files exists for module resolution.
  const folders = new Set([...texts.keys()].map(name => dirname(name)));
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = name => folders.has(name) || (directoryExists?.(name) ?? true);
  const program = ts.createProgram({ rootNames: [...texts.keys()], options: PROGRAM_OPTIONS, host });
  return { program, sourceFiles: [...texts.keys()].map(name => program.getSourceFile(name)!) };
}

/** Analyses in-memory source, with a checker (one-file program) or without (bare parse). */
export function analyzeSnippet(text: string, options: { typed: boolean; fileName?: string }): FileAnalysis {
  const fileName = options.fileName ?? '__snippet__.ts';
  if (!options.typed) return analyzeUntyped(join(FIXTURES, fileName), text);
  const { program, sourceFile } = snippetProgram(text, fileName);
  return analyzeFile({ ts, sourceFile, program });
}

/** Both modes at once, for assertions that must hold with and without a checker. */
export function analyzeBoth(text: string, fileName?: string): { typed: FileAnalysis; untyped: FileAnalysis } {
  return { typed: analyzeSnippet(text, { typed: true, fileName }), untyped: analyzeSnippet(text, { typed: false, fileName }) };
}

export { ts };
