import { describe, expect, it } from 'vitest';
import { lines, upgradeText as upgrade } from './stageHarness.js';

const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;

describe('a v1 handler registered with a zod schema that names its method only', () => {
  it('registers by the method string (the form v2 takes), with a note that v2 now checks the params, for a request and a notification', () => {
    const { text, diagnostics } = upgrade(lines(
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import * as zod from 'zod';",
      "export const server = new McpServer({ name: 'feeds', version: '1.0.0' });",
      'const watched = new Set<string>();',
      '// Subscriptions by URI.',
      'server.server.setRequestHandler(',
      "  zod.object({ method: zod.literal('resources/subscribe') }).passthrough(),",
      '  async (request: any) => {',
      '    watched.add(request.params.uri);',
      '    return {};',
      '  },',
      ');',
      "server.server.setNotificationHandler(zod.object({ 'method': zod.literal(\"notifications/initialized\") }).loose(), async () => {",
      '  watched.clear();',
      '});',
      "server.registerTool('count', { inputSchema: { of: zod.string() } }, async ({ of }) => ({ content: [{ type: 'text', text: `${of}: ${watched.size}` }] }));",
      '',
    ));
    expect(text).toContain("server.server.setRequestHandler(\n  'resources/subscribe',\n  async (request: any) => {");
    expect(text).toContain('server.server.setNotificationHandler("notifications/initialized", async () => {');
    expect(text).toContain("import * as zod from 'zod';");
    expect(text).toContain('// Subscriptions by URI.');
    const notes = diagnostics.filter(d => /by its method string/.test(d.message)).map(d => `${d.level} ${d.line} ${d.message}`);
    expect(notes).toEqual([
      `warning ${lineOf(text, 'server.server.setRequestHandler(')} setRequestHandler() registers 'resources/subscribe' by its method string on v2 (it takes no schema there): the request is now checked against the spec's schema for resources/subscribe before the handler runs, where the v1 schema checked its method only.`,
      `warning ${lineOf(text, 'setNotificationHandler(')} setNotificationHandler() registers 'notifications/initialized' by its method string on v2 (it takes no schema there): the notification is now checked against the spec's schema for notifications/initialized before the handler runs, where the v1 schema checked its method only.`,
    ]);
  });

  it('removes the import of zod when these schemas were all it was for', () => {
    const { text } = upgrade(lines(
      "import { Server } from '@modelcontextprotocol/sdk/server/index.js';",
      "import { z } from 'zod';",
      "export const server = new Server({ name: 'logs', version: '1.0.0' }, { capabilities: { logging: {} } });",
      "server.setRequestHandler(z.object({ method: z.literal('logging/setLevel') }).passthrough(), async () => ({}));",
      '',
    ));
    expect(text).toContain("server.setRequestHandler('logging/setLevel', async () => ({}));");
    expect(text).not.toContain('zod');
  });

  it('leaves the schemas that check more, or less, than the method, and the methods that are no spec request of the kind', () => {
    const kept = [
      // A method of no spec: v2's three-argument form hands the handler its params, not the request.
      "z.object({ method: z.literal('acme/search') }).passthrough()",
      // Strict, or stripping the params: v1 handed the handler no params at all.
      "z.object({ method: z.literal('resources/subscribe') }).strict()",
      "z.object({ method: z.literal('resources/subscribe') })",
      // Params checked by the schema itself.
      "z.object({ method: z.literal('resources/subscribe'), params: z.object({ uri: z.string() }) }).passthrough()",
      // A notification method where a request is registered.
      "z.object({ method: z.literal('notifications/initialized') }).passthrough()",
      'z.object({ method: z.string() }).passthrough()',
    ];
    for (const schema of kept) {
      const { text, diagnostics } = upgrade(lines(
        "import { Server } from '@modelcontextprotocol/sdk/server/index.js';",
        "import { z } from 'zod';",
        "export const server = new Server({ name: 'feeds', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });",
        `server.setRequestHandler(${schema}, async (request: any) => ({ seen: String(request.method) }));`,
        '',
      ));
      expect(text, schema).toContain(`server.setRequestHandler(${schema}, async`);
      expect(diagnostics.some(d => /by its method string/.test(d.message)), schema).toBe(false);
    }
  });
});
