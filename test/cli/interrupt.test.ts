import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { migrate } from '../../src/index.js';
import { BIN, makeProject, read } from './helpers.js';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

/**
 * SIGINT / SIGTERM during the write stage, on a generated tree of a few hundred files: the run stops
 * before the next file, leaves every file either as it was or completely migrated, no temporary file,
 * the manifest updated for what was written, the report saying so, and exits 130 (143 for SIGTERM).
 */

// Cheap to migrate (the SDK stage rewrites the import; no question to analyse), so the tree can be large.
const TYPES_FILE = `import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export function reply(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}
`;
// A handler the MRTR rewrite turns into rounds: a file it would leave half-done is easy to tell.
const HANDLER_FILE = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export const server = new McpServer({ name: 'archive', version: '1.0.0' });

server.tool('archive', 'Archive a record after the user confirms', { id: z.string() }, async ({ id }) => {
  const label = \`record \${id}\`;
  const answer = await server.server.elicitInput({
    message: \`Archive \${label}?\`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  });
  if (answer.action !== 'accept') return { content: [{ type: 'text', text: \`Kept \${label}.\` }] };
  return { content: [{ type: 'text', text: \`Archived \${label}.\` }] };
});
`;
const MANIFEST = JSON.stringify({ name: 'many-tools', type: 'module', dependencies: { '@modelcontextprotocol/sdk': '^1.32.0', zod: '^4.2.0' } }, null, 2) + '\n';
const TSCONFIG = JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true }, include: ['src'] });
const TYPES = 290;
const HANDLERS = 10;
const ARGS = ['--no-verify', '--format', 'json'];

function writeTree(dir: string, types: number, handlers: number): string[] {
  writeFileSync(path.join(dir, 'package.json'), MANIFEST);
  writeFileSync(path.join(dir, 'tsconfig.json'), TSCONFIG);
  const files: string[] = [];
  for (let i = 0; i < types + handlers; i++) {
    const folder = path.join(dir, 'src', `part-${String(i % 10)}`);
    mkdirSync(folder, { recursive: true });
    const file = i < types ? `src/part-${i % 10}/reply-${i}.ts` : `src/part-${i % 10}/archive-${i}.ts`;
    writeFileSync(path.join(dir, file), i < types ? TYPES_FILE : HANDLER_FILE);
    files.push(file);
  }
  return files;
}

/** A migrated file with its import of the support module, wherever the module is. */
function sameModule(text: string): string {
  return text.replace(/from '[^']*requestState\.js'/g, "from './requestState.js'");
}

/** Every file under `dir` (node_modules aside), relative. */
function allFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    if (entry.name === 'node_modules') return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? allFiles(full, base) : [path.relative(base, full)];
  });
}

interface InterruptedRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts the CLI and sends `signal` as soon as it says it is writing. */
function runAndInterrupt(cwd: string, args: string[], signal: NodeJS.Signals): Promise<InterruptedRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', chunk => (stdout += chunk));
    child.stderr.on('data', chunk => {
      stderr += chunk;
      // Printed (synchronously, to a pipe) right before the first file is written.
      if (!sent && /^mrtr-migrate: writing \d+ file\(s\)$/m.test(stderr)) {
        sent = true;
        child.kill(signal);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, killedBy) => resolve({ code, signal: killedBy, stdout, stderr }));
  });
}

describe('an interrupted write stage', () => {
  let dir: string;
  let files: string[];
  const migrated = new Map<string, string>();
  beforeAll(async () => {
    // What each kind of file becomes, from a complete (dry) run of the same options on one of each.
    const sample = makeProject(undefined, { nodeModules: true });
    writeTree(sample, 1, 1);
    const report = await migrate({ cwd: sample, dryRun: true, verify: false });
    for (const [original, name] of [[TYPES_FILE, 'reply-0.ts'], [HANDLER_FILE, 'archive-1.ts']] as const) {
      const after = report.files.find(f => f.file.endsWith(name))!.after;
      expect(after).not.toBe(original);
      migrated.set(original, sameModule(after));
    }
    expect(migrated.get(HANDLER_FILE)).toContain('inputRequired');
    dir = makeProject(undefined, { nodeModules: true });
    files = writeTree(dir, TYPES, HANDLERS);
  });

  /** Each source is its original or its complete migration; returns how many are migrated. */
  function checkTree(): number {
    let done = 0;
    for (const file of files) {
      const text = read(dir, file);
      const original = file.includes('archive-') ? HANDLER_FILE : TYPES_FILE;
      if (sameModule(text) === migrated.get(original)) done++;
      else expect(text, `${file} is neither its original nor its complete migration`).toBe(original);
    }
    expect(allFiles(dir).filter(f => /\.tmp$|\.mrtr-/.test(f))).toEqual([]);
    return done;
  }

  it('SIGINT: stops before the next file, reports and updates package.json for what was written, exits 130', async () => {
    const run = await runAndInterrupt(dir, ARGS, 'SIGINT');
    expect(run.stderr).not.toMatch(/internal error/);
    expect([run.code, run.signal]).toEqual([130, null]);
    const done = checkTree();
    // The support module is written first: no file importing it is on disk without it.
    const module = allFiles(dir).filter(f => f.endsWith('requestState.ts'));
    expect(module).toHaveLength(1);
    // The first file is written before the signal can be handled, and the run stopped well before the end.
    expect(done).toBeLessThan(files.length);

    const report = JSON.parse(read(dir, 'mrtr-migrate-report.json'));
    expect(report.interrupted).toBe('SIGINT');
    expect(report.summary.filesWritten).toBe(done + 1);
    const writtenInReport = report.files.filter((f: any) => f.written).map((f: any) => f.file).sort();
    expect(writtenInReport).toEqual([...module, ...files.filter(f => read(dir, f) !== (f.includes('archive-') ? HANDLER_FILE : TYPES_FILE))].sort());
    const left = report.files.filter((f: any) => f.changed && !f.written);
    expect(left).toHaveLength(files.length - done);
    for (const f of left) expect(f.error).toMatch(/^not written: the run was interrupted \(SIGINT\) before this file; it is unchanged/);
    expect(read(dir, 'mrtr-migrate-report.md')).toContain('**Interrupted (SIGINT) while writing**');
    // Files still importing the v1 SDK keep it; the written ones need the v2 package.
    const manifest = JSON.parse(read(dir, 'package.json'));
    expect(Object.keys(manifest.dependencies)).toEqual(['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', 'zod']);
    expect(run.stdout).toMatch(new RegExp(`Interrupted \\(SIGINT\\) while writing: ${done + 1} file\\(s\\) written, ${files.length - done} left unchanged`));
    expect(run.stdout).toMatch(/^Next: node \S+main\.js \. --force {3}# migrate the files the interruption left unchanged$/m);
  });

  it('SIGTERM on the run that goes on (--force): the same guarantees, exit 143', async () => {
    const before = checkTree();
    const run = await runAndInterrupt(dir, [...ARGS, '--force'], 'SIGTERM');
    expect([run.code, run.signal]).toEqual([143, null]);
    const done = checkTree();
    expect(done).toBeGreaterThan(before);
    const report = JSON.parse(read(dir, 'mrtr-migrate-report.json'));
    expect(report.interrupted).toBe('SIGTERM');
    expect(report.summary.filesWritten).toBe(done - before);
  });
});
