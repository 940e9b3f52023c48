import { describe, expect, it } from 'vitest';
import { forEachValueIdentifier, isWriteReference, resolveIdentifier } from '../../src/analysis/scope.js';
import { ts } from './harness.js';

/** Parses `code` and returns the identifiers named `name`, in source order. */
function parse(code: string): ts.SourceFile {
  return ts.createSourceFile('scope.ts', code, ts.ScriptTarget.Latest, true);
}

function identifiers(sourceFile: ts.SourceFile, name: string): ts.Identifier[] {
  const found: ts.Identifier[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === name) found.push(node);
    node.forEachChild(visit);
  };
  visit(sourceFile);
  return found;
}

/** The line (1-based) of the declaration an occurrence resolves to. */
function declLine(sourceFile: ts.SourceFile, id: ts.Identifier): number | undefined {
  const decl = resolveIdentifier(ts, id);
  return decl && sourceFile.getLineAndCharacterOfPosition(decl.nameNode.getStart()).line + 1;
}

describe('resolveIdentifier', () => {
  it('resolves through nested blocks and functions, innermost declaration first', () => {
    const sf = parse([
      'const server = 1;', // 1
      'function f() {', // 2
      '  use(server);', // 3
      '  {', // 4
      '    const server = 2;', // 5
      '    use(server);', // 6
      '  }', // 7
      '  const g = (server: number) => server;', // 8
      '}',
    ].join('\n'));
    const ids = identifiers(sf, 'server');
    // declaration(1), use(3), declaration(5), use(6), parameter(8), body(8)
    expect(ids.map(id => declLine(sf, id))).toEqual([1, 1, 5, 5, 8, 8]);
  });

  it('hoists var and function declarations to the function, keeps let/const in their block', () => {
    const sf = parse([
      'function f() {', // 1
      '  use(v, helper);', // 2
      '  if (x) { var v = 1; let b = 2; }', // 3
      '  use(b);', // 4
      '  function helper() {}', // 5
      '}',
    ].join('\n'));
    expect(declLine(sf, identifiers(sf, 'v')[0]!)).toBe(3);
    expect(declLine(sf, identifiers(sf, 'helper')[0]!)).toBe(5);
    expect(resolveIdentifier(ts, identifiers(sf, 'b')[1]!)).toBeUndefined();
  });

  it('knows catch parameters, destructured parameters, for-of bindings and imports', () => {
    const sf = parse([
      "import { McpServer as Mcp } from '@modelcontextprotocol/sdk/server/mcp.js';", // 1
      'async function f({ a, b: [c] }: any, extra: any) {', // 2
      '  try { use(a, c, extra); } catch (error) { use(error); }', // 3
      '  for (const item of list) use(item);', // 4
      '  return new Mcp({});', // 5
      '}',
    ].join('\n'));
    const kinds = (name: string, index: number) => resolveIdentifier(ts, identifiers(sf, name)[index]!)?.kind;
    expect(kinds('a', 1)).toBe('parameter');
    expect(kinds('c', 1)).toBe('parameter');
    expect(kinds('extra', 1)).toBe('parameter');
    expect(kinds('error', 1)).toBe('catch');
    expect(kinds('item', 1)).toBe('const');
    expect(kinds('Mcp', 1)).toBe('import');
    expect(resolveIdentifier(ts, identifiers(sf, 'list')[0]!)).toBeUndefined();
  });

  it('a named function expression sees its own name', () => {
    const sf = parse('const handler = async function ask(n: number): Promise<number> { return n ? ask(n - 1) : 0; };');
    const ids = identifiers(sf, 'ask');
    expect(resolveIdentifier(ts, ids[1]!)?.kind).toBe('function');
  });
});

describe('isWriteReference', () => {
  const writes = (code: string, name: string): boolean[] => identifiers(parse(code), name).map(id => isWriteReference(ts, id));

  it('recognises assignments, compound assignments, updates and destructuring targets', () => {
    expect(writes('let x = 0; x = 1; x += 2; x++; --x; use(x);', 'x')).toEqual([false, true, true, true, true, false]);
    expect(writes('let a, b; [a, b] = pair; ({ a } = obj); ({ k: b } = obj);', 'a')).toEqual([false, true, true]);
    expect(writes('let a, b; [a, b] = pair; ({ a } = obj); ({ k: b } = obj);', 'b')).toEqual([false, true, true]);
    expect(writes('let x; for (x of xs) use(x);', 'x')).toEqual([false, true, false]);
  });

  it('does not count property writes as writes of the object', () => {
    expect(writes('const o = {}; o.x = 1; o["y"] = 2;', 'o')).toEqual([false, false, false]);
  });
});

describe('forEachValueIdentifier', () => {
  it('skips property names, object keys, type positions and labels', () => {
    const sf = parse([
      'type T = { server: string };',
      'const o: T = { server: server };',
      'o.server;',
      'server: for (;;) { break server; }',
      'function f(p: typeof server) { return p; }',
    ].join('\n'));
    const seen: string[] = [];
    forEachValueIdentifier(ts, sf, id => {
      if (id.text === 'server') seen.push(`${sf.getLineAndCharacterOfPosition(id.getStart()).line + 1}`);
    });
    // Only the value read `{ server: server }` on line 2.
    expect(seen).toEqual(['2']);
  });
});
