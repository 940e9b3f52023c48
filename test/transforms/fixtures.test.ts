import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { folderEntry, migrateFolder, sourceFiles } from './folderPipeline.js';
import { runFixture } from './pipeline.js';
import { trailingCommas } from '../../transforms/mrtr/text.js';
import { markerText } from '../../transforms/mrtr/index.js';

/**
 * Fixture pairs: the rewrite of fixtures/<case>/input.ts, as the CLI writes it, is exactly output.ts and
 * the support module beside it. That running it again on output.ts changes nothing, and that output.ts
 * type-checks there, is checked by fixturesSecondRun.test.ts (e2e: it is the slower half).
 */

const root = resolve(import.meta.dirname, '..', '..', 'fixtures');
/** input.ts, or input.mjs / .cjs / .js for a JavaScript server (its output has the same extension). */
const extensionOf = (name: string) => ['.ts', '.mjs', '.cjs', '.js'].find(ext => existsSync(join(root, name, `input${ext}`)));
const cases = readdirSync(root).filter(name => extensionOf(name) !== undefined);

it('has fixture pairs', () => {
  expect(cases.length).toBeGreaterThanOrEqual(12);
});

describe.each(cases)('%s', name => {
  const input = join(root, name, `input${extensionOf(name)}`);
  const output = join(root, name, `output${extensionOf(name)}`);
  const rewrite = () => runFixture(input, readFileSync(input, 'utf8'));

  it('rewrites input.ts to output.ts, its support code in the module beside it', () => {
    expect(existsSync(output), `${output} is missing: run npx tsx scripts/update-fixtures.ts ${name}`).toBe(true);
    const first = rewrite();
    expect(first.text).toBe(readFileSync(output, 'utf8'));
    // The module the CLI writes beside the server (none where its handlers import none, a CommonJS server).
    const modules = readdirSync(join(root, name)).filter(file => /^requestState\.[cm]?[jt]s$/.test(file));
    expect(modules).toEqual(first.module ? [first.module.name] : []);
    if (first.module) expect(first.module.text).toBe(readFileSync(join(root, name, first.module.name), 'utf8'));
  });

});

/**
 * Folder fixtures (fixtures/<case>/input/ → output/): a server in several modules, migrated by the
 * CLI's project pipeline, which plans the files together. Each file of output/ is the rewrite of
 * its file of input/ (or a module the rewrite adds); a second run on output/ changes nothing.
 */
const folders = readdirSync(root).filter(name => folderEntry(join(root, name, 'input')) !== undefined);

describe.each(folders)('%s (folder)', name => {
  const input = join(root, name, 'input');
  const output = join(root, name, 'output');

  it('rewrites input/ to output/', async () => {
    expect(existsSync(output), `${output} is missing: run npx tsx scripts/update-fixtures.ts ${name}`).toBe(true);
    const result = await migrateFolder(input);
    expect(result.errors).toEqual([]);
    expect([...result.files.keys()].sort()).toEqual(sourceFiles(output));
    for (const [file, text] of result.files) expect(text, file).toBe(readFileSync(join(output, file), 'utf8'));
  });

  it('is idempotent', async () => {
    const again = await migrateFolder(output);
    expect(again.errors).toEqual([]);
    for (const [file, text] of again.files) expect(text, file).toBe(readFileSync(join(output, file), 'utf8'));
    expect(again.sites.filter(s => s.status !== 'refused' && s.status !== 'ignored')).toEqual([]);
  });
});

/**
 * The support code (the codec, the record of used states, the call digest, the answer checks) is in the
 * one module only. A file keeps its own only where it could not import one: a CommonJS server, and a
 * server an earlier run gave a codec of its own file (a second run adds to that codec).
 */
