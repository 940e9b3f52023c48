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
