import type * as ts from 'typescript';
import type { TS } from './types.js';

/** A name the source (or the SDK) gives a type, and the checker's type it names. */
export interface TypeName {
  name: string;
  type: ts.Type;
  /** An SDK type the file does not import: imported from `@modelcontextprotocol/server` where used. */
  sdk?: true;
}

/** SDK types a carried local may have that the rewrite can import from @modelcontextprotocol/server. */
export const SDK_TYPE_NAMES = new Set(['ElicitResult', 'CreateMessageResult', 'CreateMessageResultWithTools', 'ListRootsResult', 'Root', 'CallToolResult', 'GetPromptResult', 'ReadResourceResult', 'ContentBlock', 'TextContent']);

const FLAGS = (ts: TS) => ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;
const known = new WeakMap<ts.TypeChecker, WeakMap<ts.SourceFile, TypeName[]>>();

/**
 * The names a type written at module scope (a State type) or in a handler can use: the non-generic
 * type aliases and interfaces the file declares at its top level or imports, and the SDK's result
 * types (SDK_TYPE_NAMES) where the file imports `@modelcontextprotocol/server`.
 */
export function fileTypeNames(ts: TS, checker: ts.TypeChecker, sourceFile: ts.SourceFile): TypeName[] {
  const cached = known.get(checker)?.get(sourceFile);
  if (cached) return cached;
  const names: TypeName[] = [];
  const add = (name: string, symbol: ts.Symbol | undefined, sdk = false) => {
    const declaration = symbol?.declarations?.[0];
    if (!symbol || !declaration || !(ts.isTypeAliasDeclaration(declaration) || ts.isInterfaceDeclaration(declaration)) || declaration.typeParameters) return;
    if (names.some(n => n.name === name)) return;
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    if (!distinctive(ts, symbol, type, sdk)) return;
    names.push({ name, type, ...(sdk ? { sdk: true as const } : {}) });
  };
  const resolved = (symbol: ts.Symbol | undefined) => (symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  let sdkModule: ts.Symbol | undefined;
  for (const st of sourceFile.statements) {
    if (ts.isTypeAliasDeclaration(st) || ts.isInterfaceDeclaration(st)) add(st.name.text, checker.getSymbolAtLocation(st.name));
    if (!ts.isImportDeclaration(st)) continue;
    if (ts.isStringLiteral(st.moduleSpecifier) && st.moduleSpecifier.text === '@modelcontextprotocol/server') sdkModule ??= checker.getSymbolAtLocation(st.moduleSpecifier);
    const bindings = st.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) add(element.name.text, resolved(checker.getSymbolAtLocation(element.name)));
  }
  if (sdkModule) {
    for (const exported of checker.getExportsOfModule(sdkModule)) if (SDK_TYPE_NAMES.has(exported.name)) add(exported.name, resolved(exported), true);
  }
  if (!known.has(checker)) known.set(checker, new WeakMap());
  known.get(checker)!.set(sourceFile, names);
  return names;
}

/**
 * Whether a name stands for its type alone, so that a value of that type reads right under the name:
 * an interface; an alias the checker keeps on its type (an object literal, or a union with an object
 * or a literal in it, written there); a union of two or more literals (`type Field = (typeof
 * FIELDS)[number]`); an SDK result type. Not `type Id = string`, `type Ids = string[]` or `type Maybe
 * = string | undefined`, whose types every such value shares.
 */
function distinctive(ts: TS, symbol: ts.Symbol, type: ts.Type, sdk: boolean): boolean {
  const object = (t: ts.Type) => (t.flags & ts.TypeFlags.Object) !== 0;
  if (sdk) return object(type) || (type.isUnion() && type.types.some(object));
  if (symbol.flags & ts.SymbolFlags.Interface) return type.symbol === symbol;
  const literal = (t: ts.Type) => t.isLiteral() || (t.flags & ts.TypeFlags.BooleanLiteral) !== 0;
  if (type.aliasSymbol === symbol) return object(type) || (type.isUnion() && type.types.some(t => object(t) || literal(t)));
  return type.isUnion() && type.types.length >= 2 && type.types.every(literal);
}

/**
 * A type as the source would write it: by a name from `names` where the type is that named type, or a
 * union holding all of its members (`ElicitResult | undefined`, where the checker expands the SDK's
 * zod-inferred `ElicitResult` into its 30-line structure; `Field` for `'name' | 'email'` read from
 * `(typeof FIELDS)[number]`); otherwise the checker's printout, tidied (`{ a: string }`, not
 * `{ a: string; }`). Object types match by identity only: a structurally equal interface of another
 * meaning is not named.
 */
export function printType(ts: TS, checker: ts.TypeChecker, type: ts.Type, sourceFile: ts.SourceFile, names: readonly TypeName[]): { text: string; sdkImports: string[] } {
  const plain = (t: ts.Type): string => tidyType(ts, checker.typeToString(t, sourceFile, FLAGS(ts)));
  /** The SDK names the text uses, which the file must import. */
  const imports = (used: readonly TypeName[]) => used.filter(n => n.sdk).map(n => n.name);
  const whole = names.find(n => n.type === type);
  if (whole) return { text: whole.name, sdkImports: imports([whole]) };
  if (!type.isUnion() || type.aliasSymbol) return { text: plain(type), sdkImports: [] };
  let rest = [...type.types];
  const used: TypeName[] = [];
  for (const n of names) {
    const members = n.type.isUnion() ? n.type.types : [n.type];
    if (!members.every(m => rest.includes(m))) continue;
    used.push(n);
    rest = rest.filter(m => !members.includes(m));
  }
  if (used.length === 0 || rest.some(m => m.flags & ts.TypeFlags.EnumLiteral)) return { text: plain(type), sdkImports: [] };
  // `true | false` is how the checker holds `boolean` in a union.
  const booleans = rest.filter(m => m.flags & ts.TypeFlags.BooleanLiteral);
  const both = booleans.length === 2;
  if (both) rest = rest.filter(m => !booleans.includes(m));
  const parts = [...used.map(n => n.name), ...(both ? ['boolean'] : []), ...rest.map(m => {
    const text = plain(m);
    return m.getCallSignatures().length > 0 || m.getConstructSignatures().length > 0 ? `(${text})` : text;
  })];
  // undefined and null last, as the checker prints them.
  const last = (p: string) => (p === 'undefined' ? 2 : p === 'null' ? 1 : 0);
  return { text: parts.sort((a, b) => last(a) - last(b)).join(' | '), sdkImports: imports(used) };
}

/** A checker-printed type without the `;` it writes before an object type's closing brace. */
export function tidyType(ts: TS, type: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, type);
  const drop: number[] = [];
  let semicolon: number | undefined;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.WhitespaceTrivia || kind === ts.SyntaxKind.NewLineTrivia) continue;
    if (kind === ts.SyntaxKind.CloseBraceToken && semicolon !== undefined) drop.push(semicolon);
    semicolon = kind === ts.SyntaxKind.SemicolonToken ? scanner.getTokenStart() : undefined;
  }
  let out = type;
  for (const at of drop.reverse()) out = out.slice(0, at) + out.slice(at + 1);
  return out;
}
