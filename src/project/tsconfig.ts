import { existsSync } from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import { MigrateError } from './errors.js';

export interface LoadedTsconfig {
  /** Absolute path, or undefined when none was found and defaults are used. */
  file: string | undefined;
  options: ts.CompilerOptions;
  /** The files the tsconfig itself lists (its `files` / `include` / `exclude`), absolute; undefined without one. */
  fileNames: string[] | undefined;
  /**
   * Problems in the tsconfig that did not stop the run: it could not be parsed (default options were
   * used), an `extends` could not be read (its options are missing), or TypeScript rejects an option.
   * Printed on the terminal; `--check` refuses to run on them.
   */
  warnings: string[];
}

/** Used without a tsconfig: what a current Node ESM project would have; JS files are read too. */
const DEFAULTS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  esModuleInterop: true,
  skipLibCheck: true,
};

/** The nearest `tsconfig.json` from `start` upwards, not above `stop` (the git root or the filesystem root). */
export function findTsconfig(start: string, stop: string | undefined): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    const candidate = path.join(dir, 'tsconfig.json');
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (dir === stop || parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Compiler options of a tsconfig (with `extends` followed). Its file list does not decide what the
 * run reads (the files it discovered), only where a module the run adds may go. `allowJs` is forced
 * on so JavaScript sources load too.
 */
export function loadTsconfig(file: string | undefined, explicit: boolean, relativeTo?: string): LoadedTsconfig {
  const forced: ts.CompilerOptions = { allowJs: true, noEmit: true, declaration: false, composite: false, incremental: false };
  const loaded = loadOptions(file, explicit, relativeTo);
  return { ...loaded, options: { ...compatible(loaded.options), ...forced } };
}

/**
 * The compiler bundled with ts-morph is TypeScript 6, while most projects were written for 5.x:
 * keep 5.x's meaning where 6 changed a default, so the project type-checks as its authors see it.
 */
function compatible(options: ts.CompilerOptions): ts.CompilerOptions {
  return {
    ...options,
    // 6.0 includes no @types package unless listed; 5.x included every one (node's `process`, ...).
    types: options.types ?? ['*'],
    // Options 6.0 deprecates (baseUrl, node10 resolution) still work; do not fail on them.
    ignoreDeprecations: options.ignoreDeprecations ?? '6.0',
  };
}

function loadOptions(file: string | undefined, explicit: boolean, relativeTo: string | undefined): LoadedTsconfig {
  /** Paths in messages: relative to the working directory when under it. */
  const show = (name: string): string => {
    const rel = relativeTo ? path.relative(relativeTo, name) : '';
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : name;
  };
  if (!file) return { file: undefined, options: { ...DEFAULTS }, fileNames: undefined, warnings: [] };
  if (!existsSync(file)) throw new MigrateError(`--project ${file} does not exist.`);
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error) {
    const message = `${show(file)}${where(read.error)}: ${diagnosticText(read.error)}`;
    if (explicit) throw new MigrateError(`cannot read ${message}; fix it or pass another --project.`);
    return { file: undefined, options: { ...DEFAULTS }, fileNames: undefined, warnings: [`cannot read ${message}; the run used default compiler options instead of it.`] };
  }
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(file), undefined, file);
  // "No inputs were found" only means its include does not cover what we were pointed at.
  const errors = parsed.errors.filter(d => d.code !== 18003);
  const warnings = errors.map(d => {
    const text = `${show(d.file ? d.file.fileName : file)}${where(d)}: ${diagnosticText(d).replaceAll(path.dirname(file) + path.sep, '')}`;
    // An `extends` that cannot be read: TypeScript goes on with the options of this file alone.
    return EXTENDS_UNREADABLE.has(d.code) ? `${text} (its "extends"); the run used this tsconfig's own options without the ones it extends.` : `${text}; the option was ignored.`;
  });
  return { file, options: parsed.options, fileNames: parsed.fileNames.map(f => path.resolve(f)), warnings };
}

/** Cannot read file / file not found / extends not resolvable: the base config's options are missing. */
const EXTENDS_UNREADABLE = new Set([5083, 6053, 6083]);

function diagnosticText(d: ts.Diagnostic): string {
  return ts.flattenDiagnosticMessageText(d.messageText, ' ').replace(/\.$/, '');
}

function where(d: ts.Diagnostic): string {
  if (!d.file || d.start === undefined) return '';
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `:${line + 1}:${character + 1}`;
}
