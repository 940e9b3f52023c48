// What the benchmark scripts share: the generated application files, one child process measured
// (wall, CPU, peak RSS), and medians.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A generated project in a new temporary folder (`mrtr-<name>-...`): `manifest` as its package.json,
 * a strict NodeNext tsconfig over src/, this repository's node_modules linked in, and `libs`
 * application files (writeLibraryChain); the servers go in src/<serverDir>.
 */
export function benchTree(name, manifest, serverDir, libs) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `mrtr-${name}-`));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, noEmit: true, types: [] }, include: ['src'] }, null, 2));
  symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  mkdirSync(path.join(dir, 'src/lib'), { recursive: true });
  mkdirSync(path.join(dir, 'src', serverDir), { recursive: true });
  writeLibraryChain(dir, libs);
  return dir;
}

/** `count` application files in `dir` (src/lib/util<i>.ts), each importing the previous one, as real modules import each other. */
function writeLibraryChain(dir, count) {
  for (let i = 0; i < count; i++) {
    const previous = i > 0 ? `import { total${i - 1} } from './util${i - 1}.js';\n\n` : '';
    const uses = i > 0 ? ` + total${i - 1}([])` : '';
    writeFileSync(path.join(dir, `src/lib/util${i}.ts`), `${previous}export interface Item${i} { id: string; size: number }\n\nexport function total${i}(items: Item${i}[]): number {\n  return items.reduce((sum, item) => sum + item.size, 0)${uses};\n}\n`);
  }
}

// Printed by the child at exit: its own peak RSS and CPU time, which no parent-side timer can see.
const exitHook = "data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nBENCH '+JSON.stringify({rss:u.maxRSS,cpu:(u.userCPUTime+u.systemCPUTime)/1e6})+'\\n')})";

/** Runs `node <args>` in `cwd`: wall and CPU seconds, peak RSS in MiB, exit status. */
export function measure(args, cwd) {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['--import', exitHook, ...args], { cwd, encoding: 'utf8', env: { ...process.env, CI: 'true', NO_COLOR: '1' }, maxBuffer: 1024 * 1024 * 1024 });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const line = /BENCH (\{.*\})/.exec(run.stderr)?.[1];
  if (!line) throw new Error(`${args.join(' ')} printed no measurement (exit ${run.status}):\n${run.stderr.slice(-2000)}`);
  const { rss, cpu } = JSON.parse(line);
  return { wall, cpu, rssMiB: rss / 1024, status: run.status, stdout: run.stdout };
}

export const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
