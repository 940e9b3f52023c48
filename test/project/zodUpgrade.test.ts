import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { comparable, loadScenario, runLegacy, runModern, runShim, scriptProblems } from '../equivalence/harness.js';
import { REPO, tempProject, tscErrors } from './tempProject.js';
import { withoutMarkerLines } from '../helpers/expectations.js';

/**
 * A v1 server on zod 3 (test/project/zod3-server), as its author has it installed: the v1 SDK with
 * zod 3.25 (this repository's `zod-3` package) in its node_modules. The run upgrades its zod code
 * and range with the SDK; once zod 4 is installed (as `npm install` would after the run) it builds
 * without errors and answers the same scripted session as the zod 3 original, on both eras.
 */
const SERVER = join(REPO, 'test', 'project', 'zod3-server');
/**
 * A copy of the zod 3 server whose node_modules are this repository's with `zod` linked to zod 3.
 * `copySdk`: the v1 SDK is copied, not linked, so that its types resolve the project's zod, as they
 * do once installed (linked, they see zod 4 and the project's zod 3 together: TS2589); linked, it is
 * the copy the harness's client knows at run time.
 */
function installed(prefix: string, copySdk: boolean): string {
  const dir = tempProject(prefix);
  rmSync(join(dir, 'node_modules'));
  mkdirSync(join(dir, 'node_modules'));
  for (const name of readdirSync(join(REPO, 'node_modules'))) {
    if (name === 'zod' || name === '@modelcontextprotocol' || name.startsWith('.')) continue;
    symlinkSync(join(REPO, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  }
  const scope = join(REPO, 'node_modules', '@modelcontextprotocol');
  mkdirSync(join(dir, 'node_modules', '@modelcontextprotocol'));
  for (const name of readdirSync(scope)) {
    if (name === 'sdk' && copySdk) cpSync(join(scope, name), join(dir, 'node_modules', '@modelcontextprotocol', name), { recursive: true });
    else symlinkSync(join(scope, name), join(dir, 'node_modules', '@modelcontextprotocol', name), 'dir');
  }
  linkZod(dir, 'zod-3');
  cpSync(SERVER, dir, { recursive: true });
  return dir;
}

function linkZod(dir: string, zodPackage: string): void {
  rmSync(join(dir, 'node_modules', 'zod'), { force: true });
  symlinkSync(join(REPO, 'node_modules', zodPackage), join(dir, 'node_modules', 'zod'), 'dir');
}

describe('a v1 server on zod 3', () => {
  it('is upgraded with its zod: zod 4 code and range, no type errors once installed, the same session on both eras', async () => {
    const legacyDir = installed('zod3-legacy', false);
    const zodOf = (dir: string) => (createRequire(join(dir, 'src', 'server.ts'))('zod/package.json') as { version: string }).version;
    expect(zodOf(legacyDir)).toMatch(/^3\./);
    const scenario = loadScenario(join(SERVER, 'scenario.json'));
    const legacy = await runLegacy(join(legacyDir, 'src', 'server.ts'), scenario);
    expect(scriptProblems(legacy, scenario)).toEqual([]);

    const dir = installed('zod3-migrated', true);
    expect(tscErrors(dir)).toEqual([]);
    const report = await migrate({ cwd: dir });
    const schemas = readFileSync(join(dir, 'src', 'schemas.ts'), 'utf8');
    // zod-v3-to-v4 prints the options object anew, indented as the file is.
    expect(schemas).toContain("export const BookId = z.uuid({\n  error: 'a book id is a UUID'\n});");
    expect(schemas).toContain('export const ShelfName = z.enum(Shelf);');
    expect(schemas).toContain('export const Reviewer = z.email().optional();');
    expect(schemas.split('\n')[0], 'the header comment stays first').toBe('// Input shapes of the reading-list tools, written against zod 3.');
    expect(report.files.find(f => f.file === 'src/schemas.ts')?.changedBy).toEqual(['zod-upgrade']);
    expect(report.sites.map(s => s.status)).toEqual(['migrated']);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies).toEqual({ '@modelcontextprotocol/server': '^2.3.1', zod: '^4.2.0' });
    expect(report.packageJsonChanges[0]?.updated).toEqual(['zod ^3.25.76 -> ^4.2.0']);
    const note = report.diagnostics.find(d => d.code === 'sdk-upgrade/zod-upgraded');
    expect(note?.message).toContain('this package was on zod 3.25.76: its zod range becomes ^4.2.0; zod-v3-to-v4 upgraded its zod 3 code in src/schemas.ts');

    // What `npm install` does after the run: zod 4 in place of zod 3.
    linkZod(dir, 'zod');
    expect(tscErrors(dir)).toEqual([]);
    const migrated = join(dir, 'src', 'server.ts');
    expect(readFileSync(migrated, 'utf8')).toContain('inputRequired({');
    expect(comparable(await runModern(migrated, scenario))).toEqual(comparable(legacy));
    expect(comparable(await runShim(migrated, scenario))).toEqual(comparable(legacy));
  });

  it('stays on zod 3 and on v1, whole, when zod 4 would break one of its files (checked against zod 4, read against zod 3)', async () => {
    const dir = installed('zod3-held', true);
    // zod 4 has no deepPartial(), and zod-v3-to-v4 leaves it.
    writeFileSync(join(dir, 'src', 'draft.ts'), "import { z } from 'zod';\nimport { MoveInput } from './schemas.js';\n\nexport const Draft = z.object(MoveInput).deepPartial();\n");
    expect(tscErrors(dir)).toEqual([]);
    const report = await migrate({ cwd: dir, dryRun: true });
    const file = (name: string) => report.files.find(f => f.file === name);
    // As they were, but for the marker above the question the server keeps.
    for (const name of ['src/draft.ts', 'src/schemas.ts', 'src/server.ts']) expect(withoutMarkerLines(file(name)!.after), name).toBe(file(name)?.before);
    expect(file('src/server.ts')?.after).toContain('// mrtr-migrate: rolled-back — the package package.json stays on zod 3.25.76');
    expect(report.sites.map(s => s.status)).toEqual(['rolled-back']);
    const held = report.diagnostics.find(d => d.code === 'sdk-upgrade/rolled-back' && d.file === 'src/server.ts');
    expect(held?.message).toMatch(/^the package package\.json stays on zod 3\.25\.76 \(zod 4 gives src\/draft\.ts 1 type error\(s\) \(line 4: TS2339: Property 'deepPartial' does not exist/);
    expect(report.packageJsonChanges.flatMap(c => c.updated)).toEqual([]);
    expect(report.diagnostics.map(d => d.code)).not.toContain('sdk-upgrade/zod-upgraded');
  });

  it('stays on v1 with --no-zod-upgrade, and says why', async () => {
    const dir = installed('zod3-off', true);
    const report = await migrate({ cwd: dir, dryRun: true, zodUpgrade: false });
    expect(report.files.every(f => withoutMarkerLines(f.after) === f.before)).toBe(true);
    const kept = report.diagnostics.find(d => d.code === 'sdk-upgrade/rolled-back' && d.file === 'src/server.ts');
    expect(kept?.message).toContain('TS2769');
    expect(kept?.message).toContain('(the v2 SDK takes zod 4.2 or later and package.json is on zod 3.25.76: run without --no-zod-upgrade)');
    expect(report.options.zodUpgrade).toBe(false);
  });

  it('on zod 4.1, gets the range without holding its other files back when one file stays on v1 (the v1 SDK takes zod 4.2 too)', async () => {
    const dir = installed('zod41', true);
    // zod 4.6 relabelled 4.1.5: the types of a zod 4, the version of one older than the v2 SDK takes.
    rmSync(join(dir, 'node_modules', 'zod'));
    cpSync(join(REPO, 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'), { recursive: true });
    const zodManifest = join(dir, 'node_modules', 'zod', 'package.json');
    writeFileSync(zodManifest, readFileSync(zodManifest, 'utf8').replace(/"version": "[^"]+"/, '"version": "4.1.5"'));
    writeFileSync(join(dir, 'package.json'), readFileSync(join(dir, 'package.json'), 'utf8').replace('"zod": "^3.25.76"', '"zod": "^4.1.0"'));
    // A default in the destructured context: the upgrade leaves `sendRequest` there, which v2 lacks.
    writeFileSync(join(dir, 'src', 'roots.ts'), `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const fallback = new AbortController().signal;
export function addRoots(server: McpServer): void {
  server.tool('roots', { who: z.string() }, async ({ who }, { sendRequest, signal = fallback }) => {
    const answer = await sendRequest({ method: 'roots/list' }, z.object({ roots: z.array(z.object({ uri: z.string() })) }));
    return { content: [{ type: 'text', text: \`\${who} \${answer.roots.length} \${signal.aborted}\` }] };
  });
}
`);
    const report = await migrate({ cwd: dir, dryRun: true });
    const file = (name: string) => report.files.find(f => f.file === name)!;
    expect(withoutMarkerLines(file('src/roots.ts').after)).toBe(file('src/roots.ts').before);
    expect(file('src/roots.ts').after).toContain('// mrtr-migrate: unsupported-construct — the handler destructures its context parameter');
    expect(file('src/server.ts').after).toContain("from '@modelcontextprotocol/server'");
    expect(report.sites.filter(s => s.file === 'src/server.ts').map(s => s.status)).toEqual(['migrated']);
    expect(report.packageJsonChanges[0]?.updated).toEqual(['zod ^4.1.0 -> ^4.2.0']);
    expect(report.diagnostics.find(d => d.code === 'sdk-upgrade/zod-upgraded')?.message).toContain('this package was on zod 4.1.5: its zod range becomes ^4.2.0;');
  });
});
