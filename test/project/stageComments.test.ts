import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { Project, ts } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { mentionsV1Sdk, runSdkUpgrade } from '../../src/project/sdkUpgrade.js';
import { REPO } from './tempProject.js';

/**
 * The v1-to-v2 stage changes code, never what people wrote about it: every comment of a file is in
 * the file after the stage, on every v1 file of the fixtures and of the shapes of public servers
 * (`../shared/shapes`, when it is beside this repository), and on the forms that lost one before.
 */

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const roots = [join(REPO, 'fixtures'), join(REPO, '..', 'shared', 'shapes')].filter(existsSync);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const file = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(file).isDirectory()) return sources(file);
    return SOURCE.test(name) && !name.endsWith('.d.ts') ? [file] : [];
  });
}

/** Every comment of a text (trimmed), in order, found through the leading and trailing trivia of its tokens. */
function commentsOf(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const seen = new Map<number, string>();
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) seen.set(r.pos, text.slice(r.pos, r.end).trim());
  };
  const visit = (node: ts.Node): void => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.getChildren(file).forEach(visit);
  };
  visit(file);
  take(ts.getLeadingCommentRanges(text, file.endOfFileToken.getFullStart()));
  return [...seen.entries()].sort(([a], [b]) => a - b).map(([, comment]) => comment);
}

function upgraded(fileName: string, text: string): string {
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: true } });
  const file = project.createSourceFile(`/src/server${extname(fileName)}`, text);
  runSdkUpgrade(file, 'server', 'src/server.ts', new Set());
  return file.getFullText();
}

/** The comments of `before` that `after` lacks (as many times as they are lacking). */
function lost(before: string[], after: string[]): string[] {
  const left = [...after];
  return before.filter(comment => {
    const i = left.indexOf(comment);
    if (i === -1) return true;
    left.splice(i, 1);
    return false;
  });
}

const v1Files = roots.flatMap(sources).filter(file => mentionsV1Sdk(readFileSync(file, 'utf8')));

describe('the v1-to-v2 stage', () => {
  it.each(v1Files.map(file => [relative(join(REPO, '..'), file), file]))('keeps every comment of %s', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    expect(lost(commentsOf(file, text), commentsOf(file, upgraded(file, text)))).toEqual([]);
  });

  it.each([
    ['McpServer', "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';", "const server = new McpServer({ name: 'echo', version: '1.0.0' });"],
    ['Server', "import { Server } from '@modelcontextprotocol/sdk/server/index.js';", "const server = new Server({ name: 'echo', version: '1.0.0' }, { capabilities: { tools: {} } });"],
  ])('keeps a header comment between the shebang and the first import, which it rewrites (%s)', (_name, importLine, construction) => {
    const header = ['#!/usr/bin/env node', '', '/**', ' * Stripped-schema server: answers with what it was sent.', ' */', ''];
    const text = [
      ...header,
      importLine,
      "import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';",
      "import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';",
      '',
      construction,
      "server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));",
      'await server.connect(new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }));',
      '',
    ].join('\n');
    const after = upgraded('/src/server.ts', text);
    expect(after.startsWith(`${header.join('\n')}\nimport `)).toBe(true);
    expect(lost(commentsOf('a.ts', text), commentsOf('a.ts', after))).toEqual([]);
  });
});
