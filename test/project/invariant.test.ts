import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { REPO, tempProject, tscErrors } from './tempProject.js';

/**
 * The invariant of a run: the project's type errors, counted by `tsc --noEmit` with its own tsconfig
 * over all its files, are no more after the run (files written) than before. On every fixture
 * project: the CLI's test projects, and each folder fixture (a server in several modules) with the
 * runnable fixtures' compiler options. (The zod 3 project and the linked workspace have tests of
 * their own: one needs zod 3 installed, the other two copies of zod, test/cli/linkedPackage.test.ts.)
 */
const OWN_TEST = new Set(['linked-lib']);
const projects = [
  ...readdirSync(join(REPO, 'test', 'cli', 'projects')).filter(name => !OWN_TEST.has(name)).map(name => ({ name: `cli/${name}`, dir: join(REPO, 'test', 'cli', 'projects', name) })),
  ...readdirSync(join(REPO, 'fixtures'))
    .filter(name => existsSync(join(REPO, 'fixtures', name, 'input', 'index.ts')) || existsSync(join(REPO, 'fixtures', name, 'input', 'index.mjs')))
    .map(name => ({ name: `fixtures/${name}`, dir: join(REPO, 'fixtures', name, 'input') })),
];

describe.each(projects)('$name', ({ dir: source }) => {
  it('has no more type errors after the run than before', async () => {
    const dir = tempProject('invariant');
    cpSync(source, dir, { recursive: true });
    if (!existsSync(join(dir, 'tsconfig.json'))) {
      const tsconfig = JSON.parse(readFileSync(join(REPO, 'fixtures', 'tsconfig.json'), 'utf8')) as { include: string[] };
      tsconfig.include = ['**/*.ts', '**/*.mjs'];
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    }
    const before = tscErrors(dir);
    const report = await migrate({ cwd: dir, force: true });
    expect(report.files.some(f => f.written), 'the run changed something').toBe(true);
    const after = tscErrors(dir);
    expect(after.length, `before:\n${before.join('\n')}\nafter:\n${after.join('\n')}`).toBeLessThanOrEqual(before.length);
  });
});
