import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsZod, lowestOf, outdatedZod } from '../../src/project/zodUpgrade.js';
import { tempProject } from './tempProject.js';

describe('the zod a package runs on', () => {
  it('reads the lowest version a range allows, and nothing from a tag or a link', () => {
    expect(['^3.22.4', '~3.23', '3.x', '>=3.20 <5', '4.1.12', '^4.0.0 || ^3.25', 'latest', 'workspace:*', 'npm:zod@3'].map(lowestOf))
      .toEqual(['3.22', '3.23', '3.0', '3.20', '4.1', '3.25', undefined, undefined, undefined]);
  });

  it('is the installed one first, else the declared range; outdated below 4.2, code to migrate below 4', () => {
    // This repository's node_modules (zod 4) is linked into the temporary project.
    const dir = tempProject('zod-status');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ dependencies: { zod: '^3.22.0' } }));
    expect(outdatedZod(join(dir, 'package.json'))).toBeUndefined();
    // A package below it without node_modules of its own resolves the same zod 4.
    mkdirSync(join(dir, 'declared'));
    writeFileSync(join(dir, 'declared', 'package.json'), JSON.stringify({ devDependencies: { zod: '^3.22.0' } }));
    expect(outdatedZod(join(dir, 'declared', 'package.json'))).toBeUndefined();
    // A package with its own zod 3 install.
    const own = join(dir, 'own');
    mkdirSync(join(own, 'node_modules', 'zod'), { recursive: true });
    writeFileSync(join(own, 'package.json'), JSON.stringify({ dependencies: { zod: '^3.25.0' } }));
    writeFileSync(join(own, 'node_modules', 'zod', 'package.json'), JSON.stringify({ name: 'zod', version: '3.25.76' }));
    expect(outdatedZod(join(own, 'package.json'))).toEqual({ installed: '3.25.76', declared: '^3.25.0', version: '3.25.76', migrateCode: true });
    writeFileSync(join(own, 'node_modules', 'zod', 'package.json'), JSON.stringify({ name: 'zod', version: '4.1.5' }));
    expect(outdatedZod(join(own, 'package.json'))?.migrateCode).toBe(false);
  });

  it('is found in the files that import it, however they do', () => {
    expect(["import { z } from 'zod';", 'import * as z from "zod/v4";', "const { z } = require('zod')", "await import('zod/v3')", "import 'zod';"].every(importsZod)).toBe(true);
    expect(["import { z } from 'zod-to-json-schema';", "import x from './zod';", '// zod 3'].some(importsZod)).toBe(false);
  });
});
