import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { BIN, changedFiles, makeProject, read, runCli, snapshot } from './helpers.js';
import { withoutMarkerLines } from '../helpers/expectations.js';

// Each test spawns the CLI (a type-checking run) one or more times; CI machines are slow and shared.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

const oneLine = (text: string) => text.trim().split('\n').length === 1;

describe('files the run must not break', () => {
  it('lists a file with a syntax error and leaves it untouched; the others still migrate', () => {
    const dir = makeProject('syntax-error', { nodeModules: true });
    const brokenBefore = read(dir, 'src/broken.ts');
    const run = runCli(dir, []);
    // Done, but a file was left as it was: exit 3, which a script can tell from success.
    expect(run.code).toBe(3);
    expect(read(dir, 'src/broken.ts')).toBe(brokenBefore);
    expect(read(dir, 'src/good.ts')).toContain('inputRequired');
    expect(run.stdout).toMatch(/✗ src\/broken\.ts: syntax error at 6:\d+/);
    expect(read(dir, 'mrtr-migrate-report.md')).toMatch(/`src\/broken\.ts`: syntax error at 6:\d+ .*left untouched/);
    // A dry run says the same; with --check, a file that could not be read is not vouched for.
    expect(runCli(dir, ['--dry-run']).code).toBe(3);
    expect(runCli(dir, ['--check']).code).toBe(1);
  });

  it('lists Latin-1, UTF-16 (with and without BOM) and oversized files with the cause and never writes them; the others still migrate', () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    const original = readFileSync(path.join(dir, 'src/server.ts'), 'utf8');
    // The same server in encodings a UTF-8 round trip would damage, and one far too large to be hand-written.
    const latin1 = Buffer.from(`// r\u00e9sum\u00e9 des outils\n${original}`, 'latin1');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(original, 'utf16le')]);
    // As some Windows editors save it: UTF-16LE with no byte order mark (its NUL bytes are not a binary file's).
    const utf16NoBom = Buffer.from(original, 'utf16le');
    writeFileSync(path.join(dir, 'src/latin1.ts'), latin1);
    writeFileSync(path.join(dir, 'src/utf16.ts'), utf16);
    writeFileSync(path.join(dir, 'src/utf16-no-bom.ts'), utf16NoBom);
    writeFileSync(path.join(dir, 'src/huge.ts'), `${original}\n// elicitInput\n${'// padding\n'.repeat(600_000)}`);
    const hugeBefore = readFileSync(path.join(dir, 'src/huge.ts'));
    const run = runCli(dir, []);
    expect(run.code).toBe(3);
    expect(readFileSync(path.join(dir, 'src/latin1.ts')).equals(latin1)).toBe(true);
    expect(readFileSync(path.join(dir, 'src/utf16.ts')).equals(utf16)).toBe(true);
    expect(readFileSync(path.join(dir, 'src/utf16-no-bom.ts')).equals(utf16NoBom)).toBe(true);
    expect(readFileSync(path.join(dir, 'src/huge.ts')).equals(hugeBefore)).toBe(true);
    const report = read(dir, 'mrtr-migrate-report.md');
    expect(report).toMatch(/src\/latin1\.ts.*not valid UTF-8/);
    expect(report).toMatch(/src\/utf16\.ts.*UTF-16/);
    expect(report).toMatch(/src\/utf16-no-bom\.ts`: cannot be read: it is UTF-16LE encoded \(without a byte order mark\); convert it to UTF-8/);
    expect(report).toMatch(/src\/huge\.ts.*MB limit/);
    expect(read(dir, 'src/server.ts')).toContain('inputRequired');
  });

  it('reads a large generated file with no MCP code as any other: no error, exit 0', () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    const rows = Array.from({ length: 150_000 }, (_, i) => `  { id: ${i}, name: 'item-${i}', tags: ['t${i % 7}'] },`);
    writeFileSync(path.join(dir, 'src/generated.ts'), `export const ROWS = [\n${rows.join('\n')}\n];\n`);
    expect(statSync(path.join(dir, 'src/generated.ts')).size).toBeGreaterThan(5 * 1024 * 1024);
    const run = runCli(dir, ['--dry-run', '--format', 'json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(read(dir, 'mrtr-migrate-report.json'));
    expect(report.files.filter((f: any) => f.error)).toEqual([]);
    expect(report.sites.length).toBeGreaterThan(0);
  });

  it('does not write a read-only file and says so; the run still completes', () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    const file = path.join(dir, 'src/server.ts');
    const before = readFileSync(file, 'utf8');
    chmodSync(file, 0o444);
    const run = runCli(dir, ['--format', 'json']);
    expect(run.code).toBe(3);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(statSync(file).mode & 0o777).toBe(0o444);
    expect(run.stdout).toMatch(/✗ src\/server\.ts: not written: the file is read-only/);
    const report = JSON.parse(read(dir, 'mrtr-migrate-report.json'));
    expect(report.sites.every((s: any) => s.status === 'not-written')).toBe(true);
    expect(read(dir, 'src/main.ts')).toContain('serveStdio');
  });

  it('keeps the v1 SDK in package.json while a file it owns still imports it (syntax error, unreadable), and says which', () => {
    const dir = makeProject('v1-server', { nodeModules: true });
    const v1Import = "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\n";
    writeFileSync(path.join(dir, 'src/broken.ts'), `${v1Import}export const server = new McpServer({ name: 'b', version: '1' };\n`);
    writeFileSync(path.join(dir, 'src/legacy.ts'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${v1Import}export {};\n`, 'utf16le')]));
    const run = runCli(dir, []);
    expect(run.code).toBe(3);
    expect(read(dir, 'src/index.ts')).toContain('@modelcontextprotocol/server');
    const manifest = JSON.parse(read(dir, 'package.json'));
    expect(manifest.dependencies['@modelcontextprotocol/sdk']).toBeDefined();
    expect(manifest.dependencies['@modelcontextprotocol/server']).toBeDefined();
    expect(run.stdout).toContain('package.json: +@modelcontextprotocol/server');
    expect(run.stdout).toMatch(/! @modelcontextprotocol\/sdk stays in package\.json: src\/broken\.ts, src\/legacy\.ts still import it or could not be read/);

    // Once those files are gone, a second run takes the v1 package out.
    rmSync(path.join(dir, 'src/broken.ts'));
    rmSync(path.join(dir, 'src/legacy.ts'));
    const second = runCli(dir, []);
    expect(second.code).toBe(0);
    expect(JSON.parse(read(dir, 'package.json')).dependencies['@modelcontextprotocol/sdk']).toBeUndefined();
    expect(second.stdout).not.toContain('stays in package.json');
  });

  it('with --no-sdk-upgrade, leaves a file on the v1 SDK as it was and says the rewrite needs v2, where it rolled every site back', () => {
    const dir = makeProject('v1-server', { nodeModules: true });
    const before = snapshot(dir);
    const run = runCli(dir, ['--no-sdk-upgrade', '--format', 'json']);
    expect(run.code).toBe(0);
    // The one change: the marker of a site refused for its own code (a loop), as in any run.
    expect(changedFiles(before, snapshot(dir))).toEqual(['src/index.ts']);
    expect(read(dir, 'src/index.ts').split('\n').filter(line => !line.includes('// mrtr-migrate: loop')).join('\n')).toBe(before.get('src/index.ts'));
    const report = JSON.parse(read(dir, 'mrtr-migrate-report.json'));
    expect(report.sites.map((s: any) => `${s.status} ${s.reason}`).sort()).toEqual(['refused loop', 'refused sdk-version']);
    expect(report.sites.find((s: any) => s.reason === 'sdk-version').hint).toBe('the file imports the v1 SDK (@modelcontextprotocol/sdk), which --no-sdk-upgrade leaves it on, and the rewrite needs the v2 SDK; run without --no-sdk-upgrade.');
    expect(report.files.every((f: any) => !f.rolledBack)).toBe(true);
    expect(run.stdout).toMatch(/Next: .* # without --no-sdk-upgrade: the files on the v1 SDK move to v2, which the rewrite needs/);
  });

  it('keeps a v1 file as it was when the v1-to-v2 upgrade would break it (a context destructured with a rest element), and says why', () => {
    const dir = makeProject('v1-server', { nodeModules: true });
    const file = path.join(dir, 'src/ask.ts');
    // The handler takes sendRequest out of its context and keeps the rest: the context cannot be named
    // for it, and the v2 context has no sendRequest.
    const text = [
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';",
      "import { z } from 'zod';",
      '',
      "export const server = new McpServer({ name: 'ask', version: '1.0.0' });",
      '',
      "server.tool('ask-path', 'Ask about a path', { path: z.string() }, async ({ path }, { sendRequest, ...rest }) => {",
      '  const answer = await sendRequest(',
      "    { method: 'elicitation/create', params: { message: `Open ${path} for ${rest.sessionId}?`, requestedSchema: { type: 'object', properties: {} } } },",
      '    ElicitResultSchema,',
      '  );',
      "  return { content: [{ type: 'text', text: answer.action }] };",
      '});',
      '',
    ].join('\n');
    writeFileSync(file, text);
    const run = runCli(dir, ['--format', 'json']);
    expect(run.code).toBe(0);
    // The code as it was; the question it keeps has its marker, the only edit.
    const written = readFileSync(file, 'utf8');
    expect(withoutMarkerLines(written)).toBe(text);
    expect(written).toContain('// mrtr-migrate: unsupported-construct — the handler destructures its context parameter');
    expect(run.stdout).toMatch(/✗ src\/ask\.ts: the v1-to-v2 upgrade of this file added \d+ type error\(s\) \(line \d+: TS2339: Property 'sendRequest' does not exist/);
    const report = JSON.parse(read(dir, 'mrtr-migrate-report.json'));
    expect(report.files.find((f: any) => f.file === 'src/ask.ts')).toMatchObject({ changed: true, rolledBack: true, written: true });
    // The other files still migrate, and the manifest keeps the v1 package the kept file imports.
    expect(read(dir, 'src/index.ts')).toContain('@modelcontextprotocol/server');
    expect(JSON.parse(read(dir, 'package.json')).dependencies['@modelcontextprotocol/sdk']).toBeDefined();
    expect(run.stdout).toMatch(/stays in package\.json: src\/ask\.ts still imports it/);
  });

  it('keeps a v1 file on v1, whole, when its upgrade adds a type error outside its handlers, and says which (the run adds no type error)', () => {
    const dir = makeProject('v1-server', { nodeModules: true });
    const file = path.join(dir, 'src/http.ts');
    // The official stage maps v1's numeric ErrorCode to v2's error codes, which a number annotation
    // outside any handler does not take (TS2322).
    writeFileSync(file, [
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';",
      '',
      "export const server = new McpServer({ name: 'http', version: '1.0.0' });",
      '',
      "server.registerTool('wipe', { description: 'Wipe the cache' }, async () => {",
      "  const answer = await server.server.elicitInput({ message: 'Wipe the cache?', requestedSchema: { type: 'object', properties: {} } });",
      "  return { content: [{ type: 'text', text: answer.action }] };",
      '});',
      '',
      'export const closedCode: number = ErrorCode.ConnectionClosed;',
      '',
    ].join('\n'));
    const before = readFileSync(file, 'utf8');
    const run = runCli(dir, []);
    expect(run.code).toBe(0);
    const written = readFileSync(file, 'utf8');
    expect(withoutMarkerLines(written)).toBe(before);
    expect(written).toContain("  // mrtr-migrate: rolled-back — the v1-to-v2 upgrade of this file added 1 type error(s) (TS2322 first, line 11), so it stays on the v1 SDK\n  const answer");
    // The statement with the upgrade's error gets it in a marker (the v2 type is named as its bundle names it).
    expect(written).toMatch(/\n\/\/ mrtr-migrate: upgrade-error — TS2322 on v2: Type '\w+' is not assignable to type 'number'\.\nexport const closedCode/);
    expect(run.stdout).toMatch(/✗ src\/http\.ts: the v1-to-v2 upgrade of this file added 1 type error\(s\) \(line 11: TS2322: Type '.+' is not assignable to type 'number'\.\), so the whole file stays on the v1 SDK as it was/);
  });

  it('says it ran out of memory, in which phase, and what to do, instead of ending with V8\'s stack; nothing is written', () => {
    const dir = makeProject('v2-server', { nodeModules: true, git: true });
    const before = snapshot(dir);
    // Far too little for the compiler and the SDK's declarations; the main thread needs almost none.
    const run = runCli(dir, [], { NODE_OPTIONS: '--max-old-space-size=48' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^mrtr-migrate: the run ran out of memory while (reading|rewriting) \(the JavaScript heap limit is \d+ MB\) and was stopped\. Nothing was written\.$/m);
    expect(run.stderr).toContain('NODE_OPTIONS=--max-old-space-size=8192');
    expect(run.stderr).not.toMatch(/FATAL ERROR|Native stack trace|internal error/);
    expect(changedFiles(before, snapshot(dir))).toEqual([]);
    expect(existsSync(path.join(dir, 'mrtr-migrate-report.md'))).toBe(false);
  });

  it('keeps CRLF line endings and the byte order mark of a file', () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    const file = path.join(dir, 'src/server.ts');
    writeFileSync(file, '\uFEFF' + readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
    const run = runCli(dir, []);
    expect(run.code).toBe(0);
    const after = readFileSync(file, 'utf8');
    expect(after).toContain('inputRequired');
    expect(after.startsWith('\uFEFF')).toBe(true);
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
  });
});

describe('where the run refuses to start', () => {
  it('refuses a git work tree with uncommitted changes unless --force; dry runs are fine', () => {
    const dir = makeProject('v2-server', { nodeModules: true, git: true });
    writeFileSync(path.join(dir, 'NOTES.md'), 'work in progress\n');
    const before = snapshot(dir);
    const refused = runCli(dir, []);
    expect(refused.code).toBe(2);
    expect(oneLine(refused.stderr)).toBe(true);
    expect(refused.stderr).toMatch(/^mrtr-migrate: the git work tree .* has 1 uncommitted change\(s\) \(NOTES\.md\).*--force/);
    expect(changedFiles(before, snapshot(dir))).toEqual([]);
    expect(runCli(dir, ['--dry-run']).code).toBe(0);
    expect(changedFiles(before, snapshot(dir))).toEqual([]);
    const forced = runCli(dir, ['--force']);
    expect(forced.code).toBe(0);
    expect(changedFiles(before, snapshot(dir))).toEqual(['src/main.ts', 'src/requestState.ts', 'src/server.ts']);
  });

  it('does not follow symbolic links, loops included', () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    symlinkSync('.', path.join(dir, 'src/self'));
    symlinkSync('../..', path.join(dir, 'src/up'));
    symlinkSync('b', path.join(dir, 'src/a'));
    symlinkSync('a', path.join(dir, 'src/b'));
    const run = runCli(dir, ['--dry-run', '--format', 'json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(read(dir, 'mrtr-migrate-report.json'));
    expect(report.summary.filesScanned).toBe(2);
    expect(report.diagnostics.find((d: any) => d.code === 'cli/symlinks').message).toMatch(/^4 symbolic link\(s\) not followed/);
  });

  it('follows a symbolic link given by name, to the folder it points to; one that leads nowhere is refused in one line', () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    symlinkSync('src', path.join(dir, 'code'));
    const before = readFileSync(path.join(dir, 'src/server.ts'), 'utf8');
    const dry = runCli(dir, ['--dry-run', '--format', 'json', 'code']);
    expect(dry.code).toBe(0);
    const report = JSON.parse(read(dir, 'mrtr-migrate-report.json'));
    expect(report.summary.filesScanned).toBe(2);
    expect(report.diagnostics.some((d: any) => d.code === 'cli/symlinks')).toBe(false);
    const run = runCli(dir, ['code']);
    expect(run.code).toBe(0);
    // Written where the link points; the link stays a link.
    expect(readFileSync(path.join(dir, 'src/server.ts'), 'utf8')).not.toBe(before);
    expect(lstatSync(path.join(dir, 'code')).isSymbolicLink()).toBe(true);
    symlinkSync('missing', path.join(dir, 'gone'));
    const gone = runCli(dir, ['--dry-run', 'gone']);
    expect(gone.code).toBe(2);
    expect(oneLine(gone.stderr)).toBe(true);
    expect(gone.stderr).toMatch(/^mrtr-migrate: gone is a symbolic link that leads nowhere/);
  });

  it('exits 2 on an empty folder, with the cause on one line', () => {
    const dir = makeProject(undefined);
    const run = runCli(dir, []);
    expect(run.code).toBe(2);
    expect(oneLine(run.stderr)).toBe(true);
    expect(run.stderr).toMatch(/^mrtr-migrate: no TypeScript or JavaScript source files found in \./);
  });

  it('exits 2 on bad arguments', () => {
    const dir = makeProject('v2-server');
    for (const [args, message] of [
      [['--format', 'pdf'], /--format pdf is not a report format/],
      [['--bogus'], /Unknown option '--bogus'/],
      [['src/nope.ts'], /src\/nope\.ts does not exist/],
      [['lib/**/*.ts'], /no file matches the pattern lib\/\*\*\/\*\.ts/],
      [['--project', 'missing.json'], /missing\.json does not exist/],
      [['package.json'], /package\.json is not a TypeScript or JavaScript source file/],
    ] as const) {
      const run = runCli(dir, [...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(oneLine(run.stderr), run.stderr).toBe(true);
      expect(run.stderr).toMatch(message);
    }
  });
});

describe('// mrtr-migrate-ignore', () => {
  it('leaves the site as it is and lets --check pass; an ignore that suppresses nothing fails it, on the terminal', () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    const file = path.join(dir, 'src/server.ts');
    const original = readFileSync(file, 'utf8');
    // Every site of the project ignored, with a reason; the serving entry already moved.
    writeFileSync(file, original
      .replace('    const confirmation = await', '    // mrtr-migrate-ignore production deploys stay on the 2025 bridge until Q3\n    const confirmation = await')
      .replace('    const draft = await', '    // mrtr-migrate-ignore: release notes move to a direct model call\n    const draft = await'));
    writeFileSync(path.join(dir, 'src/main.ts'), "import { serveStdio } from '@modelcontextprotocol/server/stdio';\nimport { server } from './server.js';\n\nawait serveStdio(() => server);\n");
    const before = snapshot(dir);
    const check = runCli(dir, ['--check', '--format', 'json']);
    expect(check.stderr).not.toMatch(/internal error/);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/Sites: 2 found, .*, 2 ignored \(mrtr-migrate-ignore\)/);
    expect(check.stdout).toContain('Next: nothing left to migrate');
    const report = JSON.parse(read(dir, 'mrtr-migrate-report.json'));
    expect(report.sites.map((s: any) => [s.status, s.hint])).toEqual([
      ['ignored', expect.stringContaining('(production deploys stay on the 2025 bridge until Q3)')],
      ['ignored', expect.stringContaining('(release notes move to a direct model call)')],
    ]);
    expect(changedFiles(before, snapshot(dir))).toEqual([]);

    writeFileSync(file, readFileSync(file, 'utf8').replace('export const server', '// mrtr-migrate-ignore left from an earlier version\nconst unused = 1;\nexport const server'));
    const stale = runCli(dir, ['--check']);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/✗ src\/server\.ts:\d+: `\/\/ mrtr-migrate-ignore` suppresses nothing: no push-style site is in the statement on line \d+/);
  });
});

