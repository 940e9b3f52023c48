import { copyFileSync, cpSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from '../../src/index.js';
import type { RunReport } from '../../src/report/model.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A real report: a dry run of the v1 fixture project through the programmatic API. */
export async function v1DryRunReport(): Promise<RunReport> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mrtr-report-'));
  cpSync(path.join(REPO, 'test/cli/projects/v1-server'), dir, { recursive: true });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return migrate({ cwd: dir, dryRun: true });
}

/** A dry run of one rewrite fixture's input.ts, as the only source of a v2 project. */
export async function fixtureDryRunReport(fixtureCase: string): Promise<RunReport> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mrtr-report-'));
  for (const file of ['package.json', 'tsconfig.json']) copyFileSync(path.join(REPO, 'test/cli/projects/v2-server', file), path.join(dir, file));
  mkdirSync(path.join(dir, 'src'));
  copyFileSync(path.join(REPO, 'fixtures', fixtureCase, 'input.ts'), path.join(dir, 'src/server.ts'));
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return migrate({ cwd: dir, dryRun: true });
}

export { REPO };
