import { describe, expect, it } from 'vitest';
import { fileTypeNames, printType, tidyType } from '../../src/analysis/typeNames.js';
import { snippetProgram, ts } from './harness.js';

/** Each `const <name> = ...` of the snippet's top level, its type as printType writes it. */
function printed(text: string): Record<string, string> {
  const { program, sourceFile } = snippetProgram(`${text}\nexport {};\n`, '__type_names__.ts');
  const checker = program.getTypeChecker();
  const names = fileTypeNames(ts, checker, sourceFile);
  const out: Record<string, string> = {};
  for (const st of sourceFile.statements) {
    if (!ts.isVariableStatement(st)) continue;
    const d = st.declarationList.declarations[0]!;
    if (!d.initializer) continue;
    out[d.name.getText()] = printType(ts, checker, checker.getTypeAtLocation(d.name), sourceFile, names).text;
  }
  return out;
}

describe('printType', () => {
  it('names the SDK\'s result types the checker expands, alone or in a union', () => {
    expect(printed([
      "import type { McpServer } from '@modelcontextprotocol/server';",
      "declare const ask: McpServer['server']['elicitInput'];",
      'declare const flag: boolean;',
      "const answer = flag ? await ask({ message: 'm', requestedSchema: { type: 'object', properties: {} } }) : undefined;",
      "const always = await ask({ message: 'm', requestedSchema: { type: 'object', properties: {} } });",
      "declare const other: boolean;",
      "const either = flag ? always : other;",
    ].join('\n'))).toEqual({ answer: 'ElicitResult | undefined', always: 'ElicitResult', either: 'ElicitResult | boolean' });
  });

  it('names a union the file declares where the checker reads its members from elsewhere', () => {
    expect(printed([
      "const FIELDS = ['name', 'email'] as const;",
      'type Field = (typeof FIELDS)[number];',
      'declare const pick: () => (typeof FIELDS)[number];',
      'const field = pick();',
      'declare const maybe: (typeof FIELDS)[number] | (() => void) | null;',
      'const later = maybe;',
    ].join('\n'))).toEqual({ FIELDS: 'readonly ["name", "email"]', field: 'Field', later: 'Field | (() => void) | null' });
  });

  it('does not name an object type by an interface that only has its shape, and drops the checker\'s last `;`', () => {
    expect(printed([
      'interface Ref { id: string }',
      "const ref = { id: 'x' };",
      "const row = { note: '; }', inner: { n: 1 } };",
    ].join('\n'))).toEqual({ ref: '{ id: string }', row: '{ note: string; inner: { n: number } }' });
  });

  it('does not name a string, an array or a union of plain types by an alias every such value shares', () => {
    expect(printed([
      'type Id = string;',
      'type Ids = string[];',
      'type Maybe = string | undefined;',
      'declare const flag: boolean;',
      "const id = flag ? 'a' + flag : 'b' + flag;",
      "const ids = ['a' + flag];",
      "const maybe = flag ? id : undefined;",
    ].join('\n'))).toEqual({ id: 'string', ids: 'string[]', maybe: 'string | undefined' });
  });
});

describe('tidyType', () => {
  it('drops the `;` before each closing brace, not one inside a string literal type', () => {
    expect(tidyType(ts, "{ a: '; }'; b: { c: number; }; }")).toBe("{ a: '; }'; b: { c: number } }");
    expect(tidyType(ts, 'string[]')).toBe('string[]');
  });
});
