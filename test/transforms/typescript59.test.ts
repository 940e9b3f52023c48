import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

/**
 * The generated code must compile for users on TypeScript 5.9 as well as 6.0 (the peer range is
 * >=5.9 <6.1). fixtures.test.ts type-checks every output.ts with the TypeScript the rewrite runs on;
 * this test compiles them again with the 5.9 compiler (devDependency alias `typescript-5.9`), with
 * the options of the pipeline's check (test/transforms/pipeline.ts).
 */

type TypeScript = typeof import('typescript');
const ts59 = createRequire(import.meta.url)('typescript-5.9') as TypeScript;

const repo = resolve(import.meta.dirname, '..', '..');
const root = join(repo, 'fixtures');
const outputs = readdirSync(root)
  .map(name => join(root, name, 'output.ts'))
  .filter(file => existsSync(file))
  .sort();

it('runs the 5.9 compiler', () => {
  expect(ts59.version).toMatch(/^5\.9\./);
});

it('every fixtures/*/output.ts type-checks with TypeScript 5.9', () => {
  expect(outputs.length).toBeGreaterThan(0);
  const options: import('typescript').CompilerOptions = {
    strict: true,
    module: ts59.ModuleKind.NodeNext,
    moduleResolution: ts59.ModuleResolutionKind.NodeNext,
    target: ts59.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  };
  const program = ts59.createProgram({ rootNames: outputs, options });
  const checked = new Set(outputs.map(file => resolve(file)));
  const diagnostics = ts59.getPreEmitDiagnostics(program)
    .filter(d => !d.file || checked.has(resolve(d.file.fileName)))
    .map(d => {
      const message = ts59.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file || d.start === undefined) return `TS${d.code}: ${message}`;
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${relative(repo, d.file.fileName)}:${line + 1}:${character + 1} TS${d.code}: ${message}`;
    });
  expect(diagnostics).toEqual([]);
  // Every output really was part of the program (a missing root would check nothing).
  for (const file of outputs) expect(program.getSourceFile(file), file).toBeDefined();
});
