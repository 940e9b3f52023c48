import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { findVariable } from '@typescript-eslint/utils/ast-utils';

/**
 * Small ESTree helpers for the rules that read MRTR code directly (the push-style rules use the
 * shared TypeScript analysis instead). They work on any parser's tree: espree for .js, typescript-eslint for .ts.
 */

export type AnyRuleContext = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

/** How far identifiers are followed to their `const` initializers. */
export const MAX_TRACE_DEPTH = 5;

export function isMcpModule(module: string): boolean {
  return module.startsWith('@modelcontextprotocol/');
}

export function isV2ServerModule(module: string): boolean {
  return module === '@modelcontextprotocol/server';
}

/** Strips wrappers that leave the value as it is: `x as T`, `<T>x`, `x!`, `x satisfies T`, and the `?.` chain node. */
export function skipTypeWrappers(node: TSESTree.Node): TSESTree.Node {
  let n = node;
  for (;;) {
    switch (n.type) {
      case AST_NODE_TYPES.TSAsExpression:
      case AST_NODE_TYPES.TSTypeAssertion:
      case AST_NODE_TYPES.TSNonNullExpression:
      case AST_NODE_TYPES.TSSatisfiesExpression:
      case AST_NODE_TYPES.ChainExpression:
        n = n.expression;
        break;
      default:
        return n;
    }
  }
}

export function isCast(node: TSESTree.Node): node is TSESTree.TSAsExpression | TSESTree.TSTypeAssertion {
  return node.type === AST_NODE_TYPES.TSAsExpression || node.type === AST_NODE_TYPES.TSTypeAssertion;
}

/** `a.b`, `a['b']`, `` a[`b`] `` → `b`; `undefined` for a computed key that is not a constant. */
export function memberName(node: TSESTree.MemberExpression): string | undefined {
  if (!node.computed) return node.property.type === AST_NODE_TYPES.Identifier ? node.property.name : undefined;
  return staticString(node.property);
}

/** The key of an object property or pattern property, when it is written statically. */
export function propertyKeyName(property: TSESTree.Property): string | undefined {
  if (!property.computed && property.key.type === AST_NODE_TYPES.Identifier) return property.key.name;
  return staticString(property.key);
}

export function staticString(node: TSESTree.Node): string | undefined {
  if (node.type === AST_NODE_TYPES.Literal && typeof node.value === 'string') return node.value;
  if (node.type === AST_NODE_TYPES.TemplateLiteral && node.expressions.length === 0) return node.quasis[0]?.value.cooked ?? undefined;
  return undefined;
}

/** The property named `name` of an object literal (the last one wins, as at runtime). */
export function findProperty(object: TSESTree.ObjectExpression, name: string): TSESTree.Property | undefined {
  let found: TSESTree.Property | undefined;
  for (const property of object.properties) {
    if (property.type === AST_NODE_TYPES.Property && propertyKeyName(property) === name) found = property;
  }
  return found;
}

export function hasSpread(object: TSESTree.ObjectExpression): boolean {
  return object.properties.some(p => p.type === AST_NODE_TYPES.SpreadElement);
}

export function variableOf(context: AnyRuleContext, id: TSESTree.Identifier): TSESLint.Scope.Variable | null {
  return findVariable(context.sourceCode.getScope(id), id);
}

/** The initializer of `const x = init` (or a `let` never reassigned); `undefined` when the value is not that simple. */
export function constInitializer(context: AnyRuleContext, id: TSESTree.Identifier): TSESTree.Expression | undefined {
  const variable = variableOf(context, id);
  if (!variable || variable.defs.length !== 1) return undefined;
  const def = variable.defs[0]!;
  const node = def.node;
  if (node.type !== AST_NODE_TYPES.VariableDeclarator || node.id.type !== AST_NODE_TYPES.Identifier || !node.init) return undefined;
  if (variable.references.filter(r => r.isWrite()).length > 1) return undefined;
  return node.init;
}

