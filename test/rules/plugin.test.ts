import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import tsParser from '@typescript-eslint/parser';
import { describe, expect, it } from 'vitest';
import plugin, { rules } from '../../rules/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = join(ROOT, 'docs/rules');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

const ALL_RULES = [
  'no-initialize-scoped-capabilities',
  'no-leftover-markers',
  'no-push-elicitation',
  'no-push-roots',
  'no-push-sampling',
  'no-push-task-requests',
  'no-secrets-in-request-state',
  'no-unvalidated-input-responses',
  'no-url-elicitation-error',
  'require-request-state-integrity',
  'valid-ignore-comments',
];
const RECOMMENDED = [
  'no-initialize-scoped-capabilities',
  'no-leftover-markers',
  'no-push-elicitation',
  'no-push-roots',
  'no-push-sampling',
  'no-push-task-requests',
  'no-url-elicitation-error',
  'valid-ignore-comments',
];

const ruleEntries = Object.entries(rules);

describe('plugin', () => {
  it('has its name and the package version', () => {
    expect(plugin.meta).toMatchObject({ name: 'mrtr-migrate', version: pkg.version });
  });

  it('exports every rule, one file each under rules/', () => {
    expect(Object.keys(plugin.rules).sort()).toEqual(ALL_RULES);
    for (const name of ALL_RULES) expect(existsSync(join(ROOT, 'rules', `${name}.ts`)), name).toBe(true);
  });

  it('recommended is a flat config with the migration rules as errors', () => {
    const config = plugin.configs.recommended;
    expect(config.name).toBe('mrtr-migrate/recommended');
    expect(config.plugins?.['mrtr-migrate']).toBe(plugin);
    expect(config.rules).toEqual(Object.fromEntries(RECOMMENDED.map(name => [`mrtr-migrate/${name}`, 'error'])));
  });

  it('strict is a flat config with every rule as errors', () => {
    const config = plugin.configs.strict;
    expect(config.name).toBe('mrtr-migrate/strict');
    expect(config.plugins?.['mrtr-migrate']).toBe(plugin);
    expect(config.rules).toEqual(Object.fromEntries(ALL_RULES.map(name => [`mrtr-migrate/${name}`, 'error'])));
  });

  it.each(['recommended', 'strict'] as const)('%s is complete on its own: every source extension, the TypeScript parser', name => {
    const config = plugin.configs[name];
    expect(config.files).toEqual(['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts', '**/*.js', '**/*.jsx', '**/*.mjs', '**/*.cjs']);
    expect(config.languageOptions?.parser).toBe(tsParser);
    // Typed linting stays the user's choice: the preset sets no parserOptions that would need a tsconfig.
    expect(config.languageOptions?.parserOptions).toBeUndefined();
  });
});

describe.each(ruleEntries)('rule %s', (name, rule) => {
  const page = join(DOCS, `${name}.md`);

  it('has a docs page, and meta.docs.url points to it', () => {
    expect(existsSync(page), `missing ${page}`).toBe(true);
    expect(rule.meta.docs?.url).toBe(`https://github.com/mrtr-migrate/mrtr-migrate/blob/main/docs/rules/${name}.md`);
  });

  it('docs page has the standard sections', () => {
    const text = readFileSync(page, 'utf8');
    expect(text.startsWith(`# mrtr-migrate/${name}`)).toBe(true);
    for (const heading of ['## Rule details', '### Incorrect', '### Correct', '## Options', '## When mrtr-migrate can fix it']) {
      expect(text, `${name}.md lacks "${heading}"`).toContain(`\n${heading}\n`);
    }
  });

  it('declares whether it requires type checking (none does: typed linting only sharpens the verdicts)', () => {
    expect(rule.meta.docs?.requiresTypeChecking).toBe(false);
  });

  it('declares message ids, a description, and suggestions only with hasSuggestions', () => {
    expect(Object.keys(rule.meta.messages).length).toBeGreaterThan(0);
    expect(rule.meta.docs?.description).toBeTruthy();
    expect(rule.meta.fixable).toBeUndefined();
  });
});

describe('docs/rules', () => {
  it('has no page for a rule that does not exist', () => {
    const pages = readdirSync(DOCS).filter(f => f.endsWith('.md')).map(f => f.slice(0, -3)).sort();
    expect(pages).toEqual(ALL_RULES);
  });
});