describe('a tsconfig that cannot be read as written', () => {
  it('says so on the terminal; --check exits 2 with the cause on one line', () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    const tsconfig = path.join(dir, 'tsconfig.json');
    writeFileSync(tsconfig, readFileSync(tsconfig, 'utf8').replace(/\}\s*$/, ',\n  "include": ["src"\n}\n'));
    const run = runCli(dir, ['--dry-run', '--no-verify']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}! cannot read tsconfig\.json:\d+:\d+: .+; the run used default compiler options instead of it\.$/m);
    const check = runCli(dir, ['--check']);
    expect(check.code).toBe(2);
    expect(oneLine(check.stderr), check.stderr).toBe(true);
    expect(check.stderr).toMatch(/^mrtr-migrate: cannot read tsconfig\.json:\d+:\d+: .*--check does not vouch for a project whose compiler options were not read as written/);

    writeFileSync(tsconfig, JSON.stringify({ extends: './tsconfig.base.json', compilerOptions: { strict: true } }));
    const extendsMissing = runCli(dir, ['--check']);
    expect(extendsMissing.code).toBe(2);
    expect(oneLine(extendsMissing.stderr), extendsMissing.stderr).toBe(true);
    expect(extendsMissing.stderr).toMatch(/^mrtr-migrate: tsconfig\.json: Cannot read file 'tsconfig\.base\.json' \(its "extends"\); the run used this tsconfig's own options without the ones it extends\. --check does not vouch/);
  });
});

