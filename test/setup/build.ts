import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

/**
 * Global setup of the e2e project (vitest.config.ts): builds `dist/` once, as `npm run build` does,
 * before any of its test files starts. The tests then only read `dist/` (they spawn the built CLI,
 * hand the built transform to jscodeshift, import the built plugin); none of them builds it again,
 * so no test sees `dist/` half-written by another.
 *
 * It tells the tests through `inject('dist')`: helpers that need the build check for it, so a test
 * that spawns the CLI from the unit project fails with a pointer to the e2e project instead of
 * running against whatever `dist/` happens to hold.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
/** Files of the build every e2e test relies on. */
const OUTPUTS = ['dist/src/cli/main.js', 'dist/src/index.js', 'dist/rules/index.js', 'dist/rules/index.d.ts', 'dist/transforms/jscodeshift.cjs'];

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute path of the `dist/` the global setup built; unset outside the e2e project. */
    dist: string;
  }
}

export default function setup(project: TestProject): void {
  const started = Date.now();
  const build = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  if (build.error) throw build.error;
  if (build.status !== 0) {
    throw new Error(`npm run build failed (exit ${build.status}); the e2e tests run the built package:\n${build.stdout}${build.stderr}`);
  }
  const missing = OUTPUTS.filter(file => !existsSync(join(ROOT, file)));
  if (missing.length > 0) throw new Error(`the build did not produce ${missing.join(', ')}`);
  process.stderr.write(`e2e global setup: built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  project.provide('dist', join(ROOT, 'dist'));
}