describe('support code', () => {
  const SUPPORT = [/createRequestStateSeal<\{ nonce: string/, /function requestStateKeys\(/, /function requestStateCall\(/, /function assertStateFor\(/, /requestStateReplays/];
  const outputs = [
    ...cases.map(name => join(root, name, `output${extensionOf(name)}`)),
    ...folders.flatMap(name => sourceFiles(join(root, name, 'output')).filter(f => !/^requestState\.[cm]?[jt]s$/.test(f)).map(f => join(root, name, 'output', f))),
  ].filter(existsSync);

  it('is in no fixture output but those that cannot import the module', () => {
    const withSupport = outputs.filter(file => SUPPORT.some(pattern => pattern.test(readFileSync(file, 'utf8'))));
    expect(withSupport.map(file => file.slice(root.length + 1))).toEqual(['v2-javascript-cjs/output.cjs', 'v2-second-run/output.ts']);
  });
});

/**
 * The file's own first lines stay where they were: what the rewrite declares goes after the comments
 * that follow the imports and stand apart from the code (the file's description, a license).
 */
describe('the file header', () => {
  const GENERATED = '// requestState of the multi round-trip handlers below';
  /** The comments after the last import that a blank line parts from the next statement. */
  const headerOf = (file: string, text: string): string => {
    const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const imports = sourceFile.statements.filter(ts.isImportDeclaration);
    const at = imports.length > 0 ? imports[imports.length - 1]!.getEnd() : 0;
    const next = sourceFile.statements.find(s => s.getStart(sourceFile) >= at);
    const comments = (next && ts.getLeadingCommentRanges(text, at)) || [];
    const detached = comments.filter((c, i) => /\n[ \t]*\n/.test(text.slice(c.end, comments[i + 1]?.pos ?? next!.getStart(sourceFile))));
    return detached.map(c => text.slice(c.pos, c.end)).join('\n');
  };

  it.each(cases)('%s: its comments after the imports come before what the rewrite adds', name => {
    const input = join(root, name, `input${extensionOf(name)}`);
    const output = readFileSync(join(root, name, `output${extensionOf(name)}`), 'utf8');
    const header = headerOf(input, readFileSync(input, 'utf8'));
    const generated = output.indexOf(GENERATED);
    if (header === '' || generated < 0) return;
    const last = header.split('\n').pop()!;
    expect(output.indexOf(last)).toBeGreaterThan(0);
    expect(output.indexOf(last)).toBeLessThan(generated);
  });

  it('a shebang and a license stay the first lines, the description after the imports stays above the State types', () => {
    const input = join(root, 'v2-elicit-straight', 'input.ts');
    const head = '#!/usr/bin/env node\n// SPDX-License-Identifier: MIT\n';
    const result = runFixture(join(root, 'v2-elicit-straight', 'with-header.ts'), head + readFileSync(input, 'utf8'));
    expect(result.text.startsWith(head)).toBe(true);
    expect(result.text.indexOf(' * A records admin server.')).toBeLessThan(result.text.indexOf(GENERATED));
    expect(result.text.indexOf(GENERATED)).toBeLessThan(result.text.indexOf('/** Externally visible side effects'));
    expect(result.typeErrors).toEqual([]);
  });
});

/** One quote style per file: every string the rewrite writes uses the quote most of the file's own strings use. */
describe('quote style', () => {
  /** The raw string literals of a file (comments and templates aside). */
  const literalsOf = (file: string, text: string): string[] => {
    const sourceFile = ts.createSourceFile(file.replace(/\.[cm]?js$/, '.js'), text, ts.ScriptTarget.Latest, true);
    const found: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node)) found.push(node.getText(sourceFile));
      else node.forEachChild(visit);
    };
    visit(sourceFile);
    return found;
  };
  const styleOf = (literals: string[]) => (literals.filter(l => l.startsWith('"')).length > literals.filter(l => l.startsWith("'")).length ? '"' : "'");

  it.each(cases)('%s: the strings the rewrite writes, in the handler file and its module, use the file\'s quote', name => {
    const input = join(root, name, `input${extensionOf(name)}`);
    const own = literalsOf(input, readFileSync(input, 'utf8'));
    const quote = styleOf(own);
    const output = join(root, name, `output${extensionOf(name)}`);
    // The file's own strings, moved or not, are as they were; each of them is matched once.
    const left = [...own];
    const generated = literalsOf(output, readFileSync(output, 'utf8')).filter(l => {
      const i = left.indexOf(l);
      if (i >= 0) left.splice(i, 1);
      return i < 0;
    });
    const modules = readdirSync(join(root, name)).filter(f => /^requestState\.[cm]?[jt]s$/.test(f));
    for (const module of modules) generated.push(...literalsOf(module, readFileSync(join(root, name, module), 'utf8')));
    expect(generated.filter(l => !l.startsWith(quote))).toEqual([]);
  });
});

/** A multi-line object the rewrite writes (`return inputRequired({ ... })`) ends as the file's multi-line lists do. */
describe('trailing commas', () => {
  const lastProperty = /^\s*requestState: await \w+\.mint\(.*\)(,?)$/;
  it.each(cases)('%s: the rewrite\'s multi-line objects end with a comma where the file\'s lists do', name => {
    const input = join(root, name, `input${extensionOf(name)}`);
    const wanted = trailingCommas(ts as never, ts.createSourceFile(input, readFileSync(input, 'utf8'), ts.ScriptTarget.Latest, true) as never) ? ',' : '';
    // Lines an earlier run wrote (the second-run fixture's input) stay as they are.
    const before = new Set(readFileSync(input, 'utf8').split('\n'));
    const ends = readFileSync(join(root, name, `output${extensionOf(name)}`), 'utf8').split('\n').filter(l => !before.has(l)).map(l => lastProperty.exec(l)?.[1]).filter(e => e !== undefined);
    expect(ends.filter(e => e !== wanted)).toEqual([]);
  });

  it('are left out in a file that writes none', () => {
    const input = join(root, 'v2-elicit-straight', 'input.ts');
    const text = readFileSync(input, 'utf8').replace(/,(\s*\n\s*[)\]}])/g, '$1');
    const ends = runFixture(input, text).text.split('\n').map(l => lastProperty.exec(l)?.[1]).filter(e => e !== undefined);
    expect(ends.length).toBeGreaterThan(0);
    expect(ends.every(e => e === '')).toBe(true);
  });
});

