import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planManifestUpdate, V2_PACKAGE_RANGES } from '../../src/project/packageJson.js';
import { REPO } from './fixture.js';

function manifest(text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'mrtr-manifest-')), 'package.json');
  writeFileSync(file, text);
  return file;
}

describe('the package.json update', () => {
  it('writes the ranges the official codemod writes', () => {
    const dist = path.join(REPO, 'node_modules/@modelcontextprotocol/codemod/dist');
    const runner = readFileSync(path.join(dist, readdirSync(dist).find(f => /^runner-.*\.mjs$/.test(f))!), 'utf8');
    for (const [pkg, range] of Object.entries(V2_PACKAGE_RANGES)) {
      const folder = pkg.replace('@modelcontextprotocol/', '').replace(/^(node|express)$/, 'middleware/$1');
      const version = new RegExp(`//#region \\.\\./${folder}/package\\.json\\nvar version(?:\\$\\d+)? = "([^"]+)"`).exec(runner)?.[1];
      expect(range, pkg).toBe(`^${version}`);
    }
  });

  it('replaces the v1 entry in place, keeps tabs, CRLF and other sections', () => {
    const file = manifest('{\r\n\t"name": "x",\r\n\t"dependencies": {\r\n\t\t"a": "1",\r\n\t\t"@modelcontextprotocol/sdk": "^1.0.0",\r\n\t\t"zod": "^4.2.0"\r\n\t},\r\n\t"devDependencies": {\r\n\t\t"@modelcontextprotocol/client": "^2.0.0"\r\n\t}\r\n}\r\n');
    const update = planManifestUpdate(file, new Set(['@modelcontextprotocol/server', '@modelcontextprotocol/client']), false)!;
    expect(update.added).toEqual(['@modelcontextprotocol/server']);
    expect(update.after).toBe('{\r\n\t"name": "x",\r\n\t"dependencies": {\r\n\t\t"a": "1",\r\n\t\t"@modelcontextprotocol/server": "^2.3.1",\r\n\t\t"zod": "^4.2.0"\r\n\t},\r\n\t"devDependencies": {\r\n\t\t"@modelcontextprotocol/client": "^2.0.0"\r\n\t}\r\n}\r\n');
  });

  it('adds zod when the upgrade injected it and the manifest has none; leaves v2 manifests alone', () => {
    const file = manifest('{\n  "devDependencies": {\n    "@modelcontextprotocol/sdk": "1.2.3"\n  }\n}');
    const update = planManifestUpdate(file, new Set(['@modelcontextprotocol/server']), true)!;
    expect(JSON.parse(update.after)).toEqual({ devDependencies: { '@modelcontextprotocol/server': '^2.3.1', zod: '^4.2.0' } });
    expect(update.after.endsWith('}')).toBe(true);
    expect(planManifestUpdate(manifest('{"dependencies":{"@modelcontextprotocol/server":"^2.4.0"}}'), new Set(['@modelcontextprotocol/server']), false)).toBeUndefined();
  });

  it('moves each zod range to the one the v2 SDK takes when the zod is upgraded, where the v1 SDK is declared or not', () => {
    const file = manifest('{\n  "dependencies": {\n    "@modelcontextprotocol/sdk": "^1.20.0",\n    "zod": "^3.23.8"\n  },\n  "peerDependencies": {\n    "zod": "3.x"\n  }\n}\n');
    const update = planManifestUpdate(file, new Set(['@modelcontextprotocol/server']), false, false, true)!;
    expect(update.updated).toEqual(['zod ^3.23.8 -> ^4.2.0', 'zod 3.x -> ^4.2.0']);
    expect(update.after).toBe('{\n  "dependencies": {\n    "@modelcontextprotocol/server": "^2.3.1",\n    "zod": "^4.2.0"\n  },\n  "peerDependencies": {\n    "zod": "^4.2.0"\n  }\n}\n');
    // A workspace package that declares zod but not the SDK (the root does): its range only.
    const workspace = planManifestUpdate(manifest('{"dependencies":{"zod":"~3.22.0"}}'), new Set(), false, false, true)!;
    expect([workspace.added, workspace.removed, workspace.updated]).toEqual([[], [], ['zod ~3.22.0 -> ^4.2.0']]);
    // zod that came with the v1 SDK (imported, never declared) is declared once it is upgraded.
    const undeclared = planManifestUpdate(manifest('{"dependencies":{"@modelcontextprotocol/sdk":"^1.0.0"}}'), new Set(['@modelcontextprotocol/server']), false, false, true)!;
    expect(JSON.parse(undeclared.after)).toEqual({ dependencies: { '@modelcontextprotocol/server': '^2.3.1', zod: '^4.2.0' } });
    // Nothing to change: no v1 SDK and zod already at the range.
    expect(planManifestUpdate(manifest('{"dependencies":{"zod":"^4.2.0"}}'), new Set(), false, false, true)).toBeUndefined();
  });
});
