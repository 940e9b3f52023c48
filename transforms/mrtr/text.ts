import type * as ts from 'typescript';
import type { TS } from '../../src/analysis/types.js';
import { skipOuter } from '../../src/analysis/sdk.js';


/**
 * Text-level helpers: the rewrite works by splicing the original text, so code it does not
 * touch keeps its formatting and comments byte for byte.
 */

export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping edits to `text` (offsets relative to `base`). */
export function applyEdits(text: string, edits: Edit[], base = 0): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let lastStart = Number.POSITIVE_INFINITY;
  for (const edit of sorted) {
    if (edit.end > lastStart) throw new Error(`overlapping edits at ${edit.start}-${edit.end}`);
    out = out.slice(0, edit.start - base) + edit.text + out.slice(edit.end - base);
    lastStart = edit.start;
  }
  return out;
}

/** The whitespace that starts the line `pos` is on. */
export function indentAt(text: string, pos: number): string {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** One indentation step as the file writes it: a tab, or the smallest space indent seen. */
export function indentUnit(text: string): string {
  let tabs = 0;
  let smallest = Number.POSITIVE_INFINITY;
  for (const line of text.split('\n')) {
    const m = /^([ \t]+)\S/.exec(line);
    if (!m) continue;
    if (m[1]!.startsWith('\t')) tabs++;
    else if (m[1]!.length >= 2) smallest = Math.min(smallest, m[1]!.length);
  }
  if (tabs > 0 && !Number.isFinite(smallest)) return '\t';
  return ' '.repeat(Number.isFinite(smallest) ? Math.min(smallest, 8) : 2);
}

/** The quote of each file's string literals, found once per file. */
const quotes = new WeakMap<ts.SourceFile, '"' | "'">();

/**
 * The file's quote style: the quote most of its string literals use (on a tie, its first import's; in
 * a file with none, single quotes). Every string the rewrite writes into the file, and into the support
 * module it imports, uses it.
 */
export function quoteStyle(ts: TS, sourceFile: ts.SourceFile): '"' | "'" {
  const known = quotes.get(sourceFile);
  if (known) return known;
  let single = 0;
  let double = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node)) {
      const first = sourceFile.text[node.getStart(sourceFile)];
      if (first === "'") single++;
      else if (first === '"') double++;
      return;
    }
    node.forEachChild(visit);
  };
  visit(sourceFile);
  const first = sourceFile.statements.find(ts.isImportDeclaration);
  const style = double > single || (double === single && first?.moduleSpecifier.getText(sourceFile).startsWith('"')) ? '"' : "'";
  quotes.set(sourceFile, style);
  return style;
}

/** Whether each file ends its multi-line lists with a comma, found once per file. */
const trailing = new WeakMap<ts.SourceFile, boolean>();

/**
 * Whether the file ends a list written over several lines (an object or array literal, a call's
 * arguments) with a comma after its last element: most of its such lists do. A multi-line object the
 * rewrite writes (`inputRequired({ ... })`) follows it.
 */
export function trailingCommas(ts: TS, sourceFile: ts.SourceFile): boolean {
  const known = trailing.get(sourceFile);
  if (known !== undefined) return known;
  let withComma = 0;
  let without = 0;
  const count = (list: ts.NodeArray<ts.Node>, close: number) => {
    const last = list.at(-1);
    if (!last) return;
    const line = (pos: number) => sourceFile.getLineAndCharacterOfPosition(pos).line;
    if (line(last.getEnd()) === line(close)) return;
    if (list.hasTrailingComma) withComma++;
    else without++;
  };
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) count(node.properties, node.getEnd() - 1);
    else if (ts.isArrayLiteralExpression(node)) count(node.elements, node.getEnd() - 1);
    else if (ts.isCallExpression(node)) count(node.arguments, node.getEnd() - 1);
    node.forEachChild(visit);
  };
  visit(sourceFile);
  const style = withComma > without;
  trailing.set(sourceFile, style);
  return style;
}

