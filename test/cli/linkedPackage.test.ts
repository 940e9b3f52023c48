import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tscErrors } from '../project/tempProject.js';
import { makeProject, read, REPO, runCli } from './helpers.js';

/**
 * test/cli/projects/linked-lib installed as a workspace is: the workspace root holds zod for the
 * linked package (a copy of this repository's zod, labelled 4.3.5), the app holds this repository's
 * node_modules (zod 4.6.7) and links the package (`file:../../packages/tools-lib`).
 */
function installedWorkspace(): string {
  const root = makeProject('linked-lib');
  const rootZod = path.join(root, 'node_modules', 'zod');
  cpSync(path.join(REPO, 'node_modules', 'zod'), rootZod, { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(rootZod, 'package.json'), 'utf8')) as { version: string };
  writeFileSync(path.join(rootZod, 'package.json'), JSON.stringify({ ...manifest, version: '4.3.5' }, null, 2));
  const modules = path.join(root, 'examples', 'app', 'node_modules');
  mkdirSync(path.join(modules, '@demo'), { recursive: true });
  for (const name of readdirSync(path.join(REPO, 'node_modules'))) {
    if (!name.startsWith('.')) symlinkSync(path.join(REPO, 'node_modules', name), path.join(modules, name), 'dir');
  }
  symlinkSync(path.join('..', '..', '..', '..', 'packages', 'tools-lib'), path.join(modules, '@demo', 'tools-lib'), 'dir');
  return root;
}

describe('a package linked into the project, with its own copy of a dependency the project has too', () => {
  it('is checked against the project\'s copy: the run migrates in a bounded heap where tsc on two zod copies runs out', () => {
    const app = path.join(installedWorkspace(), 'examples', 'app');
    // One zod in the program (the link's imports resolved from the app's side): the project builds.
    expect(tscErrors(app, ['--preserveSymlinks'])).toEqual([]);

    // 1 GB: the run without shared copies ran out of it in the type check (and tsc runs out without --preserveSymlinks).
    const run = runCli(app, ['--format', 'json'], { NODE_OPTIONS: '--max-old-space-size=1024' });
    expect(run.stderr).not.toContain('out of memory');
    expect(run.code).toBe(0);
    const report = JSON.parse(read(app, 'mrtr-migrate-report.json')) as { sites: { status: string }[]; diagnostics: { code: string; message: string }[] };
    expect(report.sites.map(s => s.status)).toEqual(['migrated']);
    const note = report.diagnostics.find(d => d.code === 'verify/linked-copies-shared');
    expect(note?.message).toBe("@demo/tools-lib is linked from ../../packages/tools-lib; the type check reads the project's zod 4.6.7 (its own: 4.3.5) for it, as an install from the registry would share them (two copies of one package make the check grow without bound).");
    expect(read(app, 'src/notes.ts')).toContain('inputRequired({');
    // The decorated class is the file's own code, untouched.
    expect(read(app, 'src/notes.ts')).toContain("    parameters: z.object({ id: z.string().describe('The note id') }),\n");
    expect(tscErrors(app, ['--preserveSymlinks'])).toEqual([]);
  });
});
