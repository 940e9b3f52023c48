/**
 * Lines per fixture: the input, the output (and, with a git revision, the output at that revision), and
 * the support module beside it. A handler file should grow only by what its handlers need; the support
 * code is counted once, in the module.
 *
 *   node scripts/fixture-sizes.mjs [revision]     # e.g. a commit before the support module
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..');
const root = join(repo, 'fixtures');
const revision = process.argv[2];
const lines = text => (text === undefined ? undefined : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
const atRevision = file => {
  try {
    return execFileSync('git', ['show', `${revision}:${relative(repo, file)}`], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
};
const MODULE = /^requestState\d*\.[cm]?[jt]s$/;
/** The files of a fixture side: input.ts / output.ts, or every file of input/ / output/. */
const side = (dir, name) => {
  const single = ['.ts', '.mjs', '.cjs', '.js'].map(ext => join(dir, `${name}${ext}`)).find(existsSync);
  if (single) return [single];
  const folder = join(dir, name);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return [];
  return readdirSync(folder).filter(f => /\.[cm]?[jt]s$/.test(f)).map(f => join(folder, f));
};

const rows = [];
for (const name of readdirSync(root).sort()) {
  const dir = join(root, name);
  if (!statSync(dir).isDirectory()) continue;
  const inputs = side(dir, 'input');
  const outputs = side(dir, 'output');
  if (inputs.length === 0 || outputs.length === 0) continue;
  const modules = [...outputs.filter(f => MODULE.test(f.split('/').pop())), ...readdirSync(dir).filter(f => MODULE.test(f)).map(f => join(dir, f))];
  const handlerFiles = outputs.filter(f => !modules.includes(f));
  const sum = (files, read) => files.reduce((n, f) => n + (lines(read(f)) ?? 0), 0);
  const read = f => readFileSync(f, 'utf8');
  rows.push({
    name,
    input: sum(inputs, read),
    before: revision ? sum(outputs.filter(f => !MODULE.test(f.split('/').pop())), atRevision) : undefined,
    output: sum(handlerFiles, read),
    module: sum(modules, read),
  });
}
const total = key => rows.reduce((n, r) => n + (r[key] ?? 0), 0);
console.log(`| Fixture | Input | ${revision ? `Output at ${revision} | ` : ''}Output | Support module |`);
console.log(`| --- | --- | ${revision ? '--- | ' : ''}--- | --- |`);
for (const r of rows) console.log(`| ${r.name} | ${r.input} | ${revision ? `${r.before} | ` : ''}${r.output} | ${r.module || ''} |`);
console.log(`| all ${rows.length} | ${total('input')} | ${revision ? `${total('before')} | ` : ''}${total('output')} | ${total('module')} |`);
