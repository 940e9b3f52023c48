import type * as ts from 'typescript';
import type { RawSite } from './detect.js';
import { mightContainSites } from './prefilter.js';
import { helperDeclaration, helperExport } from './helpers.js';
import { functionOf } from './projectIndex.js';
import { functionNameNode, isProjectSource, skipOuter } from './sdk.js';
import type { TS } from './types.js';
import { NameAllocator } from './names.js';

/**
 * Asking helpers used across files (`askYesNo` exported from ask.ts, called by the tools of two
 * modules). The files such a helper links are analysed together, so each of them decides the same
 * verdicts; the helper is split only when every use of it in the project is a call the rewrite
 * changes or a plain named import the rewrite can edit.
 */

/**
 * Functions declared in other files that ask the client, themselves or through the helpers they call
 * (followed a few calls deep: real helpers chain one or two, and a deeper chain is still caught by
 * the helper's own file, whose group is then rolled back together if the files disagree).
 */
export class AskingFunctions {
  private readonly memo = new Map<ts.FunctionLikeDeclaration, boolean>();

  constructor(
    private readonly ts: TS,
    private readonly checker: ts.TypeChecker,
    private readonly rawsOf: (file: ts.SourceFile) => RawSite[],
  ) {}

  /** The files, other than `file`, that declare a function `file` calls which asks. */
  filesCalledFrom(file: ts.SourceFile): ts.SourceFile[] {
    const files = new Set<ts.SourceFile>();
    for (const target of this.calledFunctions(file)) {
      const other = target.getSourceFile();
      if (other !== file && !files.has(other) && this.asks(target, 0).asks) files.add(other);
    }
    return [...files];
  }

  private asks(fn: ts.FunctionLikeDeclaration, depth: number, seen = new Set<ts.FunctionLikeDeclaration>()): { asks: boolean; complete: boolean } {
    const known = this.memo.get(fn);
    if (known !== undefined) return { asks: known, complete: true };
    if (seen.has(fn) || !fn.body) return { asks: false, complete: !fn.body };
    if (depth >= MAX_HELPER_DEPTH) return { asks: false, complete: false };
    seen.add(fn);
    const file = fn.getSourceFile();
    const inside = (node: ts.Node): boolean => node.getSourceFile() === file && node.pos >= fn.pos && node.end <= fn.end;
    // Only a file with the words of a question can hold one (the cheap text check of the CLI).
    let asks = mightContainSites(file.text) &&
      this.rawsOf(file).some(raw => (raw.kind === 'elicitation' || raw.kind === 'sampling' || raw.kind === 'roots') && inside(raw.node));
    let complete = true;
    for (const g of asks ? [] : this.calledFunctions(fn.body)) {
      if (g === fn) continue;
      const result = this.asks(g, depth + 1, seen);
      complete &&= result.complete;
      if (result.asks) {
        asks = true;
        break;
      }
    }
    // A `false` met inside a cycle or cut by the depth may only be false for this walk; a `true` always holds.
    if (asks || (complete && seen.size === 1)) this.memo.set(fn, asks);
    return { asks, complete: asks || complete };
  }

  /**
   * The project functions (not declarations, packages or the SDK) the calls under `node` reach. Only
   * the shapes a helper is called with are resolved, `askYesNo(...)` and `this.a.b(...)`: a method
   * call on any other value would make the checker resolve its overloads (`z.object`, `server.tool`).
   */
  private calledFunctions(node: ts.Node): ts.FunctionLikeDeclaration[] {
    const ts = this.ts;
    const found: ts.FunctionLikeDeclaration[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && isHelperCallee(ts, skipOuter(ts, n.expression))) {
        const target = functionOf(ts, this.checker, n.expression);
        if (target && isProjectSource(target.getSourceFile())) found.push(target);
      }
      n.forEachChild(visit);
    };
    visit(node);
    return found;
  }
}

const MAX_HELPER_DEPTH = 4;

