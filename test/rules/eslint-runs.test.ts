import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readExpectations } from '../helpers/expectations.js';
import { createESLint, ESLINT_PACKAGES, RULE_OF_KIND, verdictOfMessage } from './eslintRunner.js';

/**
 * Runs of the real ESLint over this suite's own small project (test/rules/fixtures/project): untyped and
 * typed (projectService) runs both work and give the verdicts the annotations expect in each mode;
 * a file with a syntax error is reported as a parse error, not a rule crash.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PROJECT = join(ROOT, 'test/rules/fixtures/project');
const FILES = ['v1-server.ts', 'v2-server.ts', 'lookalikes.ts', 'server.js'].map(f => join(PROJECT, f));
const KIND_OF_RULE = new Map(Object.entries(RULE_OF_KIND).map(([kind, rule]) => [rule, kind]));

/** `line kind verdict` for every reported site. */
function reportedSites(messages: import('eslint').Linter.LintMessage[]): string[] {
  return messages
    .filter(m => m.ruleId && KIND_OF_RULE.has(m.ruleId))
    .map(m => `${m.line} ${KIND_OF_RULE.get(m.ruleId!)} ${verdictOfMessage(m) ?? '-'}`)
    .sort();
}

function expectedSites(file: string, mode: 'typed' | 'untyped'): string[] {
  return readExpectations(file).sites
    .map(s => `${s.line} ${s.kind} ${s[mode]}`)
    .sort();
}

describe.each(ESLINT_PACKAGES)('$label', ({ module }) => {
  for (const mode of ['untyped', 'typed'] as const) {
    it(`${mode} run reports the annotated sites with the ${mode} verdicts`, async () => {
      const eslint = await createESLint(module, { cwd: ROOT, typedRoot: mode === 'typed' ? PROJECT : undefined });
      const results = await eslint.lintFiles(FILES);
      for (const result of results) {
        const name = relative(PROJECT, result.filePath);
        expect(result.messages.filter(m => m.fatal), name).toEqual([]);
        // JavaScript is outside the TypeScript project: its verdicts are the untyped ones in both runs.
        const fileMode = result.filePath.endsWith('.js') ? 'untyped' : mode;
        expect(reportedSites(result.messages), name).toEqual(expectedSites(result.filePath, fileMode));
      }
    });
  }

  it('strict config: every rule runs and reports where the file says', async () => {
    const eslint = await createESLint(module, { cwd: ROOT, typedRoot: PROJECT, config: 'strict' });
    const file = join(PROJECT, 'hand-migrated.ts');
    const [result] = await eslint.lintFiles([file]);
    const reported = result!.messages.map(m => `${m.line} ${m.ruleId}`).sort();
    const expected = readFileSync(file, 'utf8').split('\n').flatMap((text, i) => {
      const rules = /\/\/ expect-lint:\s*(.+)$/.exec(text)?.[1]?.split(/,\s*/) ?? [];
      return rules.map(rule => `${i + 1} mrtr-migrate/${rule.trim()}`);
    }).sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(reported).toEqual(expected);
  });

  it('reports a syntax error as a parse error, without crashing a rule', async () => {
    const eslint = await createESLint(module, { cwd: ROOT, config: 'strict' });
    const broken = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'x', version: '1' });
server.registerTool('t', {}, async (ctx) => {
  await ctx.mcpReq.elicitInput({ mode: 'form', message: 'hi' ;
`;
    const [result] = await eslint.lintText(broken, { filePath: join(PROJECT, 'broken.ts') });
    expect(result!.messages).toHaveLength(1);
    expect(result!.messages[0]).toMatchObject({ fatal: true, ruleId: null });
  });

  it('lints code the TypeScript parser reads with errors but ESLint accepts, without crashing', async () => {
    const eslint = await createESLint(module, { cwd: ROOT, config: 'strict' });
    // Valid JavaScript for espree; TypeScript's own parse of it (used by the analysis) is lenient.
    const code = `const server = { server: { elicitInput: () => 1 } };
label: for (;;) { server.server.elicitInput(); break label; }
with (Math) { server.server.createMessage?.(); }
`;
    const [result] = await eslint.lintText(code, { filePath: join(PROJECT, 'sloppy.cjs') });
    expect(result!.messages.filter(m => m.fatal)).toEqual([]);
    expect(result!.messages).toEqual([]);
  });
});
