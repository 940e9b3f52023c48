import type * as ts from 'typescript';
import type { TS } from './types.js';

/**
 * A small lexical scope resolver over the TypeScript AST. It answers "which declaration does this
 * identifier refer to" the same way with and without a type checker, so lint (which may have no
 * program) and the codemod (which always has one) agree on what a handler's locals are.
 */

export type DeclKind = 'parameter' | 'var' | 'let' | 'const' | 'function' | 'class' | 'catch' | 'import' | 'enum';

export interface LocalDecl {
  name: string;
  kind: DeclKind;
  /** The identifier that declares the name. */
  nameNode: ts.Identifier;
  /** The enclosing declaration: VariableDeclaration, ParameterDeclaration, FunctionDeclaration, ... */
  declaration: ts.Node;
  /** The node whose extent is the scope of the name. */
  scope: ts.Node;
}

const cache = new WeakMap<ts.Node, Map<string, LocalDecl>>();

export function isFunctionLike(ts: TS, node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function isScopeNode(ts: TS, node: ts.Node): boolean {
  return (
    isFunctionLike(ts, node) ||
    ts.isSourceFile(node) ||
    ts.isBlock(node) ||
    ts.isCaseBlock(node) ||
    ts.isModuleBlock(node) ||
    ts.isForStatement(node) ||
    ts.isForInStatement(node) ||
    ts.isForOfStatement(node) ||
    ts.isCatchClause(node) ||
    ts.isClassExpression(node)
  );
}

/** Every identifier a binding name (identifier or destructuring pattern) declares. */
export function bindingIdentifiers(ts: TS, name: ts.BindingName, out: ts.Identifier[] = []): ts.Identifier[] {
  if (ts.isIdentifier(name)) {
    out.push(name);
  } else {
    for (const element of name.elements) {
      if (ts.isBindingElement(element)) bindingIdentifiers(ts, element.name, out);
    }
  }
  return out;
}

function declKindOfList(ts: TS, list: ts.VariableDeclarationList): DeclKind {
  if (list.flags & ts.NodeFlags.Const) return 'const';
  if (list.flags & ts.NodeFlags.Let) return 'let';
  // `using` / `await using` are block scoped and immutable.
  if (list.flags & (ts.NodeFlags.Using | ts.NodeFlags.AwaitUsing)) return 'const';
  return 'var';
}

function addDecl(map: Map<string, LocalDecl>, decl: LocalDecl): void {
  // The first declaration wins: redeclared `var`s and overloads share one binding.
  if (!map.has(decl.name)) map.set(decl.name, decl);
}

function addVariableList(ts: TS, map: Map<string, LocalDecl>, list: ts.VariableDeclarationList, scope: ts.Node, onlyBlockScoped: boolean): void {
  const kind = declKindOfList(ts, list);
  if (onlyBlockScoped && kind === 'var') return;
  if (!onlyBlockScoped && kind !== 'var') return;
  for (const declaration of list.declarations) {
    for (const id of bindingIdentifiers(ts, declaration.name)) {
      addDecl(map, { name: id.text, kind, nameNode: id, declaration, scope });
    }
  }
}

/** `var` declarations and (in sloppy terms) nested ones hoist to the function; stop at nested functions. */
function collectVars(ts: TS, node: ts.Node, map: Map<string, LocalDecl>, scope: ts.Node): void {
  node.forEachChild(child => {
    if (isFunctionLike(ts, child) || ts.isClassLike(child)) return;
    if (ts.isVariableDeclarationList(child)) addVariableList(ts, map, child, scope, false);
    collectVars(ts, child, map, scope);
  });
}

function collectBlockScoped(ts: TS, statements: readonly ts.Node[], map: Map<string, LocalDecl>, scope: ts.Node): void {
  for (const statement of statements) {
    if (ts.isVariableStatement(statement)) {
      addVariableList(ts, map, statement.declarationList, scope, true);
    } else if (ts.isFunctionDeclaration(statement) && statement.name) {
      addDecl(map, { name: statement.name.text, kind: 'function', nameNode: statement.name, declaration: statement, scope });
    } else if (ts.isClassDeclaration(statement) && statement.name) {
      addDecl(map, { name: statement.name.text, kind: 'class', nameNode: statement.name, declaration: statement, scope });
    } else if (ts.isEnumDeclaration(statement)) {
      addDecl(map, { name: statement.name.text, kind: 'enum', nameNode: statement.name, declaration: statement, scope });
    } else if (ts.isImportDeclaration(statement) && statement.importClause) {
      const clause = statement.importClause;
      if (clause.name) addDecl(map, { name: clause.name.text, kind: 'import', nameNode: clause.name, declaration: statement, scope });
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) {
        addDecl(map, { name: bindings.name.text, kind: 'import', nameNode: bindings.name, declaration: statement, scope });
      } else if (bindings) {
        for (const element of bindings.elements) {
          addDecl(map, { name: element.name.text, kind: 'import', nameNode: element.name, declaration: element, scope });
        }
      }
    } else if (ts.isImportEqualsDeclaration(statement)) {
      addDecl(map, { name: statement.name.text, kind: 'import', nameNode: statement.name, declaration: statement, scope });
    }
  }
}

