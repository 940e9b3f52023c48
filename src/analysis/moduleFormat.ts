import type * as ts from 'typescript';
import { requiredModule } from './sdk.js';
import { isJavaScriptFile, parseAsTypeScript, typeSyntaxOf } from './typeSyntax.js';
import type { TS } from './types.js';

/**
 * Why the rewrite cannot edit a file, if it cannot. Shared by handlers, capability guards and helpers,
 * so all refuse with the same words. The rewrite adds the SDK names it uses to an ES import of
 * `@modelcontextprotocol/server`, or in a CommonJS module to its `const { ... } = require(...)`; in a
 * JavaScript file it takes the types out of the code it writes again (JSDoc where they help).
 */
export function moduleFormatProblem(ts: TS, file: ts.SourceFile): string | undefined {
  let problem = problems.get(file);
  if (problem === undefined) problems.set(file, (problem = findProblem(ts, file) ?? ''));
  return problem || undefined;
}

const problems = new WeakMap<ts.SourceFile, string>();

/** Whether the file is an ES module by its syntax: an import, or an export. */
export function isEsModule(ts: TS, file: ts.SourceFile): boolean {
  return file.statements.some(s => ts.isImportDeclaration(s) || ts.isExportDeclaration(s) ||
    ts.getModifiers(s as ts.HasModifiers)?.some(m => m.kind === ts.SyntaxKind.ExportKeyword));
}

function findProblem(ts: TS, file: ts.SourceFile): string | undefined {
  if (!isEsModule(ts, file) && !serverRequire(ts, file)) {
    return 'a CommonJS module is rewritten only when it takes the SDK as `const { ... } = require(\'@modelcontextprotocol/server\')` at its top level, where the rewrite adds the names it uses; write it so, or migrate by hand.';
  }
  if (isJavaScriptFile(file.fileName) && typeSyntaxOf(ts, parseAsTypeScript(ts, file.fileName, file.text)).length > 0) {
    return 'this JavaScript file has code that reads as TypeScript syntax (`a < b > (c)` reads as a generic call), so the types the rewrite writes could not be taken out again safely; migrate by hand.';
  }
  return undefined;
}

/** `const { ... } = require('@modelcontextprotocol/server')` at the top level: where a CommonJS module gets the names the rewrite adds. */
export function serverRequire(ts: TS, file: ts.SourceFile): ts.ObjectBindingPattern | undefined {
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (declaration.initializer && ts.isObjectBindingPattern(declaration.name) && requiredModule(ts, declaration.initializer) === '@modelcontextprotocol/server') {
        return declaration.name;
      }
    }
  }
  return undefined;
}
