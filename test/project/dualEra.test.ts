import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { fixtureOptionsProject } from './tempProject.js';

/**
 * A server half way to the 2026-07-28 protocol: the dual-era handler of the runnable fixture
 * v2-dual-era (its push call runs on 2025-era connections only, beside its own inputRequired path)
 * is left as it is and reported as already migrated; the handler beside it that still pushes is migrated.
 */
const input = readFileSync(join(import.meta.dirname, '../../fixtures/v2-dual-era/input.ts'), 'utf8');

describe('a dual-era handler', () => {
  it('is no site, is listed as already migrated (dual-era), and keeps its text', async () => {
    const dir = fixtureOptionsProject('dual-era', { 'server.ts': input });
    const report = await migrate({ cwd: dir, dryRun: true });
    expect(report.sites.map(s => [s.handler?.name, s.status])).toEqual([['leave_club', 'migrated']]);
    expect(report.alreadyMigrated).toEqual([{ file: 'server.ts', line: 43, method: 'tools/call', name: 'join_club', dualEra: true }]);
    const after = report.files.find(f => f.file === 'server.ts')!.after!;
    const legacyBranch = input.slice(input.indexOf("      if (reqCtx.era === 'legacy') {"), input.indexOf('      return welcome(club, profile);'));
    expect(after).toContain(legacyBranch);
    expect(renderMarkdown(report)).toContain('- `server.ts:43`: tools/call "join_club" (dual-era: its push calls serve 2025-era connections, beside its own inputRequired path)');
  });
});

describe('a push call in a helper', () => {
  const legacyPush = "        const result = await ctx.mcpReq.elicitInput({ message: `Your profile for ${club}:`, requestedSchema: PROFILE_SCHEMA });";
  const helper = [
    '',
    '/** The 2025-era question: pushed, and awaited. */',
    'async function askProfile(ctx: ServerContext, club: string) {',
    '  return ctx.mcpReq.elicitInput({ message: `Your profile for ${club}:`, requestedSchema: PROFILE_SCHEMA });',
    '}',
    '',
    'export function createServer(',
  ].join('\n');
  const withHelper = input
    .replace(legacyPush, '        const result = await askProfile(ctx, club);')
    .replace('\nexport function createServer(', helper)
    .replace(/import \{([^}]*)\} from '@modelcontextprotocol\/server';/, (all, names: string) => (names.includes('ServerContext') ? all : `import {${names}, type ServerContext } from '@modelcontextprotocol/server';`));

  it('that only legacy branches of dual-era handlers call is no site either, and the handler is dual-era', async () => {
    expect(withHelper).toContain('await askProfile(ctx, club)');
    const dir = fixtureOptionsProject('dual-era-helper', { 'server.ts': withHelper });
    const report = await migrate({ cwd: dir, dryRun: true });
    expect(report.sites.map(s => [s.handler?.name, s.status])).toEqual([['leave_club', 'migrated']]);
    expect(report.alreadyMigrated.map(a => [a.name, a.dualEra])).toEqual([['join_club', true]]);
    const after = report.files.find(f => f.file === 'server.ts')!.after!;
    expect(after).toContain(helper.slice(0, helper.indexOf('export function')));
  });

  it('that is also called outside a legacy branch is a site, as before', async () => {
    const alsoModern = withHelper.replace('      // 2026-07-28: ask through the retry.', '      // 2026-07-28: ask through the retry.\n      if (club === \'probe\') await askProfile(ctx, club);');
    const dir = fixtureOptionsProject('dual-era-helper-modern', { 'server.ts': alsoModern });
    const report = await migrate({ cwd: dir, dryRun: true });
    expect(report.sites.map(s => s.context).sort()).toContain('helper askProfile() reached from tools/call "join_club"');
    expect(report.alreadyMigrated.map(a => a.name)).not.toContain('join_club');
  });
});
