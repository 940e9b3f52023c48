/**
 * Regenerates fixtures/<case>/output.ts and its support module from input.ts (output/ from input/ for a folder case) with the current rewrite. Review the diff
 * of every output before committing it: the fixture test compares against these files.
 *
 *   npx tsx scripts/update-fixtures.ts [case ...]
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { folderEntry, migrateFolder } from '../test/transforms/folderPipeline.js';
import { runFixture } from '../test/transforms/pipeline.js';

const root = resolve(import.meta.dirname, '..', 'fixtures');
const only = process.argv.slice(2);
for (const name of readdirSync(root)) {
  const folder = join(root, name, 'input');
  if (folderEntry(folder) && (only.length === 0 || only.includes(name))) {
    // A folder case: output/ is the whole folder after the CLI's project pipeline (dry run).
    const result = await migrateFolder(folder);
    const output = join(root, name, 'output');
    rmSync(output, { recursive: true, force: true });
    for (const [file, text] of result.files) {
      mkdirSync(dirname(join(output, file)), { recursive: true });
      writeFileSync(join(output, file), text);
    }
    const statuses = result.sites.map(s => `${s.file}:${s.line}:${s.status}${s.reason ? `(${s.reason})` : ''}`).join(' ');
    console.log(`${name}: ${statuses}${result.errors.length ? `\n  ERRORS:\n  ${result.errors.join('\n  ')}` : ''}`);
    continue;
  }
  const extension = ['.ts', '.mjs', '.cjs', '.js'].find(ext => existsSync(join(root, name, `input${ext}`)));
  if (!extension || (only.length > 0 && !only.includes(name))) continue;
  const input = join(root, name, `input${extension}`);
  const result = runFixture(input, readFileSync(input, 'utf8'));
  writeFileSync(join(root, name, `output${extension}`), result.text);
  // The support module beside it, as the CLI writes it (none for a server that imports none).
  for (const file of readdirSync(join(root, name))) if (/^requestState\.[cm]?[jt]s$/.test(file)) rmSync(join(root, name, file));
  if (result.module) writeFileSync(join(root, name, result.module.name), result.module.text);
  const statuses = result.sites.map(s => `${s.line}:${s.status}${s.reason ? `(${s.reason})` : ''}`).join(' ');
  console.log(`${name}: ${statuses}${result.typeErrors.length ? `\n  TYPE ERRORS:\n  ${result.typeErrors.join('\n  ')}` : ''}`);
}
