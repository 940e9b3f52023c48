import type * as ts from 'typescript';
import { isFunctionLike, resolveIdentifier } from './scope.js';
import { skipOuter, type SdkResolver } from './sdk.js';
import type { TS } from './types.js';

/**
 * Where the server a handler is registered on is constructed: the `new McpServer(...)` /
 * `new Server(...)` expressions the codec must be wired into.
 */
export function serverConstructions(ts: TS, expr: ts.Expression, resolver: SdkResolver, seen = new Set<ts.Node>()): ts.NewExpression[] {
  const e = skipOuter(ts, expr);
  if (seen.has(e)) return [];
  seen.add(e);
  if (ts.isNewExpression(e)) return resolver.serverClassOf(e.expression) ? [e] : [];
  if (ts.isPropertyAccessExpression(e)) {
    if (e.expression.kind === ts.SyntaxKind.ThisKeyword) return thisMember(ts, e, resolver, seen);
    // mcpServer.server: the low-level server lives inside the McpServer built here.
    if (e.name.text === 'server') return serverConstructions(ts, e.expression, resolver, seen);
    return [];
  }
  if (ts.isAwaitExpression(e)) return serverConstructions(ts, e.expression, resolver, seen);
  if (ts.isConditionalExpression(e)) {
    return [...serverConstructions(ts, e.whenTrue, resolver, seen), ...serverConstructions(ts, e.whenFalse, resolver, seen)];
  }
  if (ts.isCallExpression(e)) return factoryResults(ts, e, resolver, seen);
  if (!ts.isIdentifier(e)) return [];
  const decl = resolveIdentifier(ts, e);
  if (!decl) return [];
  const node = decl.declaration;
  if (ts.isVariableDeclaration(node)) {
    if (ts.isObjectBindingPattern(node.name) && node.initializer) return serverConstructions(ts, node.initializer, resolver, seen);
    if (node.initializer) return serverConstructions(ts, node.initializer, resolver, seen);
    return assignmentsTo(ts, decl.scope, right => serverConstructions(ts, right, resolver, seen), left => ts.isIdentifier(left) && resolveIdentifier(ts, left)?.nameNode === decl.nameNode);
  }
  if (ts.isParameter(node) && isFunctionLike(ts, node.parent)) {
    const index = node.parent.parameters.indexOf(node);
    return resolver.callsOf(node.parent).flatMap(call => {
      const arg = call.arguments[index];
      return arg ? serverConstructions(ts, arg, resolver, seen) : [];
    });
  }
  return [];
}

function thisMember(ts: TS, access: ts.PropertyAccessExpression, resolver: SdkResolver, seen: Set<ts.Node>): ts.NewExpression[] {
  let cls: ts.Node | undefined = access.parent;
  while (cls && !ts.isClassLike(cls)) cls = cls.parent;
  if (!cls || !ts.isClassLike(cls)) return [];
  const member = access.name.text;
  const found: ts.NewExpression[] = [];
  for (const element of cls.members) {
    if (ts.isPropertyDeclaration(element) && element.name.getText() === member && element.initializer) {
      found.push(...serverConstructions(ts, element.initializer, resolver, seen));
    }
    if (ts.isConstructorDeclaration(element)) {
      element.parameters.forEach((parameter, index) => {
        if (ts.isIdentifier(parameter.name) && parameter.name.text === member && ts.getModifiers(parameter)?.length) {
          found.push(...constructorArguments(ts, cls as ts.ClassLikeDeclaration, index, resolver, seen));
        }
      });
    }
  }
  found.push(...assignmentsTo(ts, cls, right => serverConstructions(ts, right, resolver, seen),
    left => ts.isPropertyAccessExpression(left) && left.expression.kind === ts.SyntaxKind.ThisKeyword && left.name.text === member));
  return found;
}

/**
 * `new Wrapper(server)`: the argument passed for a constructor parameter, in this file, and where
 * the files are planned together, in the others that construct the class.
 */
function constructorArguments(ts: TS, cls: ts.ClassLikeDeclaration, index: number, resolver: SdkResolver, seen: Set<ts.Node>): ts.NewExpression[] {
  const name = cls.name?.text;
  if (!name) return [];
  const found: ts.NewExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === name) {
      const arg = node.arguments?.[index];
      if (arg) found.push(...serverConstructions(ts, arg, resolver, seen));
    }
    node.forEachChild(visit);
  };
  visit(cls.getSourceFile());
  const ctor = cls.members.find(ts.isConstructorDeclaration);
  if (ctor && resolver.crossFileServers && resolver.externalConstructions) {
    for (const construction of resolver.externalConstructions(ctor)) {
      const arg = construction.getSourceFile() !== cls.getSourceFile() ? construction.arguments?.[index] : undefined;
      if (arg) found.push(...serverConstructions(ts, arg, resolver, seen));
    }
  }
  return found;
}

function factoryResults(ts: TS, call: ts.CallExpression, resolver: SdkResolver, seen: Set<ts.Node>): ts.NewExpression[] {
  const callee = skipOuter(ts, call.expression);
  if (!ts.isIdentifier(callee)) return [];
  const decl = resolveIdentifier(ts, callee);
  let fn: ts.Node | undefined = decl?.declaration;
  if (fn && ts.isVariableDeclaration(fn)) fn = fn.initializer && skipOuter(ts, fn.initializer);
  if (!fn || !isFunctionLike(ts, fn) || !fn.body) return [];
  if (!ts.isBlock(fn.body)) return serverConstructions(ts, fn.body, resolver, seen);
  const found: ts.NewExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(ts, node)) return;
    if (ts.isReturnStatement(node) && node.expression) found.push(...serverConstructions(ts, node.expression, resolver, seen));
    node.forEachChild(visit);
  };
  fn.body.forEachChild(visit);
  return found;
}

function assignmentsTo(ts: TS, scope: ts.Node, onRight: (right: ts.Expression) => ts.NewExpression[], matches: (left: ts.Expression) => boolean): ts.NewExpression[] {
  const found: ts.NewExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && matches(node.left)) found.push(...onRight(node.right));
    node.forEachChild(visit);
  };
  visit(scope);
  return found;
}

/**
 * A construction's identity across edits of its file: the file and its rank among the `new`
 * expressions with the same callee text. The rewrite inserts and removes no server constructions,
 * so the rank survives the edits the other stages make to the file.
 */
export function constructionKey(ts: TS, construction: ts.NewExpression): string {
  const file = construction.getSourceFile();
  const callee = construction.expression.getText(file);
  return JSON.stringify([file.fileName, callee, sameCallee(ts, file, callee).indexOf(construction)]);
}

/** The construction a key names, in the file as it is now. */
export function constructionOfKey(ts: TS, file: ts.SourceFile, key: string): ts.NewExpression | undefined {
  const [fileName, callee, rank] = JSON.parse(key) as [string, string, number];
  if (fileName !== file.fileName) return undefined;
  return sameCallee(ts, file, callee)[rank];
}

function sameCallee(ts: TS, file: ts.SourceFile, callee: string): ts.NewExpression[] {
  const found: ts.NewExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && node.expression.getText(file) === callee) found.push(node);
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}
