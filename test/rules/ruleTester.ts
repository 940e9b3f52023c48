import { RuleTester } from '@typescript-eslint/rule-tester';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';

RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const here = dirname(fileURLToPath(import.meta.url));

/** Untyped: @typescript-eslint/parser without a program, as in a lint run without projectService. */
export const ruleTester = new RuleTester();

export const TYPED_DIR = join(here, 'fixtures', 'typed');
/** Typed cases are linted as this file; the project service resolves the real installed SDK packages. */
export const TYPED_FILE = join(TYPED_DIR, 'file.ts');

export const typedRuleTester = new RuleTester({
  languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: TYPED_DIR } },
});

/** 1-based line and column of the `occurrence`-th appearance of `needle` in `code`. */
export function at(code: string, needle: string, occurrence = 1): { line: number; column: number } {
  let index = -1;
  for (let i = 0; i < occurrence; i++) {
    index = code.indexOf(needle, index + 1);
    if (index === -1) throw new Error(`"${needle}" (occurrence ${occurrence}) not found in test code`);
  }
  const before = code.slice(0, index).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}