/**
 * A marker is read in the rewritten file: the lines its reason names (the report keeps the lines of the
 * input) are the lines of the output that hold the same code.
 */
describe('markers', () => {
  const LINES = /\blines? (\d+(?:(?:, | and )\d+)*)/g;
  const numbers = (text: string) => [...text.matchAll(LINES)].flatMap(m => m[1]!.match(/\d+/g)!.map(Number));
  // Servers on the v2 SDK (a v1 server's reasons name lines of the SDK stage's text) with a marker that names a line.
  const v2 = cases.filter(name => readFileSync(join(root, name, `input${extensionOf(name)}`), 'utf8').includes("'@modelcontextprotocol/server'") &&
    readFileSync(join(root, name, `output${extensionOf(name)}`), 'utf8').split('\n').some(l => l.includes('mrtr-migrate: ') && numbers(l).length > 0));

  it.each(v2)('%s: name the lines of the output', name => {
    const input = readFileSync(join(root, name, `input${extensionOf(name)}`), 'utf8').split('\n');
    const output = readFileSync(join(root, name, `output${extensionOf(name)}`), 'utf8').split('\n');
    const result = runFixture(join(root, name, `input${extensionOf(name)}`), input.join('\n'));
    const wrong: string[] = [];
    let compared = 0;
    const shape = (line: string) => line.trim().replace(LINES, lines => lines.replace(/\d+/g, '#'));
    for (const site of result.sites) {
      if (site.status !== 'refused' || !site.hint || !site.reason) continue;
      // The site's marker as the analysis wrote it (the input's lines), and as the output has it.
      const indented = (l: string) => markerText(site.reason!, site.hint!, /^[ \t]*/.exec(l)![0]);
      const marker = output.find(l => shape(l) === shape(indented(l)) && !input.includes(l));
      const written = marker ? indented(marker) : markerText(site.reason, site.hint);
      if (!marker || numbers(written).length === 0) continue;
      const cited = numbers(marker);
      numbers(written).forEach((was, i) => {
        compared++;
        if (input[was - 1]?.trim() !== output[cited[i]! - 1]?.trim()) wrong.push(`${marker.trim()}: line ${cited[i]} is not input line ${was}`);
      });
    }
    // Every such fixture's marker was found and its lines compared (not skipped).
    expect(compared).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});

/**
 * The rewrite adds its SDK names to the file's import of the SDK (a type-only one included), not a
 * second import. (A v1 server's imports of the v2 SDK are the official stage's.)
 */
it('no v2 fixture output imports the SDK in more declarations than its input', () => {
  const sdkImports = (text: string) => (text.match(/^import (?:type )?\{[^}]*\} from ['"]@modelcontextprotocol\/server['"]/gm) ?? []).length;
  const pairs = [
    ...cases.map(name => [join(root, name, `input${extensionOf(name)}`), join(root, name, `output${extensionOf(name)}`)]),
    ...folders.flatMap(name => sourceFiles(join(root, name, 'input')).map(f => [join(root, name, 'input', f), join(root, name, 'output', f)])),
  ].filter(([input, output]) => existsSync(output!) && readFileSync(input!, 'utf8').includes('@modelcontextprotocol/server'));
  const more = pairs.filter(([input, output]) => sdkImports(readFileSync(output!, 'utf8')) > Math.max(1, sdkImports(readFileSync(input!, 'utf8'))));
  expect(more.map(([, output]) => output!.slice(root.length + 1))).toEqual([]);
});

/** A file's State types are declared in the order of the handlers that read them. */
it('every fixture output declares its State types in the order of its handlers', () => {
  const outOfOrder = cases.filter(name => extensionOf(name) === '.ts').filter(name => {
    const text = readFileSync(join(root, name, 'output.ts'), 'utf8');
    const declared = [...text.matchAll(/^type (\w+State) =/gm)].map(m => m[1]!);
    const read = [...new Set([...text.matchAll(/requestState<(\w+State)>\(\)/g)].map(m => m[1]!))].filter(n => declared.includes(n));
    return declared.filter(n => read.includes(n)).join() !== read.join();
  });
  expect(outOfOrder).toEqual([]);
});

/** The file's comments: none is lost, and a question's comment is written once, above the question in the asking branch. */
describe('comments', () => {
  const commentLines = (text: string): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const line of text.split('\n').map(l => l.trim())) {
      if (/^(\/\/|\/\*|\*)/.test(line) && line !== '/**' && line !== '*/') counts.set(line, (counts.get(line) ?? 0) + 1);
    }
    return counts;
  };

  it('are all kept, and written twice only with code the rewrite writes in two branches', () => {
    const lost: string[] = [];
    const twice: string[] = [];
    for (const name of cases) {
      const input = commentLines(readFileSync(join(root, name, `input${extensionOf(name)}`), 'utf8'));
      const output = commentLines(readFileSync(join(root, name, `output${extensionOf(name)}`), 'utf8'));
      for (const [line, n] of input) {
        if ((output.get(line) ?? 0) < n) lost.push(`${name}: ${line}`);
        if ((output.get(line) ?? 0) > n) twice.push(`${name}: ${line}`);
      }
    }
    expect(lost).toEqual([]);
    // A finally block runs on the asking path and on the last one; the second-run fixture's input is an earlier output,
    // whose comment on a re-ask the rewrite writes again for the handler it adds.
    expect(twice).toEqual([
      "v2-second-run: // The retry came without this round's answer: ask again.",
      'v2-try-finally-audit: // Released once per call, after the last answer.',
    ]);
  });
  // A second run and the report find refused sites by that prefix: a comment the rewrite writes must not carry it.
  it('say "mrtr-migrate:" only where they start a refusal marker', () => {
    const misread: string[] = [];
    const files = [
      ...cases.flatMap(name => [`output${extensionOf(name)}`, ...readdirSync(join(root, name)).filter(f => /^requestState\d*\.[cm]?[jt]s$/.test(f))].map(f => join(name, f))),
      ...folders.flatMap(name => sourceFiles(join(root, name, 'output')).map(f => join(name, 'output', f))),
    ];
    for (const file of files) {
      for (const line of readFileSync(join(root, file), 'utf8').split('\n')) {
        if (line.includes('mrtr-migrate:') && !/^\s*\/\/ mrtr-migrate: [a-z-]+ — /.test(line)) misread.push(`${file}: ${line.trim()}`);
      }
    }
    expect(misread).toEqual([]);
  });
});