describe('options', () => {
  it('--ignore skips files; --report moves the report; progress lines go to stderr', () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    mkdirSync(path.join(dir, 'out'));
    const before = snapshot(dir);
    const run = runCli(dir, ['src', '--ignore', 'src/main.ts', '--report', 'out/migration.md', '--no-sdk-upgrade', '--no-verify']);
    expect(run.code).toBe(0);
    expect(changedFiles(before, snapshot(dir))).toEqual(['out/migration.md', 'src/requestState.ts', 'src/server.ts']);
    expect(run.stdout).toContain('Report: out/migration.md');
    expect(run.stderr).toMatch(/^mrtr-migrate: reading 1 file\(s\)$/m);
  });

  it('asks for git diff inside a git work tree only; outside, the report has the diffs', () => {
    const outside = runCli(makeProject('v2-server', { nodeModules: true }), ['.', '--no-verify']);
    expect(outside.code).toBe(0);
    expect(outside.stdout).toContain('review the changes in the report (a diff per file), then run your tests');
    expect(outside.stdout).not.toContain('git diff');
    const inside = runCli(makeProject('v2-server', { nodeModules: true, git: true }), ['.', '--no-verify']);
    expect(inside.stdout).toMatch(/^Next: git diff {3}# review the changes with the report, then run your tests$/m);
  });

  it('--help and --version exit 0', () => {
    const dir = makeProject(undefined);
    const help = runCli(dir, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
    expect(help.stdout).toMatch(/^Examples:\n {2}mrtr-migrate --dry-run \.\/src/m);
    expect(runCli(dir, ['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(JSON.parse(runCli(dir, ['--print-json-schema']).stdout).$id).toBe('urn:mrtr-migrate:report:1');
  });
});


describe('a reader that closes the pipe early', () => {
  /** The CLI with its stdout (or stderr) piped into `head -c 0`, which closes the pipe at once: its exit code and its other stream. */
  const piped = (dir: string, args: string[], stream: 'stdout' | 'stderr') => {
    const cli = [process.execPath, BIN, ...args].map(word => `'${word}'`).join(' ');
    // The other stream goes to a file outside the project (a new file inside would stop a writing run: uncommitted changes).
    const other = path.join(mkdtempSync(path.join(os.tmpdir(), 'mrtr-pipe-')), 'other.txt');
    // `2>&1 >file | ...` sends stderr into the pipe and stdout to the file.
    const line = stream === 'stdout' ? `${cli} 2>'${other}' | head -c 0` : `${cli} 2>&1 >'${other}' | head -c 0`;
    const result = spawnSync('bash', ['-c', `${line}; exit "\${PIPESTATUS[0]}"`], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: 'true', NO_COLOR: '1' }, timeout: 280_000 });
    const text = readFileSync(other, 'utf8');
    rmSync(path.dirname(other), { recursive: true, force: true });
    return { code: result.status, other: text };
  };

  it('ends a dry run as if the reader had read it all: exit 0, no internal error', () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    const run = piped(dir, ['--dry-run', '.'], 'stdout');
    expect(run.other).not.toContain('internal error');
    expect(run.code).toBe(0);
  });

  it('still writes every file when stderr, where progress goes, is closed', () => {
    const dir = makeProject('v2-server', { nodeModules: true, git: true });
    const before = snapshot(dir);
    const run = piped(dir, ['.'], 'stderr');
    expect(run.code).toBe(0);
    expect(run.other).toContain('Sites: ');
    expect(changedFiles(before, snapshot(dir))).toEqual(expect.arrayContaining(['src/server.ts']));
  });
});

describe('one run per project root at a time', () => {
  /** The CLI started without waiting for it: its exit code and output once it ends. */
  const started = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) => new Promise<{ code: number | null; stdout: string; stderr: string }>(resolve => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, CI: 'true', NO_COLOR: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', chunk => (stdout += chunk));
    child.stderr.on('data', chunk => (stderr += chunk));
    child.on('close', code => resolve({ code, stdout, stderr }));
  });

  it('of two runs started at once, one migrates and the other refuses, naming it; the report on disk is the first\'s', async () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    const env = { MRTR_MIGRATE_LOCK_WAIT_MS: '0' };
    const runs = await Promise.all([started(dir, ['--format', 'json'], env), started(dir, ['--format', 'json'], env)]);
    const done = runs.filter(r => r.code === 0);
    const refused = runs.filter(r => r.code === 2);
    expect([done.length, refused.length]).toEqual([1, 1]);
    expect(refused[0]!.stderr).toMatch(/^mrtr-migrate: another mrtr-migrate run is writing here \(pid \d+, started [^)]+\); wait for it to finish, or delete .+\.lock if no such process runs\n$/);
    expect(refused[0]!.stdout).toBe('');
    expect(read(dir, 'src/server.ts')).toContain('inputRequired');
    const report = JSON.parse(read(dir, 'mrtr-migrate-report.json'));
    expect(report.summary.filesWritten).toBeGreaterThan(0);
  });

  it('waits for a run that ends, then runs on what it wrote', async () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    const env = { MRTR_MIGRATE_LOCK_WAIT_MS: '120000' };
    const runs = await Promise.all([started(dir, [], env), started(dir, [], env)]);
    expect(runs.map(r => r.code)).toEqual([0, 0]);
    // One wrote the files; the other, run once the first was done, found them migrated.
    // The first wrote the support module too, which the second scanned.
    const summaries = runs.map(r => [/Files: (\d+ scanned, \d+ parsed, \d+) written/.exec(r.stdout)?.[1], /Next: (.*)/.exec(r.stdout)?.[1]].join(' | ')).sort();
    expect(summaries).toEqual(['2 scanned, 2 parsed, 3 | review the changes in the report (a diff per file), then run your tests', '3 scanned, 3 parsed, 0 | nothing left to migrate']);
  });
});

