import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { tempProject } from './tempProject.js';

const OPTIONS = { target: 99, module: 199, moduleResolution: 99, strict: true, skipLibCheck: true, noEmit: true, types: [] };

// The programs the run builds next to ts-morph's (src/project/programs.ts) reuse the files of another.
it('runs where a package is installed twice at one version (the compiler keeps one copy and redirects the other)', async () => {
  const dir = tempProject('redirects');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: OPTIONS }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  for (const side of ['a', 'b']) {
    mkdirSync(join(dir, side, 'node_modules', 'dup'), { recursive: true });
    writeFileSync(join(dir, side, 'node_modules', 'dup', 'package.json'), JSON.stringify({ name: 'dup', version: '1.0.0', types: 'index.d.ts' }));
    writeFileSync(join(dir, side, 'node_modules', 'dup', 'index.d.ts'), 'export interface Dup { x: number }\n');
    writeFileSync(join(dir, side, 'server.ts'), `import type { Dup } from 'dup';\n// A site, so the run parses this file: server.server.elicitInput\nexport const d: Dup = { x: 1 };\n`);
  }
  const report = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
  expect(report.files.map(f => [f.file, f.error])).toEqual([['a/server.ts', undefined], ['b/server.ts', undefined]]);
});