/** The names a scope node declares, memoised per node. */
export function scopeDeclarations(ts: TS, scope: ts.Node): Map<string, LocalDecl> {
  let map = cache.get(scope);
  if (map) return map;
  map = new Map();
  if (isFunctionLike(ts, scope)) {
    for (const parameter of scope.parameters) {
      for (const id of bindingIdentifiers(ts, parameter.name)) {
        addDecl(map, { name: id.text, kind: 'parameter', nameNode: id, declaration: parameter, scope });
      }
    }
    if (scope.body) {
      collectVars(ts, scope.body, map, scope);
      if (ts.isBlock(scope.body)) collectBlockScoped(ts, scope.body.statements, map, scope);
    }
    if (ts.isFunctionExpression(scope) && scope.name) {
      addDecl(map, { name: scope.name.text, kind: 'function', nameNode: scope.name, declaration: scope, scope });
    }
  } else if (ts.isSourceFile(scope)) {
    collectVars(ts, scope, map, scope);
    collectBlockScoped(ts, scope.statements, map, scope);
  } else if (ts.isBlock(scope) || ts.isModuleBlock(scope)) {
    // A function body block is covered by its function.
    if (!(scope.parent && isFunctionLike(ts, scope.parent) && (scope.parent as ts.FunctionLikeDeclaration).body === scope)) {
      collectBlockScoped(ts, scope.statements, map, scope);
    }
  } else if (ts.isCaseBlock(scope)) {
    for (const clause of scope.clauses) collectBlockScoped(ts, clause.statements, map, scope);
  } else if (ts.isForStatement(scope) || ts.isForInStatement(scope) || ts.isForOfStatement(scope)) {
    const init = scope.initializer;
    if (init && ts.isVariableDeclarationList(init)) addVariableList(ts, map, init, scope, true);
  } else if (ts.isCatchClause(scope)) {
    const declaration = scope.variableDeclaration;
    if (declaration) {
      for (const id of bindingIdentifiers(ts, declaration.name)) {
        addDecl(map, { name: id.text, kind: 'catch', nameNode: id, declaration, scope });
      }
    }
  } else if (ts.isClassExpression(scope) && scope.name) {
    addDecl(map, { name: scope.name.text, kind: 'class', nameNode: scope.name, declaration: scope, scope });
  }
  cache.set(scope, map);
  return map;
}

/** Resolves a name as seen from `from`, walking outwards through lexical scopes. */
export function resolveName(ts: TS, name: string, from: ts.Node): LocalDecl | undefined {
  for (let node: ts.Node | undefined = from; node; node = node.parent) {
    if (isScopeNode(ts, node)) {
      const found = scopeDeclarations(ts, node).get(name);
      if (found) return found;
    }
  }
  return undefined;
}

/** Resolves an identifier in value position to its declaration. */
export function resolveIdentifier(ts: TS, id: ts.Identifier): LocalDecl | undefined {
  return resolveName(ts, id.text, id);
}

/** Whether an identifier is read or written as a value (not a property name, key, label, type or declaration). */
export function isValueReference(ts: TS, id: ts.Identifier): boolean {
  const parent = id.parent;
  if (!parent) return false;
  if (ts.isPropertyAccessExpression(parent) && parent.name === id) return false;
  if (ts.isQualifiedName(parent)) return false;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent) ||
       ts.isPropertySignature(parent) || ts.isMethodSignature(parent) || ts.isGetAccessorDeclaration(parent) ||
       ts.isSetAccessorDeclaration(parent) || ts.isEnumMember(parent)) && parent.name === id) {
    return false;
  }
  if (ts.isBindingElement(parent) && (parent.propertyName === id || parent.name === id)) return false;
  if ((ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isFunctionDeclaration(parent) ||
       ts.isFunctionExpression(parent) || ts.isClassDeclaration(parent) || ts.isClassExpression(parent) ||
       ts.isInterfaceDeclaration(parent) || ts.isTypeAliasDeclaration(parent) || ts.isEnumDeclaration(parent) ||
       ts.isModuleDeclaration(parent) || ts.isTypeParameterDeclaration(parent)) && parent.name === id) {
    return false;
  }
  if (ts.isLabeledStatement(parent) || ts.isBreakStatement(parent) || ts.isContinueStatement(parent)) return false;
  if (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent) || ts.isImportClause(parent) || ts.isNamespaceImport(parent)) return false;
  if (ts.isJsxAttribute(parent)) return false;
  if (ts.isMetaProperty(parent)) return false;
  // Anything inside a type annotation is not a value.
  for (let node: ts.Node | undefined = parent; node; node = node.parent) {
    if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return false;
    if (ts.isTypeQueryNode(node)) return false;
    if (ts.isStatement(node) || ts.isSourceFile(node)) break;
  }
  return true;
}

