import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { renderJson } from '../../src/report/json.js';
import { mergeJsonReports } from '../../src/report/merge.js';
import { REPO, tempProject } from './tempProject.js';

/** A copy of fixtures/v2-elicit-straight as a project of its own. */
function copy(): string {
  const dir = tempProject('site-ids');
  cpSync(join(REPO, 'fixtures', 'v2-elicit-straight', 'input.ts'), join(dir, 'server.ts'));
  const options = JSON.parse(readFileSync(join(REPO, 'test', 'equivalence', 'tsconfig.fixtures.json'), 'utf8')).compilerOptions;
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options }));
  return dir;
}

describe('site ids', () => {
  it('name the site by its path relative to the run, so a copy of the project gets the same ids', async () => {
    const [one, two] = [copy(), copy()];
    const first = await migrate({ cwd: one, dryRun: true, sdkUpgrade: false });
    const second = await migrate({ cwd: two, dryRun: true, sdkUpgrade: false });
    expect(first.sites.map(s => s.id)).toEqual(['server.ts:38:28']);
    expect(second.sites.map(s => s.id)).toEqual(first.sites.map(s => s.id));
  });

  it('are rebased with their files when reports of two packages are merged, so they stay apart', async () => {
    const root = tempProject('site-ids-merge');
    const packages = ['a', 'b'].map(name => {
      const dir = join(root, name);
      cpSync(copy(), dir, { recursive: true });
      return dir;
    });
    const reports = await Promise.all(packages.map(async (dir, i) => ({ source: `${i}.json`, report: JSON.parse(renderJson(await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false }))) })));
    expect(mergeJsonReports(reports, root).sites.map(s => s.id)).toEqual(['a/server.ts:38:28', 'b/server.ts:38:28']);
  });
});
