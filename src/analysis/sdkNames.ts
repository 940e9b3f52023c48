import type * as ts from 'typescript';
import type { TS } from './types.js';
import { lineOf } from './places.js';
import { isJavaScriptFile } from './typeSyntax.js';

/**
 * Names the rewrite imports from the SDK under their own names: the `sdkValues` / `sdkTypes` of
 * transforms/mrtr (printHandler, splitHelper, rewriteUrlHandler, rewriteWrapper) and what
 * moduleSupport.ts adds for the support code. Keep the two in step.
 */
export const SDK_NAMES_IMPORTED: ReadonlySet<string> = new Set([
  'inputRequired', 'inputResponse', 'isInputRequiredResult', 'ProtocolError', 'ProtocolErrorCode', 'fromJsonSchema', 'createRequestStateCodec',
  'CLIENT_CAPABILITIES_META_KEY', 'InputRequest', 'InputResponseView', 'InputRequiredResult', 'ServerContext', 'ClientCapabilities',
  'ElicitResult', 'CreateMessageResult', 'CreateMessageResultWithTools', 'ListRootsResult',
]);

/** Those of them that are types only: an alias imported with `import type` serves them. */
const SDK_TYPES_IMPORTED: ReadonlySet<string> = new Set([
  'InputRequest', 'InputResponseView', 'InputRequiredResult', 'ServerContext', 'ClientCapabilities',
  'ElicitResult', 'CreateMessageResult', 'CreateMessageResultWithTools', 'ListRootsResult',
]);

/** How a file already uses the names the rewrite imports from the SDK. */
export interface SdkNameUse {
  /** Names the file declares or imports from elsewhere (first declaration): the rewrite imports the SDK's under an alias. */
  declared: Map<string, ts.Identifier>;
  /** Names the file imports from an SDK package only under another name: the rewrite uses that name. */
  importedAs: Map<string, string>;
  /** An occurrence the rewrite cannot work around: the refusal's hint. */
  problem?: string;
}

function isSdkModule(ts: TS, node: ts.Node): boolean {
  let n: ts.Node | undefined = node;
  while (n && !ts.isImportDeclaration(n)) n = n.parent;
  return !!n && ts.isStringLiteral(n.moduleSpecifier) && n.moduleSpecifier.text.startsWith('@modelcontextprotocol/');
}

/** `declare module 'x' { ... }` and `declare global { ... }`: names there are another module's. */
function isAmbientModule(ts: TS, node: ts.Node): boolean {
  return ts.isModuleDeclaration(node) && (ts.isStringLiteral(node.name) || (node.flags & ts.NodeFlags.GlobalAugmentation) !== 0);
}

/**
 * Whether `id` binds or refers to a name of the file's own scopes (a variable, type, import, ...),
 * where renaming every such occurrence of one name keeps the file's meaning: not a property name, a
 * key, a label, another module's export name, or a name inside an ambient module block.
 */
export function isScopeName(ts: TS, id: ts.Identifier): boolean {
  const parent = id.parent;
  if (!parent) return false;
  if ((ts.isPropertyAccessExpression(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) ||
       ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent) || ts.isMethodSignature(parent) || ts.isGetAccessorDeclaration(parent) ||
       ts.isSetAccessorDeclaration(parent) || ts.isEnumMember(parent) || ts.isJsxAttribute(parent) || ts.isNamespaceExport(parent)) &&
      (parent as { name?: ts.Node }).name === id) return false;
  if (ts.isQualifiedName(parent) && parent.right === id) return false;
  if (ts.isImportTypeNode(parent) && parent.qualifier === id) return false;
  if ((ts.isBindingElement(parent) || ts.isImportSpecifier(parent)) && parent.propertyName === id) return false;
  if (ts.isExportSpecifier(parent)) {
    // `export { a as b }`: a is the local name, b the export's; `export { a } from './m'` names m's.
    if (parent.parent.parent.moduleSpecifier) return false;
    if (parent.propertyName && parent.name === id) return false;
  }
  if (ts.isLabeledStatement(parent) || ts.isBreakStatement(parent) || ts.isContinueStatement(parent)) return false;
  for (let n: ts.Node | undefined = parent; n; n = n.parent) if (isAmbientModule(ts, n)) return false;
  return true;
}

