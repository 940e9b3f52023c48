import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, REPO } from '../cli/helpers.js';

/**
 * The shapes of public servers (`../shared/shapes`, beside this repository) as `run.sh` there runs
 * them: a real run of the built CLI on a copy of each, and one line per shape (exit code, type errors
 * before -> after with the shape's own tsconfig, files holding `inputRequired`, push calls left, the
 * sites' verdicts). Each line must equal the one in `snapshot.txt`, so a verdict cannot change unseen:
 * a change lands with the snapshot updated in the same commit (UPDATE_SHAPES=1 writes it) and its
 * reason in the commit message. A shape the snapshot does not know yet is reported, not failed.
 */

const SHAPES = join(REPO, '..', 'shared', 'shapes');
const SNAPSHOT = join(import.meta.dirname, 'snapshot.txt');
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const UPDATE = process.env.UPDATE_SHAPES === '1';
/** The push-style calls run.sh counts in what a run leaves (a line that also says inputRequired is the rewrite's). */
const PUSH_CALL = /\.(elicitInput|createMessage|listRoots)\(|sendRequest\(|mcpReq\.send\(/;

const shapes = existsSync(SHAPES) ? readdirSync(SHAPES).filter(name => existsSync(join(SHAPES, name, 'package.json'))).sort() : [];
const expected = readSnapshot();
const seen = new Map<string, string>();
const made: string[] = [];

afterAll(() => {
  for (const dir of made) {
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  }
  if (UPDATE && seen.size > 0) {
    const lines = new Map([...expected, ...seen]);
    writeFileSync(SNAPSHOT, [...lines.keys()].sort().map(name => `${name}: ${lines.get(name)}\n`).join(''));
  }
});

describe.skipIf(shapes.length === 0)('the shapes of public servers', () => {
  it.for(shapes)('%s behaves as the snapshot says', { timeout: 600_000 }, (shape, { annotate }) => {
    const line = runShape(shape);
    seen.set(shape, line);
    const before = expected.get(shape);
    if (before === undefined) {
      void annotate(`new shape, not in test/shapes/snapshot.txt: ${shape}: ${line}`);
      return;
    }
    if (!UPDATE) expect(`${shape}: ${line}`).toBe(`${shape}: ${before}`);
  });

  it('knows every shape the snapshot names', ({ annotate }) => {
    const gone = [...expected.keys()].filter(name => !shapes.includes(name));
    if (gone.length > 0) void annotate(`in test/shapes/snapshot.txt but not in ../shared/shapes: ${gone.join(', ')}`);
    expect(shapes.length).toBeGreaterThan(0);
  });
});

describe.skipIf(shapes.length > 0)('the shapes of public servers (absent)', () => {
  it.skip(`are not here: ${SHAPES} does not exist, so the shapes snapshot is not compared`, () => {});
});

function readSnapshot(): Map<string, string> {
  const lines = new Map<string, string>();
  if (!existsSync(SNAPSHOT)) return lines;
  for (const line of readFileSync(SNAPSHOT, 'utf8').split('\n')) {
    const colon = line.indexOf(': ');
    if (colon > 0) lines.set(line.slice(0, colon), line.slice(colon + 2));
  }
  return lines;
}

/** One shape's line, as run.sh prints it (without its markers). */
function runShape(shape: string): string {
  const dir = mkdtempSync(join(os.tmpdir(), `mrtr-shape-${shape}-`));
  made.push(dir);
  cpSync(join(SHAPES, shape), dir, { recursive: true });
  // The shapes may be read-only; a user's project is not.
  for (const entry of [dir, ...readdirSync(dir, { recursive: true }).map(name => join(dir, String(name)))]) chmodSync(entry, statSync(entry).isDirectory() ? 0o755 : 0o644);
  const zod3 = readFileSync(join(dir, 'package.json'), 'utf8').includes('"zod": "^3');
  if (zod3) linkZod3Modules(dir);
  else symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const before = typeErrors(dir);
  const run = spawnSync(process.execPath, [BIN, '--no-progress', '--format', 'json', '--report', join(dir, 'mrtr-report.md'), '.'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', NO_COLOR: '1', NODE_OPTIONS: '--max-old-space-size=4096' },
    timeout: 300_000,
  });
  if (run.error) throw run.error;
  // A run that moved the package to zod 4 is checked as after its "Next: npm install": with zod 4.
  if (zod3 && readFileSync(join(dir, 'package.json'), 'utf8').includes('"zod": "^4')) {
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  }
  const after = typeErrors(dir);
  const sources = sourceFiles(join(dir, 'src'));
  const texts = sources.map(file => readFileSync(file, 'utf8'));
  const withInputRequired = texts.filter(text => text.includes('inputRequired')).length;
  const pushLeft = texts.flatMap(text => text.split('\n')).filter(l => PUSH_CALL.test(l) && !l.includes('inputRequired')).length;
  const sites = reportSites(join(dir, 'mrtr-report.json'));
  return `exit ${run.status}; type errors ${before} -> ${after}; files with inputRequired ${withInputRequired}; push calls left ${pushLeft}; sites [${sites}]`;
}

/** The shape's node_modules as its author has them installed: this repository's, with zod 3 and a copy of the v1 SDK that resolves it. */
function linkZod3Modules(dir: string): void {
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@modelcontextprotocol'), { recursive: true });
  for (const name of readdirSync(join(REPO, 'node_modules'))) {
    if (name === 'zod' || name === '@modelcontextprotocol' || name.startsWith('.')) continue;
    symlinkSync(join(REPO, 'node_modules', name), join(modules, name), 'dir');
  }
  const scope = join(REPO, 'node_modules', '@modelcontextprotocol');
  for (const name of readdirSync(scope)) {
    if (name === 'sdk') cpSync(join(scope, name), join(modules, '@modelcontextprotocol', name), { recursive: true });
    else symlinkSync(join(scope, name), join(modules, '@modelcontextprotocol', name), 'dir');
  }
  symlinkSync(join(REPO, 'node_modules', 'zod-3'), join(modules, 'zod'), 'dir');
}

function typeErrors(dir: string): number {
  try {
    execFileSync(process.execPath, [TSC, '--noEmit', '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    return 0;
  } catch (error) {
    return String((error as { stdout?: string }).stdout).split('\n').filter(line => line.includes('error TS')).length;
  }
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(entry => entry.isFile())
    .map(entry => join(entry.parentPath, entry.name))
    .filter(file => !relative(dir, file).split('/').includes('node_modules'));
}

function reportSites(file: string): string {
  if (!existsSync(file)) return '';
  const report = JSON.parse(readFileSync(file, 'utf8')) as { sites?: { verdict?: string; status?: string; reason?: string }[] };
  return (report.sites ?? []).map(site => `${site.verdict ?? site.status}${site.reason ? `:${site.reason}` : ''}`).join(',');
}