function isHelperCallee(ts: TS, callee: ts.Expression): boolean {
  if (ts.isIdentifier(callee)) return true;
  let e: ts.Expression = callee;
  while (ts.isPropertyAccessExpression(e)) e = e.expression;
  return e.kind === ts.SyntaxKind.ThisKeyword;
}

/**
 * Why the helper `fn`, exported or called from other files, cannot be split there, or the names its
 * parts take. Every use of it outside its own file must be one of `calls` (the callers the rewrite
 * changes) or the specifier of a named import (`import { askYesNo } from './ask.js'`), which the
 * rewrite replaces by the parts; the parts' names must be free in its file and in every importer.
 */
export function crossFileHelperProblem(ts: TS, checker: ts.TypeChecker, program: ts.Program, fn: ts.FunctionLikeDeclaration, name: string, calls: readonly ts.CallExpression[]):
    string | { partNames: { request: string; result: string } } {
  const home = fn.getSourceFile();
  const declaration = helperDeclaration(ts, fn);
  if (!declaration) return `helper ${name}() is not declared where the split can replace it`;
  if (!ts.isMethodDeclaration(declaration)) {
    const modifiers = ts.getModifiers(declaration as ts.FunctionDeclaration | ts.VariableStatement) ?? [];
    if (modifiers.some(m => m.kind === ts.SyntaxKind.DefaultKeyword)) return `helper ${name}() is a default export; export it by name`;
    const exported = helperExport(ts, fn);
    if (exported === 'list') return `helper ${name}() is exported through an export list; export it where it is declared (\`export async function ${name}\`)`;
    if (!exported && calls.some(c => c.getSourceFile() !== home)) return `helper ${name}() is called from other files but not exported where it is declared`;
  }
  const nameNode = functionNameNode(ts, fn);
  const callees = new Set<ts.Node>(calls.map(c => {
    const callee = skipOuter(ts, c.expression);
    return ts.isPropertyAccessExpression(callee) ? callee.name : callee;
  }));
  const isHelper = (id: ts.Identifier): boolean => {
    let symbol = checker.getSymbolAtLocation(id);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    return !!symbol?.declarations?.some(d => d === fn || d === fn.parent || (nameNode !== undefined && d === nameNode.parent));
  };
  const importers: ts.SourceFile[] = [];
  for (const file of program.getSourceFiles()) {
    if (file === home || !isProjectSource(file) || !file.text.includes(name)) continue;
    let problem: string | undefined;
    let uses = false;
    const visit = (node: ts.Node): void => {
      if (problem) return;
      if (ts.isIdentifier(node) && node.text === name && isHelper(node)) {
        uses = true;
        problem = useProblem(ts, node, callees, name);
        if (problem) {
          const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
          problem = `helper ${name}() ${problem} in ${file.fileName.split('/').pop()}:${line}, which would break when it is split into a request part and a result part`;
        }
      }
      node.forEachChild(visit);
    };
    visit(file);
    if (problem) return problem;
    if (uses) importers.push(file);
  }
  // One name for each part, free wherever the helper is known.
  const names = new NameAllocator(ts, [home, ...importers]);
  return { partNames: { request: names.take(`${name}Request`), result: names.take(`${name}Result`) } };
}

/** Why this use of the helper in another file is neither a rewritten call nor a plain named import. */
function useProblem(ts: TS, id: ts.Identifier, callees: ReadonlySet<ts.Node>, name: string): string | undefined {
  if (callees.has(id)) return undefined;
  const parent = id.parent;
  if (parent && ts.isImportSpecifier(parent)) {
    if (parent.propertyName) return `is imported under another name (\`${parent.getText()}\`)`;
    if (parent.isTypeOnly || parent.parent.parent.isTypeOnly) return 'is imported as a type';
    return undefined;
  }
  if (parent && ts.isExportSpecifier(parent)) return 'is exported again';
  if (parent && (ts.isPropertyAccessExpression(parent) || ts.isQualifiedName(parent)) && (parent as ts.PropertyAccessExpression).name === id) {
    return `is reached as \`${parent.getText()}\``;
  }
  return `is used as a value (\`${id.parent?.getText().slice(0, 60) ?? name}\`)`;
}
