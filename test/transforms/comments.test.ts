import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { runPipeline } from './pipeline.js';

/**
 * Generated code is reviewed by people: every comment of a fixture's input is still in its output
 * (moved, re-indented or copied, never dropped). Comments are found on the syntax tree (every
 * token's leading and trailing comments), so comment-like text in strings does not count.
 */

const root = resolve(import.meta.dirname, '..', '..', 'fixtures');
const cases = readdirSync(root).filter(name => existsSync(join(root, name, 'input.ts')) && existsSync(join(root, name, 'output.ts'))).sort();

/** The comments of a source file, each as its lines without their indentation. */
export function commentsOf(text: string): string[] {
  const sf = ts.createSourceFile('f.ts', text, ts.ScriptTarget.Latest, true);
  const seen = new Set<number>();
  const out: string[] = [];
  const take = (ranges: ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      out.push(normalise(text.slice(r.pos, r.end)));
    }
  };
  const visit = (node: ts.Node): void => {
    take(ts.getLeadingCommentRanges(text, node.pos));
    take(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  return out;
}

function normalise(comment: string): string {
  return comment.split(/\r?\n/).map(line => line.trim()).join('\n');
}

describe.each(cases)('%s', name => {
  it('keeps every comment of input.ts in output.ts', () => {
    const output = commentsOf(readFileSync(join(root, name, 'output.ts'), 'utf8'));
    const missing = commentsOf(readFileSync(join(root, name, 'input.ts'), 'utf8')).filter(c => !output.includes(c));
    expect(missing).toEqual([]);
  });

  it('writes no comment twice in a row where the input has it once', () => {
    expect(repeatedCommentLines(readFileSync(join(root, name, 'output.ts'), 'utf8'))).toEqual(repeatedCommentLines(readFileSync(join(root, name, 'input.ts'), 'utf8')));
  });
});

/** Comment lines that directly repeat the comment line above them. */
function repeatedCommentLines(text: string): string[] {
  const lines = text.split(/\r?\n/).map(l => l.trim());
  return lines.filter((l, i) => l.startsWith('//') && lines[i - 1] === l);
}

it('a comment above a question that opens a nested block stays once, above the question in the asking round (not again where the answer is read)', () => {
  const input = [
    "import { McpServer } from '@modelcontextprotocol/server';",
    "import * as z from 'zod/v4';",
    "const server = new McpServer({ name: 'demo', version: '1.0.0' });",
    "server.registerTool('confirm', { inputSchema: z.object({ force: z.boolean() }) }, async ({ force }, ctx) => {",
    '  if (!force) {',
    '    // Ask the user before doing anything.',
    "    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Sure?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });",
    "    if (answer.action !== 'accept') return { content: [{ type: 'text', text: 'cancelled' }] };",
    '  }',
    "  return { content: [{ type: 'text', text: 'done' }] };",
    '});',
  ].join('\n');
  const result = runPipeline(resolve(root, 'comment-in-block.ts'), input);
  expect(result.sites.map(s => s.status)).toEqual(['migrated']);
  expect(result.text!.split('// Ask the user before doing anything.').length - 1).toBe(1);
  expect(result.text).toContain('if (!force) {\n      // Ask the user before doing anything.\n      const answerRequest = inputRequired.elicit(');
  expect(repeatedCommentLines(result.text!)).toEqual([]);
});

it('a blank line above a question stays above it in the asking round (and the first statement of a block has none)', () => {
  const input = [
    "import { McpServer } from '@modelcontextprotocol/server';",
    "import * as z from 'zod/v4';",
    "const server = new McpServer({ name: 'demo', version: '1.0.0' });",
    "server.registerTool('confirm', { inputSchema: z.object({ item: z.string() }) }, async ({ item }, ctx) => {",
    '  const label = item.toUpperCase();',
    '',
    "  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: `Delete ${label}?`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });",
    "  return { content: [{ type: 'text', text: answer.action }] };",
    '});',
  ].join('\n');
  const result = runPipeline(resolve(root, 'blank-before-question.ts'), input);
  expect(result.sites.map(s => s.status)).toEqual(['migrated']);
  expect(result.text).toContain('    const label = item.toUpperCase();\n\n    const answerRequest = inputRequired.elicit(');
  expect(result.text).not.toMatch(/\{\n\n/);
});

it('finds comments the way the tests above rely on (and not inside strings)', () => {
  expect(commentsOf([
    '// one',
    "const s = '// not a comment';",
    'function f() { /* two */ return 1; } // three',
    '  /**',
    '   * four',
    '   */',
    'const t = `/* not one either */`;',
  ].join('\n')).sort()).toEqual(['// one', '// three', '/* two */', '/**\n* four\n*/'].sort());
});
