import path from 'node:path';
import { ts } from 'ts-morph';
import { isDeclarationFileName, standardPath } from './sourceFiles.js';

/**
 * The compiler follows every import of the files the run parses, so an application's other modules
 * are parsed, bound and kept in memory only to give a few exported names their types (and through
 * their own imports, the modules those import, down the whole graph). A module the run skipped
 * (no site, no SDK use) that cannot import any parsed file, even through other modules, is given to
 * the compiler as its declarations only (`export declare function total(items: Item[]): number;`),
 * as the compiler's own declaration emit writes them without a program (`transpileDeclaration`, the
 * isolatedDeclarations emit). Only where that emit is exact, that is reports nothing: the types the
 * parsed files see are then the same, and the modules the bodies alone imported are never loaded.
 *
 * Why such a module cannot change the migration: its bodies cannot call a helper or construct a
 * class of a parsed file (it imports none), hold a push-style call (it was skipped), or be a caller
 * the cross-file checks look for; where one of these is not certain (an import that leaves the files
 * read, a JavaScript module, a declaration the emit cannot write alone), the module is given whole.
 */
export class DeclarationStubs {
  private readonly stubs = new Map<string, string | null>();
  private candidates: Set<string> | undefined;
  /** For each file read, the files read that import it (statically, dynamically, re-exporting, by reference). */
  private readonly importers = new Map<string, string[]>();

  constructor(
    /** Every source the run read, by path, with its text. */
    private readonly texts: ReadonlyMap<string, string>,
    /** The sources the run parses (rewrite and context files). */
    private readonly parsed: ReadonlySet<string>,
    private readonly options: ts.CompilerOptions,
  ) {}

  /** The text the compiler is given for `fileName` instead of the file's own, if any. */
  textFor(fileName: string): string | undefined {
    const file = standardPath(fileName);
    const cached = this.stubs.get(file);
    if (cached !== undefined) return cached ?? undefined;
    let stub: string | null = null;
    this.candidates ??= this.findCandidates();
    if (this.candidates.has(file)) {
      const output = ts.transpileDeclaration(this.texts.get(file)!, { fileName: file, compilerOptions: emitOptions(this.options), reportDiagnostics: true });
      if (!output.diagnostics?.length) stub = output.outputText;
    }
    this.stubs.set(file, stub);
    return stub ?? undefined;
  }

  /** The files read that import `fileName` (by standard path), parsed or not. */
  importersOf(fileName: string): readonly string[] {
    this.candidates ??= this.findCandidates();
    return this.importers.get(standardPath(fileName)) ?? [];
  }

  /**
   * The skipped TypeScript modules from which no chain of imports (static, dynamic, re-exports,
   * `/// <reference path>`) reaches a parsed file or leaves the files read: found backwards from
   * those, over the imports of every file read.
   */
  private findCandidates(): Set<string> {
    const cache = ts.createModuleResolutionCache(ts.sys.getCurrentDirectory(), name => name, this.options);
    const importers = this.importers;
    const reaching: string[] = [];
    const known = new Map<string, string>();
    for (const [file, text] of this.texts) known.set(standardPath(file), text);
    // The files read exist; other lookups are asked of the disk once each.
    const exists = new Map<string, boolean>();
    const once = (key: string, ask: () => boolean): boolean => exists.get(key) ?? exists.set(key, ask()).get(key)!;
    const host: ts.ModuleResolutionHost = {
      ...ts.sys,
      fileExists: file => known.has(file) || once(`f:${file}`, () => ts.sys.fileExists(file)),
      directoryExists: dir => once(`d:${dir}`, () => ts.sys.directoryExists(dir)),
    };
    const parsed = new Set([...this.parsed].map(standardPath));
    for (const [file, text] of known) {
      // A parsed file reaches itself; its imports are recorded for importersOf only.
      if (parsed.has(file)) reaching.push(file);
      const info = ts.preProcessFile(text, true, true);
      const targets = [
        ...info.importedFiles.map(({ fileName }) => ts.resolveModuleName(fileName, file, this.options, host, cache).resolvedModule),
        ...info.referencedFiles.map(({ fileName }) => ({ resolvedFileName: path.resolve(path.dirname(file), fileName), isExternalLibraryImport: false })),
      ];
      for (const target of targets) {
        if (!target || target.isExternalLibraryImport || isDeclarationFileName(target.resolvedFileName)) continue;
        const to = standardPath(target.resolvedFileName);
        if (!known.has(to)) reaching.push(file); // a module the run did not read: what it imports is unknown
        else if (importers.has(to)) importers.get(to)!.push(file);
        else importers.set(to, [file]);
      }
    }
    const reaches = new Set<string>(reaching);
    for (let i = 0; i < reaching.length; i++) {
      for (const importer of importers.get(reaching[i]!) ?? []) {
        if (reaches.has(importer)) continue;
        reaches.add(importer);
        reaching.push(importer);
      }
    }
    return new Set([...known.keys()].filter(file => !reaches.has(file) && /\.(?:ts|mts|cts|tsx)$/.test(file) && !isDeclarationFileName(file)));
  }
}

/**
 * The project's options without those the declaration emit of one file rejects or does not need, and
 * without those that would make it leave something out (`stripInternal` drops `@internal` exports).
 */
function emitOptions(options: ts.CompilerOptions): ts.CompilerOptions {
  const {
    allowJs, checkJs, composite, incremental, noEmit, emitDeclarationOnly, declarationDir, outDir, outFile, tsBuildInfoFile, configFilePath, paths,
    stripInternal, removeComments, declarationMap, sourceMap, inlineSourceMap, inlineSources, ...rest
  } = options;
  return rest;
}
