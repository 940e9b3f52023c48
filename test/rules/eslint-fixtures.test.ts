import fg from 'fast-glob';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readExpectations } from '../helpers/expectations.js';
import { createESLint, ESLINT_PACKAGES, RULE_OF_KIND } from './eslintRunner.js';

/**
 * The real ESLint (9 and 10) with the recommended config over the analysis fixtures: every annotated
 * site is reported once by the rule for its kind, and those rules report nothing anywhere else.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE_GLOB = 'fixtures/analysis/**/*.{ts,js,mts,cjs,mjs,cts,tsx}';
const SITE_RULES = new Set(Object.values(RULE_OF_KIND));

const files = fg.sync(FIXTURE_GLOB, { cwd: ROOT, absolute: true, ignore: ['**/*.d.ts'] }).sort();

describe('analysis fixtures linted by the real ESLint', () => {
  it('finds fixture files with annotated sites', () => {
    expect(files.length, `no files match ${FIXTURE_GLOB}`).toBeGreaterThan(0);
    const sites = files.reduce((n, file) => n + readExpectations(file).sites.length, 0);
    expect(sites, 'no `// expect-site:` annotations in the fixtures').toBeGreaterThan(0);
  });

  for (const { label, module } of ESLINT_PACKAGES) {
    it(`${label}: reports each annotated site once, with the rule for its kind, and nothing else`, async () => {
      const eslint = await createESLint(module, { cwd: ROOT });
      const results = await eslint.lintFiles(files);
      expect(results).toHaveLength(files.length);
      const problems: string[] = [];
      for (const result of results) {
        const file = relative(ROOT, result.filePath);
        const expected = new Map<string, number>();
        for (const site of readExpectations(result.filePath).sites) {
          const key = `${site.line} ${RULE_OF_KIND[site.kind] ?? `<unknown kind ${site.kind}>`}`;
          expected.set(key, (expected.get(key) ?? 0) + 1);
        }
        const reported = new Map<string, number>();
        for (const message of result.messages) {
          if (message.fatal) problems.push(`${file}:${message.line} fatal: ${message.message}`);
          if (!message.ruleId || !SITE_RULES.has(message.ruleId)) continue;
          const key = `${message.line} ${message.ruleId}`;
          reported.set(key, (reported.get(key) ?? 0) + 1);
        }
        for (const key of new Set([...expected.keys(), ...reported.keys()])) {
          const want = expected.get(key) ?? 0;
          const got = reported.get(key) ?? 0;
          if (want !== got) problems.push(`${file}:${key}: expected ${want} report(s), got ${got}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }
});

/**
 * The docs say generated code passes the MRTR hygiene rules; the codemod's expected outputs show it. But
 * for one finding: a secret the rewrite could not read again travels in the sealed state, and both the
 * site's review note and no-secrets-in-request-state name it (fixtures/v2-secret-in-state).
 */
const MRTR_HYGIENE_RULES = new Set([
  'mrtr-migrate/require-request-state-integrity',
  'mrtr-migrate/no-unvalidated-input-responses',
  'mrtr-migrate/no-secrets-in-request-state',
]);
const outputs = fg.sync(['fixtures/*/output.ts', 'fixtures/*/output/*.ts'], { cwd: ROOT, absolute: true }).sort();

describe.skipIf(outputs.length === 0)('codemod outputs linted with the strict config', () => {
  it('break none of the MRTR hygiene rules', async () => {
    const eslint = await createESLint('eslint', { cwd: ROOT, config: 'strict' });
    const results = await eslint.lintFiles(outputs);
    const problems = results.flatMap(result => result.messages
      .filter(m => m.fatal || (m.ruleId && MRTR_HYGIENE_RULES.has(m.ruleId)))
      .map(m => `${relative(ROOT, result.filePath)}:${m.line} ${m.ruleId ?? 'fatal'}: ${m.message}`));
    expect(problems).toEqual([expect.stringMatching(/^fixtures\/v2-secret-in-state\/output\.ts:\d+ mrtr-migrate\/no-secrets-in-request-state: `pushToken` looks like a secret/)]);
  });
});
