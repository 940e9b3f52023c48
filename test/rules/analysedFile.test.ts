import { Linter, type Rule } from 'eslint';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type * as TS from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import plugin from '../../rules/index.js';
import { analyzer } from '../../rules/utils/analysis.js';

/**
 * Untyped linting analyses the TypeScript parse typescript-eslint already made of the file, instead
 * of parsing it again; a file another parser read (no such parse) is parsed by the plugin. Typed
 * linting leaves the checker out where it has nothing to add, as the codemod does.
 */

const analysed: TS.SourceFile[] = [];
const realAnalyzeFile = analyzer.analyzeFile;
beforeAll(() => {
  analyzer.analyzeFile = options => {
    analysed.push(options.sourceFile);
    return realAnalyzeFile(options);
  };
});
afterAll(() => {
  analyzer.analyzeFile = realAnalyzeFile;
});

// The parser's own parse of each file, as its services map the ESTree root to it.
const parses: unknown[] = [];
const probe: Rule.RuleModule = {
  create: context => ({
    Program(node) {
      parses.push((context.sourceCode.parserServices as { esTreeNodeToTSNodeMap?: Map<unknown, unknown> }).esTreeNodeToTSNodeMap?.get(node));
    },
  }),
};

const server = `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '1.0.0' });
server.registerTool('ask', {}, async (ctx) => {
  await ctx.mcpReq.elicitInput({ mode: 'form', message: 'ok?', requestedSchema: { type: 'object', properties: {} } });
  return { content: [] };
});
`;

describe('untyped linting', () => {
  const cwd = '/project';
  const linter = new Linter({ configType: 'flat', cwd });
  const withProbe = { plugins: { probe: { rules: { parse: probe } } }, rules: { 'probe/parse': 'error' as const } };

  it.each(['src/server.ts', 'src/server.js'])('%s: analyses the parse typescript-eslint made, and reports as before', file => {
    analysed.length = 0;
    parses.length = 0;
    const messages = linter.verify(server, [plugin.configs.recommended, { files: ['**/*.{ts,js}'], ...withProbe }], join(cwd, file));
    expect(messages.map(m => [m.ruleId, m.messageId, m.line])).toEqual([['mrtr-migrate/no-push-elicitation', 'migratable', 4]]);
    expect(parses[0]).toBeDefined();
    expect(analysed).toHaveLength(1);
    expect(analysed[0]).toBe(parses[0]);
  });

  it('parses the file itself when another parser read it', () => {
    analysed.length = 0;
    const espree = { ...plugin.configs.recommended, files: ['**/*.js'], languageOptions: { sourceType: 'module' as const } };
    const messages = linter.verify(server, [espree], join(cwd, 'src/server.js'));
    expect(messages.map(m => [m.ruleId, m.messageId, m.line])).toEqual([['mrtr-migrate/no-push-elicitation', 'migratable', 4]]);
    expect(analysed).toHaveLength(1);
    expect(analysed[0]!.text).toBe(server);
  });
});

describe('typed linting', () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/v2-elicit-straight');
  const files = [join(fixtures, 'input.ts'), join(fixtures, 'output.ts')];
  const program = ts.createProgram({ rootNames: files, options: { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, noEmit: true, types: [] } });
  const linter = new Linter({ configType: 'flat', cwd: fixtures });
  const typed = { ...plugin.configs.recommended, languageOptions: { ...plugin.configs.recommended.languageOptions, parserOptions: { programs: [program] } } };

  it('analyses migrated code without the checker (nothing for it to add), and code with sites with it', () => {
    analysed.length = 0;
    const migrated = linter.verify(readFileSync(files[1]!, 'utf8'), [typed], files[1]!);
    expect(migrated).toEqual([]);
    // The checker-less analysis is not the rules' analyzer, which the program's files go through.
    expect(analysed).toEqual([]);
    const asking = linter.verify(readFileSync(files[0]!, 'utf8'), [typed], files[0]!);
    expect(asking.map(m => m.ruleId)).toContain('mrtr-migrate/no-push-elicitation');
    expect(analysed.map(f => f.fileName)).toEqual([program.getSourceFile(files[0]!)!.fileName]);
  });
});
