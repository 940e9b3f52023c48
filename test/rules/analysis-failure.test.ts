import { Linter } from 'eslint';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import plugin from '../../rules/index.js';
import rule from '../../rules/no-push-elicitation.js';
import { analyzer } from '../../rules/utils/analysis.js';
import { ruleTester } from './ruleTester.js';

/**
 * An analysis that throws must neither crash the lint run nor turn the rules into silent no-ops:
 * one diagnostic per file names the file and the error; other files are linted as usual.
 */

// The analysis throws for files carrying a marker: a bug as it would surface in a user's lint run.
const realAnalyzeFile = analyzer.analyzeFile;
beforeAll(() => {
  analyzer.analyzeFile = options => {
    if (options.sourceFile.text.includes('TRIGGER_ANALYSIS_BUG')) throw new TypeError("Cannot read properties of undefined (reading 'kind')\n    at somewhere");
    return realAnalyzeFile(options);
  };
});
afterAll(() => {
  analyzer.analyzeFile = realAnalyzeFile;
});

const crashing = `import { McpServer } from '@modelcontextprotocol/server';
// TRIGGER_ANALYSIS_BUG
const server = new McpServer({ name: 'demo', version: '1.0.0' });
server.registerTool('ask', {}, async (ctx) => {
  await ctx.mcpReq.elicitInput({ mode: 'form', message: 'ok?', requestedSchema: { type: 'object', properties: {} } });
  return { content: [] };
});
`;
const healthy = crashing.replace('// TRIGGER_ANALYSIS_BUG\n', '');

describe('a failing analysis', () => {
  const cwd = '/project';
  const linter = new Linter({ configType: 'flat', cwd });
  const lint = (code: string, file: string) => linter.verify(code, [plugin.configs.strict], join(cwd, file));

  it('is reported once per file, naming the file and the error, whichever rules are on', () => {
    const messages = lint(crashing, 'src/server.ts');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ line: 1, column: 1, messageId: 'analysisFailed', severity: 2 });
    expect(messages[0]!.ruleId).toMatch(/^mrtr-migrate\//);
    expect(messages[0]!.message).toBe(
      "mrtr-migrate could not analyse src/server.ts: TypeError: Cannot read properties of undefined (reading 'kind'). The push-style calls in this file are not checked until this is fixed; please report it with the file.",
    );
  });

  it('is reported by whichever analysis rule is enabled', () => {
    const messages = linter.verify(crashing, [{ plugins: { 'mrtr-migrate': plugin }, files: ['**/*.ts'], languageOptions: plugin.configs.recommended.languageOptions!, rules: { 'mrtr-migrate/no-push-roots': 'warn' } }], join(cwd, 'src/server.ts'));
    expect(messages.map(m => [m.ruleId, m.messageId, m.severity])).toEqual([['mrtr-migrate/no-push-roots', 'analysisFailed', 1]]);
  });

  it('leaves other files linted as usual', () => {
    expect(lint(healthy, 'src/other.ts').map(m => [m.ruleId, m.messageId])).toEqual([['mrtr-migrate/no-push-elicitation', 'migratable']]);
  });
});

ruleTester.run('no-push-elicitation (analysis failure)', rule, {
  valid: [],
  invalid: [{ code: crashing, filename: 'server.ts', errors: [{ messageId: 'analysisFailed', line: 1, column: 1 }] }],
});
