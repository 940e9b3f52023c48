import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { parseCliArgs } from '../../src/cli/args.js';
import { fixtureOptionsProject, REPO, tscErrors } from './tempProject.js';
import { createESLint } from '../rules/eslintRunner.js';

// --runtime package: the migrated files import mrtr-migrate/runtime; no support module is written.

const RUNTIME_EXPORTS = [...readFileSync(join(REPO, 'src/runtime/index.ts'), 'utf8').matchAll(/^export (?:async )?(?:function|const|let|type) (\w+)/gm)].map(m => m[1]!);

/** A project of a fixture's input files, with a package.json (`manifest`) and the fixtures' tsconfig. */
function fixtureProject(fixture: string, manifest: object = { type: 'module', dependencies: { '@modelcontextprotocol/server': '^2.4.0', zod: '^4.2.0' } }): string {
  const source = join(REPO, 'fixtures', fixture);
  const inputs = existsSync(join(source, 'input')) ? join(source, 'input') : source;
  const files = Object.fromEntries(readdirSync(inputs).filter(f => /^input\.|\.(ts|mjs|cjs|js)$/.test(f) && !/^output|^requestState/.test(f)).map(f => [f, readFileSync(join(inputs, f), 'utf8')]));
  const dir = fixtureOptionsProject(`runtime-${fixture}`, files);
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  return dir;
}

/** What the files of a project import from the runtime, by file. */
function runtimeImports(dir: string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const file of readdirSync(dir).filter(f => /\.(ts|mjs|js)$/.test(f))) {
    const match = /import \{([^}]*)\} from 'mrtr-migrate\/runtime';/.exec(readFileSync(join(dir, file), 'utf8'));
    if (match) found[file] = match[1]!.split(',').map(s => s.trim());
  }
  return found;
}

/** tsc on the project, with the runtime's source standing for the installed package (the pack test in e2e uses the built one). */
function errorsWithRuntime(dir: string): string[] {
  cpSync(join(REPO, 'src/runtime/index.ts'), join(dir, 'runtime-types', 'index.ts'));
  const config = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...config, compilerOptions: { ...config.compilerOptions, paths: { 'mrtr-migrate/runtime': ['./runtime-types/index.ts'] } } }));
  return tscErrors(dir);
}

