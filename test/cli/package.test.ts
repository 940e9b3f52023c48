import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { REPO } from './helpers.js';

// Packs the package and installs the tarball with npm (from npm's cache where it can): tens of seconds.
vi.setConfig({ testTimeout: 300_000 });

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
};
const npm = (cwd: string, args: string[]): string =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });

describe('the package as a user installs it', () => {
  it('packs the built CLI, the plugin, the docs and the LICENSE, without source maps; installed from the tarball, npx mrtr-migrate runs', () => {
    const packed = tempDir('mrtr-pack-');
    // dist/ is built by the e2e global setup: no prepare script here.
    const [info] = JSON.parse(npm(REPO, ['pack', '--json', '--ignore-scripts', '--pack-destination', packed])) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = info!.files.map(f => f.path);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/src/cli/main.js', 'dist/rules/index.js', 'dist/transforms/jscodeshift.cjs', 'dist/src/runtime/index.js', 'dist/src/runtime/index.d.ts', 'docs/rules/no-push-elicitation.md']));
    expect(files.filter(f => f.endsWith('.map'))).toEqual([]);
    expect(files.filter(f => f.startsWith('test/') || f.startsWith('fixtures/') || f.startsWith('src/'))).toEqual([]);

    // A v2 server with its own package.json (the SDK and zod as dependencies), nothing installed yet.
    const project = tempDir('mrtr-install-');
    cpSync(path.join(REPO, 'test/cli/projects/v2-server'), project, { recursive: true });
    npm(project, ['install', '--save-dev', '--prefer-offline', '--ignore-scripts', path.join(packed, info!.filename)]);
    const out = execFileSync('npx', ['--no-install', 'mrtr-migrate', '--dry-run', '--no-progress', '.'], { cwd: project, encoding: 'utf8', env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
    expect(out).toMatch(/^ {2}Sites: 2 found, 2 migrated/m);

    // --runtime package, written: the migrated server imports mrtr-migrate/runtime from the installed
    // tarball, has the type errors it had (no more), and answers a 2026-07-28 session over stdio on this Node.
    const errorsBefore = typeErrors(project);
    const written = execFileSync('npx', ['--no-install', 'mrtr-migrate', '--runtime', 'package', '--no-progress', '.'], { cwd: project, encoding: 'utf8', env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
    expect(written).toContain('npm install   # install the new dependencies');
    expect(readFileSync(path.join(project, 'src/server.ts'), 'utf8')).toContain("from 'mrtr-migrate/runtime';");
    expect(existsSync(path.join(project, 'src/requestState.ts'))).toBe(false);
    expect(JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')).dependencies['mrtr-migrate']).toMatch(/^\^/);
    // Its errors, as with the original: the sampling result's content may be an array (SDK 2.4 types).
    expect(errorsBefore).toHaveLength(2);
    expect(typeErrors(project)).toEqual(errorsBefore);
    writeFileSync(path.join(project, 'session.mjs'), SESSION);
    const transcript = execFileSync(process.execPath, ['session.mjs'], { cwd: project, encoding: 'utf8', env: { ...process.env, MCP_REQUEST_STATE_KEY: 'a pack test key of more than thirty-two bytes' } });
    expect(JSON.parse(transcript)).toEqual([
      { asked: ['Deploy api@staging?'], text: 'Deploying api@staging.' },
      { asked: ['Deploy api@production?'], text: 'Deployment of api@production cancelled.' },
      { asked: ['Write release notes for:\nfix login'], text: '- Fixed login' },
    ]);

    // A project compiled to CommonJS that resolves modules as node10 did (no "exports"): the types
    // through typesVersions, the module through require() of an ES module (Node 20.19 and later).
    const legacy = path.join(project, 'legacy');
    mkdirSync(legacy);
    writeFileSync(path.join(legacy, 'package.json'), JSON.stringify({ type: 'commonjs' }));
    writeFileSync(path.join(legacy, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node10', ignoreDeprecations: '6.0', target: 'ES2022', strict: true, skipLibCheck: true, types: [], outDir: 'out' }, files: ['check.ts'] }));
    writeFileSync(path.join(legacy, 'check.ts'), "import { requestStateCall, useRequestStateReplays } from 'mrtr-migrate/runtime';\nuseRequestStateReplays({ claim: () => true });\nexport const digest: Promise<string> = requestStateCall('deploy', { service: 'api' });\n");
    execFileSync(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', legacy], { cwd: legacy, encoding: 'utf8' });
    const digest = execFileSync(process.execPath, ['-e', "require('./out/check.js').digest.then(d => console.log(d))"], { cwd: legacy, encoding: 'utf8', env: { ...process.env, MCP_REQUEST_STATE_KEY: 'a pack test key of more than thirty-two bytes', NODE_NO_WARNINGS: '1' } });
    expect(digest.trim()).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });
});

/** The project's tsc errors without their positions; it emits dist/ all the same. */
function typeErrors(project: string): string[] {
  const run = spawnSync(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: project, encoding: 'utf8' });
  return run.stdout.split('\n').filter(line => line.includes('error TS')).map(line => line.replace(/\(\d+,\d+\)/, ''));
}

/** A 2026-07-28 client over stdio: it answers the server's questions as the 2025 push requests were answered. */
const SESSION = `import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const asked = [];
const client = new Client({ name: 'pack-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} }, sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
client.setRequestHandler('elicitation/create', async request => {
  asked.push(request.params.message);
  return request.params.message.includes('staging') ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
});
client.setRequestHandler('sampling/createMessage', async request => {
  asked.push(request.params.messages[0].content.text);
  return { role: 'assistant', model: 'scripted', content: { type: 'text', text: '- Fixed login' } };
});
await client.connect(new StdioClientTransport({ command: process.execPath, args: ['dist/main.js'], env: { ...process.env }, stderr: 'ignore' }));
const transcript = [];
for (const [name, args] of [['deploy', { service: 'api', environment: 'staging' }], ['deploy', { service: 'api', environment: 'production' }], ['release-notes', { commits: ['fix login'] }]]) {
  asked.length = 0;
  const result = await client.callTool({ name, arguments: args });
  transcript.push({ asked: [...asked], text: result.content[0].text });
}
await client.close();
console.log(JSON.stringify(transcript));
`;
