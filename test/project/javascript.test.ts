import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { REPO, tempProject } from './tempProject.js';

/**
 * JavaScript servers through the CLI's pipeline (discovery, type check, write): ES modules and
 * CommonJS are migrated as the fixtures show; a JavaScript server over several modules is refused.
 */

const FIXTURES = join(REPO, 'fixtures');

function project(files: Record<string, string>): string {
  const dir = tempProject('javascript');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('JavaScript servers', () => {
  it('writes the ES module and the CommonJS server as the fixtures show, type-checked, and a second run changes nothing', async () => {
    const dir = project({
      'shop.mjs': readFileSync(join(FIXTURES, 'v2-javascript-esm', 'input.mjs'), 'utf8'),
      'writer.cjs': readFileSync(join(FIXTURES, 'v2-javascript-cjs', 'input.cjs'), 'utf8'),
    });
    const report = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(report.files.map(f => [f.file, f.written, f.rolledBack, f.error])).toEqual([['shop.mjs', true, false, undefined], ['writer.cjs', true, false, undefined]]);
    expect(readFileSync(join(dir, 'shop.mjs'), 'utf8')).toBe(readFileSync(join(FIXTURES, 'v2-javascript-esm', 'output.mjs'), 'utf8'));
    expect(readFileSync(join(dir, 'writer.cjs'), 'utf8')).toBe(readFileSync(join(FIXTURES, 'v2-javascript-cjs', 'output.cjs'), 'utf8'));
    expect(new Set(report.sites.map(s => s.status))).toEqual(new Set(['migrated']));
    const again = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(again.files.filter(f => f.changed)).toEqual([]);
  });

  it('refuses a JavaScript server whose tools are in another module (the shared codec is TypeScript only), and writes nothing', async () => {
    const dir = tempProject('javascript');
    cpSync(join(FIXTURES, 'v2-tools-across-files', 'input'), dir, { recursive: true });
    // The same server as JavaScript: the types out, the extensions .mjs.
    for (const name of ['index', 'deploy', 'notes', 'effects']) {
      const text = readFileSync(join(dir, `${name}.ts`), 'utf8')
        .replace(/import type \{ McpServer \} from '@modelcontextprotocol\/server';\n/, '')
        .replace(/\(server: McpServer\): void/g, '(server)').replace(/\(\): McpServer/g, '()')
        .replace(/const SERVICES: (Record<[^=]*>) =/, '/** @type {$1} */\nconst SERVICES =')
        .replace(/from '\.\/(\w+)\.js'/g, "from './$1.mjs'");
      writeFileSync(join(dir, `${name}.mjs`), text);
      rmSync(join(dir, `${name}.ts`));
    }
    const report = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['deploy.mjs:18 rolled-back', 'deploy.mjs:31 rolled-back', 'notes.mjs:12 rolled-back']);
    expect(report.diagnostics.find(d => d.code === 'verify/rolled-back')!.message).toMatch(/deploy\.mjs, notes\.mjs, index\.mjs are JavaScript, and a codec shared by several modules is generated as TypeScript only/);
    expect(report.files.filter(f => f.written)).toEqual([]);
    expect(existsSync(join(dir, 'requestState.ts'))).toBe(false);
  });
});
