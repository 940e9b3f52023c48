import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

import { ROOT, runnableCases } from './harness.js';

/**
 * Every runnable fixture module type-checks against the installed SDKs (v1 inputs against
 * @modelcontextprotocol/sdk, v2 inputs and all outputs against @modelcontextprotocol/server), with
 * the options of tsconfig.fixtures.json: a fixture that does not compile proves nothing about
 * the rewrite, and a generated output.ts that does not compile is a rewrite bug.
 */
const CONFIG = join(import.meta.dirname, 'tsconfig.fixtures.json');

function compilerOptions(): ts.CompilerOptions {
  const read = ts.readConfigFile(CONFIG, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(CONFIG));
  return parsed.options;
}

it('runnable fixture inputs, outputs and the reference output type-check', () => {
  const files = runnableCases().flatMap(fixture => (fixture.output ? [fixture.input, fixture.output] : [fixture.input]));
  files.push(join(import.meta.dirname, 'reference', 'v2-elicit-straight.output.ts'));
  const program = ts.createProgram({ rootNames: files, options: compilerOptions() });
  const diagnostics = ts.getPreEmitDiagnostics(program).map(diagnostic => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${relative(ROOT, diagnostic.file.fileName)}:${line + 1}:${character + 1} TS${diagnostic.code}: ${message}`;
  });
  expect(diagnostics).toEqual([]);
});
