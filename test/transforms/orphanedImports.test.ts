import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { TS } from '../../src/analysis/types.js';
import { dropOrphanedImports } from '../../transforms/mrtr/orphanedImports.js';

const api = ts as unknown as TS;
const lines = (...l: string[]): string => l.join('\n');
const parsed = (name: string, text: string) => ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true) as never;

describe('imports the rewrite left unused', () => {
  const before = lines(
    "import { ElicitResultSchema, type CallToolResult } from '@modelcontextprotocol/core';",
    "import { McpServer } from '@modelcontextprotocol/server';",
    "import { unusedBefore } from './util.js';",
    "import { audit } from './audit.js';",
    'const answer = await send(request, ElicitResultSchema);',
    'const result: CallToolResult = audit(answer);',
  );

  it('lose the names only the rewritten code used; an import the user left unused stays', () => {
    const after = before.replace('await send(request, ElicitResultSchema)', 'elicitResultOf(response)');
    expect(dropOrphanedImports(api, parsed('server.ts', before), after, false)).toBe(lines(
      "import { type CallToolResult } from '@modelcontextprotocol/core';",
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import { unusedBefore } from './util.js';",
      "import { audit } from './audit.js';",
      'const answer = elicitResultOf(response);',
      'const result: CallToolResult = audit(answer);',
    ));
  });

  it('go whole when no name is left, or stay for their side effects where imports are kept as written', () => {
    const after = before.replace('await send(request, ElicitResultSchema)', 'elicitResultOf(response)').replace('const result: CallToolResult = audit(answer);', 'const result = answer;');
    expect(dropOrphanedImports(api, parsed('server.ts', before), after, false).split('\n').slice(0, 3)).toEqual([
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import { unusedBefore } from './util.js';",
      'const answer = elicitResultOf(response);',
    ]);
    // verbatimModuleSyntax (or JavaScript): the module is still evaluated, except the SDK's.
    expect(dropOrphanedImports(api, parsed('server.ts', before), after, true).split('\n').slice(0, 4)).toEqual([
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import { unusedBefore } from './util.js';",
      "import './audit.js';",
      'const answer = elicitResultOf(response);',
    ]);
  });

  it('keep a default import, and in JavaScript a name a JSDoc comment still mentions', () => {
    const js = lines("import x, { Schema } from 'lib';", '/** @type {Schema} */', 'const s = x(Schema);');
    expect(dropOrphanedImports(api, parsed('server.mjs', js), js.replace('x(Schema)', 'x(null)'), true)).toBe(js.replace('x(Schema)', 'x(null)'));
    expect(dropOrphanedImports(api, parsed('server.ts', js), js.replace('x(Schema)', 'x(null)').replace('{Schema}', '{unknown}'), false)).toBe(lines(
      "import x from 'lib';",
      '/** @type {unknown} */',
      'const s = x(null);',
    ));
  });
});
