import type * as ts from 'typescript';
import { fileLine } from './places.js';
import { isFunctionLike, isWithinNode, resolveIdentifier } from './scope.js';
import { functionNameNode, isProjectSource, skipOuter } from './sdk.js';
import type { TS } from './types.js';

/**
 * Calls across the files of a program, indexed by the function they call, so a helper exported from
 * one file can be traced to the handlers in other files that call it. Built once per program.
 */
export class ProjectIndex {
  private calls: Map<ts.Node, ts.CallExpression[]> | undefined;
  /** Calls of a function through a value that wraps it or a bound copy of it: how each reaches it. */
  private readonly wrapped = new Map<ts.Node, Array<{ call: ts.CallExpression; via: string }>>();
  /** Every function's indirect calls (indirectCallsOf), once asked for. */
  private readonly answered = new Map<ts.FunctionLikeDeclaration, ts.CallExpression[]>();
  /** `new Name(...)` of a project class, by its constructor. */
  private readonly news = new Map<ts.ConstructorDeclaration, ts.NewExpression[]>();

  private readonly programOf: () => ts.Program;

  /** The program, or how to get it: an index nobody asks builds none. */
  constructor(private readonly ts: TS, program: ts.Program | (() => ts.Program)) {
    this.programOf = typeof program === 'function' ? program : () => program;
  }

  /** The calls of `fn` itself, whose arguments are its parameters. */
  callsOf(fn: ts.FunctionLikeDeclaration): ts.CallExpression[] {
    this.calls ??= this.build();
    return this.calls.get(fn) ?? [];
  }

  /**
   * The calls that may run `fn` without calling it: through an interface or base class member it
   * implements or overrides, a bound copy of it, a function that wraps it (`indirectCallVia` says
   * which). A request that reaches one of them reaches `fn`; their arguments are not its parameters.
   */
  indirectCallsOf(fn: ts.FunctionLikeDeclaration): ts.CallExpression[] {
    this.calls ??= this.build();
    const known = this.answered.get(fn);
    if (known) return known;
    const direct = this.calls.get(fn) ?? [];
    const all: ts.CallExpression[] = [];
    const add = (call: ts.CallExpression, via: string): void => {
      if (all.includes(call) || direct.includes(call)) return;
      all.push(call);
      let vias = INDIRECT.get(call);
      if (!vias) INDIRECT.set(call, (vias = new Map()));
      vias.set(fn, via);
    };
    for (const { call, via } of this.wrapped.get(fn) ?? []) add(call, via);
    for (const member of membersImplemented(this.ts, this.programOf().getTypeChecker(), fn)) {
      for (const call of this.calls.get(member) ?? []) add(call, `through ${memberName(this.ts, member)} (${fileLine(member)}), ${ownerKind(this.ts, member)}`);
    }
    this.answered.set(fn, all);
    return all;
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
          const target = functionOf(ts, checker, node.expression) ?? memberSignatureOf(ts, checker, node.expression);
          if (target) {
            const list = calls.get(target) ?? [];
            list.push(node);
            calls.set(target, list);
          } else {
            const wrapped = wrappedFunctionOf(ts, checker, node.expression);
            if (wrapped) this.wrapped.set(wrapped.fn, [...(this.wrapped.get(wrapped.fn) ?? []), { call: node, via: wrapped.via }]);
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

/** How indirect calls reach a function, by call and function (filled by ProjectIndex.callsOf). */
const INDIRECT = new WeakMap<ts.CallExpression, Map<ts.FunctionLikeDeclaration, string>>();

/**
 * How `call` reaches `fn` when it does not call it directly: `through ToolProtocol.toolCall(), which
 * an interface ...`, `through withRetry() (tools.ts:12), which wraps it`. Undefined for a direct call.
 */
export function indirectCallVia(call: ts.CallExpression, fn: ts.FunctionLikeDeclaration): string | undefined {
  return INDIRECT.get(call)?.get(fn);
}

/**
 * Without type information, in the function's own file: calls of a constant that holds a bound copy
 * of it or what a function made of it (`const confirm = ask.bind(null)`, `const safe = logged(ask)`,
 * `const run = this.ask.bind(this)` in its class), described as `indirectCallVia` describes them.
 */
export function indirectCallsInFile(ts: TS, fn: ts.FunctionLikeDeclaration): ts.CallExpression[] {
  const name = functionNameNode(ts, fn);
  if (!name) return [];
  const file = fn.getSourceFile();
  const isFn = (e: ts.Expression): boolean => {
    const inner = skipOuter(ts, e);
    if (ts.isIdentifier(inner)) return inner.text === name.text && resolveIdentifier(ts, inner)?.nameNode === name;
    return ts.isMethodDeclaration(fn) && ts.isPropertyAccessExpression(inner) && inner.expression.kind === ts.SyntaxKind.ThisKeyword &&
      inner.name.text === name.text && isWithinNode(inner, fn.parent);
  };
  const holders = new Map<ts.Identifier, string>();
  const calls: ts.CallExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.getCombinedNodeFlags(node) & ts.NodeFlags.Const) {
      const init = skipOuter(ts, node.initializer);
      if (ts.isCallExpression(init)) {
        const called = skipOuter(ts, init.expression);
        if (ts.isPropertyAccessExpression(called) && called.name.text === 'bind' && isFn(called.expression)) {
          holders.set(node.name, `through a bound copy of it (\`${node.name.text}\`, ${fileLine(node)})`);
        } else if (init.arguments.some(isFn)) {
          holders.set(node.name, `through ${called.getText()}(), which wraps it (\`${node.name.text}\`, ${fileLine(node)})`);
        }
      }
    }
    node.forEachChild(visit);
  };
  visit(file);
  if (holders.size === 0) return [];
  const collect = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = skipOuter(ts, node.expression);
      const holder = ts.isIdentifier(callee) ? resolveIdentifier(ts, callee)?.nameNode : undefined;
      const via = holder && holders.get(holder);
      if (via) {
        calls.push(node);
        let vias = INDIRECT.get(node);
        if (!vias) INDIRECT.set(node, (vias = new Map()));
        vias.set(fn, via);
      }
    }
    node.forEachChild(collect);
  };
  collect(file);
  return calls;
}

