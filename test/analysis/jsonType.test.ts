import { describe, expect, it } from 'vitest';
import { jsonnessOfInitializer, jsonnessOfType } from '../../src/analysis/jsonType.js';
import { snippetProgram, ts } from './harness.js';

/** JSON-ness of the declared type of each `declare const <name>: <type>` in the snippet. */
function jsonnessOf(declarations: Record<string, string>, prelude = ''): Record<string, string> {
  const text = `${prelude}\n${Object.entries(declarations).map(([name, type]) => `declare const ${name}: ${type};`).join('\n')}\nexport {};\n`;
  const { program, sourceFile } = snippetProgram(text, '__json__.ts');
  const checker = program.getTypeChecker();
  const result: Record<string, string> = {};
  for (const statement of sourceFile.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const declaration = statement.declarationList.declarations[0]!;
    const type = checker.getTypeAtLocation(declaration.name);
    result[declaration.name.getText()] = jsonnessOfType(ts, checker, type).json;
  }
  return result;
}

describe('jsonnessOfType', () => {
  it('accepts primitives, literal unions, arrays, tuples, plain objects, records and recursive JSON types', () => {
    expect(jsonnessOf({
      s: 'string', n: 'number', b: 'boolean', nul: 'null', lit: "'a' | 'b' | 1",
      arr: 'string[]', tuple: '[string, number]', obj: '{ id: string; tags: string[]; nested: { ok: boolean } }',
      optional: '{ id?: string; note: string | undefined }', record: 'Record<string, number>',
      tree: 'Json', row: 'Row', e: 'Color',
    }, 'type Json = string | number | boolean | null | Json[] | { [key: string]: Json };\ninterface Row { id: string; total: number }\nenum Color { Red, Green }')).toEqual({
      s: 'yes', n: 'yes', b: 'yes', nul: 'yes', lit: 'yes', arr: 'yes', tuple: 'yes', obj: 'yes', optional: 'yes', record: 'yes',
      tree: 'yes', row: 'yes', e: 'yes',
    });
  });

  it('rejects values a JSON round trip changes: Date, Map, Set, class instances, functions, bigint, methods, holes', () => {
    expect(jsonnessOf({
      date: 'Date', map: 'Map<string, number>', set: 'Set<string>', re: 'RegExp', instance: 'Client', fn: '(x: number) => string',
      big: 'bigint', sym: 'symbol', method: '{ id: string; describe(): string }', nestedDate: '{ at: Date }',
      sparse: '(string | undefined)[]', promise: 'Promise<string>', buffer: 'Uint8Array', union: 'string | Date',
    }, 'class Client { constructor(readonly url: string) {} }')).toEqual({
      date: 'no', map: 'no', set: 'no', re: 'no', instance: 'no', fn: 'no', big: 'no', sym: 'no', method: 'no', nestedDate: 'no',
      sparse: 'no', promise: 'no', buffer: 'no', union: 'no',
    });
  });

  it('cannot tell for any, unknown, object and unconstrained type parameters', () => {
    expect(jsonnessOf({ a: 'any', u: 'unknown', o: 'object', bag: 'Record<string, unknown>' })).toEqual({
      a: 'unknown', u: 'unknown', o: 'unknown', bag: 'unknown',
    });
  });

  it('judges the SDK answer types by their declared shape', () => {
    const result = jsonnessOf(
      { elicit: 'ElicitResult', roots: 'ListRootsResult' },
      "import type { ElicitResult, ListRootsResult } from '@modelcontextprotocol/sdk/types.js';",
    );
    // Their `_meta` and the result itself are open (`{ [key: string]: unknown }`, inferred from the
    // SDK's schemas, with no declaration of their own): what fills them was parsed from JSON.
    expect(result).toEqual({ elicit: 'yes', roots: 'yes' });
  });
});

describe('jsonnessOfInitializer (no checker)', () => {
  const judge = (expression: string): string => {
    const sf = ts.createSourceFile('init.ts', `const x = ${expression};`, ts.ScriptTarget.Latest, true);
    const declaration = (sf.statements[0] as ts.VariableStatement).declarationList.declarations[0]!;
    return jsonnessOfInitializer(ts, declaration.initializer, () => false).json;
  };

  it('accepts literals and what is built from them', () => {
    for (const e of ["'a'", '1', 'true', 'null', '`t${x}`', '-1', '!flag', 'a > b', 'a * 2', "'a' + 'b'", '[1, 2]', "{ a: 1, b: ['x'] }",
      "flag ? 'a' : 'b'", 'String(x)', 'Number(x)', 'JSON.stringify(x)', 'Math.max(a, b)', 'list.length', 'name.trim()', 'typeof x']) {
      expect(judge(e), e).toBe('yes');
    }
  });

  it('cannot tell for calls, constructions, names, spreads and property reads', () => {
    for (const e of ['new Date()', 'new Map()', 'load()', 'other', 'args.limit', '[...items]', '{ ...base }', 'a + b', 'a ?? 1',
      'list.slice(1)', 'items.at(0)', '{ [key]: 1 }', '{ f() { return 1; } }', '1n']) {
      expect(judge(e), e).toBe('unknown');
    }
  });

  it('accepts what the caller says is an answer', () => {
    const sf = ts.createSourceFile('init.ts', 'const x = await ask();', ts.ScriptTarget.Latest, true);
    const init = (sf.statements[0] as ts.VariableStatement).declarationList.declarations[0]!.initializer!;
    expect(jsonnessOfInitializer(ts, init, e => ts.isAwaitExpression(e)).json).toBe('yes');
    expect(jsonnessOfInitializer(ts, undefined, () => true).json).toBe('unknown');
  });
});
