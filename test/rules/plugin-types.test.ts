import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * A user's `eslint.config.ts` importing the BUILT plugin (`mrtr-migrate/eslint-plugin`, resolved through
 * package.json `exports` as a self-reference) must type-check against ESLint 9's and ESLint 10's types.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// Inside the package, so the self-reference resolves; outside tsconfig.json's includes.
const WORK = join(ROOT, 'test-output', `eslint-config-types-${process.pid}`);

const CONFIG = `import tsParser from '@typescript-eslint/parser';
import { defineConfig } from 'eslint/config';
import mrtrMigrate from 'mrtr-migrate/eslint-plugin';

export default defineConfig([
  { files: ['**/*.ts'], languageOptions: { parser: tsParser, parserOptions: { projectService: true } } },
  mrtrMigrate.configs.recommended,
  { files: ['src/server/**/*.ts'], extends: [mrtrMigrate.configs.strict] },
  {
    plugins: { 'mrtr-migrate': mrtrMigrate },
    rules: {
      'mrtr-migrate/no-secrets-in-request-state': 'warn',
      'mrtr-migrate/require-request-state-integrity': ['error', { allowVerifyElsewhere: true }],
    },
  },
]);

// The plugin also stands on its own as ESLint's plugin type.
import type { ESLint } from 'eslint';
export const asPlugin: ESLint.Plugin = mrtrMigrate;
export const version: string = mrtrMigrate.meta.version;
`;

function tsconfig(paths?: Record<string, string[]>): string {
  return JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
      ...(paths ? { paths } : {}),
    },
    files: ['eslint.config.ts'],
  }, null, 2);
}

function typeCheck(dir: string): string {
  try {
    execFileSync(process.execPath, [TSC, '--noEmit', '-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return `${stdout ?? ''}${stderr ?? ''}` || String(error);
  }
}

describe('eslint.config.ts using the built plugin', () => {
  beforeAll(() => {
    // The e2e project's global setup (test/setup/build.ts) built dist/ once, as `npm run build` does;
    // this file only reads it, so it never rewrites dist/ under the other e2e tests.
    if (!inject('dist')) throw new Error('this file type-checks against the built plugin: it belongs in the e2e project (npm run test:e2e), whose global setup builds dist/');
    for (const file of ['dist/rules/index.js', 'dist/rules/index.d.ts']) {
      if (!existsSync(join(ROOT, file))) throw new Error(`the build did not produce ${file}`);
    }
    for (const variant of ['eslint9', 'eslint10']) mkdirSync(join(WORK, variant), { recursive: true });
    writeFileSync(join(WORK, 'eslint9', 'eslint.config.ts'), CONFIG);
    writeFileSync(join(WORK, 'eslint9', 'tsconfig.json'), tsconfig());
    writeFileSync(join(WORK, 'eslint10', 'eslint.config.ts'), CONFIG);
    // Every `eslint` import, the plugin's declarations included, sees ESLint 10's types.
    const v10 = join(ROOT, 'node_modules/eslint-v10/lib/types');
    writeFileSync(join(WORK, 'eslint10', 'tsconfig.json'), tsconfig({
      eslint: [join(v10, 'index.d.ts')],
      'eslint/config': [join(v10, 'config-api.d.ts')],
    }));
  }, 300_000);

  afterAll(() => rmSync(WORK, { recursive: true, force: true }));

  it('type-checks with ESLint 9 types', () => {
    expect(typeCheck(join(WORK, 'eslint9'))).toBe('');
  });

  it('type-checks with ESLint 10 types', () => {
    expect(typeCheck(join(WORK, 'eslint10'))).toBe('');
  });

  it('the built entry loads and exposes the flat configs', async () => {
    const built = (await import(join(ROOT, 'dist/rules/index.js'))) as { default: { meta: { name: string }; configs: Record<string, { name: string }> } };
    expect(built.default.meta.name).toBe('mrtr-migrate');
    expect(Object.keys(built.default.configs).sort()).toEqual(['recommended', 'strict']);
  });
});
