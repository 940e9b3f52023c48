#!/usr/bin/env node
// How a run scales with the files one asking helper links: ask.ts (the fixture v2-helper-across-files'
// own) exports askYesNo(), which asks with elicitInput; each of <callers> files registers a tool that
// calls it; index.ts builds the server and registers them all. Dry runs, medians: the group must be
// planned once, not once per file.
//   node scripts/bench-linked.mjs [callers=40,80,160] [runs=3]
// Needs `npm run build` first. The project links this repository's node_modules.
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchTree, measure, median, repo } from './benchKit.mjs';

const sizes = (process.argv[2] ?? '40,80,160').split(',').map(Number);
const runs = Number(process.argv[3] ?? 3);

console.log(`an asking helper with N callers, ${runs} runs each, medians; ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}`);
for (const callers of sizes) {
  const dir = benchTree('bench-linked', { name: 'bench-linked', type: 'module', dependencies: { '@modelcontextprotocol/server': '^2.4.0', zod: '^4.2.0' } }, 'tools', 0);
  // The helper of the fixture whose helper is asked across files.
  copyFileSync(path.join(repo, 'fixtures/v2-helper-across-files/input/ask.ts'), path.join(dir, 'src/ask.ts'));
  for (let i = 0; i < callers; i++) {
    writeFileSync(path.join(dir, `src/tools/tools${i}.ts`), `import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { askYesNo } from '../ask.js';

export function registerTools${i}(server: McpServer): void {
  server.registerTool('cancel_${i}', { description: 'Cancel after confirmation.', inputSchema: z.object({ orderId: z.string() }) }, async ({ orderId }) => {
    const sure = await askYesNo(server, \`Cancel \${orderId}?\`);
    if (!sure) return { content: [{ type: 'text', text: 'Kept.' }] };
    return { content: [{ type: 'text', text: \`Cancelled \${orderId}.\` }] };
  });
}
`);
  }
  const numbers = Array.from({ length: callers }, (_, i) => i);
  writeFileSync(path.join(dir, 'src/index.ts'), `import { McpServer } from '@modelcontextprotocol/server';
${numbers.map(i => `import { registerTools${i} } from './tools/tools${i}.js';`).join('\n')}

export const server = new McpServer({ name: 'back-office', version: '1.0.0' });
${numbers.map(i => `registerTools${i}(server);`).join('\n')}
`);
  const list = [];
  for (let i = 0; i < runs; i++) list.push(measure([path.join(repo, 'dist/src/cli/main.js'), '--dry-run', '--no-progress', '--force'], dir));
  if (list[0].status !== 0 || !/Sites: 1 found, 0 migrated, 1 migrated for review/.test(list[0].stdout)) throw new Error(`unexpected run (exit ${list[0].status}):\n${list[0].stdout.slice(-1500)}`);
  console.log(`${String(callers).padStart(4)} callers: wall ${median(list.map(r => r.wall)).toFixed(2)} s  cpu ${median(list.map(r => r.cpu)).toFixed(2)} s  peak RSS ${Math.max(...list.map(r => r.rssMiB)).toFixed(0)} MiB`);
  rmSync(dir, { recursive: true, force: true });
}
