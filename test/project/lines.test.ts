import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { TRANSFORMS } from '../../transforms/index.js';
import type { Transform } from '../../transforms/types.js';
import { REPO, tempProject } from './tempProject.js';

it('says the line of a type error that rolled a rewrite back as a line of the file on disk, not of the rewritten text', async () => {
  const dir = tempProject('lines');
  writeFileSync(join(dir, 'tsconfig.json'), readFileSync(join(REPO, 'fixtures', 'tsconfig.json')));
  const text = readFileSync(join(REPO, 'fixtures', 'v2-elicit-straight', 'input.ts'), 'utf8');
  writeFileSync(join(dir, 'server.ts'), text);
  const line = text.split('\n').findIndex(l => l.startsWith('const RECORDS')) + 1;
  // Stands for a rewrite that breaks the file below the support code it inserted at the top.
  const breakRecords: Transform = {
    id: 'break-records',
    title: 'test: a type error on a line of the original file',
    apply(sourceFile) {
      sourceFile.replaceWithText(sourceFile.getFullText().replace('const RECORDS: readonly StoredRecord[] = [', 'const RECORDS: readonly StoredRecord[] = 1 as unknown as string; const OLD = ['));
      return { changed: true, diagnostics: [], sites: [], alreadyMigrated: [] };
    },
  };
  const report = await migrate({ cwd: dir, dryRun: true, transforms: [...TRANSFORMS, breakRecords] });
  const file = report.files.find(f => f.file === 'server.ts')!;
  expect(file.rolledBack).toBe(true);
  expect(file.newTypeErrors[0]).toMatch(new RegExp(`^line ${line}: TS2322`));
});
