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
    expect(report.files.map(f => [f.file, f.written, f.rolledBack, f.error])).toEqual([['requestState.mjs', true, false, undefined], ['shop.mjs', true, false, undefined], ['writer.cjs', true, false, undefined]]);
    // The ES module takes its support code from a JavaScript module; the CommonJS one, which could not import it, keeps its own (as the per-file fixture shows).
    const shop = readFileSync(join(dir, 'shop.mjs'), 'utf8');
    expect(shop).toContain("import { requestStateCodec, requestStateCall, assertStateFor, elicitAnswerOf, elicitResultOf } from './requestState.mjs';");
    expect(shop).not.toContain('createRequestStateSeal');
    expect(readFileSync(join(dir, 'requestState.mjs'), 'utf8')).toContain('export const requestStateCodec = {');
    expect(readFileSync(join(dir, 'writer.cjs'), 'utf8')).toBe(readFileSync(join(FIXTURES, 'v2-javascript-cjs', 'output.cjs'), 'utf8'));
    expect(new Set(report.sites.map(s => s.status))).toEqual(new Set(['migrated']));
    const again = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(again.files.filter(f => f.changed)).toEqual([]);
  });

  it('writes a JavaScript server whose tools are in other modules with a JavaScript codec module; a second run changes nothing', async () => {
    const fixture = join(FIXTURES, 'v2-javascript-across-files');
    const dir = tempProject('javascript');
    cpSync(join(fixture, 'input'), dir, { recursive: true });
    const report = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(report.files.filter(f => f.written).map(f => f.file)).toEqual(['index.mjs', 'jobs.mjs', 'queue.mjs', 'requestState.mjs']);
    for (const file of ['effects.mjs', 'index.mjs', 'jobs.mjs', 'queue.mjs', 'requestState.mjs']) {
      expect(readFileSync(join(dir, file), 'utf8'), file).toBe(readFileSync(join(fixture, 'output', file), 'utf8'));
    }
    const again = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(again.files.filter(f => f.changed)).toEqual([]);
  });

  it('refuses, and writes nothing but a marker above each question, when the server of such modules is built in a CommonJS module', async () => {
    const dir = tempProject('javascript');
    cpSync(join(FIXTURES, 'v2-javascript-across-files', 'input'), dir, { recursive: true });
    const index = readFileSync(join(dir, 'index.mjs'), 'utf8')
      .replace(/^import \{ (\w+) \} from ('[^']+');$/gm, 'const { $1 } = require($2);')
      .replace("export { effects } from './effects.mjs';", "const { effects } = require('./effects.mjs');")
      .replace('export function createServer', 'function createServer') + 'module.exports = { createServer, effects };\n';
    writeFileSync(join(dir, 'index.cjs'), index);
    rmSync(join(dir, 'index.mjs'));
    const report = await migrate({ cwd: dir, force: true, sdkUpgrade: false });
    expect(report.sites.map(s => `${s.file}:${s.line} ${s.status}`)).toEqual(['jobs.mjs:18 rolled-back', 'queue.mjs:10 rolled-back']);
    expect(report.diagnostics.find(d => d.code === 'verify/rolled-back')!.message).toMatch(/its server is built in a CommonJS module \(index\.cjs\), and a codec shared by several modules is generated as TypeScript or as an ES module only/);
    expect(report.files.filter(f => f.written).map(f => f.file)).toEqual(['jobs.mjs', 'queue.mjs']);
    for (const file of ['jobs.mjs', 'queue.mjs']) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text.replace(/^[ \t]*\/\/ mrtr-migrate: .*\n/m, ''), file).toBe(readFileSync(join(FIXTURES, 'v2-javascript-across-files', 'input', file), 'utf8'));
      expect(text, file).toMatch(/\/\/ mrtr-migrate: rolled-back — its server is built in a CommonJS module \(index\.cjs\), and a codec shared by several modules/);
    }
    expect(existsSync(join(dir, 'requestState.ts'))).toBe(false);
  });
});
