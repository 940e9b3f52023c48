import type * as ts from 'typescript';
import { functionOf } from './projectIndex.js';
import { isFunctionLike, resolveIdentifier, returnedValues } from './scope.js';
import { isProjectSource, skipOuter, type SdkResolver } from './sdk.js';
import type { TS } from './types.js';

/**
 * Where the server a handler is registered on is constructed: the `new McpServer(...)` /
 * `new Server(...)` expressions the codec must be wired into. `path`: the properties still to read
 * from the value found (`this.deps.server` looks for `deps`, then its `server`); `mcpServer.server`,
 * the low-level server inside an McpServer, is that McpServer's construction.
 */
export function serverConstructions(ts: TS, expr: ts.Expression, resolver: SdkResolver, seen = new Set<string>(), path: readonly string[] = []): ts.NewExpression[] {
  const e = skipOuter(ts, expr);
  const key = `${e.getSourceFile().fileName}:${e.pos}:${e.end}:${path.join('.')}`;
  if (seen.has(key)) return [];
  seen.add(key);
  const next = (node: ts.Expression, rest: readonly string[] = path): ts.NewExpression[] => serverConstructions(ts, node, resolver, seen, rest);
  if (ts.isNewExpression(e)) return (path.length === 0 || (path.length === 1 && path[0] === 'server')) && resolver.serverClassOf(e.expression) ? [e] : [];
  if (ts.isObjectLiteralExpression(e)) {
    // `{ server }` handed to a class or function that reads `deps.server`.
    const [name, ...rest] = path;
    const property = name === undefined ? undefined : e.properties.find(p => p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === name);
    if (property && ts.isPropertyAssignment(property)) return next(property.initializer, rest);
    if (property && ts.isShorthandPropertyAssignment(property)) return next(property.name, rest);
    return [];
  }
  if (ts.isPropertyAccessExpression(e)) {
    if (e.expression.kind === ts.SyntaxKind.ThisKeyword) return thisMember(ts, e, resolver, seen, path);
    return next(e.expression, [e.name.text, ...path]);
  }
  if (ts.isAwaitExpression(e)) return next(e.expression);
  if (ts.isConditionalExpression(e)) return [...next(e.whenTrue), ...next(e.whenFalse)];
  if (ts.isCallExpression(e)) return factoryResults(ts, e, resolver, seen, path);
  if (!ts.isIdentifier(e)) return [];
  const decl = resolveIdentifier(ts, e);
  if (!decl) return [];
  const node = decl.declaration;
  // `{ server }` destructured from a parameter or a local: read `server` of what it holds.
  const element = decl.nameNode.parent;
  const within = ts.isBindingElement(element) && ts.isObjectBindingPattern(element.parent) && element.parent.parent === node
    ? [(element.propertyName ?? element.name).getText(), ...path]
    : path;
  if (ts.isVariableDeclaration(node)) {
    if (node.initializer) return next(node.initializer, within);
    return assignmentsTo(ts, decl.scope, right => next(right), left => ts.isIdentifier(left) && resolveIdentifier(ts, left)?.nameNode === decl.nameNode);
  }
  if (ts.isParameter(node) && isFunctionLike(ts, node.parent)) return parameterArguments(ts, node, resolver, seen, within);
  return [];
}

/** What the calls (or, for a constructor, the `new` expressions) pass for a parameter. */
function parameterArguments(ts: TS, parameter: ts.ParameterDeclaration, resolver: SdkResolver, seen: Set<string>, path: readonly string[]): ts.NewExpression[] {
  const fn = parameter.parent as ts.FunctionLikeDeclaration;
  const index = fn.parameters.indexOf(parameter);
  if (ts.isConstructorDeclaration(fn)) return constructorArguments(ts, fn.parent, index, resolver, seen, path);
  return resolver.callsOf(fn).flatMap(call => {
    const arg = call.arguments[index];
    return arg ? serverConstructions(ts, arg, resolver, seen, path) : [];
  });
}

function thisMember(ts: TS, access: ts.PropertyAccessExpression, resolver: SdkResolver, seen: Set<string>, path: readonly string[]): ts.NewExpression[] {
  let cls: ts.Node | undefined = access.parent;
  while (cls && !ts.isClassLike(cls)) cls = cls.parent;
  if (!cls || !ts.isClassLike(cls)) return [];
  const member = access.name.text;
  const found: ts.NewExpression[] = [];
  for (const element of cls.members) {
    if (ts.isPropertyDeclaration(element) && element.name.getText() === member && element.initializer) {
      found.push(...serverConstructions(ts, element.initializer, resolver, seen, path));
    }
    if (ts.isConstructorDeclaration(element)) {
      element.parameters.forEach((parameter, index) => {
        if (ts.isIdentifier(parameter.name) && parameter.name.text === member && ts.getModifiers(parameter)?.length) {
          found.push(...constructorArguments(ts, cls as ts.ClassLikeDeclaration, index, resolver, seen, path));
        }
      });
    }
  }
  found.push(...assignmentsTo(ts, cls, right => serverConstructions(ts, right, resolver, seen, path),
    left => ts.isPropertyAccessExpression(left) && left.expression.kind === ts.SyntaxKind.ThisKeyword && left.name.text === member));
  return found;
}

/**
 * `new Wrapper(server)`: the argument passed for a constructor parameter, in this file, and where
 * the files are planned together, in the others that construct the class.
 */
function constructorArguments(ts: TS, cls: ts.ClassLikeDeclaration, index: number, resolver: SdkResolver, seen: Set<string>, path: readonly string[]): ts.NewExpression[] {
  const name = cls.name?.text;
  if (!name) return [];
  const found: ts.NewExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === name) {
      const arg = node.arguments?.[index];
      if (arg) found.push(...serverConstructions(ts, arg, resolver, seen, path));
    }
    node.forEachChild(visit);
  };
  visit(cls.getSourceFile());
  const ctor = cls.members.find(ts.isConstructorDeclaration);
  if (ctor && resolver.crossFileServers && resolver.externalConstructions) {
    for (const construction of resolver.externalConstructions(ctor)) {
      const arg = construction.getSourceFile() !== cls.getSourceFile() ? construction.arguments?.[index] : undefined;
      if (arg) found.push(...serverConstructions(ts, arg, resolver, seen, path));
    }
  }
  return found;
}

/** `makeServer()`: what the function returns, in this file, or (planned together) in the file it is imported from. */
function factoryResults(ts: TS, call: ts.CallExpression, resolver: SdkResolver, seen: Set<string>, path: readonly string[]): ts.NewExpression[] {
  const callee = skipOuter(ts, call.expression);
  if (!ts.isIdentifier(callee)) return [];
  const decl = resolveIdentifier(ts, callee);
  let fn: ts.Node | undefined = decl?.declaration;
  // Imported (checker mode, files planned together): the project function the import names.
  if (decl?.kind === 'import') fn = resolver.crossFileServers && resolver.checker ? functionOf(ts, resolver.checker, callee) : undefined;
  if (fn && ts.isVariableDeclaration(fn)) fn = fn.initializer && skipOuter(ts, fn.initializer);
  if (!fn || !isFunctionLike(ts, fn) || !fn.body || !isProjectSource(fn.getSourceFile())) return [];
  return returnedValues(ts, fn.body).flatMap(value => serverConstructions(ts, value, resolver, seen, path));
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
