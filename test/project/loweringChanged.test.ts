import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { LOWERING_CHANGED, markerText } from '../../transforms/mrtr/index.js';
import { tempProject, tscErrors } from './tempProject.js';

/**
 * The engine's own invariant: the lowered loops and conditionals must read to the analysis as the
 * original did. When they do not (a gap in the lowering), the run neither stops with an internal
 * error nor writes the file half-migrated: its sites are refused with a marker and the file keeps
 * its push calls. No lowering is known to break the invariant, so this file's lowering is made to
 * (in this file only: the e2e project runs each test file in its own module registry): it renames
 * the question it lowers around, so the lowered file has one site fewer.
 */
vi.mock(import('../../transforms/mrtr/normalize.js'), async importOriginal => {
  const real = await importOriginal();
  return {
    ...real,
    normalizeEdits: (options, analysis) => {
      const edits = real.normalizeEdits(options, analysis);
      const at = options.text.indexOf('elicitInput(');
      return edits.length === 0 || at < 0 ? edits : [...edits, { start: at, end: at + 'elicitInput'.length, text: 'elicitLater' }];
    },
  };
});

const SERVER = `import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

const server = new McpServer({ name: 'tags', version: '1.0.0' });
server.registerTool('retag', { inputSchema: z.object({ tags: z.array(z.string()) }) }, async ({ tags }, ctx) => {
  const kept: string[] = [];
  for (const tag of tags.filter(t => t.startsWith('old-'))) {
    const answer = await ctx.mcpReq.elicitInput({
      mode: 'form',
      message: \`Keep \${tag}?\`,
      requestedSchema: { type: 'object', properties: { keep: { type: 'boolean' } }, required: ['keep'] },
    });
    if (answer.action === 'accept' && answer.content?.keep === true) kept.push(tag);
  }
  return { content: [{ type: 'text', text: kept.join(', ') }] };
});
`;

describe('a lowering that changes what the analysis reads', () => {
  it('refuses the file\'s sites with a marker and leaves the file as it was', async () => {
    const dir = tempProject('lowering-changed');
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'es2022', module: 'nodenext', strict: true, noEmit: true, skipLibCheck: true }, include: ['*.ts'] }));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', dependencies: { '@modelcontextprotocol/server': '2.4.0' } }));
    writeFileSync(join(dir, 'tags.ts'), SERVER);
    const before = tscErrors(dir);

    const report = await migrate({ cwd: dir, force: true });

    expect(report.sites.map(s => [s.file, s.line, s.status, s.reason, s.hint])).toEqual([['tags.ts', 8, 'refused', 'unsupported-construct', LOWERING_CHANGED]]);
    const text = readFileSync(join(dir, 'tags.ts'), 'utf8');
    expect(text).toBe(SERVER.replace('    const answer = await', `    ${markerText('unsupported-construct', LOWERING_CHANGED)}\n    const answer = await`));
    expect(tscErrors(dir)).toEqual(before);
  });
});
