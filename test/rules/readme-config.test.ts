import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ESLINT_PACKAGES } from './eslintRunner.js';

/**
 * The README's `eslint.config.js` snippets, copied verbatim into a fresh project outside this
 * repository that has only the packages a user installs (mrtr-migrate, ESLint 9 or 10, the SDK),
 * and run as `npx eslint .` runs them: every source extension is linted, TypeScript syntax parses,
 * the push-style sites are reported, and the typed snippet gives the typed verdicts.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The `// eslint.config.js` blocks of the README's plugin section, in order. */
function readmeConfigs(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/\n(?=## )/).find(part => part.startsWith('## The ESLint plugin\n')) ?? '';
  return [...section.matchAll(/```js\n([\s\S]*?)```/g)].map(m => m[1]!).filter(code => code.startsWith('// eslint.config.js'));
}

// The 'archive' tool reads a local after the question whose type only the checker knows.
const SERVER_TS = `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

interface Archive { paths: readonly string[] }
const server = new McpServer({ name: 'files', version: '1.0.0' });

async function countFiles(archive: Archive): Promise<number> {
  return archive.paths.length;
}

server.registerTool('archive', { inputSchema: z.object({ paths: z.array(z.string()) }) }, async ({ paths }, ctx) => {
  const count: number = await countFiles({ paths } satisfies Archive);
  const ok = await ctx.mcpReq.elicitInput({
    mode: 'form',
    message: \`Archive \${count} files?\`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
  });
  return { content: [{ type: 'text' as const, text: \`\${ok.action} \${count}\` }] };
});
`;
const ARCHIVE_LINE = 13;

// One file per other extension the codemod reads, each with a site the untyped analysis finds too.
const ASK_ROOTS = 'const answer = await server.server.listRoots();';
const OTHER_FILES: Record<string, string> = {
  'src/roots.mts': `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'roots', version: '1.0.0' });
export async function startup(): Promise<void> {
  ${ASK_ROOTS}
  console.log(answer.roots.length as number);
}
`,
  'src/legacy.cjs': `const { McpServer } = require('@modelcontextprotocol/server');
const server = new McpServer({ name: 'legacy', version: '1.0.0' });
async function startup() {
  ${ASK_ROOTS}
  console.log(answer.roots.length);
}
module.exports = { startup };
`,
  'src/view.tsx': `import { McpServer } from '@modelcontextprotocol/server';
const server = new McpServer({ name: 'view', version: '1.0.0' });
export async function startup(): Promise<void> {
  ${ASK_ROOTS}
  console.log(answer.roots.length);
}
export const View = (props: { title: string }) => <h1>{props.title}</h1>;
`,
};

const TSCONFIG = JSON.stringify({
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, jsx: 'preserve', skipLibCheck: true, noEmit: true, types: [] },
  include: ['src'],
}, null, 2);

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A new project in the system's temp folder: the config, the sources, and node_modules with what a user installs. */
function freshProject(config: string, eslintPackage: string): string {
  const dir = mkdtempSync(join(os.tmpdir(), 'mrtr-readme-eslint-'));
  made.push(dir);
  mkdirSync(join(dir, 'src'));
  mkdirSync(join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'readme-project', private: true, type: 'module' }, null, 2));
  writeFileSync(join(dir, 'tsconfig.json'), TSCONFIG);
  writeFileSync(join(dir, 'eslint.config.js'), config);
  writeFileSync(join(dir, 'src/server.ts'), SERVER_TS);
  for (const [file, text] of Object.entries(OTHER_FILES)) writeFileSync(join(dir, file), text);
  // The package itself as installed (its package.json exports map `mrtr-migrate/eslint-plugin` to the build).
  symlinkSync(ROOT, join(dir, 'node_modules/mrtr-migrate'), 'dir');
  symlinkSync(join(ROOT, 'node_modules', eslintPackage), join(dir, 'node_modules/eslint'), 'dir');
  for (const dep of ['@modelcontextprotocol', 'zod']) symlinkSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir');
  return dir;
}

const configs = readmeConfigs();

describe('README ESLint snippets', () => {
  it('are the untyped and the typed config', () => {
    expect(configs).toHaveLength(2);
    expect(configs[0]).toContain('mrtr.configs.recommended');
    expect(configs[1]).toContain('projectService');
  });
});

describe.each(ESLINT_PACKAGES)('README ESLint snippets with $label in a fresh project', ({ module }) => {
  async function lintProject(config: string) {
    const dir = freshProject(config, module);
    // As `npx eslint .` in that folder: its eslint.config.js, found from the working directory.
    const { ESLint } = (await import(module)) as typeof import('eslint');
    const eslint = new ESLint({ cwd: dir });
    const results = await eslint.lintFiles(['.']);
    return { dir, results: new Map(results.map(r => [relative(dir, r.filePath), r])) };
  }

  it.each([
    ['untyped', 0, 'refused'],
    ['typed', 1, 'migratableForReview'],
  ] as const)('the %s snippet lints every extension and reports the sites', async (_mode, index, archiveMessage) => {
    const { results } = await lintProject(configs[index]!);
    expect([...results.keys()].sort()).toEqual(['eslint.config.js', 'src/legacy.cjs', 'src/roots.mts', 'src/server.ts', 'src/view.tsx']);
    for (const [file, result] of results) {
      // No "File ignored because no matching configuration was supplied", no parse error on type annotations or JSX.
      expect(result.messages.filter(m => m.fatal || m.ruleId === null), file).toEqual([]);
    }
    const archive = results.get('src/server.ts')!.messages;
    expect(archive.map(m => [m.line, m.ruleId, m.messageId])).toEqual([[ARCHIVE_LINE, 'mrtr-migrate/no-push-elicitation', archiveMessage]]);
    if (archiveMessage === 'refused') expect(archive[0]!.message).toContain('(unknown-local-type)');
    for (const file of Object.keys(OTHER_FILES)) {
      expect(results.get(file)!.messages.map(m => [m.line, m.ruleId, m.messageId]), file).toEqual([[4, 'mrtr-migrate/no-push-roots', 'refused']]);
    }
  });
});
