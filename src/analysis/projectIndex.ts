import type * as ts from 'typescript';
import { isFunctionLike } from './scope.js';
import { isProjectSource, skipOuter } from './sdk.js';
import type { TS } from './types.js';

/**
 * Calls across the files of a program, indexed by the function they call, so a helper exported from
 * one file can be traced to the handlers in other files that call it. Built once per program.
 */
export class ProjectIndex {
  private calls: Map<ts.Node, ts.CallExpression[]> | undefined;
  /** `new Name(...)` of a project class, by its constructor. */
  private readonly news = new Map<ts.ConstructorDeclaration, ts.NewExpression[]>();

  private readonly programOf: () => ts.Program;

  /** The program, or how to get it: an index nobody asks builds none. */
  constructor(private readonly ts: TS, program: ts.Program | (() => ts.Program)) {
    this.programOf = typeof program === 'function' ? program : () => program;
  }

  callsOf(fn: ts.FunctionLikeDeclaration): ts.CallExpression[] {
    this.calls ??= this.build();
    return this.calls.get(fn) ?? [];
  }

  /** The `new` expressions of the class whose constructor this is, anywhere in the program. */
  constructionsOf(ctor: ts.ConstructorDeclaration): ts.NewExpression[] {
    this.calls ??= this.build();
    return this.news.get(ctor) ?? [];
  }

  private build(): Map<ts.Node, ts.CallExpression[]> {
    const ts = this.ts;
    const checker = this.programOf().getTypeChecker();
    const calls = new Map<ts.Node, ts.CallExpression[]>();
    for (const sourceFile of this.programOf().getSourceFiles()) {
      if (!isProjectSource(sourceFile)) continue;
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node)) {
          const target = functionOf(ts, checker, node.expression);
          if (target) {
            const list = calls.get(target) ?? [];
            list.push(node);
            calls.set(target, list);
          }
        } else if (ts.isNewExpression(node)) {
          const ctor = constructorOf(ts, checker, node.expression);
          if (ctor && this.news.has(ctor)) this.news.get(ctor)!.push(node);
          else if (ctor) this.news.set(ctor, [node]);
        }
        node.forEachChild(visit);
      };
      visit(sourceFile);
    }
    return calls;
  }
}

function constructorOf(ts: TS, checker: ts.TypeChecker, expression: ts.Expression): ts.ConstructorDeclaration | undefined {
  const e = skipOuter(ts, expression);
  if (!ts.isIdentifier(e)) return undefined;
  let symbol = checker.getSymbolAtLocation(e);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.valueDeclaration;
  if (!declaration || !ts.isClassDeclaration(declaration) || declaration.getSourceFile().isDeclarationFile) return undefined;
  return declaration.members.find(ts.isConstructorDeclaration);
}

export function functionOf(ts: TS, checker: ts.TypeChecker, callee: ts.Expression): ts.FunctionLikeDeclaration | undefined {
  const e = skipOuter(ts, callee);
  const nameNode = ts.isPropertyAccessExpression(e) ? e.name : ts.isIdentifier(e) ? e : undefined;
  if (!nameNode) return undefined;
  let symbol = checker.getSymbolAtLocation(nameNode);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
  if (!declaration || declaration.getSourceFile().isDeclarationFile) return undefined;
  if (isFunctionLike(ts, declaration)) return declaration;
  if (ts.isVariableDeclaration(declaration) && declaration.initializer) {
    const init = skipOuter(ts, declaration.initializer);
    if (isFunctionLike(ts, init)) return init;
  }
  if (ts.isPropertyDeclaration(declaration) && declaration.initializer) {
    const init = skipOuter(ts, declaration.initializer);
    if (isFunctionLike(ts, init)) return init;
  }
  return undefined;
}
