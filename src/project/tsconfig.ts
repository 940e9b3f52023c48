import { existsSync } from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import { MigrateError } from './errors.js';

export interface LoadedTsconfig {
  /** Absolute path, or undefined when none was found and defaults are used. */
  file: string | undefined;
  options: ts.CompilerOptions;
  /** Problems in the tsconfig that did not stop the run. */
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
 * Compiler options of a tsconfig (with `extends` followed). Its file list is not used: the run
 * reads the files it discovered. `allowJs` is forced on so JavaScript sources load too.
 */
export function loadTsconfig(file: string | undefined, explicit: boolean): LoadedTsconfig {
  const forced: ts.CompilerOptions = { allowJs: true, noEmit: true, declaration: false, composite: false, incremental: false };
  const loaded = loadOptions(file, explicit);
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

function loadOptions(file: string | undefined, explicit: boolean): LoadedTsconfig {
  if (!file) return { file: undefined, options: { ...DEFAULTS }, warnings: [] };
  if (!existsSync(file)) throw new MigrateError(`--project ${file} does not exist.`);
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error) {
    const message = `${file}: ${ts.flattenDiagnosticMessageText(read.error.messageText, ' ')}`;
    if (explicit) throw new MigrateError(`cannot read ${message}; fix it or pass another --project.`);
    return { file: undefined, options: { ...DEFAULTS }, warnings: [`cannot read ${message}; using default compiler options.`] };
  }
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(file), undefined, file);
  // "No inputs were found" only means its include does not cover what we were pointed at.
  const errors = parsed.errors.filter(d => d.code !== 18003);
  const warnings = errors.map(d => `${path.basename(file)}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  return { file, options: parsed.options, warnings };
}
