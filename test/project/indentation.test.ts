import { describe, expect, it } from 'vitest';
import { restoreIndentation } from '../../src/project/indentation.js';

const lines = (...l: string[]): string => l.join('\n');

describe('indentation the v1-to-v2 stage only moved', () => {
  const original = lines(
    "server.tool('t', 'Say it', async () => {",
    '  const text = `first',
    '    second`;',
    "  return { content: [{ type: 'text', text }] };",
    '});',
  );
  // As the official stage re-prints the call: the body two levels deeper. (It leaves template text alone;
  // here it is moved too, to show that a line inside a literal is never re-indented.)
  const upgraded = lines(
    "server.registerTool('t', { description: 'Say it' }, async () => {",
    '      const text = `first',
    '        second`;',
    "      return { content: [{ type: 'text', text }] };",
    '});',
  );

  it('goes back for lines moved together; a template literal keeps every character', () => {
    expect(restoreIndentation('f.ts', original, upgraded)).toBe(lines(
      "server.registerTool('t', { description: 'Say it' }, async () => {",
      '  const text = `first',
      '        second`;',
      "  return { content: [{ type: 'text', text }] };",
      '});',
    ));
  });

  it('goes back for a line the stage also rewrote, by the shift of the moved lines around it', () => {
    const v1 = lines(
      "server.tool('t', async (extra) => {",
      "  const request = { method: 'roots/list' as const };",
      '  const answer = await extra.sendRequest(request, ListRootsResultSchema);',
      '  return answer;',
      '});',
    );
    const v2 = lines(
      "server.registerTool('t', {}, async (ctx) => {",
      "      const request = { method: 'roots/list' as const };",
      '      const answer = await ctx.mcpReq.send(request, ListRootsResultSchema);',
      '      return answer;',
      '});',
    );
    expect(restoreIndentation('f.ts', v1, v2)).toBe(lines(
      "server.registerTool('t', {}, async (ctx) => {",
      "  const request = { method: 'roots/list' as const };",
      '  const answer = await ctx.mcpReq.send(request, ListRootsResultSchema);',
      '  return answer;',
      '});',
    ));
    // A rewritten line that moved by another amount than its neighbours keeps the stage's text.
    const odd = v2.replace('      const answer', '        const answer');
    expect(restoreIndentation('f.ts', v1, odd).split('\n')[2]).toBe('        const answer = await ctx.mcpReq.send(request, ListRootsResultSchema);');
  });

  it('goes back for a rewritten line with a marker the stage put above it, by the shift around them', () => {
    const v1 = lines(
      "server.tool('t', async (extra) => {",
      '  await report(extra);',
      '  return done;',
      '});',
    );
    const v2 = lines(
      "server.registerTool('t', {}, async (ctx) => {",
      '      /* @mcp-codemod-error The context object is forwarded to report(…) */',
      '      await report(ctx);',
      '      return done;',
      '});',
    );
    expect(restoreIndentation('f.ts', v1, v2)).toBe(lines(
      "server.registerTool('t', {}, async (ctx) => {",
      '  /* @mcp-codemod-error The context object is forwarded to report(…) */',
      '  await report(ctx);',
      '  return done;',
      '});',
    ));
  });

  it('puts the closing line of a registration the stage re-printed on one line where its call starts', () => {
    const v1 = lines(
      '  server.tool(',
      "    'ping',",
      '    async () => {',
      '      return pong;',
      '    },',
      '  );',
    );
    const v2 = lines(
      "  server.registerTool('ping', {}, async () => {",
      '              return pong;',
      '            });',
    );
    expect(restoreIndentation('f.ts', v1, v2)).toBe(lines(
      "  server.registerTool('ping', {}, async () => {",
      '      return pong;',
      '  });',
    ));
  });

  it('goes back for a raw shape wrapped into z.object({...}): its lines and its closing line', () => {
    const shape = lines(
      "server.registerTool('t', {",
      '  inputSchema: {',
      "    name: z.string().describe('Name'),",
      '  },',
      '}, handler);',
    );
    // As the official stage wraps the shape: the fields and the closer indented six spaces deeper.
    const wrapped = lines(
      "server.registerTool('t', {",
      '  inputSchema: z.object({',
      "          name: z.string().describe('Name'),",
      '        }),',
      '}, handler);',
    );
    expect(restoreIndentation('f.ts', shape, wrapped)).toBe(lines(
      "server.registerTool('t', {",
      '  inputSchema: z.object({',
      "    name: z.string().describe('Name'),",
      '  }),',
      '}, handler);',
    ));
  });

  it('stays where a lone brace moved, where it moved less deep, and on a text the stage did not touch', () => {
    const alone = lines('function f() {', '  if (a) {', '    g();', '  }', '}');
    expect(restoreIndentation('f.ts', alone, lines('function f() {', '  if (a) {', '    g();', '      }', '}'))).toBe(lines('function f() {', '  if (a) {', '    g();', '      }', '}'));
    expect(restoreIndentation('f.ts', lines('    a();', '    b();'), lines('  a();', '  b();'))).toBe(lines('  a();', '  b();'));
    expect(restoreIndentation('f.ts', original, original)).toBe(original);
  });

  it('keeps CRLF line endings', () => {
    expect(restoreIndentation('f.ts', original.replace(/\n/g, '\r\n'), upgraded.replace(/\n/g, '\r\n'))).toContain("\r\n  return { content: [{ type: 'text', text }] };\r\n");
  });
});
