import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPipeline } from './pipeline.js';

/** Shapes of the URL-elicitation rewrite the runnable fixture does not show. */

const file = join(import.meta.dirname, '../../fixtures/__url_snippet__.ts');
const ELICITATION = "{ mode: 'url', elicitationId: `c-${user}`, url: `https://auth.example.com/?state=c-${user}`, message: 'Sign in' }";

describe('throw new UrlElicitationRequiredError(...)', () => {
  it('wraps a lone throw in braces, keeps a literal message for the decline path, and type-checks', () => {
    const result = runPipeline(file, [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import { UrlElicitationRequiredError } from '@modelcontextprotocol/server';",
      'declare const granted: (user: string) => boolean;',
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.registerPrompt('briefing', { argsSchema: {} }, async () => {",
      "  const user = 'ada';",
      `  if (!granted(user)) throw new UrlElicitationRequiredError([${ELICITATION}], 'Authorization required');`,
      "  return { messages: [{ role: 'user', content: { type: 'text', text: user } }] };",
      '});',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated-for-review']);
    expect(result.typeErrors).toEqual([]);
    // Its only use was the throw: the separate import goes too (unused, it fails noUnusedLocals).
    expect(result.text).not.toMatch(/import \{[^}]*UrlElicitationRequiredError/);
    expect(result.text).not.toContain('new UrlElicitationRequiredError');
    expect(result.text).toContain("  if (!granted(user)) {\n    const [urlElicitation]: [ElicitRequestURLParams] = [");
    expect(result.text).toContain("message: 'Authorization required' }, ctx)");
    expect(result.text).toContain("if (urlResponse.action !== 'accept') throw new Error(state.message);");
  });

  it('keeps the import while another use of the class remains', () => {
    const result = runPipeline(file, [
      "import { McpServer, UrlElicitationRequiredError } from '@modelcontextprotocol/server';",
      'declare const granted: (user: string) => boolean;',
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.registerTool('connect', {}, async () => {",
      "  const user = 'ada';",
      `  if (!granted(user)) throw new UrlElicitationRequiredError([${ELICITATION}]);`,
      "  return { content: [] };",
      '});',
      'export const isUrlError = (e: unknown) => e instanceof UrlElicitationRequiredError;',
    ].join('\n'));
    expect(result.sites.map(s => s.status)).toEqual(['migrated-for-review']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toMatch(/^import \{ McpServer, UrlElicitationRequiredError, ProtocolError/);
    expect(result.text).not.toContain('new UrlElicitationRequiredError');
  });
});

describe('a pushed URL-mode elicitInput()', () => {
  const tool = (...body: string[]) => runPipeline(file, [
    "import { McpServer } from '@modelcontextprotocol/server';",
    "import { randomUUID } from 'node:crypto';",
    'declare const pending: Map<string, string>;',
    'declare function nextId(): string;',
    "export const server = new McpServer({ name: 'n', version: '1' });",
    "server.registerTool('connect', {}, async (ctx) => {",
    ...body.map(line => `  ${line}`),
    "  return { content: [{ type: 'text', text: answer.action }] };",
    '});',
  ].join('\n'));

  it('whose elicitationId nothing uses again asks with inputRequired.elicitUrl({ message, url }); the id and its const go', () => {
    const result = tool(
      'const id = randomUUID();',
      "const answer = await ctx.mcpReq.elicitInput({ mode: 'url', elicitationId: id, message: 'Sign in', url: 'https://auth.example.com' });",
    );
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain("const answerRequest = inputRequired.elicitUrl({ message: 'Sign in', url: 'https://auth.example.com' });");
    expect(result.text).not.toContain('const id = randomUUID();');
    // Its import had no other use: it goes too (unused, it fails noUnusedLocals).
    expect(result.text).not.toContain("from 'node:crypto'");
  });

  it('keeps the import of what made the id while the file still uses it', () => {
    const result = tool(
      "const answer = await ctx.mcpReq.elicitInput({ mode: 'url', elicitationId: randomUUID(), message: 'Sign in', url: 'https://auth.example.com' });",
      'pending.set(randomUUID(), answer.action);',
    );
    expect(result.sites.map(s => s.status)).toEqual(['migrated']);
    expect(result.typeErrors).toEqual([]);
    expect(result.text).toContain("import { randomUUID } from 'node:crypto';");
    expect(result.text).not.toContain('elicitationId: randomUUID()');
  });

  it('is refused, naming the obstacle, where the id is used again, computed observably, notified, or the params hold more', () => {
    const hint = (...body: string[]) => {
      const site = tool(...body).sites[0]!;
      return `${site.status} ${site.reason}: ${site.hint}`;
    };
    expect(hint('const id = randomUUID();', 'pending.set(id, "ada");', "const answer = await ctx.mcpReq.elicitInput({ mode: 'url', elicitationId: id, message: 'Sign in', url: 'https://a.example' });"))
      .toMatch(/^refused unsupported-construct: the URL-mode elicitInput\(\) is not rewritten as its elicitationId `id` is used again \(line 8\);/);
    expect(hint("const answer = await ctx.mcpReq.elicitInput({ mode: 'url', elicitationId: nextId(), message: 'Sign in', url: 'https://a.example' });"))
      .toMatch(/is not rewritten as its elicitationId is computed by `nextId\(\)`, which would no longer run;/);
    expect(hint("const answer = await ctx.mcpReq.elicitInput({ mode: 'url', elicitationId: 'e', message: 'Sign in', url: 'https://a.example', _meta: { k: 1 } });"))
      .toMatch(/is not rewritten as `_meta: \{ k: 1 \}` has no place in inputRequired\.elicitUrl/);
    expect(hint(
      "const notify = (server.server as unknown as { createElicitationCompletionNotifier(id: string): () => Promise<void> }).createElicitationCompletionNotifier('e');",
      "const answer = await ctx.mcpReq.elicitInput({ mode: 'url', elicitationId: 'e', message: 'Sign in', url: 'https://a.example' });",
      'await notify();',
    )).toMatch(/is not rewritten as the handler sends a completion notification for it \(line 7\);/);
  });

  it('is known by the type of its params when they are not a literal, and the hint names URL mode', () => {
    const result = runPipeline(file, [
      "import { McpServer, type ElicitRequestURLParams } from '@modelcontextprotocol/server';",
      'declare function loginParams(): ElicitRequestURLParams;',
      "export const server = new McpServer({ name: 'n', version: '1' });",
      "server.registerTool('connect', {}, async (ctx) => {",
      '  const answer = await ctx.mcpReq.elicitInput(loginParams());',
      "  return { content: [{ type: 'text', text: answer.action }] };",
      '});',
    ].join('\n'));
    expect(result.sites.map(s => [s.status, s.reason])).toEqual([['refused', 'unsupported-construct']]);
    expect(result.sites[0]!.hint).toMatch(/^the URL-mode elicitInput\(\) is not rewritten as its params are not written at the call \(`loginParams\(\)` is URL mode by its type\)/);
  });
});
