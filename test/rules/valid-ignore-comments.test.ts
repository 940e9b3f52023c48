import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin from '../../rules/index.js';
import rule from '../../rules/valid-ignore-comments.js';
import { at, ruleTester } from './ruleTester.js';

const ask = `await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Region?', requestedSchema: { type: 'object', properties: {} } });`;

function server(body: string): string {
  return `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'demo', version: '2.0.0' });
server.registerTool('configure', {}, async ctx => {
${body}
  return { content: [] };
});
`;
}

const reasoned = server(`  // mrtr-migrate-ignore only 2025 clients reach this tool
  const answer = ${ask}
  console.log(answer.action);`);
const stacked = server(`  // mrtr-migrate-ignore: kept for the stdio bridge
  // (a comment line in between is fine)
  ${ask}`);
const insideCall = server(`  const [answer] = [
    // mrtr-migrate-ignore kept for the bridge
    ${ask.replace(/;$/, '')},
  ];
  console.log(answer);`);
const noReason = server(`  // mrtr-migrate-ignore
  ${ask}`);
const punctuationOnly = server(`  // mrtr-migrate-ignore: --
  ${ask}`);
const unused = server(`  // mrtr-migrate-ignore left from before the migration
  console.log('no question here');`);
const trailing = server(`  ${ask} // mrtr-migrate-ignore the bridge needs it`);
const atEnd = `export const x = 1;
// mrtr-migrate-ignore nothing follows
`;

ruleTester.run('valid-ignore-comments', rule, {
  valid: [
    reasoned,
    stacked,
    insideCall,
    // Not comments: strings, templates.
    `export const a = '// mrtr-migrate-ignore'; export const b = \`// mrtr-migrate-ignore \${a}\`;`,
    { code: 'export const View = () => <p>// mrtr-migrate-ignore is JSX text here</p>;', filename: 'view.tsx' },
    // Another word that only starts the same.
    `// mrtr-migrate-ignored-files are listed elsewhere\nexport const c = 1;`,
  ],
  invalid: [
    { code: noReason, errors: [{ messageId: 'missing-reason', ...at(noReason, '// mrtr-migrate-ignore'), suggestions: [] }] },
    { code: punctuationOnly, errors: [{ messageId: 'missing-reason', ...at(punctuationOnly, '// mrtr-migrate-ignore') }] },
    {
      code: unused,
      errors: [{
        messageId: 'unused',
        ...at(unused, '// mrtr-migrate-ignore'),
        suggestions: [{ messageId: 'removeComment', output: unused.replace("  // mrtr-migrate-ignore left from before the migration\n", '') }],
      }],
    },
    {
      code: trailing,
      errors: [{
        messageId: 'trailing',
        ...at(trailing, '// mrtr-migrate-ignore'),
        suggestions: [{ messageId: 'removeComment', output: trailing.replace(' // mrtr-migrate-ignore the bridge needs it', '') }],
      }],
    },
    { code: atEnd, errors: [{ messageId: 'unused', line: 2, suggestions: [{ messageId: 'removeComment', output: 'export const x = 1;\n' }] }] },
  ],
});

describe('ignore comments with the recommended config', () => {
  const linter = new Linter({ configType: 'flat', cwd: '/project' });
  const lint = (code: string) => linter.verify(code, [plugin.configs.recommended], '/project/server.ts').map(m => `${m.line} ${m.ruleId} ${m.messageId}`);

  it('the push-style rules skip a suppressed site, with or without a reason', () => {
    expect(lint(reasoned)).toEqual([]);
    expect(lint(stacked)).toEqual([]);
    expect(lint(insideCall)).toEqual([]);
    expect(lint(noReason)).toEqual(['4 mrtr-migrate/valid-ignore-comments missing-reason']);
  });

  it('a trailing or unused comment suppresses nothing', () => {
    expect(lint(trailing)).toEqual(['4 mrtr-migrate/no-push-elicitation migratable', '4 mrtr-migrate/valid-ignore-comments trailing']);
    expect(lint(unused)).toEqual(['4 mrtr-migrate/valid-ignore-comments unused']);
  });

  it('one suppressed question keeps the handler whole: its sibling is reported refused (blocked-by-sibling)', () => {
    const code = server(`  const first = ${ask}
  // mrtr-migrate-ignore the second question stays push-style for the bridge
  const second = ${ask}
  console.log(first.action, second.action);`);
    const messages = linter.verify(code, [plugin.configs.recommended], '/project/server.ts');
    expect(messages.map(m => `${m.line} ${m.messageId}`)).toEqual(['4 refused']);
    expect(messages[0]!.message).toContain('(blocked-by-sibling)');
  });
});
