import type * as ts from 'typescript';
import type { TS } from '../../src/analysis/types.js';
import { applyEdits, type Edit } from './text.js';

/**
 * Names the rewrite left imported but no longer used: the schema a push call took
 * (`ElicitResultSchema` of `sendRequest(request, ElicitResultSchema)`), a context type only a helper's
 * dropped parameter named. A name goes from its import when the code of `before` (the file the
 * rewrite started from) refers to it outside its imports and the code of `after` does not (in
 * JavaScript, not even a comment: a JSDoc type); an import the user had left unused stays. An import left with no name goes whole, except where it
 * may be evaluated for its side effects (a JavaScript file, or TypeScript that keeps its imports as
 * written): there `import 'module';` stays, unless the module is the SDK's.
 */
export function dropOrphanedImports(ts: TS, fileName: string, before: string, after: string, keepsImports: boolean): string {
  if (before === after) return after;
  const sourceFile = ts.createSourceFile(fileName, after, ts.ScriptTarget.Latest, true);
  /** The identifiers of the code outside its imports. */
  const identifiers = (file: ts.SourceFile): Set<string> => {
    const names = new Set<string>();
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) || ts.isImportEqualsDeclaration(node)) return;
      if (ts.isIdentifier(node)) names.add(node.text);
      node.forEachChild(visit);
    };
    visit(file);
    return names;
  };
  const previous = identifiers(ts.createSourceFile(fileName, before, ts.ScriptTarget.Latest, true));
  const now = identifiers(sourceFile);
  // In JavaScript a JSDoc comment may name an imported type: any mention outside the imports keeps it.
  const javascript = /\.[cm]?jsx?$/.test(fileName);
  const code = javascript ? sourceFile.statements.filter(st => !ts.isImportDeclaration(st)).map(st => st.getFullText(sourceFile)).join('\n') : '';
  const mentioned = (name: string) => new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(code);
  const orphaned = (name: ts.Identifier) => previous.has(name.text) && !now.has(name.text) && !(javascript && mentioned(name.text));
  const edits: Edit[] = [];
  for (const st of sourceFile.statements) {
    const clause = ts.isImportDeclaration(st) ? st.importClause : undefined;
    const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings : undefined;
    if (!clause || !named || !named.elements.some(e => orphaned(e.name))) continue;
    const kept = named.elements.filter(e => !orphaned(e.name));
    if (kept.length > 0) {
      edits.push({ start: named.getStart(sourceFile), end: named.getEnd(), text: `{ ${kept.map(e => e.getText(sourceFile)).join(', ')} }` });
    } else if (clause.name) {
      // `import x, { Y } from ...` keeps its default import.
      edits.push({ start: clause.name.getEnd(), end: named.getEnd(), text: '' });
    } else {
      const module = (st as ts.ImportDeclaration).moduleSpecifier;
      const sdk = ts.isStringLiteral(module) && module.text.startsWith('@modelcontextprotocol/');
      if (keepsImports && !clause.isTypeOnly && !sdk) edits.push({ start: st.getStart(sourceFile), end: st.getEnd(), text: `import ${module.getText(sourceFile)};` });
      else edits.push(wholeLine(after, st.getStart(sourceFile), st.getEnd()));
    }
  }
  return edits.length === 0 ? after : applyEdits(after, edits);
}

/** The statement's line, with its line break. */
function wholeLine(text: string, start: number, end: number): Edit {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const lineEnd = text.indexOf('\n', end);
  const onItsOwn = text.slice(lineStart, start).trim() === '' && text.slice(end, lineEnd < 0 ? text.length : lineEnd).trim() === '';
  if (!onItsOwn) return { start, end, text: '' };
  return { start: lineStart, end: lineEnd < 0 ? text.length : lineEnd + 1, text: '' };
}