/** The outermost destructuring target around `id` (`[a, b]` in `[a, b] = ...`, `({ a })`), or `id` itself. */
export function assignmentTargetOf(ts: TS, id: ts.Expression): ts.Node {
  let node: ts.Node = id;
  while (node.parent && (ts.isParenthesizedExpression(node.parent) || ts.isArrayLiteralExpression(node.parent) ||
         ts.isShorthandPropertyAssignment(node.parent) || ts.isSpreadElement(node.parent) ||
         (ts.isPropertyAssignment(node.parent) && node.parent.initializer === node) || ts.isObjectLiteralExpression(node.parent))) {
    node = node.parent;
  }
  return node;
}

/** Whether this occurrence of a name (or a member, `map[key]`) writes it (assignment target, `++`, `--`). */
export function isWriteReference(ts: TS, id: ts.Expression): boolean {
  const node = assignmentTargetOf(ts, id);
  const parent = node.parent;
  if (!parent) return false;
  if (ts.isBinaryExpression(parent) && parent.left === node) {
    const op = parent.operatorToken.kind;
    return op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment;
  }
  if ((ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) &&
      (parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken)) {
    return true;
  }
  if ((ts.isForOfStatement(parent) || ts.isForInStatement(parent)) && parent.initializer === node) return true;
  return false;
}

/** Whether `decl` is assigned (or incremented) anywhere under `node`. */
export function isAssignedIn(ts: TS, node: ts.Node, decl: LocalDecl): boolean {
  let assigned = false;
  forEachValueIdentifier(ts, node, id => { if (!assigned && isWriteReference(ts, id) && resolveIdentifier(ts, id) === decl) assigned = true; });
  return assigned;
}

/** Calls `visit` for every value-position identifier under `node`. */
export function forEachValueIdentifier(ts: TS, node: ts.Node, visit: (id: ts.Identifier) => void): void {
  const walk = (n: ts.Node): void => {
    if (ts.isIdentifier(n)) {
      if (isValueReference(ts, n)) visit(n);
      return;
    }
    if (ts.isTypeNode(n) && !ts.isExpressionWithTypeArguments(n)) return;
    n.forEachChild(walk);
  };
  walk(node);
}

/** The closest enclosing function-like node of `node` (not `node` itself). */
export function enclosingFunction(ts: TS, node: ts.Node): ts.FunctionLikeDeclaration | undefined {
  for (let n = node.parent; n; n = n.parent) {
    if (isFunctionLike(ts, n)) return n;
  }
  return undefined;
}

/** Whether `node` is `ancestor` or sits inside it. */
export function isWithinNode(node: ts.Node, ancestor: ts.Node): boolean {
  for (let n: ts.Node | undefined = node; n; n = n.parent) if (n === ancestor) return true;
  return false;
}

/** The values a function body returns (an arrow's expression, or its return statements outside nested functions). */
export function returnedValues(ts: TS, body: ts.ConciseBody): ts.Expression[] {
  if (!ts.isBlock(body)) return [body];
  const values: ts.Expression[] = [];
  const walk = (node: ts.Node): void => {
    if (isFunctionLike(ts, node)) return;
    if (ts.isReturnStatement(node) && node.expression) values.push(node.expression);
    ts.forEachChild(node, walk);
  };
  ts.forEachChild(body, walk);
  return values;
}

/**
 * Whether other modules may reach a declaration of the file: `export` on its statement (a function's,
 * a variable's), or `export { name }` / `export default name` naming it.
 */
export function isExported(ts: TS, file: ts.SourceFile, name: string, declaration: ts.Node): boolean {
  const statement = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
  if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some(m => m.kind === ts.SyntaxKind.ExportKeyword)) return true;
  return file.statements.some(s => (ts.isExportDeclaration(s) && !s.moduleSpecifier && s.exportClause !== undefined &&
    ts.isNamedExports(s.exportClause) && s.exportClause.elements.some(e => (e.propertyName ?? e.name).getText() === name)) ||
    (ts.isExportAssignment(s) && ts.isIdentifier(s.expression) && s.expression.text === name));
}
