import type * as ts from 'typescript';
import type { TS } from '../../src/analysis/types.js';
import { applyEdits, type Edit } from './text.js';

/**
 * Names the rewrite left imported but no longer used: the schema a push call took
 * (`ElicitResultSchema` of `sendRequest(request, ElicitResultSchema)`), a context type only a helper's
 * dropped parameter named. A name goes from its import when the code of `before` (the file the
 * rewrite started from, as parsed for it) refers to it outside its imports and the code of `after` does not (in
 * JavaScript, not even a comment: a JSDoc type); an import the user had left unused stays. An import
 * left with no name goes whole, except where it may be evaluated for its side effects (a JavaScript
 * file, or TypeScript that keeps its imports as written): there `import 'module';` stays, unless the
 * module is the SDK's.
 */
export function dropOrphanedImports(ts: TS, before: ts.SourceFile, after: string, keepsImports: boolean): string {
  if (before.text === after) return after;
  const fileName = before.fileName;
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
  const previous = identifiers(before);
  const now = identifiers(sourceFile);
  // In JavaScript a JSDoc comment may name an imported type: any mention outside the imports keeps it.
  const javascript = /\.[cm]?jsx?$/.test(fileName);
  const code = javascript ? sourceFile.statements.filter(st => !ts.isImportDeclaration(st)).map(st => st.getFullText(sourceFile)).join('\n') : '';
  const mentioned = (name: string) => new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(code);
  const orphaned = (name: ts.Identifier) => previous.has(name.text) && !now.has(name.text) && !(javascript && mentioned(name.text));
  // An import left empty may still be evaluated for its side effects; the SDK's is not.
  const emptied = (st: ts.ImportDeclaration): string | undefined => {
    const module = st.moduleSpecifier;
    const sdk = ts.isStringLiteral(module) && module.text.startsWith('@modelcontextprotocol/');
    return keepsImports && !st.importClause?.isTypeOnly && !sdk ? `import ${module.getText(sourceFile)};` : undefined;
  };
  const edits = importEditsWithout(ts, sourceFile, orphaned, emptied);
  return edits.length === 0 ? after : applyEdits(after, edits);
}

/**
 * The edits that take the names `unused` says out of the file's imports: a specifier goes; an import
 * left with none goes whole, or becomes what `emptied` gives for it (`import 'module';`).
 */
export function importEditsWithout(ts: TS, sourceFile: ts.SourceFile, unused: (name: ts.Identifier) => boolean, emptied?: (s: ts.ImportDeclaration) => string | undefined): Edit[] {
  const edits: Edit[] = [];
  for (const s of sourceFile.statements) {
    const clause = ts.isImportDeclaration(s) ? s.importClause : undefined;
    const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings : undefined;
    if (!clause || !named || !named.elements.some(e => unused(e.name))) continue;
    const kept = named.elements.filter(e => !unused(e.name));
    if (kept.length > 0) {
      edits.push({ start: named.getStart(sourceFile), end: named.getEnd(), text: `{ ${kept.map(e => e.getText(sourceFile)).join(', ')} }` });
    } else if (clause.name) {
      // `import x, { randomUUID } from ...` keeps its default import.
      edits.push({ start: clause.name.getEnd(), end: named.getEnd(), text: '' });
    } else if (emptied?.(s as ts.ImportDeclaration) !== undefined) {
      edits.push({ start: s.getStart(sourceFile), end: s.getEnd(), text: emptied(s as ts.ImportDeclaration)! });
    } else {
      // The line goes with the line break before it (support code may be inserted right after it).
      const text = sourceFile.text;
      const lineBreak = text.lastIndexOf('\n', s.getStart(sourceFile) - 1);
      if (lineBreak >= 0) {
        edits.push({ start: text[lineBreak - 1] === '\r' ? lineBreak - 1 : lineBreak, end: s.getEnd(), text: '' });
      } else {
        // The first line: with the break after it, unless the support code goes right after it (the last import).
        const lastImport = [...sourceFile.statements].reverse().find(st => ts.isImportDeclaration(st));
        const after = /^\r?\n/.exec(text.slice(s.getEnd()))?.[0] ?? '';
        edits.push({ start: s.getStart(sourceFile), end: s.getEnd() + (lastImport === s ? 0 : after.length), text: '' });
      }
    }
  }
  return edits;
}
