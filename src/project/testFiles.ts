import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { ts } from 'ts-morph';
import { commonTestFiles, type TestFilePredicate } from '../analysis/testFiles.js';
import { readJsonObject } from './packageJson.js';

/**
 * The project's test files: the usual names and folders, and the files its test runner's own globs
 * select (jest's `testMatch` / `testRegex` in package.json or jest.config.*, vitest's `test.include`
 * in vitest.config.* / vite.config.*, mocha's `spec` in .mocharc.json). Only literal globs are read;
 * a config that computes them falls back on the usual names.
 */
export function projectTestFiles(projectDir: string): TestFilePredicate {
  const common = commonTestFiles(projectDir);
  const { globs, patterns } = testRunnerSelections(projectDir);
  let matched: Set<string> | undefined;
  const selected = (file: string): boolean => {
    matched ??= new Set(globs.length === 0 ? [] : fg.sync(globs, { cwd: projectDir, absolute: true, ignore: ['**/node_modules/**'], suppressErrors: true }).map(normal));
    return matched.has(normal(file));
  };
  return file => common(file) || patterns.some(p => p.test(path.relative(projectDir, file).split(path.sep).join('/'))) || selected(file);
}

const normal = (file: string): string => path.resolve(file).split(path.sep).join('/');

interface Selections {
  /** Globs relative to the project's folder. */
  globs: string[];
  /** jest's testRegex, against the path relative to the project's folder. */
  patterns: RegExp[];
}

/** The test globs the project's runner configs name. */
function testRunnerSelections(projectDir: string): Selections {
  const found: Selections = { globs: [], patterns: [] };
  const packageJson = readJsonObject(path.join(projectDir, 'package.json'));
  const jest = packageJson?.['jest'];
  if (jest && typeof jest === 'object') collect(found, jest as Record<string, unknown>, ['testMatch'], ['testRegex']);
  const mocha = readJsonObject(path.join(projectDir, '.mocharc.json'));
  if (mocha) collect(found, mocha, ['spec'], []);
  for (const name of ['jest.config', 'vitest.config', 'vite.config']) {
    for (const extension of ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json']) {
      const file = path.join(projectDir, name + extension);
      // A JSON config is jest's; vite and vitest read only modules.
      if ((extension === '.json' && name !== 'jest.config') || !existsSync(file)) continue;
      if (extension === '.json') {
        const json = readJsonObject(file);
        if (json) collect(found, json, ['testMatch'], ['testRegex']);
      } else {
        const literals = name === 'jest.config' ? configLiterals(file, ['testMatch', 'testRegex']) : configLiterals(file, ['include'], 'test');
        found.globs.push(...(literals.get('testMatch') ?? []), ...(literals.get('include') ?? []));
        found.patterns.push(...regexes(literals.get('testRegex') ?? []));
      }
    }
  }
  found.globs = found.globs.map(g => g.replace(/^<rootDir>\//, '')).filter(g => !g.startsWith('!'));
  return found;
}

function collect(found: Selections, config: Record<string, unknown>, globKeys: string[], regexKeys: string[]): void {
  const strings = (value: unknown): string[] => (typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  for (const key of globKeys) found.globs.push(...strings(config[key]));
  for (const key of regexKeys) found.patterns.push(...regexes(strings(config[key])));
}

function regexes(sources: string[]): RegExp[] {
  return sources.flatMap(source => {
    try {
      return [new RegExp(source)];
    } catch {
      return [];
    }
  });
}

/**
 * The string literals of the named properties of a config module (`testRegex: '.*\\.e2e\\.ts$'`),
 * wherever they are written in it, or only inside an object under `within` (vitest's
 * `test: { include: [...] }`, not `coverage: { include: [...] }`).
 */
function configLiterals(file: string, keys: string[], within?: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return found;
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) && keys.includes(node.name.text) && (!within || ownerName(node) === within)) {
      const value = node.initializer;
      const literals: readonly ts.Expression[] = ts.isArrayLiteralExpression(value) ? value.elements : [value];
      const strings = literals.flatMap(l => (ts.isStringLiteralLike(l) ? [l.text] : []));
      found.set(node.name.text, [...(found.get(node.name.text) ?? []), ...strings]);
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

/** `test` for a property of `test: { ... }`. */
function ownerName(property: ts.PropertyAssignment): string | undefined {
  const owner = property.parent.parent;
  return owner && ts.isPropertyAssignment(owner) && (ts.isIdentifier(owner.name) || ts.isStringLiteral(owner.name)) ? owner.name.text : undefined;
}
