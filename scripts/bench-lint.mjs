#!/usr/bin/env node
// What the ESLint plugin costs: ESLint on one generated v2 project, with and without the plugin's
// `recommended` rules, untyped and typed (parserOptions.projectService), alternating, medians of the
// runs. The baselines parse with @typescript-eslint/parser and run no rules or one core rule; the
// difference is what adding `mrtr.configs.recommended` to such a config costs.
//   node scripts/bench-lint.mjs [files=2000] [servers=50] [runs=5]
// Needs `npm run build` first (the plugin is loaded from dist/). The project links this repository's node_modules.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchTree, measure, median, repo } from './benchKit.mjs';

const total = Number(process.argv[2] ?? 2000);
const servers = Math.min(total, Number(process.argv[3] ?? 50));
const runs = Number(process.argv[4] ?? 5);
// Application files importing each other; servers asking push-style, each importing one.
const libs = total - servers;
const dir = benchTree('bench-lint', { name: 'bench-lint', type: 'module' }, 'tools', libs);
for (let i = 0; i < servers; i++) {
  const lib = (i * 37) % Math.max(libs, 1);
  writeFileSync(path.join(dir, `src/tools/tool${i}.ts`), `import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { total${lib} as sizeOf } from '../lib/util${lib}.js';

export const server${i} = new McpServer({ name: 'tool${i}', version: '1.0.0' });

server${i}.registerTool('archive-${i}', { description: 'Archive a project', inputSchema: z.object({ project: z.string() }) }, async ({ project }, ctx) => {
  const answer = await ctx.mcpReq.elicitInput({
    mode: 'form',
    message: \`Archive \${project} (\${sizeOf([])} bytes)?\`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  });
  if (answer.action !== 'accept' || answer.content?.confirm !== true) return { content: [{ type: 'text', text: 'Kept.' }] };
  return { content: [{ type: 'text', text: \`Archived \${project}.\` }] };
});
`);
}

const parser = pathToFileURL(path.join(repo, 'node_modules/@typescript-eslint/parser/dist/index.js')).href;
const plugin = pathToFileURL(path.join(repo, 'dist/rules/index.js')).href;
// `one rule` adds ESLint's `no-debugger`: a run with any rule at all costs ESLint itself about 0.35 s
// CPU and 70 MiB more on this tree than one with none, so the plugin is measured against both.
const config = (typed, coreRule, withPlugin) => `import parser from '${parser}';
${withPlugin ? `import mrtr from '${plugin}';\n` : ''}export default [
  { files: ['**/*.ts'], languageOptions: { parser${typed ? ", parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname }" : ''} }${coreRule ? ", rules: { 'no-debugger': 'error' }" : ''} },
${withPlugin ? '  mrtr.configs.recommended,\n' : ''}];
`;
const variants = {};
for (const kind of ['untyped', 'typed']) {
  for (const coreRule of [false, true]) {
    const base = `${kind}${coreRule ? ', one rule' : ''}`;
    variants[base] = config(kind === 'typed', coreRule, false);
    variants[`${base} + recommended`] = config(kind === 'typed', coreRule, true);
  }
}
for (const [name, text] of Object.entries(variants)) writeFileSync(path.join(dir, `eslint.${name.replace(/\W+/g, '-')}.config.mjs`), text);

const eslint = path.join(repo, 'node_modules/eslint/bin/eslint.js');
const results = Object.fromEntries(Object.keys(variants).map(name => [name, []]));
for (let i = 0; i < runs; i++) {
  for (const name of Object.keys(variants)) {
    const run = measure([eslint, '--no-config-lookup', '-c', `eslint.${name.replace(/\W+/g, '-')}.config.mjs`, '--format', 'json', 'src'], dir);
    // The plugin's runs must report the servers' sites (exit 1); the baselines must report nothing.
    const reported = JSON.parse(run.stdout).reduce((n, file) => n + file.messages.length, 0);
    if (name.includes('recommended') ? reported < servers : reported > 0) throw new Error(`${name}: ${reported} messages for ${servers} servers`);
    results[name].push(run);
  }
}

console.log(`${total} files (${servers} servers with a push-style question), ${runs} alternating runs each, medians; ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}`);
for (const [name, list] of Object.entries(results)) {
  console.log(`eslint ${name.padEnd(32)} wall ${median(list.map(r => r.wall)).toFixed(2)} s  cpu ${median(list.map(r => r.cpu)).toFixed(2)} s  peak RSS ${Math.max(...list.map(r => r.rssMiB)).toFixed(0)} MiB`);
}
for (const base of Object.keys(variants).filter(name => !name.includes('recommended'))) {
  const cpu = median(results[base].map(r => r.cpu));
  const withPlugin = median(results[`${base} + recommended`].map(r => r.cpu));
  const added = ((withPlugin - cpu) / cpu) * 100;
  console.log(`recommended on ${base.padEnd(17)} linting: ${added >= 0 ? '+' : ''}${added.toFixed(1)}% CPU`);
}

// The difference of two noisy process times swings by several percent on a shared machine; the time
// ESLint itself measures in the plugin's rules (TIMING=all, which covers the analysis they share) plus
// the plugin's import is the added work with far less noise, put against the baseline's median CPU.
const importMs = [];
for (let i = 0; i < runs; i++) {
  const script = `const t = performance.now(); await import(${JSON.stringify(plugin)}); process.stdout.write(String(performance.now() - t));`;
  const loaded = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(parser)}); ${script}`], { cwd: dir, encoding: 'utf8' });
  importMs.push(Number(loaded.stdout));
}
for (const base of Object.keys(variants).filter(name => !name.includes('recommended'))) {
  const ruleMs = [];
  for (let i = 0; i < runs; i++) {
    const run = spawnSync(process.execPath, [eslint, '--no-config-lookup', '-c', `eslint.${`${base} + recommended`.replace(/\W+/g, '-')}.config.mjs`, '-o', path.join(dir, 'lint-output.json'), '--format', 'json', 'src'], { cwd: dir, encoding: 'utf8', env: { ...process.env, TIMING: 'all' } });
    ruleMs.push([...run.stdout.matchAll(/^mrtr-migrate\/\S+\s*\|\s*([\d.]+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0));
  }
  const cpuMs = median(results[base].map(r => r.cpu)) * 1000;
  const own = median(ruleMs) + median(importMs);
  console.log(`plugin's own time on ${base.padEnd(17)} linting: rules ${median(ruleMs).toFixed(0)} ms + import ${median(importMs).toFixed(0)} ms = ${((own / cpuMs) * 100).toFixed(1)}% of its CPU`);
}
