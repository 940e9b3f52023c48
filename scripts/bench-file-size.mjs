#!/usr/bin/env node
// Benchmark: what one large generated file costs a run (dry run of the built CLI), by its size.
//   node scripts/bench-file-size.mjs [sizes in MB, comma-separated: 0.5,1,2,4.5] [kind: data|server]
// `data`: a generated module of records (no MCP code). `server`: the same records in a file that also
// builds an McpServer and asks push-style, so the file is parsed, analysed and rewritten. `functions`:
// that server file with small generated functions calling each other instead of records. `v1`: the
// records in a v1 server file, which the v1-to-v2 stage upgrades first. `minified`: the server file
// with the records on one line, as bundlers write them.
// Needs `npm run build` first. Prints wall time, CPU time and peak RSS per size.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { benchTree, measure, repo } from './benchKit.mjs';

const sizes = (process.argv[2] ?? '0.5,1,2,4.5').split(',').map(Number);
const kind = process.argv[3] ?? 'data';
const cli = path.join(repo, 'dist/src/cli/main.js');

/** A module of `bytes` bytes or a little more: an exported array of records, as code generators write them. */
function generated(bytes) {
  const head = kind === 'v1'
    ? "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\n\nexport const server = new McpServer({ name: 'big', version: '1.0.0' });\n\nserver.tool('confirm', 'Confirm', async () => {\n  const answer = await server.server.elicitInput({ message: 'Go?', requestedSchema: { type: 'object', properties: {} } });\n  return { content: [{ type: 'text', text: answer.action }] };\n});\n\n"
    : kind !== 'data'
    ? "import { McpServer } from '@modelcontextprotocol/server';\n\nexport const server = new McpServer({ name: 'big', version: '1.0.0' });\n\nserver.registerTool('confirm', {}, async (ctx) => {\n  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } });\n  return { content: [{ type: 'text', text: answer.action }] };\n});\n\n"
    : '';
  const functions = kind === 'functions';
  const lines = [head, functions ? 'export function step0(x: number): number {\n  return x;\n}\n' : 'export interface Row { id: number; name: string; tags: string[]; price: number }\n\nexport const ROWS: Row[] = [\n'];
  let length = lines.join('').length;
  for (let i = 1; length < bytes; i++) {
    const line = functions
      ? `export function step${i}(x: number): number {\n  return step${i - 1}(x) + ${i % 97};\n}\n`
      : `${kind === 'minified' ? '' : '  '}{ id: ${i}, name: 'item-${i}', tags: ['t${i % 7}', 'g${i % 13}'], price: ${(i * 37) % 1000} },${kind === 'minified' ? '' : '\n'}`;
    lines.push(line);
    length += line.length;
  }
  if (!functions) lines.push('];\n');
  return lines.join('');
}

console.log(`kind ${kind}; one file of each size beside a small server (src/tools/server.ts)`);
console.log('| size | wall s | CPU s | peak RSS MiB | exit |');
console.log('| ---: | ---: | ---: | ---: | ---: |');
for (const mb of sizes) {
  const dir = benchTree('size', { name: 'bench-size', type: 'module', dependencies: { [kind === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server']: kind === 'v1' ? '^1.32.0' : '^2.4.0', zod: '^4.2.0' } }, 'tools', 0);
  writeFileSync(path.join(dir, 'src/tools/server.ts'), "import { McpServer } from '@modelcontextprotocol/server';\n\nexport const server = new McpServer({ name: 's', version: '1.0.0' });\n\nserver.registerTool('go', {}, async (ctx) => {\n  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } });\n  return { content: [{ type: 'text', text: answer.action }] };\n});\n");
  const text = generated(mb * 1024 * 1024);
  writeFileSync(path.join(dir, 'src/generated.ts'), text);
  const r = measure([cli, '--dry-run', '--no-progress', '.'], dir);
  console.log(`| ${(text.length / 1024 / 1024).toFixed(2)} MB | ${r.wall.toFixed(1)} | ${r.cpu.toFixed(1)} | ${Math.round(r.rssMiB)} | ${r.status} |`);
  rmSync(dir, { recursive: true, force: true });
}
