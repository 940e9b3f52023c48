import { describe, expect, it } from 'vitest';
import { lines, upgradeText as upgrade } from './stageHarness.js';

describe('a tool schema written as JSON Schema properties in v1 code', () => {
  it('is moved into inputSchema as written, not wrapped in z.object() (which throws when it parses), and no zod import is added for it', () => {
    const { text, diagnostics, zodInjected } = upgrade(lines(
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "export const server = new McpServer({ name: 'echo', version: '1.0.0' });",
      'server.tool(',
      "  'shout',",
      "  'Shout the input back',",
      "  { words: { type: 'string', description: 'What to shout' }, times: { type: 'integer', minimum: 1, enum: [1, 2, 3] } },",
      '  async ({ words }) => {',
      "    return { content: [{ type: 'text', text: String(words).toUpperCase() }] };",
      '  },',
      ');',
      '',
    ));
    const literal = "inputSchema: { words: { type: 'string', description: 'What to shout' }, times: { type: 'integer', minimum: 1, enum: [1, 2, 3] } }";
    expect(text).toContain(literal);
    const line = text.slice(0, text.indexOf(literal)).split('\n').length;
    expect(text).not.toMatch(/z\.object|from 'zod'/);
    expect(zodInjected).toBe(false);
    expect(diagnostics.filter(d => /z\.object/.test(d.message)).map(d => `${d.level} ${d.line} ${d.message.slice(0, 60)}`))
      .toEqual([`warning ${line} This schema is written as JSON Schema properties, not zod sc`]);
  });

  it('leaves the wraps of zod raw shapes beside it, and their import', () => {
    const { text, zodInjected } = upgrade(lines(
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { z } from 'zod';",
      "export const server = new McpServer({ name: 'echo', version: '1.0.0' });",
      "server.tool('shout', 'Shout', { words: { type: 'string' } }, async ({ words }) => ({ content: [{ type: 'text', text: String(words) }] }));",
      "server.tool('whisper', 'Whisper', { words: z.string() }, async ({ words }) => ({ content: [{ type: 'text', text: words }] }));",
      "server.tool('ping', 'Ping', {}, async () => ({ content: [{ type: 'text', text: 'pong' }] }));",
      '',
    ));
    expect(text).toContain("inputSchema: { words: { type: 'string' } }");
    expect(text).toContain('inputSchema: z.object({ words: z.string() })');
    expect(text).toContain("import { z } from 'zod';");
    expect(zodInjected).toBe(false);
  });
});
