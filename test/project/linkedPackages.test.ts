import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linkedPackages } from '../../src/project/linkedPackages.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function workspace(): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'mrtr-linked-')));
  made.push(dir);
  return dir;
}

function pkg(dir: string, manifest: Record<string, unknown>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
}

function link(target: string, at: string): void {
  mkdirSync(path.dirname(at), { recursive: true });
  symlinkSync(path.relative(path.dirname(at), target), at, 'dir');
}

describe('linkedPackages', () => {
  it('shares a dependency of a linked package where the project has it at the same major (below 1.0: the same minor)', () => {
    const root = workspace();
    const lib = path.join(root, 'packages', 'lib');
    pkg(lib, { name: '@demo/lib', dependencies: { zod: '^4.3.0', rxjs: '^7.0.0', tiny: '^0.2.0', old: '^2.0.0', only: '^1.0.0' }, peerDependencies: { react: '^18.0.0' } });
    // Hoisted to the workspace root, where the lib's real folder finds them.
    for (const [name, version] of [['zod', '4.3.5'], ['rxjs', '7.8.2'], ['tiny', '0.2.1'], ['old', '2.0.0'], ['react', '18.2.0'], ['only', '1.0.0']]) pkg(path.join(root, 'node_modules', name!), { name, version });
    const app = path.join(root, 'examples', 'app');
    pkg(app, { name: 'app' });
    for (const [name, version] of [['zod', '4.6.7'], ['tiny', '0.3.0'], ['old', '3.1.0'], ['react', '18.3.1'], ['rxjs', '7.8.2']]) pkg(path.join(app, 'node_modules', name!), { name, version });
    link(lib, path.join(app, 'node_modules', '@demo', 'lib'));

    expect(linkedPackages(app)).toEqual([{
      link: path.join(app, 'node_modules', '@demo', 'lib'),
      real: lib,
      consumer: app,
      // only: one copy (the app finds the root's); rxjs: one version in two folders, which the
      // compiler takes as one package; tiny and old: versions one range would not take, kept apart.
      shared: [{ name: 'zod', ownVersion: '4.3.5', projectVersion: '4.6.7' }, { name: 'react', ownVersion: '18.2.0', projectVersion: '18.3.1' }],
    }]);
  });

  it('takes the nearest link to a folder, and leaves alone links into the project itself and into node_modules (pnpm\'s store)', () => {
    const root = workspace();
    const lib = path.join(root, 'packages', 'lib');
    pkg(lib, { name: 'lib', dependencies: { zod: '^4.0.0' } });
    pkg(path.join(lib, 'node_modules', 'zod'), { name: 'zod', version: '4.1.0' });
    const app = path.join(root, 'examples', 'app');
    pkg(path.join(app, 'node_modules', 'zod'), { name: 'zod', version: '4.6.7' });
    link(lib, path.join(app, 'node_modules', 'lib'));
    link(lib, path.join(root, 'node_modules', 'lib'));
    const own = path.join(app, 'src', 'own');
    pkg(own, { name: 'own', dependencies: { zod: '^4.0.0' } });
    link(own, path.join(app, 'node_modules', 'own'));
    const store = path.join(app, 'node_modules', '.pnpm', 'kit@1.0.0', 'node_modules', 'kit');
    pkg(store, { name: 'kit', dependencies: { zod: '^4.0.0' } });
    link(store, path.join(app, 'node_modules', 'kit'));

    const found = linkedPackages(app);
    expect(found.map(p => [p.link, p.consumer])).toEqual([[path.join(app, 'node_modules', 'lib'), app]]);
    expect(found[0]!.shared).toEqual([{ name: 'zod', ownVersion: '4.1.0', projectVersion: '4.6.7' }]);
  });

  it('finds nothing in a project without links', () => {
    const root = workspace();
    pkg(path.join(root, 'node_modules', 'zod'), { name: 'zod', version: '4.6.7' });
    expect(linkedPackages(root)).toEqual([]);
  });
});
