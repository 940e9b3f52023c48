import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeclarationStubs } from '../../src/project/declarationStubs.js';
import { createProject, withTextReplacements } from '../../src/project/load.js';
import { migrate } from '../../src/project/migrate.js';
import { tempProject } from './tempProject.js';

const OPTIONS = { target: 99, module: 199, moduleResolution: 99, strict: true, skipLibCheck: true, noEmit: true, allowJs: true, types: [] };

/** A project: the server (parsed), and modules it reaches that the run would skip. */
function layout(): { dir: string; files: Map<string, string> } {
  const dir = tempProject('stubs');
  mkdirSync(join(dir, 'lib'));
  const files = new Map<string, string>([
    ['server.ts', `import { McpServer } from '@modelcontextprotocol/server';\nimport { total } from './lib/total.js';\nimport { loose } from './lib/loose.js';\nimport { calls } from './lib/callsServer.js';\nexport const server = new McpServer({ name: 's', version: '1' });\nexport const sizes = [total([]), loose(), calls()];\n`],
    // Annotated: its declarations are exact, and deep.ts is only used in its body.
    ['lib/total.ts', `import { deep } from './deep.js';\nexport interface Item { size: number }\nexport function total(items: Item[]): number {\n  return items.reduce((sum, item) => sum + item.size, 0) + deep();\n}\n`],
    ['lib/deep.ts', `export function deep(): number {\n  return 1;\n}\n`],
    // No return type: the declaration emit of the file alone cannot write it.
    ['lib/loose.ts', `export function loose() {\n  return [1, 2].map(n => ({ n }));\n}\n`],
    // Imports the parsed file: its body may call what the rewrite changes.
    ['lib/callsServer.ts', `import { server } from '../server.js';\nexport function calls(): number {\n  return server ? 1 : 0;\n}\n`],
    // Imports a module the run did not read (unread.ts, below).
    ['lib/outside.ts', `import { x } from './unread.js';\nexport const y: number = x;\n`],
  ]);
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, 'lib/unread.ts'), `export const x = 1;\n`);
  return { dir, files };
}

describe('the modules a run skips', () => {
  it('are given to the compiler as their declarations where that is exact and they cannot reach a parsed file', () => {
    const { dir, files } = layout();
    const texts = new Map([...files].map(([name, text]) => [join(dir, name), text]));
    const stubs = new DeclarationStubs(texts, new Set([join(dir, 'server.ts')]), OPTIONS);
    expect(stubs.textFor(join(dir, 'lib/total.ts'))).toBe('export interface Item {\n    size: number;\n}\nexport declare function total(items: Item[]): number;\n');
    expect(stubs.textFor(join(dir, 'lib/deep.ts'))).toContain('export declare function deep(): number;');
    // Not exact alone, imports the parsed file, imports a file the run did not read, or is parsed.
    expect(stubs.textFor(join(dir, 'lib/loose.ts'))).toBeUndefined();
    expect(stubs.textFor(join(dir, 'lib/callsServer.ts'))).toBeUndefined();
    expect(stubs.textFor(join(dir, 'lib/outside.ts'))).toBeUndefined();
    expect(stubs.textFor(join(dir, 'server.ts'))).toBeUndefined();
  });

  it('keep what the project\'s own declaration emit would leave out (`stripInternal`)', () => {
    const file = join(tempProject('stubs-internal'), 'internal.ts');
    const text = `/** @internal */\nexport function hidden(): number {\n  return 1;\n}\n`;
    const stubs = new DeclarationStubs(new Map([[file, text]]), new Set(), { ...OPTIONS, stripInternal: true, removeComments: true });
    expect(stubs.textFor(file)).toBe('/** @internal */\nexport declare function hidden(): number;\n');
  });

  it('keep their types in the program, and the modules only their bodies import stay out of it', () => {
    const { dir, files } = layout();
    const texts = new Map([...files].map(([name, text]) => [join(dir, name), text]));
    const project = createProject(OPTIONS);
    const stubs = new DeclarationStubs(texts, new Set([join(dir, 'server.ts')]), OPTIONS);
    withTextReplacements(project, fileName => stubs.textFor(fileName));
    project.createSourceFile(join(dir, 'server.ts'), files.get('server.ts')!, { overwrite: true });
    const program = project.getProgram().compilerObject;
    expect(program.getSourceFile(join(dir, 'lib/total.ts'))!.text).toContain('export declare function total');
    expect(program.getSourceFile(join(dir, 'lib/deep.ts'))).toBeUndefined();
    expect(program.getSourceFile(join(dir, 'lib/loose.ts'))!.text).toBe(files.get('lib/loose.ts'));
    const checker = program.getTypeChecker();
    const server = program.getSourceFile(join(dir, 'server.ts'))!;
    const sizes = server.statements.at(-1)!;
    expect(checker.typeToString(checker.getTypeAtLocation((sizes as unknown as { declarationList: { declarations: Array<{ name: never }> } }).declarationList.declarations[0]!.name)))
      .toBe('(number | { n: number; }[])[]');
  });

  it('still carry their declared types into the check of a rewrite: a call that breaks one is rolled back', async () => {
    const dir = tempProject('stubs-verify');
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: OPTIONS }));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    mkdirSync(join(dir, 'lib'));
    writeFileSync(join(dir, 'lib/total.ts'), `export function total(items: number[]): number {\n  return items.length;\n}\n`);
    writeFileSync(join(dir, 'server.ts'), `import { McpServer } from '@modelcontextprotocol/server';\nimport { total } from './lib/total.js';\nexport const server = new McpServer({ name: 's', version: '1' });\nexport const count = total([1]);\n// A site, so the run rewrites this file: server.server.elicitInput\n`);
    const breakCall = {
      id: 'break-call',
      title: 'test: a call the stubbed declaration rejects',
      apply(sourceFile: import('ts-morph').SourceFile) {
        sourceFile.replaceWithText(sourceFile.getFullText().replace('total([1])', "total('one')"));
        return { changed: true, diagnostics: [], sites: [], alreadyMigrated: [] };
      },
    };
    const report = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false, transforms: [breakCall] });
    const file = report.files.find(f => f.file === 'server.ts')!;
    expect(file.rolledBack).toBe(true);
    expect(file.newTypeErrors[0]).toMatch(/^line 4: TS2345/);
  });
});