/** `value` as a string literal in `quote`. */
export function stringLiteral(value: string, quote: '"' | "'"): string {
  const json = JSON.stringify(value);
  return quote === '"' ? json : `'${json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

/** Generated code (none of the user's) with every string literal in `quote`; comments and templates as they are. */
export function requote(ts: TS, code: string, quote: '"' | "'"): string {
  const other = quote === '"' ? "'" : '"';
  if (!code.includes(other)) return code;
  const sourceFile = ts.createSourceFile('generated.ts', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits: Edit[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node)) {
      const start = node.getStart(sourceFile);
      if (code[start] === other) edits.push({ start, end: node.getEnd(), text: stringLiteral(node.text, quote) });
      return;
    }
    node.forEachChild(visit);
  };
  visit(sourceFile);
  return applyEdits(code, edits);
}

export function newlineOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** Offsets inside multi-line string-like literals, whose line starts must not be re-indented. */
export function literalRanges(ts: TS, sourceFile: ts.SourceFile): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node) || ts.isStringLiteral(node)) {
      const start = node.getStart(sourceFile);
      const text = node.getText(sourceFile);
      if (text.includes('\n')) ranges.push([start, start + text.length]);
      return;
    }
    node.forEachChild(visit);
  };
  visit(sourceFile);
  return ranges;
}

/** Text with the ranges (relative offsets) of multi-line literals whose lines must not move. */
export interface Protected {
  text: string;
  protect: Array<[number, number]>;
}

/** Original text [start, end) with edits applied, carrying the protected ranges along. */
export function splice(source: string, start: number, end: number, edits: Array<Edit & { protect?: Array<[number, number]> }>, literals: Array<[number, number]>): Protected {
  const sorted = [...edits].filter(e => e.start >= start && e.end <= end).sort((a, b) => a.start - b.start);
  let text = '';
  const protect: Array<[number, number]> = [];
  let at = start;
  const keep = (from: number, to: number): void => {
    for (const [s, e] of literals) {
      if (s >= from && e <= to) protect.push([text.length + s - from, text.length + e - from]);
    }
    text += source.slice(from, to);
  };
  for (const edit of sorted) {
    keep(at, edit.start);
    for (const [s, e] of edit.protect ?? []) protect.push([text.length + s, text.length + e]);
    text += edit.text;
    at = edit.end;
  }
  keep(at, end);
  return { text, protect };
}

/**
 * Moves text from one indentation to another, line by line, leaving lines that start inside a
 * multi-line template or string alone (re-indenting them would change the string).
 */
export function reindent(source: Protected, from: string, to: string): string {
  return reindentProtected(source, from, to).text;
}

/** `reindent`, keeping the protected ranges pointing at the same literals in the new text. */
export function reindentProtected(source: Protected, from: string, to: string): Protected {
  if (from === to) return source;
  const lines = source.text.split('\n');
  const out: string[] = [];
  /** For each line: [old start, new start, old length removed from the front, new prefix length]. */
  const shifts: Array<{ oldStart: number; newStart: number; removed: number; added: number }> = [];
  let oldOffset = 0;
  let newOffset = 0;
  lines.forEach((line, i) => {
    const lineStart = oldOffset;
    oldOffset += line.length + 1;
    let next = line;
    if (i > 0 && !source.protect.some(([s, e]) => lineStart > s && lineStart < e)) {
      if (line.trim() === '') next = line.replace(/^[ \t]+/, '');
      else if (line.startsWith(from)) next = to + line.slice(from.length);
      else next = to + line.replace(/^[ \t]+/, '');
    }
    const removed = line.length - line.replace(/^[ \t]*/, '').length;
    const added = next.length - next.replace(/^[ \t]*/, '').length;
    shifts.push({ oldStart: lineStart, newStart: newOffset, removed: next === line ? 0 : removed, added: next === line ? 0 : added });
    out.push(next);
    newOffset += next.length + 1;
  });
  const map = (at: number): number => {
    let line = shifts[0]!;
    for (const s of shifts) if (s.oldStart <= at) line = s;
    const column = at - line.oldStart;
    return line.newStart + (column >= line.removed ? column - line.removed + line.added : column);
  };
  return { text: out.join('\n'), protect: source.protect.map(([s, e]) => [map(s), map(e)] as [number, number]) };
}

export function pascalCase(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map(w => w[0]!.toUpperCase() + w.slice(1)).join('');
  return /^[A-Za-z_]/.test(joined) ? joined : `X${joined}`;
}

export function camelCase(name: string): string {
  const pascal = pascalCase(name);
  return pascal[0]!.toLowerCase() + pascal.slice(1);
}

/** `archiveProjectCase` for `case 'archive_project':`, `defaultCase` for `default:`. */
export function caseLabelName(ts: TS, clause: ts.CaseOrDefaultClause): string {
  if (ts.isDefaultClause(clause)) return 'defaultCase';
  const e = skipOuter(ts, clause.expression);
  const words = ts.isStringLiteralLike(e) || ts.isNumericLiteral(e) ? camelCase(e.text) : ts.isPropertyAccessExpression(e) ? camelCase(e.name.text) : '';
  return /^[A-Za-z_$][\w$]*$/.test(words) ? `${words}Case` : 'resumedCase';
}

/**
 * `async () => <expr>` made a block: `{ <leading...> return <expr>; }`, line by line, with `edits`
 * applied inside <expr>. `({ ... })` is returned without its parentheses; lines inside a multi-line
 * template or string keep their text.
 */
export function expressionBodyBlock(env: { ts: TS; sourceFile: ts.SourceFile; text: string; newline: string; unit: string; literals: Array<[number, number]> }, fn: ts.FunctionLikeDeclaration, leading: string[], edits: Edit[] = []): Edit {
  const { ts, sourceFile, text } = env;
  const body = fn.body as ts.Expression;
  const returned = ts.isParenthesizedExpression(body) && ts.isObjectLiteralExpression(body.expression) ? body.expression : body;
  const start = returned.getStart(sourceFile);
  const base = indentAt(text, fn.getStart(sourceFile));
  const inner = base + env.unit;
  const value = reindent(splice(text, start, returned.getEnd(), edits, env.literals), indentAt(text, start), inner);
  const lines = ['{', ...[...leading, `return ${value};`].map(line => inner + line), `${base}}`];
  return { start: body.getStart(sourceFile), end: body.getEnd(), text: lines.join(env.newline) };
}

/** A printed type (the checker's printout) with its string literal types in `quote`. */
export function requoteType(ts: TS, type: string, quote: '"' | "'"): string {
  const prefix = 'type T = ';
  return requote(ts, `${prefix}${type};`, quote).slice(prefix.length, -1);
}
