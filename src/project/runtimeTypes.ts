import path from 'node:path';
import { ts, type Project } from 'ts-morph';
import { RUNTIME_SPECIFIER, runtimeText } from '../../transforms/mrtr/moduleSupport.js';

const RUNTIME_IMPORT = new RegExp(`['"\`]${RUNTIME_SPECIFIER}['"\`]`);

/** Whether a source imports mrtr-migrate/runtime (a text scan, as for the SDK packages in package.json). */
export function importsRuntime(text: string): boolean {
  return RUNTIME_IMPORT.test(text);
}

/** Where the run's project holds them: never written (only the run's entries are). */
const FILE_NAME = '__mrtr_migrate_runtime__.d.ts';

/**
 * With `--runtime package`, the migrated files import mrtr-migrate/runtime, which the project has
 * only once it installs the dependency the run adds. The run type-checks them against the declarations
 * of this version's runtime, given to the compiler as an ambient module (which it prefers to an
 * installed copy), so a rewrite is kept or rolled back by its own errors, not by the missing install.
 * So are the files of an earlier such run, whatever this run's --runtime.
 */
export function addRuntimeDeclarations(project: Project, dir: string): void {
  const emitted = ts.transpileDeclaration(runtimeText(ts as never), { fileName: 'runtime.ts', compilerOptions: { declaration: true, strict: true } }).outputText;
  // Inside `declare module` every declaration is ambient already; its `export {}` marks a module, as the block does.
  const body = emitted.replace(/^(export )?declare /gm, '$1').replace(/^export \{\};\s*$/m, '');
  const text = `declare module '${RUNTIME_SPECIFIER}' {\n${body}}\n`;
  project.createSourceFile(path.join(dir, FILE_NAME), text, { overwrite: true });
}
