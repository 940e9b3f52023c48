import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import plugin from '../../rules/index.js';

/** The docs stay true to the code: each page's "Incorrect" examples are reported by its rule, the "Correct" ones are not. */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Code blocks under a `### <title>` heading, up to the next heading. */
function examples(markdown: string, title: string): string[] {
  const section = markdown.split(/\n(?=#{2,3} )/).find(part => part.startsWith(`### ${title}\n`)) ?? '';
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map(match => match[1]!);
}

function lint(ruleName: string, code: string): Linter.LintMessage[] {
  const linter = new Linter({ configType: 'flat' });
  return linter.verify(code, [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tsParser },
      plugins: { 'mrtr-migrate': plugin },
      rules: { [`mrtr-migrate/${ruleName}`]: 'error' },
    },
  ], join(ROOT, 'docs-example.ts'));
}

describe.each(Object.keys(plugin.rules))('docs/rules/%s.md examples', name => {
  const markdown = readFileSync(join(ROOT, 'docs/rules', `${name}.md`), 'utf8');
  const incorrect = examples(markdown, 'Incorrect');
  const correct = examples(markdown, 'Correct');

  it('has examples of both kinds', () => {
    expect(incorrect.length).toBeGreaterThan(0);
    expect(correct.length).toBeGreaterThan(0);
  });

  it('reports the incorrect examples', () => {
    for (const code of incorrect) {
      const messages = lint(name, code);
      expect(messages.filter(m => m.fatal)).toEqual([]);
      expect(messages.filter(m => m.ruleId === `mrtr-migrate/${name}`).length).toBeGreaterThan(0);
    }
  });

  it('accepts the correct examples', () => {
    for (const code of correct) expect(lint(name, code)).toEqual([]);
  });
});

describe('docs/rules examples', () => {
  it('type-check against the installed SDK packages', () => {
    // Inside the package so that imports resolve from its node_modules; outside tsconfig.json's includes.
    const dir = join(ROOT, 'test-output', `docs-examples-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      const files: string[] = [];
      for (const name of Object.keys(plugin.rules)) {
        const markdown = readFileSync(join(ROOT, 'docs/rules', `${name}.md`), 'utf8');
        [...examples(markdown, 'Incorrect'), ...examples(markdown, 'Correct')].forEach((code, i) => {
          const file = join(dir, `${name}-${i}.ts`);
          writeFileSync(file, `${code}\nexport {};\n`);
          files.push(file);
        });
      }
      const program = ts.createProgram(files, {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ['lib.es2023.d.ts'],
        types: ['node'],
        strict: true,
        skipLibCheck: true,
        noEmit: true,
      });
      const errors = ts.getPreEmitDiagnostics(program).map(d => {
        const where = d.file ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
        return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
      });
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
