import { describe, expect, it } from 'vitest';
import { isPureExpression } from '../../src/analysis/purity.js';
import { snippetProgram, ts } from './harness.js';

/**
 * The table of calls that only compute, asked with and without the checker. Each case is the
 * initializer of `const probe = ...` in a snippet with the declarations below.
 */

const DECLARATIONS = `
class Ledger { reads = 0; get(id: string): string { this.reads++; return id; } has(id: string): boolean { return id !== ''; } }
const labels = new Map<string, string>([['a', 'A']]);
const seen = new Set<string>();
const ledger = new Ledger();
const letters = ['b', 'a'];
let counter = 0;
`;

function purity(expression: string, prelude = ''): { typed: boolean; untyped: boolean } {
  const params = 'ids: string[], text: string, tags: Record<string, string>, store: Map<string, string>';
  const text = `${DECLARATIONS}\nexport function f(${params}) { ${prelude} const probe = ${expression}; return probe; }\n`;
  const { program, sourceFile } = snippetProgram(text);
  const initializer = findProbe(sourceFile);
  const untypedFile = ts.createSourceFile('untyped.ts', text, ts.ScriptTarget.Latest, true);
  return { typed: isPureExpression(ts, initializer, program.getTypeChecker()), untyped: isPureExpression(ts, findProbe(untypedFile)) };
}

function findProbe(sourceFile: ts.SourceFile): ts.Expression {
  let found: ts.Expression | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === 'probe') found = node.initializer;
    node.forEachChild(visit);
  };
  visit(sourceFile);
  return found!;
}

describe('calls that only compute', () => {
  const cases: Array<[string, boolean, boolean]> = [
    // expression, typed, untyped
    ['labels.get(ids[0]!) ?? "none"', true, true],
    ['store.get("k")', true, false],
    ['seen.has(text)', true, true],
    ['ids.map(id => labels.get(id) ?? id).join(", ")', true, false],
    ['letters.join("")', true, true],
    ['text.trim().toUpperCase()', true, false],
    ['`${"x".padStart(3)}`', true, true],
    ['JSON.stringify(ids)', true, true],
    ['JSON.parse(text)', true, true],
    ['Object.keys(tags).map(k => k.length)', true, true],
    ['Math.max(0, ...ids.map(id => id.length))', true, false],
    ['Math.max(0, ...letters.map(id => id.length))', true, true],
    ['String(ids.length) + Number(text)', true, true],
    ['Object.keys(tags).sort()', true, true],
    ['[...ids].reverse()', true, true],
  ];
  for (const [expression, typed, untyped] of cases) {
    it(`\`${expression}\`: pure with the checker${untyped ? ' and without' : ', unknown without'}`, () => {
      expect(purity(expression)).toEqual({ typed, untyped });
    });
  }
});

describe('calls that may do something', () => {
  const cases: string[] = [
    // a user's class whose get writes: the name alone does not make it pure
    'ledger.get(text)',
    'ledger.has(text)',
    // gives another value each time
    'Math.random()',
    'Date.now()',
    // mutates what the caller holds
    'ids.sort()',
    'letters.reverse()',
    'Object.assign(tags, { a: "b" })',
    // a pure method whose callback is not
    'ids.map(id => counter++)',
    'ids.filter(id => { seen.add(id); return true; })',
    // a callback the table cannot see into
    'ids.map(ledger.get)',
    'text.replace("a", () => String(counter++))',
    // arguments with effects
    'JSON.stringify(ids.splice(0, 1))',
    'labels.get(String(counter++))',
  ];
  for (const expression of cases) {
    it(`\`${expression}\` is not pure, with or without the checker`, () => {
      expect(purity(expression)).toEqual({ typed: false, untyped: false });
    });
  }

  it('a global that the file shadows is not the global', () => {
    expect(purity('JSON.stringify(ids)', 'const JSON = { stringify(v: unknown) { counter++; return String(v); } };')).toEqual({ typed: false, untyped: false });
  });
});
