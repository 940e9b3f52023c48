import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { TRANSFORMS } from '../../transforms/index.js';
import { breaking, fixtureOptionsProject, tscErrors } from './tempProject.js';

/**
 * Every server the run migrates takes its support code (codec, record of used states, call digest,
 * answer checks) from one module per project, as TypeScript's importHelpers keeps its helpers in one
 * place: a handler file grows only by what its handlers need.
 */

/** A server module of its own with one tool that asks for a confirmation, push-style. */
function server(name: string, tool: string, javascript = false): string {
  return [
    "import { McpServer } from '@modelcontextprotocol/server';",
    "import * as z from 'zod/v4';",
    '',
    `export function ${name}()${javascript ? '' : ': McpServer'} {`,
    `  const server = new McpServer({ name: '${tool}', version: '1.0.0' });`,
    `  server.registerTool('${tool}', { inputSchema: z.object({ id: z.string() }) }, async ({ id }, ctx) => {`,
    `    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: \`${tool} \${id}?\`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } });`,
    "    if (answer.action !== 'accept' || answer.content?.ok !== true) return { content: [{ type: 'text', text: 'kept' }] };",
    `    return { content: [{ type: 'text', text: \`${tool} \${id}\` }] };`,
    '  });',
    '  return server;',
    '}',
    '',
  ].join('\n');
}

/** The support code's own declarations: none of them may be in a handler file once the module holds them. */
const SUPPORT = [/createRequestStateSeal/, /function requestStateKeys\(/, /function requestStateCall/, /function assertStateFor/, /requestStateReplays/];
const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

describe('the support module', () => {
  it('holds the support code of two servers each in its own file; the files import it, and a second run changes nothing', async () => {
    const dir = fixtureOptionsProject('support-two', { 'billing.ts': server('billing', 'refund'), 'users.ts': server('users', 'remove_user') });
    const report = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(report.files.filter(f => f.written).map(f => f.file)).toEqual(['billing.ts', 'requestState.ts', 'users.ts']);
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['billing.ts:7 migrated', 'users.ts:7 migrated']);
    for (const file of ['billing.ts', 'users.ts']) {
      const text = read(dir, file);
      for (const support of SUPPORT) expect(text, `${file}: ${support}`).not.toMatch(support);
      expect(text).toContain("import { requestStateCodec, requestStateCall, assertStateFor, elicitAnswerOf, elicitResultOf } from './requestState.js';");
      expect(text).toContain('{ requestState: { verify: requestStateCodec.verify } }');
    }
    const module = read(dir, 'requestState.ts');
    expect(module.match(/createRequestStateSeal<\{ nonce/g)).toHaveLength(1);
    expect(module).toContain('export function elicitAnswerOf(');
    expect(tscErrors(dir)).toEqual([]);
    const again = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(again.files.filter(f => f.changed)).toEqual([]);
  });

  it('a later run adds a new server file to the module the first one wrote', async () => {
    const dir = fixtureOptionsProject('support-later', { 'billing.ts': server('billing', 'refund') });
    await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    const module = read(dir, 'requestState.ts');
    writeFileSync(join(dir, 'users.ts'), server('users', 'remove_user'));
    const report = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(report.files.filter(f => f.written).map(f => f.file)).toEqual(['users.ts']);
    expect(read(dir, 'users.ts')).toContain("from './requestState.js';");
    expect(read(dir, 'requestState.ts')).toBe(module);
    expect(existsSync(join(dir, 'requestState2.ts'))).toBe(false);
    expect(tscErrors(dir)).toEqual([]);
  });

  it('stays when one file that imports it is rolled back: that file alone goes back', async () => {
    const dir = fixtureOptionsProject('support-rollback', { 'billing.ts': server('billing', 'refund'), 'users.ts': server('users', 'remove_user') });
    const before = read(dir, 'users.ts');
    const report = await migrate({ cwd: dir, force: true, sdkUpgrade: false, transforms: [...TRANSFORMS, breaking('users.ts')] });
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['billing.ts:7 migrated', 'users.ts:7 rolled-back']);
    expect(read(dir, 'users.ts').replace(/^[ \t]*\/\/ mrtr-migrate: .*\n/gm, '')).toBe(before);
    expect(read(dir, 'billing.ts')).toContain("from './requestState.js';");
    expect(existsSync(join(dir, 'requestState.ts'))).toBe(true);
    // The file's own rollback, not a group's.
    expect(report.diagnostics.filter(d => d.code === 'verify/rolled-back').map(d => d.file)).toEqual(['users.ts']);
    expect(tscErrors(dir)).toEqual([]);
  });

  it('is not created when every file that would import it is rolled back', async () => {
    const dir = fixtureOptionsProject('support-none', { 'billing.ts': server('billing', 'refund') });
    const report = await migrate({ cwd: dir, force: true, sdkUpgrade: false, transforms: [...TRANSFORMS, breaking('billing.ts')] });
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['billing.ts:7 rolled-back']);
    expect(existsSync(join(dir, 'requestState.ts'))).toBe(false);
    expect(report.files.map(f => f.file)).not.toContain('requestState.ts');
  });

  it('is not used by a file that could not import it: another language than the module, another package', async () => {
    const dir = fixtureOptionsProject('support-misfits', { 'billing.ts': server('billing', 'refund'), 'shop.mjs': server('shop', 'refund_order', true) });
    mkdirSync(join(dir, 'tools'));
    writeFileSync(join(dir, 'tools', 'package.json'), JSON.stringify({ name: 'tools', type: 'module' }));
    writeFileSync(join(dir, 'tools', 'users.ts'), server('users', 'remove_user'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', type: 'module' }));
    const report = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['billing.ts:7 migrated', 'shop.mjs:7 migrated', 'tools/users.ts:7 migrated']);
    expect(read(dir, 'billing.ts')).toContain("from './requestState.js';");
    // Each keeps a codec of its own.
    for (const file of ['shop.mjs', 'tools/users.ts']) {
      expect(read(dir, file), file).toContain('createRequestStateSeal');
      expect(read(dir, file), file).not.toContain('requestState.js');
    }
  });
});