/** `tool.toolCall(request)` where `tool` is typed by an interface, or an abstract method: the member called. */
function memberSignatureOf(ts: TS, checker: ts.TypeChecker, callee: ts.Expression): ts.Node | undefined {
  const e = skipOuter(ts, callee);
  if (!ts.isPropertyAccessExpression(e)) return undefined;
  const declaration = checker.getSymbolAtLocation(e.name)?.declarations?.[0];
  if (!declaration || declaration.getSourceFile().isDeclarationFile || !isProjectSource(declaration.getSourceFile())) return undefined;
  return ts.isMethodSignature(declaration) || ts.isPropertySignature(declaration) ? declaration : undefined;
}

/**
 * `safeAsk()` where `const safeAsk = withRetry(ask)` or `const safeAsk = this.ask.bind(this)`: the
 * function of the project the called value wraps, and how.
 */
function wrappedFunctionOf(ts: TS, checker: ts.TypeChecker, callee: ts.Expression): { fn: ts.FunctionLikeDeclaration; via: string } | undefined {
  const e = skipOuter(ts, callee);
  const nameNode = ts.isPropertyAccessExpression(e) ? e.name : ts.isIdentifier(e) ? e : undefined;
  if (!nameNode) return undefined;
  let symbol = checker.getSymbolAtLocation(nameNode);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.valueDeclaration;
  if (!declaration || (!ts.isVariableDeclaration(declaration) && !ts.isPropertyDeclaration(declaration)) || !declaration.initializer) return undefined;
  if (!isProjectSource(declaration.getSourceFile())) return undefined;
  const init = skipOuter(ts, declaration.initializer);
  if (!ts.isCallExpression(init)) return undefined;
  const called = skipOuter(ts, init.expression);
  if (ts.isPropertyAccessExpression(called) && called.name.text === 'bind') {
    const fn = functionOf(ts, checker, called.expression);
    return fn && { fn, via: `through a bound copy of it (\`${declaration.name.getText()}\`, ${fileLine(declaration)})` };
  }
  for (const argument of init.arguments) {
    const fn = functionOf(ts, checker, argument);
    if (fn) return { fn, via: `through ${called.getText()}(), which wraps it (\`${declaration.name.getText()}\`, ${fileLine(declaration)})` };
  }
  return undefined;
}

/**
 * The interface and base class members a method implements or overrides, and theirs in turn: calls
 * of those may run it.
 */
export function membersImplemented(ts: TS, checker: ts.TypeChecker, fn: ts.FunctionLikeDeclaration): ts.Node[] {
  const found: ts.Node[] = [];
  const visit = (member: ts.Node): void => {
    const owner = member.parent;
    const name = (member as ts.MethodDeclaration).name;
    if (!owner || !(ts.isClassLike(owner) || ts.isInterfaceDeclaration(owner)) || !name || !ts.isIdentifier(name)) return;
    for (const clause of owner.heritageClauses ?? []) {
      for (const base of clause.types) {
        const property = checker.getTypeAtLocation(base).getProperty(name.text);
        for (const declaration of property?.declarations ?? []) {
          if (declaration === member || found.includes(declaration) || declaration.getSourceFile().isDeclarationFile) continue;
          found.push(declaration);
          visit(declaration);
        }
      }
    }
  };
  if (ts.isMethodDeclaration(fn) || (ts.isPropertyDeclaration(fn.parent) && fn.parent.initializer === fn)) visit(ts.isMethodDeclaration(fn) ? fn : fn.parent);
  return found;
}

function memberName(ts: TS, member: ts.Node): string {
  const owner = member.parent as ts.ClassLikeDeclaration | ts.InterfaceDeclaration;
  return `${owner.name?.text ?? '<class>'}.${(member as ts.MethodDeclaration).name.getText()}()`;
}

function ownerKind(ts: TS, member: ts.Node): string {
  if (ts.isInterfaceDeclaration(member.parent)) return 'an interface member';
  const abstract = ts.canHaveModifiers(member) && ts.getModifiers(member)?.some(m => m.kind === ts.SyntaxKind.AbstractKeyword);
  return abstract ? 'an abstract method' : 'a method it overrides';
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