describe('colour', () => {
  it('colours the dry-run diff and the summary on a terminal (a real pseudo-terminal), not with NO_COLOR nor through a pipe', () => {
    const dir = makeProject('v2-server', { nodeModules: true });
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['CI', 'NO_COLOR', 'FORCE_COLOR']) delete env[name];
    const command = `${process.execPath} ${BIN} --dry-run --no-progress .`;
    // script(1) runs the command on a pseudo-terminal: the main thread sees a TTY, the worker does not.
    const onTerminal = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: dir, env, encoding: 'utf8' });
    expect(onTerminal.status).toBe(0);
    expect(onTerminal.stdout).toMatch(/\x1b\[32m\+/);
    expect(onTerminal.stdout).toMatch(/\x1b\[31m-/);
    const noColor = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: dir, env: { ...env, NO_COLOR: '1' }, encoding: 'utf8' });
    expect(noColor.status).toBe(0);
    expect(noColor.stdout).toContain('inputRequired');
    expect(noColor.stdout).not.toContain('\x1b[');
    const piped = spawnSync(process.execPath, [BIN, '--dry-run', '--no-progress', '.'], { cwd: dir, env, encoding: 'utf8' });
    expect(piped.status).toBe(0);
    expect(piped.stdout).not.toContain('\x1b[');
  });
});
