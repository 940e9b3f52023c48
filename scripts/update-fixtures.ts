/**
 * Regenerates fixtures/<case>/output.ts from input.ts with the current rewrite. Review the diff
 * of every output before committing it: the fixture test compares against these files.
 *
 *   npx tsx scripts/update-fixtures.ts [case ...]
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runPipeline } from '../test/transforms/pipeline.js';

const root = resolve(import.meta.dirname, '..', 'fixtures');
const only = process.argv.slice(2);
for (const name of readdirSync(root)) {
  const input = join(root, name, 'input.ts');
  if (!existsSync(input) || (only.length > 0 && !only.includes(name))) continue;
  const result = runPipeline(input, readFileSync(input, 'utf8'));
  writeFileSync(join(root, name, 'output.ts'), result.text);
  const statuses = result.sites.map(s => `${s.line}:${s.status}${s.reason ? `(${s.reason})` : ''}`).join(' ');
  console.log(`${name}: ${statuses}${result.typeErrors.length ? `\n  TYPE ERRORS:\n  ${result.typeErrors.join('\n  ')}` : ''}`);
}
