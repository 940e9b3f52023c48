import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commonTestFiles } from '../../src/analysis/testFiles.js';
import { projectTestFiles } from '../../src/project/testFiles.js';
import { tempProject } from './tempProject.js';

function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

describe('test files', () => {
  it('are the usual names anywhere, and the usual folders only inside the project', () => {
    const isTest = commonTestFiles('/home/me/tests/notes-server');
    expect(['src/tools.test.ts', 'src/tools.spec.mts', 'src/app.e2e-spec.ts', 'test/helpers.ts', 'src/__tests__/a.ts', 'e2e/flow.ts']
      .filter(f => !isTest(`/home/me/tests/notes-server/${f}`))).toEqual([]);
    // The project itself sits in a folder named tests: its sources are not tests.
    expect(['src/tools.ts', 'src/testing.ts', 'src/latest/x.ts', 'src/contest.ts'].filter(f => isTest(`/home/me/tests/notes-server/${f}`))).toEqual([]);
    // Without a project folder, names only.
    expect(commonTestFiles(undefined)('/p/test/helpers.ts')).toBe(false);
    expect(commonTestFiles(undefined)('/p/src/a.test.js')).toBe(true);
  });

  it("add the files the project's runner configs select, literal globs only", () => {
    const dir = tempProject('test-files');
    write(dir, {
      'package.json': JSON.stringify({ jest: { testMatch: ['<rootDir>/checks/**/*.ts'], testRegex: 'verify/.*\\.ts$' } }),
      'vitest.config.ts': "export default { test: { include: ['src/**/*.check.ts'], coverage: { include: ['src/**'] } } };\n",
      '.mocharc.json': JSON.stringify({ spec: 'suite/*.ts' }),
      // Not a config vite reads: its jest-like keys select nothing.
      'vite.config.json': JSON.stringify({ testMatch: ['src/server.ts'] }),
      'checks/notes.ts': '', 'verify/a.ts': '', 'src/notes.check.ts': '', 'suite/one.ts': '', 'src/notes.ts': '', 'src/server.ts': '',
    });
    const isTest = projectTestFiles(dir);
    const selected = ['checks/notes.ts', 'verify/a.ts', 'src/notes.check.ts', 'suite/one.ts', 'src/notes.ts', 'src/server.ts'].filter(f => isTest(join(dir, f)));
    // vitest's coverage.include names sources, not tests.
    expect(selected).toEqual(['checks/notes.ts', 'verify/a.ts', 'src/notes.check.ts', 'suite/one.ts']);
  });

  it('fall back on the usual names when a config cannot be read', () => {
    const dir = tempProject('test-files-bad');
    write(dir, { 'package.json': '{ "jest": ', 'jest.config.js': 'module.exports = { testMatch: [`${root}/x`] ', 'src/a.test.ts': '', 'src/a.ts': '' });
    const isTest = projectTestFiles(dir);
    expect([isTest(join(dir, 'src/a.test.ts')), isTest(join(dir, 'src/a.ts'))]).toEqual([true, false]);
  });
});
