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
