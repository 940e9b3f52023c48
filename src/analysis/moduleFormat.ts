import type * as ts from 'typescript';
import type { TS } from './types.js';

/**
 * Why the rewrite cannot edit a file, if it cannot: the code it writes carries type annotations and
 * ES imports. Shared by handlers, capability guards and helpers, so all refuse with the same words.
 */
export function moduleFormatProblem(ts: TS, file: ts.SourceFile): string | undefined {
  if (/\.(c|m)?jsx?$/.test(file.fileName)) return 'JavaScript files are not rewritten yet (the generated code carries type annotations); migrate by hand or convert the file to TypeScript.';
  if (!file.statements.some(s => ts.isImportDeclaration(s))) return 'CommonJS modules are not rewritten yet; the rewrite adds ES imports.';
  return undefined;
}
