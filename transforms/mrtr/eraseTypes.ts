import type * as ts from 'typescript';
import { parseAsTypeScript, typeSyntaxOf } from '../../src/analysis/typeSyntax.js';
import type { TS } from '../../src/analysis/types.js';
import { applyEdits, indentAt, newlineOf, type Edit } from './text.js';

/**
 * The rewrite of a JavaScript file, without the types it wrote: annotations, `as`, `!`, type
 * arguments and type-only imports go; each State type becomes a JSDoc `@typedef` and each state read
 * a JSDoc cast to it, so an editor (or `checkJs`) still knows what a round's state holds. SDK types
 * in those comments are written `import('@modelcontextprotocol/server').Name`. `sdkTypes`: the SDK
 * types the rewrite used, which a CommonJS module has no import for. Only generated code
 * has such syntax: the original file was checked to have none (moduleFormatProblem).
 */
export function eraseTypes(ts: TS, fileName: string, text: string, sdkTypes: Iterable<string>): string {
  const file = parseAsTypeScript(ts, fileName, text);
  const found = typeSyntaxOf(ts, file);
  // A CommonJS module imports no types: its SDK types are named through the package in JSDoc.
  const imported = typeImports(ts, file);
  for (const name of sdkTypes) if (!imported.has(name)) imported.set(name, '@modelcontextprotocol/server');
  const jsdocType = (node: ts.TypeNode): string => qualify(node.getText(file), imported);
  const newline = newlineOf(text);
  const edits: Edit[] = [];
  const listsDone = new Set<ts.Node>();
  for (const syntax of found) {
    switch (syntax.kind) {
      case 'alias': {
        const node = syntax.node;
        if (!ts.isTypeAliasDeclaration(node)) {
          edits.push(removeLine(text, node.getStart(file), node.getEnd(), newline));
          break;
        }
        const indent = indentAt(text, node.getStart(file));
        // No leading `|` before the first member: `{{ step: 'a' } | { step: 'b' }}`, not `{| { ...`.
        const lines = jsdocType(node.type).replace(/^\|\s*/, '').split(/\r?\n/);
        const comment = lines.length === 1
          ? `/** @typedef {${lines[0]}} ${node.name.text} */`
          : [`/**`, ` * @typedef {${lines[0]}`, ...lines.slice(1).map(l => ` * ${l.slice(indent.length)}`), ` * } ${node.name.text}`, ` */`].join(newline + indent);
        edits.push({ start: node.getStart(file), end: node.getEnd(), text: comment });
        break;
      }
      case 'cast': {
        const node = syntax.node;
        const e = node.expression;
        const paren = node.parent;
        const type = jsdocType(node.type);
        if (ts.isAsExpression(node) && type !== node.type.getText(file) && !/\bimport\(/.test(node.type.getText(file))) {
          // An SDK type: kept as a JSDoc cast, so the value is still typed in an editor.
          const inParens = ts.isParenthesizedExpression(paren);
          edits.push({ start: (inParens ? paren : node).getStart(file), end: (inParens ? paren : node).getEnd(), text: `/** @type {${type}} */ (${e.getText(file)})` });
        } else if (ts.isParenthesizedExpression(paren) && (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e) || ts.isCallExpression(e))) {
          // `(globalThis as T).process` → `globalThis.process`: the parentheses were only there for the cast.
          edits.push({ start: paren.getStart(file), end: paren.getStart(file) + 1, text: '' }, { start: e.getEnd(), end: paren.getEnd(), text: '' });
        } else {
          edits.push({ start: e.getEnd(), end: node.getEnd(), text: '' });
        }
        break;
      }
      case 'annotation':
      case 'range':
        edits.push({ start: syntax.start, end: syntax.end, text: '' });
        break;
      case 'type-only-import': {
        const node = syntax.node;
        if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) edits.push(removeLine(text, node.getStart(file), node.getEnd(), newline));
        else if (!listsDone.has(node.parent)) {
          // The list is written again once, with its value names: neighbours share their commas.
          listsDone.add(node.parent);
          const kept = node.parent.elements.filter((e: ts.ImportSpecifier | ts.ExportSpecifier) => !e.isTypeOnly).map((e: ts.Node) => e.getText(file));
          const statement = node.parent.parent.parent;
          if (kept.length === 0 && ts.isImportDeclaration(statement) && !statement.importClause?.name) edits.push(removeLine(text, statement.getStart(file), statement.getEnd(), newline));
          else edits.push({ start: node.parent.getStart(file), end: node.parent.getEnd(), text: `{ ${kept.join(', ')} }` });
        }
        break;
      }
      case 'state-read': {
        const call = syntax.node;
        const type = call.typeArguments![0]!;
        edits.push({
          start: call.getStart(file), end: call.getEnd(),
          text: `/** @type {${jsdocType(type)} | undefined} */ (${call.expression.getText(file)}())`,
        });
        break;
      }
    }
  }
  return applyEdits(text, dropNested(edits));
}

/** Type names imported type-only, by the module they come from. */
function typeImports(ts: TS, file: ts.SourceFile): Map<string, string> {
  const names = new Map<string, string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) {
      if (statement.importClause!.isTypeOnly || element.isTypeOnly) names.set(element.name.text, statement.moduleSpecifier.text);
    }
  }
  return names;
}

/** `InputRequest` → `import('@modelcontextprotocol/server').InputRequest` in a JSDoc type. */
function qualify(type: string, imported: Map<string, string>): string {
  return type.replace(/(?<![.'"\w$])([A-Za-z_$][\w$]*)(?![\w$'"])/g, (name: string) => (imported.has(name) ? `import('${imported.get(name)}').${name}` : name));
}

function removeLine(text: string, start: number, end: number, newline: string): Edit {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const onlyThis = text.slice(lineStart, start).trim() === '' && text.slice(end).startsWith(newline);
  return onlyThis ? { start: lineStart, end: end + newline.length, text: '' } : { start, end, text: '' };
}

/** Edits inside a range another edit replaces whole (a cast inside a type alias) are dropped. */
function dropNested(edits: Edit[]): Edit[] {
  return edits.filter(e => !edits.some(o => o !== e && o.start <= e.start && e.end <= o.end && (o.start < e.start || e.end < o.end)));
}