/** Whether `id` is the name a declaration binds (a variable, parameter, function, type, import, ...). */
function isDeclaredName(ts: TS, id: ts.Identifier): boolean {
  const parent = id.parent;
  if (ts.isImportSpecifier(parent) || ts.isImportClause(parent) || ts.isNamespaceImport(parent) || ts.isImportEqualsDeclaration(parent)) return parent.name === id;
  return (ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isFunctionDeclaration(parent) || ts.isFunctionExpression(parent) ||
    ts.isClassDeclaration(parent) || ts.isClassExpression(parent) || ts.isInterfaceDeclaration(parent) || ts.isTypeAliasDeclaration(parent) ||
    ts.isEnumDeclaration(parent) || ts.isModuleDeclaration(parent) || ts.isTypeParameterDeclaration(parent) || ts.isBindingElement(parent)) &&
    parent.name === id;
}

function isTypeOnlyImport(ts: TS, specifier: ts.ImportSpecifier): boolean {
  return specifier.isTypeOnly || specifier.parent.parent.isTypeOnly;
}

/**
 * Where the file declares a name the rewrite imports, or imports it from the SDK under another name
 * (once per file: the analysis asks for each handler, the transform again).
 */
export function sdkNameUse(ts: TS, file: ts.SourceFile): SdkNameUse {
  let use = uses.get(file);
  if (!use) uses.set(file, (use = scan(ts, file)));
  return use;
}

const uses = new WeakMap<ts.SourceFile, SdkNameUse>();

function scan(ts: TS, file: ts.SourceFile): SdkNameUse {
  const use: SdkNameUse = { declared: new Map(), importedAs: new Map() };
  const ownImport = new Map<string, ts.Identifier>();
  // `import { a as a }`, `export { a as a }`: the name the rewrite sets aside while it runs could not be put back as written.
  const asItself: Array<ts.ImportSpecifier | ts.ExportSpecifier> = [];
  const visit = (node: ts.Node): void => {
    if (isAmbientModule(ts, node)) return;
    if (ts.isImportSpecifier(node) && isSdkModule(ts, node)) {
      const exported = (node.propertyName ?? node.name).text;
      if (!SDK_NAMES_IMPORTED.has(exported)) return;
      if (exported === node.name.text) ownImport.set(exported, node.name);
      else if (!use.importedAs.has(exported) && (!isTypeOnlyImport(ts, node) || SDK_TYPES_IMPORTED.has(exported))) use.importedAs.set(exported, node.name.text);
      return;
    }
    if (ts.isIdentifier(node) && SDK_NAMES_IMPORTED.has(node.text) && isScopeName(ts, node) && isDeclaredName(ts, node) && !use.declared.has(node.text)) {
      use.declared.set(node.text, node);
    }
    if ((ts.isImportSpecifier(node) || ts.isExportSpecifier(node)) && node.propertyName?.getText() === node.name.text && SDK_NAMES_IMPORTED.has(node.name.text)) {
      asItself.push(node);
    }
    node.forEachChild(visit);
  };
  visit(file);
  const spelled = asItself.find(s => use.declared.has(s.name.text) && (ts.isImportSpecifier(s) || isScopeName(ts, s.propertyName as ts.Identifier)));
  if (spelled) {
    const name = spelled.name.text;
    use.problem = `the file ${ts.isImportSpecifier(spelled) ? 'imports' : 'exports'} \`${name} as ${name}\` (line ${lineOf(spelled)}), and \`${name}\` is a name the rewrite imports from the SDK; write it \`${name}\`, then run again.`;
  }
  for (const [name, declaration] of use.declared) {
    if (use.problem) break;
    // The SDK's own name in scope beside a declaration of the file: one of them hides the other somewhere.
    if (ownImport.has(name)) use.problem = `the file declares \`${name}\` (line ${lineOf(declaration)}) beside its import of the SDK's \`${name}\`, which it hides there; rename the file's own, then run again.`;
    // JSDoc types name it where the rewrite cannot tell which one they mean.
    else if (isJavaScriptFile(file.fileName)) use.problem = `the file declares \`${name}\` (line ${lineOf(declaration)}), a name the rewrite imports from the SDK, which it aliases in TypeScript only; rename it, then run again.`;
  }
  return use;
}
