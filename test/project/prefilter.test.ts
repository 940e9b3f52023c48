import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify, importsAnyOf } from '../../src/project/prefilter.js';

/** The text checks that decide which files are parsed at all (src/project/prefilter.ts). */

describe('a module that only ties other modules together', () => {
  const dir = resolve('/proj/src');
  const parsed = new Set([resolve(dir, 'tools.ts'), resolve(dir, 'billing/index.ts'), resolve(dir, 'server.mts')]);
  const entry = resolve(dir, 'main.ts');

  it('is skipped by the text check: it names neither the SDK nor a registration', () => {
    expect(classify("import { Tools } from './tools.js';\nnew Tools(makeServer()).register();\n", true)).toBe('skip');
  });

  it('is parsed when it imports a parsed module, by any relative spelling', () => {
    expect(importsAnyOf(entry, "import { Tools } from './tools.js';", parsed)).toBe(true);
    expect(importsAnyOf(entry, "import { Tools } from './tools';", parsed)).toBe(true);
    expect(importsAnyOf(entry, "export * from './billing';", parsed)).toBe(true);
    expect(importsAnyOf(entry, "const { makeServer } = require('./server.mjs');", parsed)).toBe(true);
    expect(importsAnyOf(entry, "const m = await import('./server.mjs');", parsed)).toBe(true);
    expect(importsAnyOf(resolve(dir, 'nested/deep.ts'), "import '../tools.js';", parsed)).toBe(true);
  });

  it('is not parsed for imports of packages or of modules the run skips', () => {
    expect(importsAnyOf(entry, "import { Tools } from 'tools';\nimport { log } from './log.js';", parsed)).toBe(false);
    expect(importsAnyOf(entry, "// see './tools.js'\nconst path = './tools.js';", parsed)).toBe(false);
  });
});
