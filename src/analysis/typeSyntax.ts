import type * as ts from 'typescript';
import type { TS } from './types.js';

/**
 * TypeScript-only syntax in a text read as TypeScript: what the rewrite of a JavaScript file must
 * take out of the code it generated (transforms/mrtr/eraseTypes.ts). The rewrite writes TypeScript;
 * in a JavaScript file every such node is one it wrote, as long as the original file has none when
 * read the same way (a JavaScript `a < b > (c)` reads as a generic call), which is checked first.
 */
export type TypeSyntax =
  | { kind: 'alias'; node: ts.TypeAliasDeclaration | ts.InterfaceDeclaration }
  /** `: T` after a name, a parameter list or `?`; with the `?` of an optional parameter. */
  | { kind: 'annotation'; start: number; end: number }
  | { kind: 'range'; start: number; end: number }
  /** `x as T` / `x satisfies T`: dropped, or a JSDoc cast where T names an SDK type. */
  | { kind: 'cast'; node: ts.AsExpression | ts.SatisfiesExpression }
  | { kind: 'type-only-import'; node: ts.ImportDeclaration | ts.ImportSpecifier | ts.ExportSpecifier | ts.ExportDeclaration }
  /** `x.requestState<T>()`: typed again in JSDoc, `/** @type {T | undefined} *\/ (x.requestState())`. */
  | { kind: 'state-read'; node: ts.CallExpression };

export function isJavaScriptFile(fileName: string): boolean {
  return /\.(c|m)?jsx?$/i.test(fileName);
}

/** Parses `text` as TypeScript (TSX for .jsx / .tsx) with parents set. */
export function parseAsTypeScript(ts: TS, fileName: string, text: string): ts.SourceFile {
  const tsx = /x$/i.test(fileName);
  return ts.createSourceFile(tsx ? 'erase.tsx' : 'erase.ts', text, ts.ScriptTarget.Latest, true, tsx ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

export function typeSyntaxOf(ts: TS, file: ts.SourceFile): TypeSyntax[] {
  const found: TypeSyntax[] = [];
  const colonBefore = (type: ts.TypeNode): number => {
    let at = type.getFullStart() - 1;
    while (at > 0 && /\s/.test(file.text[at]!)) at--;
    return at;
  };
  const visit = (node: ts.Node): void => {
    if (ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node)) {
      found.push({ kind: 'alias', node });
      return;
    }
    if (ts.isImportDeclaration(node) && node.importClause?.isTypeOnly) {
      found.push({ kind: 'type-only-import', node });
      return;
    }
    if ((ts.isImportSpecifier(node) || ts.isExportSpecifier(node)) && node.isTypeOnly) found.push({ kind: 'type-only-import', node });
    if (ts.isExportDeclaration(node) && node.isTypeOnly) {
      found.push({ kind: 'type-only-import', node });
      return;
    }
    if ((ts.isVariableDeclaration(node) || ts.isParameter(node) || ts.isPropertyDeclaration(node) || ts.isPropertySignature(node) || isFunctionLikeWithType(ts, node)) && node.type) {
      const type = node.type;
      let start = colonBefore(type);
      const question = (node as { questionToken?: ts.Node }).questionToken;
      if (question && ts.isParameter(node)) start = question.getStart(file);
      found.push({ kind: 'annotation', start, end: type.getEnd() });
    }
    if (ts.isVariableDeclaration(node) && node.exclamationToken) found.push({ kind: 'range', start: node.exclamationToken.getStart(file), end: node.exclamationToken.getEnd() });
    if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) found.push({ kind: 'cast', node });
    if (ts.isNonNullExpression(node)) found.push({ kind: 'range', start: node.expression.getEnd(), end: node.getEnd() });
    if (ts.isTypeAssertionExpression(node)) found.push({ kind: 'range', start: node.getStart(file), end: node.expression.getStart(file) });
    if ((ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node) || ts.isExpressionWithTypeArguments(node)) && node.typeArguments) {
      if (ts.isCallExpression(node) && node.typeArguments.length === 1 && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'requestState' && node.arguments.length === 0) {
        found.push({ kind: 'state-read', node });
      } else {
        found.push({ kind: 'range', start: node.typeArguments.pos - 1, end: node.typeArguments.end + 1 });
      }
    }
    if ((isFunctionLikeWithType(ts, node) || ts.isClassLike(node)) && (node as ts.SignatureDeclarationBase).typeParameters) {
      const params = (node as ts.SignatureDeclarationBase).typeParameters!;
      found.push({ kind: 'range', start: params.pos - 1, end: params.end + 1 });
    }
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

function isFunctionLikeWithType(ts: TS, node: ts.Node): node is ts.SignatureDeclaration & { type?: ts.TypeNode } {
  return ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node) || ts.isConstructorDeclaration(node);
}
