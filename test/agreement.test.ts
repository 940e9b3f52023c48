import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createESLint, RULE_OF_KIND } from './rules/eslintRunner.js';
import { folderEntry, migrateFolder, sourceFiles } from './transforms/folderPipeline.js';
import { runPipeline } from './transforms/pipeline.js';

/**
 * Lint and codemod agree: on every v2 fixture, the sites real ESLint reports with the plugin
 * (typed linting) are the sites the codemod finds, with the same verdict and reason.
 */

const fixtures = resolve(import.meta.dirname, '..', 'fixtures');
const files = [
  ...readdirSync(join(fixtures, 'analysis', 'v2')).filter(f => f.endsWith('.ts')).map(f => join(fixtures, 'analysis', 'v2', f)),
  ...readdirSync(fixtures).filter(d => d.startsWith('v2-') || d.startsWith('refuse-')).flatMap(d =>
    ['input.ts', 'input.mjs', 'input.cjs'].map(f => join(fixtures, d, f)).filter(f => existsSync(f))),
];
/** Folder cases (a server in several modules): the lint of each file against the CLI's project run. */
const folders = readdirSync(fixtures).filter(d => (d.startsWith('v2-') || d.startsWith('refuse-')) && folderEntry(join(fixtures, d, 'input'))).map(d => join(fixtures, d, 'input'));
const folderFiles = folders.flatMap(dir => sourceFiles(dir).map(f => join(dir, f)));
const KIND_OF_RULE = Object.fromEntries(Object.entries(RULE_OF_KIND).map(([kind, rule]) => [rule, kind]));
const STATUS_OF_MESSAGE: Record<string, string> = { migratable: 'migrated', migratableForReview: 'migrated-for-review', refused: 'refused' };

interface Finding {
  line: number;
  kind: string;
  status: string;
  reason: string | undefined;
}

const byPosition = (a: Finding, b: Finding) => a.line - b.line || a.kind.localeCompare(b.kind);

describe('lint and codemod agree on every v2 fixture', async () => {
  // The JavaScript folder server needs types to see its server across modules, as the codemod does.
  const eslint = await createESLint('eslint', { cwd: fixtures, typedRoot: fixtures, typedJavaScript: ['v2-*/input/*.mjs'] });
  const results = await eslint.lintFiles([...files, ...folderFiles]);
  const lintFindings = (file: string): Finding[] => results
    .find(r => r.filePath === file)!
    .messages.filter(m => m.ruleId && KIND_OF_RULE[m.ruleId])
    .map(m => ({
      line: m.line,
      kind: KIND_OF_RULE[m.ruleId!]!,
      status: STATUS_OF_MESSAGE[m.messageId!]!,
      reason: m.messageId === 'refused' ? /cannot rewrite it \(([a-z-]+)\)/.exec(m.message)?.[1] : undefined,
    }))
    .sort(byPosition);

  it('lints every file', () => {
    expect(results.map(r => r.filePath).sort()).toEqual([...files, ...folderFiles].sort());
    expect(results.flatMap(r => r.messages.filter(m => m.fatal))).toEqual([]);
  });

  it.each(files.map(f => [f.slice(fixtures.length + 1), f]))('%s', (_name, file) => {
    const lint = lintFindings(file);
    const pipeline = runPipeline(file, readFileSync(file, 'utf8'));
    // Sites under an ignore comment are in the report (as ignored) and not in the lint output.
    const codemod: Finding[] = pipeline.sites
      .filter(s => s.status !== 'ignored')
      .map(s => ({ line: s.line, kind: s.kind, status: s.status, reason: s.reason }))
      .sort(byPosition);
    expect(codemod.length).toBeGreaterThan(0);
    expect(lint).toEqual(codemod);
    // The ignore comments both find wanting are the same.
    const lintIgnores = results.find(r => r.filePath === file)!.messages
      .filter(m => m.ruleId === 'mrtr-migrate/valid-ignore-comments').map(m => `${m.line} ${m.messageId}`);
    const codemodIgnores = pipeline.diagnostics.filter(d => d.code?.startsWith('mrtr/ignore-')).map(d => `${d.line} ${d.code!.slice('mrtr/ignore-'.length)}`);
    expect(lintIgnores.sort()).toEqual(codemodIgnores.sort());
  });

  it.each(folders.map(dir => [dir.slice(fixtures.length + 1), dir]))('%s/ (the files planned together)', async (_name, dir) => {
    // Verdicts only: the type check that could roll a file back is fixtures.test.ts's, which finds none.
    const run = await migrateFolder(dir, { verify: false });
    let sites = 0;
    for (const file of sourceFiles(dir)) {
      const codemod: Finding[] = run.sites
        .filter(s => s.file === file && s.status !== 'ignored')
        .map(s => ({ line: s.line, kind: s.kind, status: s.status, reason: s.reason }))
        .sort(byPosition);
      sites += codemod.length;
      expect(lintFindings(join(dir, file)), file).toEqual(codemod);
    }
    expect(sites).toBeGreaterThan(0);
  });
});