describe('--runtime package', () => {
  it('reads the option, and refuses an unknown runtime with the two it takes', () => {
    expect(parseCliArgs(['--runtime', 'package']).runtime).toBe('package');
    expect(parseCliArgs([]).runtime).toBe('module');
    expect(() => parseCliArgs(['--runtime', 'vendor'])).toThrow('--runtime vendor is not a runtime; use module (a requestState module in the project) or package (mrtr-migrate/runtime).');
  });

  it('a server over several files: every migrated file imports the runtime, the server is wired to it, no module is written, package.json lists mrtr-migrate', async () => {
    const dir = fixtureProject('v2-tools-across-files');
    const report = await migrate({ cwd: dir, runtime: 'package' });
    expect(report.sites.map(s => s.status)).toEqual(report.sites.map(() => 'migrated'));
    expect(report.sites.length).toBeGreaterThan(1);
    expect(readdirSync(dir).filter(f => f.startsWith('requestState'))).toEqual([]);
    const imports = runtimeImports(dir);
    expect(Object.keys(imports).sort()).toEqual(['deploy.ts', 'index.ts', 'notes.ts']);
    for (const names of Object.values(imports)) for (const name of names) expect(RUNTIME_EXPORTS).toContain(name.split(' as ')[0]);
    expect(readFileSync(join(dir, 'index.ts'), 'utf8')).toContain('requestState: { verify: requestStateCodec.verify }');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies)).toEqual(['@modelcontextprotocol/server', 'mrtr-migrate', 'zod']);
    expect(manifest.dependencies['mrtr-migrate']).toMatch(/^\^\d+\.\d+\.\d+$/);
    expect(report.packageJsonChanges).toEqual([expect.objectContaining({ added: ['mrtr-migrate'], applied: true })]);
    expect(report.options.runtime).toBe('package');
    expect(renderMarkdown(report)).toContain('type check on; support code from mrtr-migrate/runtime.');
    expect(report.diagnostics).toContainEqual(expect.objectContaining({ code: 'mrtr/runtime-package', file: 'package.json', message: expect.stringContaining('install the packages again before the server runs') }));
    // The migrated project type-checks against the runtime as installed, and the plugin's rules find nothing left.
    expect(errorsWithRuntime(dir)).toEqual([]);
    const eslint = await createESLint('eslint', { cwd: dir, config: 'strict' });
    const results = await eslint.lintFiles(['deploy.ts', 'notes.ts', 'index.ts', 'effects.ts']);
    expect(results.flatMap(r => r.messages.map(m => `${r.filePath}: ${m.ruleId} ${m.message}`))).toEqual([]);
  });

  it("beside a server's own requestState: the runtime's keep hook; a handler added later joins the runtime's codec, the hook wrapped once", async () => {
    const dir = fixtureProject('v2-own-state-unverified');
    const first = await migrate({ cwd: dir, runtime: 'package', sdkUpgrade: false });
    expect(first.sites.map(s => s.status)).toEqual(['migrated']);
    const once = readFileSync(join(dir, 'input.ts'), 'utf8');
    expect(runtimeImports(dir)['input.ts']).toEqual(expect.arrayContaining(['keepRequestStateHook', 'migratedRequestState']));
    // A tool asking push-style, added after the migration; the second run is in the default mode.
    const late = `\n  server.registerTool('late', { inputSchema: z.object({}) }, async (_args, ctx) => {\n    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Sure?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });\n    return { content: [{ type: 'text', text: answer.action }] };\n  });\n\n  return server;\n}\n`;
    writeFileSync(join(dir, 'input.ts'), once.replace(/\n {2}return server;\n\}\n$/, late));
    const second = await migrate({ cwd: dir, sdkUpgrade: false, force: true });
    expect(second.sites.map(s => s.status)).toEqual(['migrated']);
    const twice = readFileSync(join(dir, 'input.ts'), 'utf8');
    expect(twice.match(/keepRequestStateHook\(/g)).toHaveLength(1);
    expect(twice).not.toContain('createRequestStateSeal');
    expect(readdirSync(dir).filter(f => f.startsWith('requestState'))).toEqual([]);
    expect(errorsWithRuntime(dir)).toEqual([]);
  });

  it('a JavaScript ES module imports the runtime; a CommonJS one, which cannot, keeps its codec in its own text', async () => {
    const esm = fixtureProject('v2-javascript-esm');
    await migrate({ cwd: esm, runtime: 'package', sdkUpgrade: false });
    expect(Object.keys(runtimeImports(esm))).toEqual(['input.mjs']);
    const cjs = fixtureProject('v2-javascript-cjs', { dependencies: { '@modelcontextprotocol/server': '^2.4.0' } });
    const report = await migrate({ cwd: cjs, runtime: 'package', sdkUpgrade: false });
    expect(report.sites.some(s => s.status === 'migrated')).toBe(true);
    const text = readFileSync(join(cjs, 'input.cjs'), 'utf8');
    expect(text).toContain('createRequestStateSeal');
    expect(text).not.toContain('mrtr-migrate/runtime');
    expect(report.diagnostics.filter(d => d.code === 'mrtr/runtime-package')).toEqual([]);
  });

  it('moves mrtr-migrate from devDependencies to dependencies; with --no-sdk-upgrade leaves package.json and says what to add', async () => {
    const dev = fixtureProject('v2-elicit-straight', { type: 'module', dependencies: { zod: '^4.2.0', '@modelcontextprotocol/server': '^2.4.0' }, devDependencies: { 'mrtr-migrate': '^0.0.9' } });
    const moved = await migrate({ cwd: dev, runtime: 'package' });
    const manifest = JSON.parse(readFileSync(join(dev, 'package.json'), 'utf8'));
    // Not in name order before, so the new entry goes last.
    expect(Object.keys(manifest.dependencies)).toEqual(['zod', '@modelcontextprotocol/server', 'mrtr-migrate']);
    expect(manifest.devDependencies).toEqual({});
    expect(moved.packageJsonChanges[0]!.updated).toEqual([expect.stringMatching(/^mrtr-migrate \^0\.0\.9 in devDependencies -> \^\d+\.\d+\.\d+ in dependencies$/)]);

    const plain = fixtureProject('v2-elicit-straight');
    const before = readFileSync(join(plain, 'package.json'), 'utf8');
    const report = await migrate({ cwd: plain, runtime: 'package', sdkUpgrade: false });
    expect(readFileSync(join(plain, 'package.json'), 'utf8')).toBe(before);
    expect(report.diagnostics).toContainEqual(expect.objectContaining({ code: 'mrtr/runtime-package', message: expect.stringMatching(/add mrtr-migrate@\^\d+\.\d+\.\d+ to the dependencies of package\.json and install it before the server runs/) }));
  });
});