/** Follows an expression through `const` identifiers to the expression that produced it. */
export function traceConst(context: AnyRuleContext, expr: TSESTree.Node): TSESTree.Node {
  let e = skipTypeWrappers(expr);
  for (let depth = 0; depth < MAX_TRACE_DEPTH && e.type === AST_NODE_TYPES.Identifier; depth++) {
    const init = constInitializer(context, e);
    if (!init) break;
    e = skipTypeWrappers(init);
  }
  return e;
}

export interface ImportedBinding {
  module: string;
  /** The exported name, `default`, or `*` for a namespace import / whole-module require. */
  imported: string;
}

/** What a local name is bound to when it comes from an import or a `require()`. */
export function importOf(context: AnyRuleContext, id: TSESTree.Identifier): ImportedBinding | undefined {
  const def = variableOf(context, id)?.defs[0];
  if (!def) return undefined;
  const node = def.node;
  switch (node.type) {
    case AST_NODE_TYPES.ImportSpecifier: {
      const declaration = node.parent as TSESTree.ImportDeclaration;
      const imported = node.imported.type === AST_NODE_TYPES.Identifier ? node.imported.name : String(node.imported.value);
      return { module: declaration.source.value, imported };
    }
    case AST_NODE_TYPES.ImportDefaultSpecifier:
    case AST_NODE_TYPES.ImportNamespaceSpecifier: {
      const declaration = node.parent as TSESTree.ImportDeclaration;
      return { module: declaration.source.value, imported: node.type === AST_NODE_TYPES.ImportDefaultSpecifier ? 'default' : '*' };
    }
    case AST_NODE_TYPES.VariableDeclarator: {
      const module = node.init && requiredModule(node.init);
      if (!module) return undefined;
      if (node.id.type === AST_NODE_TYPES.Identifier) return { module, imported: '*' };
      if (node.id.type === AST_NODE_TYPES.ObjectPattern) {
        for (const property of node.id.properties) {
          if (property.type !== AST_NODE_TYPES.Property) continue;
          const value = property.value.type === AST_NODE_TYPES.AssignmentPattern ? property.value.left : property.value;
          if (value === def.name) {
            const key = propertyKeyName(property);
            return key ? { module, imported: key } : undefined;
          }
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** `require('m')` / `await import('m')` → `m`. */
function requiredModule(init: TSESTree.Expression): string | undefined {
  let e = skipTypeWrappers(init);
  if (e.type === AST_NODE_TYPES.AwaitExpression) e = skipTypeWrappers(e.argument);
  if (e.type === AST_NODE_TYPES.ImportExpression) return staticString(e.source);
  if (e.type === AST_NODE_TYPES.CallExpression && e.callee.type === AST_NODE_TYPES.Identifier && e.callee.name === 'require' && e.arguments[0]) {
    return staticString(e.arguments[0]);
  }
  return undefined;
}

/** Whether an expression names `exportName` of a module `accept` says yes to: `inputRequired` or `mcp.inputRequired`. */
export function isExportOf(context: AnyRuleContext, expr: TSESTree.Node, exportName: string, accept: (module: string) => boolean): boolean {
  const e = skipTypeWrappers(expr);
  if (e.type === AST_NODE_TYPES.Identifier) {
    const binding = importOf(context, e);
    return !!binding && binding.imported === exportName && accept(binding.module);
  }
  if (e.type === AST_NODE_TYPES.MemberExpression && e.object.type === AST_NODE_TYPES.Identifier && memberName(e) === exportName) {
    const binding = importOf(context, e.object);
    return !!binding && binding.imported === '*' && accept(binding.module);
  }
  return false;
}

/** Whether the file imports (or requires, at top level) anything from an MCP SDK package. */
export function importsMcp(program: TSESTree.Program): boolean {
  return program.body.some(statement => {
    if (statement.type === AST_NODE_TYPES.ImportDeclaration) return isMcpModule(statement.source.value);
    if (statement.type !== AST_NODE_TYPES.VariableDeclaration) return false;
    return statement.declarations.some(declaration => {
      const module = declaration.init && requiredModule(declaration.init);
      return !!module && isMcpModule(module);
    });
  });
}
