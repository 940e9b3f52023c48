import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ajv from 'ajv';
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { migrate } from '../../src/project/migrate.js';
import { REPORT_JSON_SCHEMA, renderJson } from '../../src/report/json.js';
import { REPO, tempProject } from '../project/tempProject.js';

/**
 * `mrtr-migrate merge-reports`: the JSON reports of a monorepo's packages, each run in its own
 * folder, merged into one report of the same schema.
 */

const FIXTURES = path.join(REPO, 'fixtures');

function io(cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { cwd, env: {}, stdout: { write: (t: string) => out.push(t) > 0 }, stderr: { write: (t: string) => err.push(t) > 0 } },
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

describe('merge-reports', async () => {
  // A monorepo of two packages: a JavaScript server and a server whose tools are in other modules.
  const root = tempProject('monorepo');
  const shop = path.join(root, 'packages', 'shop');
  const ops = path.join(root, 'packages', 'ops');
  mkdirSync(shop, { recursive: true });
  writeFileSync(path.join(shop, 'server.mjs'), readFileSync(path.join(FIXTURES, 'v2-javascript-esm', 'input.mjs')));
  cpSync(path.join(FIXTURES, 'v2-tools-across-files', 'input'), path.join(ops, 'src'), { recursive: true });
  const reports: Array<{ summary: { sites: number; filesScanned: number } }> = [];
  for (const dir of [shop, ops]) {
    const report = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
    writeFileSync(path.join(dir, 'mrtr-migrate-report.json'), renderJson(report));
    reports.push(JSON.parse(renderJson(report)));
  }

  it('writes one report of the same schema, paths relative to the root, counts added up; exit 1 while anything is left', async () => {
    const run = io(root);
    const code = await runCli(['merge-reports', 'packages/shop/mrtr-migrate-report.json', 'packages/ops/mrtr-migrate-report.json', '--output', 'merged.json'], run.io);
    expect(run.err()).toBe('');
    // Dry runs leave every change pending, as --check would say.
    expect(code).toBe(1);
    expect(run.out()).toBe('Merged 2 report(s) into merged.json: 5 site(s), 5 migrated, 0 migrated for review, 0 not migrated; something is left to migrate (exit 1).\n');
    const merged = JSON.parse(readFileSync(path.join(root, 'merged.json'), 'utf8'));
    const validate = new ajv.default({ allErrors: true, strict: true });
    ajvFormats.default(validate);
    const check = validate.compile(REPORT_JSON_SCHEMA);
    expect(check(merged), JSON.stringify(check.errors, null, 2)).toBe(true);
    expect(merged.cwd).toBe(root);
    expect(merged.files.map((f: any) => f.file)).toEqual([
      'packages/ops/src/deploy.ts', 'packages/ops/src/index.ts', 'packages/ops/src/notes.ts', 'packages/ops/src/requestState.ts', 'packages/shop/requestState.mjs', 'packages/shop/server.mjs',
    ]);
    expect(merged.sites.map((s: any) => `${s.file}:${s.line} ${s.status}`)).toEqual([
      'packages/ops/src/deploy.ts:18 migrated', 'packages/ops/src/deploy.ts:31 migrated', 'packages/ops/src/notes.ts:13 migrated',
      'packages/shop/server.mjs:28 migrated', 'packages/shop/server.mjs:38 migrated',
    ]);
    expect(merged.summary.sites).toBe(reports[0]!.summary.sites + reports[1]!.summary.sites);
    expect(merged.summary.byStatus.migrated).toBe(5);
    expect(merged.summary.filesScanned).toBe(reports[0]!.summary.filesScanned + reports[1]!.summary.filesScanned);
    expect(merged.options.paths).toEqual(['packages/shop/.', 'packages/ops/.']);
    const shopDiff = merged.files.find((f: any) => f.file === 'packages/shop/server.mjs').diff;
    expect(shopDiff).toMatch(/^--- a\/packages\/shop\/server\.mjs$/m);
  });

  it('says which report it cannot merge, and exits 2', async () => {
    writeFileSync(path.join(root, 'not-a-report.json'), '{"hello": 1}');
    const run = io(root);
    expect(await runCli(['merge-reports', 'packages/shop/mrtr-migrate-report.json', 'not-a-report.json'], run.io)).toBe(2);
    expect(run.err()).toBe('mrtr-migrate: not-a-report.json is not a report of mrtr-migrate --format json.\n');
    const outside = io(shop);
    expect(await runCli(['merge-reports', '../ops/mrtr-migrate-report.json'], outside.io)).toBe(2);
    expect(outside.err()).toMatch(/mrtr-migrate-report\.json was made in .*packages\/ops, outside .*packages\/shop; run merge-reports from a folder that holds every run's folder \(or pass --root\)\./);
  });
});
