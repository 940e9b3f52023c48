#!/usr/bin/env node
// Benchmark: runs the built CLI (dry run) over a generated project and prints wall time and peak RSS.
//   node scripts/bench.mjs [files=200] [withSites=20]
// Needs `npm run build` first. The project links this repository's node_modules, like an installed project.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const total = Number(process.argv[2] ?? 200);
const withSites = Math.min(total, Number(process.argv[3] ?? 20));
const dir = mkdtempSync(path.join(os.tmpdir(), 'mrtr-bench-'));

writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'bench', type: 'module', dependencies: { '@modelcontextprotocol/server': '^2.4.0', zod: '^4.2.0' } }, null, 2));
writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true } }, null, 2));
symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
mkdirSync(path.join(dir, 'src/lib'), { recursive: true });
mkdirSync(path.join(dir, 'src/tools'), { recursive: true });

for (let i = 0; i < total - withSites; i++) {
  writeFileSync(path.join(dir, `src/lib/util${i}.ts`), `export interface Item${i} { id: string; size: number }\n\nexport function total${i}(items: Item${i}[]): number {\n  return items.reduce((sum, item) => sum + item.size, 0);\n}\n\nexport const label${i} = (item: Item${i}) => \`\${item.id} (\${item.size})\`;\n`);
}
for (let i = 0; i < withSites; i++) {
  writeFileSync(path.join(dir, `src/tools/tool${i}.ts`), `import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

export const server${i} = new McpServer({ name: 'tool${i}', version: '1.0.0' }, { capabilities: { tools: {} } });

server${i}.registerTool('archive-${i}', { description: 'Archive a project after confirming', inputSchema: z.object({ project: z.string() }) }, async ({ project }, ctx) => {
  const label = project.toUpperCase();
  const answer = await ctx.mcpReq.elicitInput({
    mode: 'form',
    message: \`Archive \${label}?\`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  });
  if (answer.action !== 'accept' || answer.content?.confirm !== true) return { content: [{ type: 'text', text: 'Kept.' }] };
  return { content: [{ type: 'text', text: \`Archived \${label}.\` }] };
});
`);
}

const exitHook = "data:text/javascript,process.on('exit',()=>process.stderr.write('maxRSS_KiB='+process.resourceUsage().maxRSS+'\\n'))";
const started = process.hrtime.bigint();
const run = spawnSync(process.execPath, ['--import', exitHook, path.join(repo, 'dist/src/cli/main.js'), '--dry-run', '--no-progress'], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: 'true', NO_COLOR: '1' }, maxBuffer: 256 * 1024 * 1024 });
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const rss = /maxRSS_KiB=(\d+)/.exec(run.stderr)?.[1];
const summary = run.stdout.split('\n').filter(line => /^(mrtr-migrate|  Files|  Sites)/.test(line)).join('\n');
console.log(summary);
console.log(`files: ${total} (${withSites} with sites); exit code ${run.status}; wall ${seconds.toFixed(1)} s; peak RSS ${rss ? (Number(rss) / 1024).toFixed(0) + ' MiB' : 'unknown'}`);
if (run.status !== 0) console.log(run.stderr);
rmSync(dir, { recursive: true, force: true });
