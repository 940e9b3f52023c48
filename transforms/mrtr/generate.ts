import type * as ts from 'typescript';
import type { TS } from '../../src/analysis/types.js';
import type { Chunk } from './pieces.js';
import { reindentProtected } from './text.js';

/**
 * New code is built as TypeScript nodes (`ts.factory`) and printed with the compiler's printer, as
 * TypeScript's own refactorings do. Original code inside it (a question's request parameters, a
 * statement moved into a new branch) goes in through slots: a placeholder identifier in the tree,
 * replaced after printing by the original text, re-indented to where it lands, comments and all.
 */

export interface GenerateOptions {
  ts: TS;
  /** One indentation step of the file. */
  unit: string;
  newline: string;
  /** The file's string quotes. */
  singleQuote: boolean;
  /** Whether the file's multi-line lists end with a comma. */
  trailingComma?: boolean;
}

/** A local and the requestState key it travels under (the same unless its name is one the state keeps for itself). */
export interface Renamed {
  key: string;
  name: string;
}

export class Generator {
  readonly f: ts.NodeFactory;
  private readonly printer: ts.Printer;
  private readonly slots = new Map<string, Chunk>();
  private readonly scratch: ts.SourceFile;

  constructor(readonly options: GenerateOptions) {
    const { ts } = options;
    this.f = ts.factory;
    this.printer = ts.createPrinter({ newLine: options.newline === '\r\n' ? ts.NewLineKind.CarriageReturnLineFeed : ts.NewLineKind.LineFeed, removeComments: false });
    this.scratch = ts.createSourceFile('generated.ts', '', ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  }

  /** An identifier standing for original text, filled in when printed. */
  slot(text: Chunk): ts.Identifier {
    const name = `__mrtr_slot_${this.slots.size}__`;
    this.slots.set(name, text);
    return this.f.createIdentifier(name);
  }

  id(name: string): ts.Identifier {
    return this.f.createIdentifier(name);
  }

  str(value: string): ts.StringLiteral {
    return this.f.createStringLiteral(value, this.options.singleQuote);
  }

  /** `a.b.c` from a dotted path. */
  path(dotted: string): ts.Expression {
    const [first, ...rest] = dotted.split('.');
    return rest.reduce<ts.Expression>((e, name) => this.f.createPropertyAccessExpression(e, name), this.id(first!));
  }

  call(callee: ts.Expression | string, args: ts.Expression[], typeArgs?: ts.TypeNode[]): ts.CallExpression {
    return this.f.createCallExpression(typeof callee === 'string' ? this.path(callee) : callee, typeArgs, args);
  }

  /** A type written as text (a type the checker printed). */
  type(text: string): ts.TypeNode {
    return this.f.createTypeReferenceNode(this.id(text));
  }

  /** On several lines, the last property takes a comma where the file's lists do (options.trailingComma). */
  object(props: Array<[string, ts.Expression] | string>, multiLine = false): ts.ObjectLiteralExpression {
    const properties = props.map(p => (typeof p === 'string'
      ? this.f.createShorthandPropertyAssignment(p)
      : p[1].kind === this.options.ts.SyntaxKind.Identifier && (p[1] as ts.Identifier).text === p[0]
        ? this.f.createShorthandPropertyAssignment(p[0])
        : this.f.createPropertyAssignment(p[0], p[1])));
    return this.f.createObjectLiteralExpression(this.f.createNodeArray(properties, multiLine && this.options.trailingComma === true), multiLine);
  }

  declare(kind: 'const' | 'let', name: string | ts.BindingName, init: ts.Expression | undefined, type?: ts.TypeNode): ts.VariableStatement {
    const { ts } = this.options;
    return this.f.createVariableStatement(undefined, this.f.createVariableDeclarationList(
      [this.f.createVariableDeclaration(name, undefined, type, init)], kind === 'const' ? ts.NodeFlags.Const : ts.NodeFlags.Let));
  }

  /** `{ a, b }` as a binding pattern; `{ key: name }` for a name read from another key. */
  pattern(names: Array<string | Renamed>): ts.ObjectBindingPattern {
    return this.f.createObjectBindingPattern(names.map(n => (typeof n === 'string' || n.key === n.name
      ? this.f.createBindingElement(undefined, undefined, typeof n === 'string' ? n : n.name)
      : this.f.createBindingElement(undefined, n.key, n.name))));
  }

  /** `({ a, b } = value);` (or `a = value.a;` for one name); `{ key: name }` for a name read from another key. */
  assignFrom(names: Array<string | Renamed>, value: ts.Expression): ts.Statement {
    const { ts } = this.options;
    const pairs = names.map(n => (typeof n === 'string' ? { key: n, name: n } : n));
    if (pairs.length === 1) {
      return this.f.createExpressionStatement(this.f.createAssignment(this.id(pairs[0]!.name), this.f.createPropertyAccessExpression(value, pairs[0]!.key)));
    }
    const target = this.f.createObjectLiteralExpression(pairs.map(({ key, name }) => (key === name
      ? this.f.createShorthandPropertyAssignment(name)
      : this.f.createPropertyAssignment(key, this.id(name)))));
    return this.f.createExpressionStatement(this.f.createParenthesizedExpression(this.f.createBinaryExpression(target, ts.SyntaxKind.EqualsToken, value)));
  }

  /** `(a, b) => body` */
  arrow(params: string[], body: ts.Expression): ts.ArrowFunction {
    const parameters = params.map(name => this.f.createParameterDeclaration(undefined, undefined, name));
    return this.f.createArrowFunction(undefined, undefined, parameters, undefined, undefined, body);
  }

  ret(e: ts.Expression): ts.ReturnStatement {
    return this.f.createReturnStatement(e);
  }

  stmt(e: ts.Expression): ts.ExpressionStatement {
    return this.f.createExpressionStatement(e);
  }

  await(e: ts.Expression): ts.AwaitExpression {
    return this.f.createAwaitExpression(e);
  }

  /** A `//` comment line above `statement`. */
  comment<T extends ts.Node>(statement: T, text: string): T {
    return this.options.ts.addSyntheticLeadingComment(statement, this.options.ts.SyntaxKind.SingleLineCommentTrivia, ` ${text}`, true);
  }

  /** Whether a statement prints on one line of at most `width` characters (its slots included). */
  fits(statement: ts.Statement, width: number): boolean {
    const { ts } = this.options;
    const printed = this.printer.printNode(ts.EmitHint.Unspecified, statement, this.scratch);
    if (printed.includes('\n')) return false;
    let length = printed.length;
    for (const m of printed.matchAll(/__mrtr_slot_\d+__/g)) {
      const slot = this.slots.get(m[0])!;
      if (slot.text.includes('\n')) return false;
      length += slot.text.length - m[0].length;
    }
    return length <= width;
  }

  /** Prints statements as a chunk written at indentation '' (lines indented by the file's unit). */
  print(statements: readonly ts.Statement[]): Chunk {
    const { ts } = this.options;
    const parts = statements.map(s => this.printer.printNode(ts.EmitHint.Unspecified, s, this.scratch));
    return this.fill(parts.join('\n'));
  }

  /** Prints one expression (on one line unless a slot in it spans several). */
  expression(e: ts.Expression): Chunk {
    const { ts } = this.options;
    return this.fill(this.printer.printNode(ts.EmitHint.Expression, e, this.scratch));
  }

  /** The printer's four-space steps become the file's unit; then the slots get their text. */
  private fill(printed: string): Chunk {
    const unit = this.options.unit;
    const lines = printed.replace(/\r\n/g, '\n').split('\n').map(line => {
      const m = /^( *)/.exec(line)![1]!.length;
      return unit.repeat(Math.floor(m / 4)) + ' '.repeat(m % 4) + line.slice(m);
    });
    let text = lines.join('\n');
    const protect: Array<[number, number]> = [];
    for (;;) {
      const m = /__mrtr_slot_(\d+)__/.exec(text);
      if (!m) break;
      const slot = this.slots.get(m[0])!;
      const lineStart = text.lastIndexOf('\n', m.index - 1) + 1;
      const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
      const moved = reindentProtected({ text: slot.text, protect: slot.protect }, slot.from, indent);
      protect.push(...moved.protect.map(([s, e]) => [s + m.index, e + m.index] as [number, number]));
      text = text.slice(0, m.index) + moved.text + text.slice(m.index + m[0].length);
    }
    return { text, from: '', protect };
  }
}
