import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ts } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { addedErrors, typeErrorsOf } from '../../src/project/typeCheck.js';

/** The type errors of one in-memory file. */
function errorsOf(text: string) {
  const host = ts.createCompilerHost({ strict: true, noEmit: true, types: [] });
  const read = host.getSourceFile;
  host.getSourceFile = (name, version, ...rest) => (name === 'f.ts' ? ts.createSourceFile(name, text, version) : read.call(host, name, version, ...rest));
  const program = ts.createProgram(['f.ts'], { strict: true, noEmit: true, types: [] }, host);
  return typeErrorsOf(program, program.getSourceFile('f.ts')!);
}

describe('errors a rewrite added', () => {
  const union = "{ type: 'text'; text: string } | { type: 'image'; data: string }";
  const inferred = `declare const result: { content: ${union} };\nexport const t = result.content.text;\n`;
  // The same read once the result is typed through an alias: the message prints the alias's name.
  const aliased = `type Content = ${union};\ndeclare const result: { content: Content };\nexport const t = result.content.text;\n`;

  it('are not the same error printed with other types or on another line', () => {
    const before = errorsOf(inferred);
    const after = errorsOf(aliased);
    expect(before.map(e => e.key)).toEqual(["TS2339 'text'"]);
    const message = (e: { text: string }) => e.text.replace(/^line \d+: /, '');
    expect(message(after[0]!)).not.toBe(message(before[0]!));
    expect(addedErrors(before, after)).toEqual([]);
  });

  it('are another code, another name, or one more of the same', () => {
    const before = errorsOf(inferred);
    expect(addedErrors(before, errorsOf(`${inferred}export const d = result.content.data;\n`)).map(e => e.key)).toEqual(["TS2339 'data'"]);
    expect(addedErrors(before, errorsOf(`${inferred}export const u = result.content.text;\n`)).map(e => e.key)).toEqual(["TS2339 'text'"]);
    expect(addedErrors(before, errorsOf(`${inferred}export const n: number = 'x';\n`)).map(e => e.key)).toEqual(["TS2322 'string'"]);
  });
});

describe('errors of the project layout', () => {
  it('are not counted: a file outside rootDir (TS6059) is where the project put it, not something a rewrite did', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mrtr-rootdir-'));
    try {
      mkdirSync(join(dir, 'src'));
      mkdirSync(join(dir, 'shared'));
      writeFileSync(join(dir, 'src', 'a.ts'), "import { b } from '../shared/b.js';\nexport const a: number = b;\n");
      writeFileSync(join(dir, 'shared', 'b.ts'), 'export const b = 1;\n');
      const program = ts.createProgram([join(dir, 'src', 'a.ts')], { strict: true, noEmit: true, types: [], rootDir: join(dir, 'src') });
      const all = [...program.getSemanticDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
      expect(all.map(d => d.code)).toContain(6059);
      expect(typeErrorsOf(program, program.getSourceFile(join(dir, 'src', 'a.ts'))!)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
