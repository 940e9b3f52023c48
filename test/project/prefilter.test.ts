import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { classify, importsAnyOf } from '../../src/project/prefilter.js';
import { fixtureOptionsProject } from './tempProject.js';

/** The text checks that decide which files are parsed at all (src/project/prefilter.ts). */

describe('a module that only ties other modules together', () => {
  const dir = resolve('/proj/src');
  const parsed = new Set([resolve(dir, 'tools.ts'), resolve(dir, 'billing/index.ts'), resolve(dir, 'server.mts')]);
  const entry = resolve(dir, 'main.ts');

  it('is skipped by the text check: it names neither the SDK nor a registration', () => {
    expect(classify("import { Tools } from './tools.js';\nnew Tools(makeServer()).register();\n", true)).toBe('skip');
  });

  it('is parsed when it imports a parsed module, by any relative spelling', () => {
    expect(importsAnyOf(entry, "import { Tools } from './tools.js';", parsed)).toBe(true);
    expect(importsAnyOf(entry, "import { Tools } from './tools';", parsed)).toBe(true);
    expect(importsAnyOf(entry, "export * from './billing';", parsed)).toBe(true);
    expect(importsAnyOf(entry, "const { makeServer } = require('./server.mjs');", parsed)).toBe(true);
    expect(importsAnyOf(entry, "const m = await import('./server.mjs');", parsed)).toBe(true);
    expect(importsAnyOf(resolve(dir, 'nested/deep.ts'), "import '../tools.js';", parsed)).toBe(true);
  });

  it('is not parsed for imports of packages or of modules the run skips', () => {
    expect(importsAnyOf(entry, "import { Tools } from 'tools';\nimport { log } from './log.js';", parsed)).toBe(false);
    expect(importsAnyOf(entry, "// see './tools.js'\nconst path = './tools.js';", parsed)).toBe(false);
  });
});

describe('a run over a server wired by a module that names neither the SDK nor a registration', () => {
  it('parses the wiring module, not the tests that import the same modules, and migrates through it', async () => {
    const dir = fixtureOptionsProject('wiring', {
      'server.ts': "import { McpServer } from '@modelcontextprotocol/server';\nexport function makeServer(): McpServer { return new McpServer({ name: 'w', version: '1' }); }\n",
      'tools.ts': [
        "import type { McpServer } from '@modelcontextprotocol/server';",
        'export class Tools {',
        '  private readonly server: McpServer;',
        '  constructor(server: McpServer) { this.server = server; }',
        '  register(): void {',
        "    this.server.registerTool('go', {}, async ctx => {",
        "      const r = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } });",
        "      return { content: [{ type: 'text', text: r.action }] };",
        '    });',
        '  }',
        '}',
      ].join('\n'),
      'index.ts': "import { makeServer } from './server.js';\nimport { Tools } from './tools.js';\nnew Tools(makeServer()).register();\n",
      'tools.test.ts': "import { Tools } from './tools.js';\nexport const made = typeof Tools;\n",
    });
    const report = await migrate({ cwd: dir, dryRun: true });
    expect(report.filesParsed).toBe(3);
    expect(report.sites.map(s => [s.file, s.status])).toEqual([['tools.ts', 'migrated']]);
    expect(report.files.find(f => f.file === 'server.ts')?.after).toContain('requestState: { verify: requestStateCodec.verify }');
  });
});
