import { describe, expect, it } from 'vitest';
import { lineAfterRelayout, restoreRegistrationLayout } from '../../src/project/registrationLayout.js';
import { CODEMOD_MARKER } from '../../src/project/sdkUpgrade.js';
import { lines, upgradeText } from './stageHarness.js';

/** A v1 registration written an argument per line, as most v1 servers write it. */
const v1 = lines(
  "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
  "import { z } from 'zod';",
  '',
  'export function createServer(): McpServer {',
  "  const server = new McpServer({ name: 'rooms', version: '1.0.0' });",
  '  server.tool(',
  "    'book_room',",
  "    'Book a room.',",
  '    { room: z.string() },',
  '    async ({ room }) => {',
  '      // The room is booked for an hour.',
  "      return { content: [{ type: 'text', text: `Booked ${room}.` }] };",
  '    },',
  '  );',
  '  return server;',
  '}',
  '',
);

const upgrade = (text: string) => {
  const { text: after, diagnostics } = upgradeText(text);
  return { text: after, diagnostics };
};

describe('a registration the v1-to-v2 stage re-printed on one line', () => {
  it('is written an argument per line again: the body keeps its lines, the handler and the call close at their levels', () => {
    const { text } = upgrade(v1);
    expect(text).toContain(lines(
      '  server.registerTool(',
      "    'book_room',",
      // 81 characters on one line, more than the file's longest line (and 80): a line per property.
      '    {',
      "      description: 'Book a room.',",
      '      inputSchema: z.object({ room: z.string() }),',
      '    },',
      '    async ({ room }) => {',
      '      // The room is booked for an hour.',
      "      return { content: [{ type: 'text', text: `Booked ${room}.` }] };",
      '    },',
      '  );',
      '  return server;',
    ));
  });

  it('keeps the diagnostics on their lines', () => {
    // A context handed to a helper: the stage marks the line and reports it.
    const forwarded = v1.replace('async ({ room }) => {', 'async ({ room }, extra) => {\n      await audit(extra);').replace('return server;', 'return server;\n  async function audit(_extra: unknown) {}');
    const { text, diagnostics } = upgrade(forwarded);
    const marked = diagnostics.filter(d => d.code === 'sdk-upgrade/marker');
    expect(marked.length).toBeGreaterThan(0);
    for (const d of marked) expect(text.split('\n')[d.line! - 1]).toContain(CODEMOD_MARKER);
    expect(text).toContain('    async ({ room }, ctx) => {');
    expect(text).toContain('    },\n  );\n  return server;');
  });
});

describe('restoreRegistrationLayout', () => {
  const stage = lines(
    'function f() {',
    "  server.registerTool('t', { description: 'Say it' }, async () => {",
    '      say();',
    '  });',
    '}',
  );

  it('follows the file: no trailing comma where its calls have none, a tab where it indents with tabs', () => {
    expect(restoreRegistrationLayout('f.ts', 'f(\n  a\n);', stage).text).toBe(lines(
      'function f() {',
      '  server.registerTool(',
      "    't',",
      "    { description: 'Say it' },",
      '    async () => {',
      '      say();',
      '    }',
      '  );',
      '}',
    ));
    const tabs = stage.replaceAll('      ', '\t\t\t').replaceAll('  ', '\t');
    expect(restoreRegistrationLayout('f.ts', 'f(\n\ta,\n);', tabs).text).toBe(lines(
      'function f() {',
      '\tserver.registerTool(',
      "\t\t't',",
      "\t\t{ description: 'Say it' },",
      '\t\tasync () => {',
      '\t\t\tsay();',
      '\t\t},',
      '\t);',
      '}',
    ));
  });

  it('gives a config object longer than the file\'s longest line a line per property', () => {
    const long = stage.replace("{ description: 'Say it' }", `{ description: '${'x'.repeat(70)}', inputSchema: z.object({ a: z.string() }) }`);
    expect(restoreRegistrationLayout('f.ts', 'f(\n  a,\n);', long).text.split('\n').slice(1, 8)).toEqual([
      '  server.registerTool(',
      "    't',",
      '    {',
      `      description: '${'x'.repeat(70)}',`,
      '      inputSchema: z.object({ a: z.string() }),',
      '    },',
      '    async () => {',
    ]);
  });

  it('leaves a call whose handler was on the call\'s line, one with a comment among its arguments, and an expression body', () => {
    const sameLine = lines("server.registerTool('t', {}, async () => {", '  say();', '});');
    expect(restoreRegistrationLayout('f.ts', '', sameLine)).toEqual({ text: sameLine, added: [] });
    const commented = stage.replace("'t', {", "'t', /* config */ {");
    expect(restoreRegistrationLayout('f.ts', '', commented)).toEqual({ text: commented, added: [] });
    const expression = lines("  server.registerTool('t', {}, async () => ({", '      content: [],', '  }));');
    expect(restoreRegistrationLayout('f.ts', '', expression)).toEqual({ text: expression, added: [] });
  });

  it('reports the lines it adds, for the lines after them', () => {
    const { added } = restoreRegistrationLayout('f.ts', 'f(\n  a,\n);', stage);
    expect(added).toEqual([{ head: 2, count: 3, close: 4 }]);
    expect([1, 2, 3, 4, 5].map(line => lineAfterRelayout(line, added))).toEqual([1, 2, 6, 7, 9]);
  });
});
