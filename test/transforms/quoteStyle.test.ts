import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { quoteStyle, requote, requoteType, trailingCommas } from '../../transforms/mrtr/text.js';
import type { TS } from '../../src/analysis/types.js';

const api = ts as unknown as TS;
const file = (text: string) => ts.createSourceFile('server.ts', text, ts.ScriptTarget.Latest, true) as never;

describe('a file\'s quote style', () => {
  it('is the quote most of its strings use, not only its first import\'s', () => {
    expect(quoteStyle(api, file(`import { McpServer } from "@modelcontextprotocol/server";\nconst a = 'x';\nconst b = 'y';\n`))).toBe("'");
    expect(quoteStyle(api, file(`import { McpServer } from '@modelcontextprotocol/server';\nconst a = "x";\nconst b = "y";\n`))).toBe('"');
  });

  it('follows the first import on a tie, and is single without strings', () => {
    expect(quoteStyle(api, file(`import { a } from "a";\nconst b = 'b';\n`))).toBe('"');
    expect(quoteStyle(api, file('const a = 1;\n'))).toBe("'");
  });
});

describe('requote', () => {
  it('writes every string literal of generated code in the quote, escaping as needed, comments and templates as they are', () => {
    const code = "// it's a comment\nconst a = 'it\\'s \"x\"';\nconst b = `t ${'u'}`;\nconst c = '\\u0000';\n";
    expect(requote(api, code, '"')).toBe("// it's a comment\nconst a = \"it's \\\"x\\\"\";\nconst b = `t ${\"u\"}`;\nconst c = \"\\u0000\";\n");
  });

  it('requotes the string literal types of a printed type', () => {
    expect(requoteType(api, '{ action: "accept" | "decline"; "x-y"?: string }', "'")).toBe("{ action: 'accept' | 'decline'; 'x-y'?: string }");
  });
});

describe('a file\'s trailing commas', () => {
  it('are what most of its lists written over several lines do; lists on one line do not count', () => {
    expect(trailingCommas(api, file('const a = {\n  b: 1,\n};\nf(\n  a,\n);\nconst c = [\n  1\n];\n'))).toBe(true);
    expect(trailingCommas(api, file('const a = {\n  b: 1\n};\nf(\n  a\n);\nconst c = [1, 2,];\n'))).toBe(false);
    expect(trailingCommas(api, file('const a = { b: 1 };\n'))).toBe(false);
  });
});
