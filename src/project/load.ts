import { readFileSync, statSync } from 'node:fs';
import { Project, ts, type ResolutionHost, type ResolutionHostFactory, type SourceFile } from 'ts-morph';
import { classify, type FileRole } from './prefilter.js';
import { standardPath } from './sourceFiles.js';
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

/**
 * Larger sources the text check would have parsed are generated or vendored, not hand-written
 * servers: listed, never parsed. A parsed file's cost grows linearly with its size (about 2.5 s and
 * 250 MiB more per MB for a v2 server file, 9 s and 700 MiB for a v1 one: scripts/bench-file-size.mjs),
 * so this bounds one file's cost; a file the text check skips costs a read and a few regular
 * expressions at any size up to MAX_READ_BYTES.
 */
export const MAX_SOURCE_BYTES = 5 * 1024 * 1024;

/** Beyond this a file is not even read. */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

export function readSource(path: string, sdkUpgrade: boolean): ReadFile {
  const size = statSync(path).size;
  if (size > MAX_READ_BYTES) throw new Error(`it is ${(size / 1024 / 1024).toFixed(1)} MB, over the ${MAX_READ_BYTES / 1024 / 1024} MB limit for source files`);
  const bytes = readFileSync(path);
  const raw = decodeSource(bytes);
  const { text } = splitBom(raw);
  const role = classify(text, sdkUpgrade);
  if (role !== 'skip' && bytes.length > MAX_SOURCE_BYTES) {
    throw new Error(`it is ${(bytes.length / 1024 / 1024).toFixed(1)} MB, over the ${MAX_SOURCE_BYTES / 1024 / 1024} MB limit for the files the run parses`);
  }
  return { path, raw, text, role };
}

/**
 * The file's text, refusing what would not survive being written back as UTF-8: a rewrite of a
 * Latin-1 or UTF-16 file decoded as UTF-8 would replace its characters for good.
 */
export function decodeSource(bytes: Buffer): string {
  if (bytes.length > MAX_READ_BYTES) {
    throw new Error(`it is ${(bytes.length / 1024 / 1024).toFixed(1)} MB, over the ${MAX_READ_BYTES / 1024 / 1024} MB limit for source files`);
  }
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new Error('it is UTF-16 encoded; convert it to UTF-8 to migrate it');
  }
  if (bytes.includes(0)) {
    const utf16 = utf16WithoutBom(bytes);
    if (utf16) throw new Error(`it is ${utf16} encoded (without a byte order mark); convert it to UTF-8 to migrate it`);
    throw new Error('it contains NUL bytes (a binary file?)');
  }
  try {
    // ignoreBOM keeps a BOM in the text, so splitBom sees it and the write puts it back.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Error('it is not valid UTF-8; convert it to UTF-8 to migrate it');
  }
}

/**
 * UTF-16 without a BOM, as some Windows editors save it: source code is mostly ASCII, so one byte of
 * nearly every pair is zero, always on the same side (the high byte: odd offsets in LE, even in BE).
 */
function utf16WithoutBom(bytes: Buffer): 'UTF-16LE' | 'UTF-16BE' | undefined {
  const pairs = Math.floor(Math.min(bytes.length, 64 * 1024) / 2);
  if (pairs === 0) return undefined;
  let zeroEven = 0;
  let zeroOdd = 0;
  for (let i = 0; i < pairs; i++) {
    if (bytes[2 * i] === 0) zeroEven++;
    if (bytes[2 * i + 1] === 0) zeroOdd++;
  }
  if (zeroOdd >= pairs * 0.6 && zeroEven <= pairs * 0.02) return 'UTF-16LE';
  if (zeroEven >= pairs * 0.6 && zeroOdd <= pairs * 0.02) return 'UTF-16BE';
  return undefined;
}

/**
 * One in-memory project for the run; files are added from the texts read, never from the tsconfig's
 * list. Where the run has read a file (`texts`, by absolute path), the project's file system answers
 * with that text: the compiler sees what the run read, and a file added by its path
 * (`addSourceFileAtPath`) is parsed once, from that text.
 */
