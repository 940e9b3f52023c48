#!/usr/bin/env node
// Side-by-side benchmark on one generated v1 project: mrtr-migrate --dry-run, the official
// `mcp-codemod v1-to-v2 --dry-run` and `tsc --noEmit`, alternating, medians of the runs (and two
// runs that show where the time goes: without the type check, the official stage on the servers
// alone); then the second (idempotent) run of mrtr-migrate after a real one.
//   node scripts/bench-compare.mjs [files=2000] [servers=50] [runs=5]
// MRTR_BENCH_KEEP=1 keeps the generated tree (its path is printed) and skips the second run; runs=0
// only generates it (for profiling).
// Needs `npm run build` first. The project links this repository's node_modules, like an installed one.
import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchTree, measure as measureRun, median, repo } from './benchKit.mjs';

const total = Number(process.argv[2] ?? 2000);
const servers = Math.min(total, Number(process.argv[3] ?? 50));
const runs = Number(process.argv[4] ?? 5);
// Application files importing each other; servers asking push-style, each importing one.
const libs = total - servers;
const dir = benchTree('bench-compare', { name: 'bench', type: 'module', dependencies: { '@modelcontextprotocol/sdk': '^1.32.0', zod: '^4.2.0' } }, 'servers', libs);
// v1 servers, each asking one question, each importing an application file.
for (let i = 0; i < servers; i++) {
  writeFileSync(path.join(dir, `src/servers/server${i}.ts`), `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { total${(i * 37) % Math.max(libs, 1)} as sizeOf } from '../lib/util${(i * 37) % Math.max(libs, 1)}.js';

export function createServer${i}(): McpServer {
  const server = new McpServer({ name: 'server${i}', version: '1.0.0' });
  server.tool('archive-${i}', 'Archive a project after confirming', { project: z.string() }, async ({ project }) => {
    const label = project.toUpperCase();
    const answer = await server.server.elicitInput({
      message: \`Archive \${label} (\${sizeOf([])} bytes)?\`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    if (answer.action !== 'accept' || answer.content?.confirm !== true) return { content: [{ type: 'text', text: 'Kept.' }] };
    return { content: [{ type: 'text', text: \`Archived \${label}.\` }] };
  });
  return server;
}
`);
}

const bin = name => realpathSync(path.join(repo, 'node_modules/.bin', name));
const commands = {
  'mrtr-migrate --dry-run': [path.join(repo, 'dist/src/cli/main.js'), '--dry-run', '--no-progress', '--force'],
  'mcp-codemod v1-to-v2 --dry-run': [bin('mcp-codemod'), 'v1-to-v2', '--dry-run', 'src'],
  'tsc --noEmit': [bin('tsc'), '--noEmit', '-p', 'tsconfig.json'],
  // Where the time goes: the run without its type check of the rewrites, and the official stage
  // alone on the only files it changes (what mrtr-migrate runs of it, plus starting Node and ts-morph).
  'mrtr-migrate --dry-run --no-verify': [path.join(repo, 'dist/src/cli/main.js'), '--dry-run', '--no-progress', '--force', '--no-verify'],
  'mcp-codemod on the servers only': [bin('mcp-codemod'), 'v1-to-v2', '--dry-run', 'src/servers'],
};

const measure = (args, cwd = dir) => measureRun(args, cwd);

const keep = process.env.MRTR_BENCH_KEEP !== undefined && process.env.MRTR_BENCH_KEEP !== '';
if (keep) console.log(`tree kept: ${dir}`);
if (runs === 0) process.exit(0);

const results = Object.fromEntries(Object.keys(commands).map(name => [name, []]));
for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(commands)) results[name].push(measure(args));

console.log(`${total} files (${servers} v1 servers), ${runs} alternating runs each, medians; ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}`);
const base = results['mrtr-migrate --dry-run'];
for (const [name, list] of Object.entries(results)) {
  const wall = median(list.map(r => r.wall));
  const cpu = median(list.map(r => r.cpu));
  const rss = Math.max(...list.map(r => r.rssMiB));
  console.log(`${name.padEnd(36)} wall ${wall.toFixed(2)} s  cpu ${cpu.toFixed(2)} s  peak RSS ${rss.toFixed(0)} MiB  exit ${list[0].status}`);
}
// tsc overflows its stack on the 20,000-file tree (a chain of imports that deep): no ratio to a failed run.
const ratio = (a, b) => results[b][0].status !== 0 ? `n/a (${b} exited ${results[b][0].status})` : `wall ${(median(results[a].map(r => r.wall)) / median(results[b].map(r => r.wall))).toFixed(2)}x, cpu ${(median(results[a].map(r => r.cpu)) / median(results[b].map(r => r.cpu))).toFixed(2)}x`;
for (const name of ['mcp-codemod v1-to-v2 --dry-run', 'tsc --noEmit']) {
  console.log(`mrtr-migrate / ${name}: ${ratio('mrtr-migrate --dry-run', name)}`);
  console.log(`mrtr-migrate --no-verify / ${name}: ${ratio('mrtr-migrate --dry-run --no-verify', name)}`);
}
console.log(`mcp-codemod on the servers only / on the whole tree: ${ratio('mcp-codemod on the servers only', 'mcp-codemod v1-to-v2 --dry-run')}`);

if (keep) process.exit(0);
// The second run: migrate a copy for real, then run again on the result.
const copy = mkdtempSync(path.join(os.tmpdir(), 'mrtr-bench-second-'));
cpSync(dir, copy, { recursive: true, verbatimSymlinks: true });
const first = measure([path.join(repo, 'dist/src/cli/main.js'), '--no-progress', '--force'], copy);
const second = [];
for (let i = 0; i < runs; i++) second.push(measure([path.join(repo, 'dist/src/cli/main.js'), '--dry-run', '--no-progress', '--force'], copy));
console.log(`first real run: wall ${first.wall.toFixed(2)} s; second run (dry, on the migrated tree): wall ${median(second.map(r => r.wall)).toFixed(2)} s = ${(median(second.map(r => r.wall)) / first.wall).toFixed(2)}x the first`);
rmSync(copy, { recursive: true, force: true });
rmSync(dir, { recursive: true, force: true });