export function createProject(options: ts.CompilerOptions, texts: ReadonlyMap<string, string> = new Map(), resolution?: ResolutionHostFactory): Project {
  let resolver: ResolutionHost | undefined;
  const resolutionHost: ResolutionHostFactory | undefined = resolution && ((host, getOptions) => (resolver = resolution(host, getOptions)));
  const project = new Project({ compilerOptions: options, skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true, resolutionHost });
  if (resolver) resolvers.set(project, resolver);
  withModuleFormats(project, options);
  if (texts.size > 0) {
    const byPath = new Map([...texts].map(([file, text]) => [standardPath(file), text]));
    const fileSystem = project.getFileSystem();
    const readSync = fileSystem.readFileSync.bind(fileSystem);
    const read = fileSystem.readFile.bind(fileSystem);
    fileSystem.readFileSync = (file, encoding) => byPath.get(standardPath(file)) ?? readSync(file, encoding);
    fileSystem.readFile = (file, encoding) => {
      const text = byPath.get(standardPath(file));
      return text !== undefined ? Promise.resolve(text) : read(file, encoding);
    };
  }
  return project;
}

const resolvers = new WeakMap<Project, ResolutionHost>();

/** The module resolution the project was created with (linkedPackages.ts), for programs built beside it. */
export function resolverOf(project: Project): ResolutionHost {
  return resolvers.get(project) ?? {};
}

interface DocumentRegistry {
  createOrUpdateSourceFile(...args: unknown[]): ts.SourceFile;
  acquireDocument(...args: unknown[]): ts.SourceFile;
}

/**
 * ts-morph 28 parses files without telling the compiler whether each is an ES module or CommonJS
 * (`impliedNodeFormat`), so under `module: node16/nodenext` every file of an ESM package would be
 * checked as CommonJS: imports resolved through `require` conditions, ESM-only syntax flagged.
 * Its document registry is the one place every parsed file passes through; the format is set there,
 * as the compiler's own host would set it (from the nearest package.json "type" and the extension).
 */
export function withModuleFormats(project: Project, options: ts.CompilerOptions): void {
  const registry = (project as unknown as { _context?: { compilerFactory?: { documentRegistry?: DocumentRegistry } } })._context?.compilerFactory?.documentRegistry;
  if (!registry) return;
  const cache = ts.createModuleResolutionCache(ts.sys.getCurrentDirectory(), name => name, options);
  const host: ts.ModuleResolutionHost = ts.sys;
  const withFormat = (file: ts.SourceFile): ts.SourceFile => {
    if (file.impliedNodeFormat === undefined) {
      const format = ts.getImpliedNodeFormatForFile(file.fileName as ts.Path, cache.getPackageJsonInfoCache(), host, options);
      if (format !== undefined) file.impliedNodeFormat = format;
    }
    return file;
  };
  const create = registry.createOrUpdateSourceFile.bind(registry);
  const acquire = registry.acquireDocument.bind(registry);
  registry.createOrUpdateSourceFile = (...args) => withFormat(create(...args));
  registry.acquireDocument = (...args) => withFormat(acquire(...args));
}

/**
 * The compiler is given `textFor(file)` instead of a file's own text where it says so (the
 * declarations of a module, declarationStubs.ts). Set before the first program: through the same
 * document registry every parsed file passes through.
 */
export function withTextReplacements(project: Project, textFor: (fileName: string) => string | undefined): void {
  const registry = (project as unknown as { _context?: { compilerFactory?: { documentRegistry?: DocumentRegistry } } })._context?.compilerFactory?.documentRegistry;
  if (!registry) return;
  const replaced = (fileName: unknown, snapshot: unknown): unknown => {
    const text = typeof fileName === 'string' ? textFor(fileName) : undefined;
    return text === undefined ? snapshot : ts.ScriptSnapshot.fromString(text);
  };
  const create = registry.createOrUpdateSourceFile.bind(registry);
  const acquire = registry.acquireDocument.bind(registry);
  registry.createOrUpdateSourceFile = (fileName, settings, snapshot, ...rest) => create(fileName, settings, replaced(fileName, snapshot), ...rest);
  registry.acquireDocument = (fileName, settings, snapshot, ...rest) => acquire(fileName, settings, replaced(fileName, snapshot), ...rest);
}

/**
 * The first syntax error of a file, as `line:column message`, or undefined when it parses. Read from
 * the parse itself: no program is built for it (the first program comes once the broken files are out).
 */
export function syntaxError(sourceFile: SourceFile): string | undefined {
  const compiled = sourceFile.compilerNode as ts.SourceFile & { parseDiagnostics?: readonly ts.Diagnostic[] };
  const first = compiled.parseDiagnostics?.find(d => d.category === ts.DiagnosticCategory.Error);
  if (!first) return undefined;
  const where = first.start !== undefined ? compiled.getLineAndCharacterOfPosition(first.start) : { line: 0, character: 0 };
  return `${where.line + 1}:${where.character + 1} ${ts.flattenDiagnosticMessageText(first.messageText, ' ')}`;
}
