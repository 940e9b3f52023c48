import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import { createRule } from './utils/createRule.js';
import { isCast, isV2ServerModule, memberName, propertyKeyName, variableOf, type AnyRuleContext } from './utils/estree.js';

type MessageIds = 'directRead' | 'castEntry' | 'castResponses' | 'useAcceptedContent';

export default createRule<[], MessageIds>({
  name: 'no-unvalidated-input-responses',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require acceptedContent() / inputResponse() to read inputResponses instead of casts and property reads',
      recommended: 'strict',
      requiresTypeChecking: false,
    },
    hasSuggestions: true,
    messages: {
      directRead:
        "inputResponses entry '{{key}}' is read directly: it is whatever the client sent (any shape, any action). Read it with acceptedContent(responses, '{{key}}', schema) (validated accepted form content) or inputResponse(responses, '{{key}}') (a checked view of any kind).",
      castEntry:
        "A cast does not check inputResponses entry '{{key}}': it is whatever the client sent. Read it with acceptedContent(responses, '{{key}}', schema) or inputResponse(responses, '{{key}}') instead.",
      castResponses:
        'A cast does not check inputResponses: every entry is whatever the client sent. Read entries with acceptedContent(responses, key, schema) or inputResponse(responses, key) instead.',
      useAcceptedContent: "Read the accepted content with acceptedContent({{responses}}, '{{key}}') (undefined unless the user accepted; add a schema to validate it).",
    },
    schema: [],
  },
  create(context) {
    const sourceCode = context.sourceCode;

    return {
      MemberExpression(node) {
        if (!isResponses(context, node.object)) return;
        if (isWriteOrCall(node)) return;
        const key = memberName(node) ?? '<computed>';
        const cast = enclosingCast(node);
        const suggest = suggestion(node, key);
        if (cast) {
          context.report({ node: cast, messageId: 'castEntry', data: { key }, suggest });
        } else {
          context.report({ node, messageId: 'directRead', data: { key }, suggest });
        }
      },
      'TSAsExpression, TSTypeAssertion'(node: TSESTree.TSAsExpression | TSESTree.TSTypeAssertion) {
        if (isResponses(context, node.expression)) context.report({ node, messageId: 'castResponses' });
      },
      VariableDeclarator(node) {
        // const { confirm } = ctx.mcpReq.inputResponses ?? {}
        if (node.id.type !== AST_NODE_TYPES.ObjectPattern || !node.init || !isResponses(context, withoutFallback(node.init))) return;
        for (const property of node.id.properties) {
          if (property.type !== AST_NODE_TYPES.Property) continue;
          context.report({ node: property, messageId: 'directRead', data: { key: propertyKeyName(property) ?? '<computed>' } });
        }
      },
    };

    /** `(responses.confirm as ElicitResult)?.content` reads what acceptedContent() returns, minus the checks. */
    function suggestion(read: TSESTree.MemberExpression, key: string): TSESLint.SuggestionReportDescriptor<MessageIds>[] | null {
      if (key === '<computed>') return null;
      let top: TSESTree.Node = read;
      while (top.parent && (isCast(top.parent) || top.parent.type === AST_NODE_TYPES.TSNonNullExpression || top.parent.type === AST_NODE_TYPES.ChainExpression)) {
        top = top.parent;
      }
      const content = top.parent;
      if (!content || content.type !== AST_NODE_TYPES.MemberExpression || content.object !== top || memberName(content) !== 'content') return null;
      const responses = sourceCode.getText(read.object);
      const helper = acceptedContentName(context);
      return [{
        messageId: 'useAcceptedContent',
        data: { responses, key },
        fix(fixer) {
          const call = `${helper.name}(${responses}, '${key.replace(/['\\]/g, '\\$&')}')`;
          const fixes = [fixer.replaceText(content, call)];
          if (helper.importFix) fixes.push(helper.importFix(fixer));
          return fixes;
        },
      }];
    }
  },
});

/**
 * `x.inputResponses` (x is usually `ctx.mcpReq`), or a local holding it:
 * `const responses = ctx.mcpReq.inputResponses`, `const { inputResponses } = ctx.mcpReq`.
 */
function isResponses(context: AnyRuleContext, expr: TSESTree.Node, depth = 0): boolean {
  let e = expr;
  while (e.type === AST_NODE_TYPES.TSNonNullExpression) e = e.expression;
  if (e.type === AST_NODE_TYPES.MemberExpression) return memberName(e) === 'inputResponses';
  if (e.type !== AST_NODE_TYPES.Identifier || depth > 3) return false;
  const variable = variableOf(context, e);
  const def = variable?.defs[0];
  if (!def || variable.defs.length !== 1) return false;
  // Destructured: `{ inputResponses }` / `{ inputResponses: responses = {} }` in a declaration or a parameter.
  let name: TSESTree.Node = def.name;
  if (name.parent?.type === AST_NODE_TYPES.AssignmentPattern) name = name.parent;
  if (name.parent?.type === AST_NODE_TYPES.Property && name.parent.parent?.type === AST_NODE_TYPES.ObjectPattern) {
    return propertyKeyName(name.parent) === 'inputResponses';
  }
  const node = def.node;
  if (node.type === AST_NODE_TYPES.VariableDeclarator && node.id === def.name && node.init) {
    return isResponses(context, withoutFallback(node.init), depth + 1);
  }
  return false;
}

/** `x ?? {}` / `x || {}` → `x`. */
function withoutFallback(expr: TSESTree.Expression): TSESTree.Expression {
  if (expr.type === AST_NODE_TYPES.LogicalExpression && (expr.operator === '??' || expr.operator === '||')) return expr.left;
  return expr;
}

/** Assignments into the record and method calls on it (`hasOwnProperty`) are not reads of an answer. */
function isWriteOrCall(node: TSESTree.MemberExpression): boolean {
  const parent = node.parent;
  if (parent.type === AST_NODE_TYPES.AssignmentExpression && parent.left === node) return true;
  if (parent.type === AST_NODE_TYPES.CallExpression && parent.callee === node) return true;
  if (parent.type === AST_NODE_TYPES.UnaryExpression && parent.operator === 'delete') return true;
  return false;
}

/** The `as T` / `<T>` directly around a read (through `?.` chains and `!`). */
function enclosingCast(node: TSESTree.Node): TSESTree.Node | undefined {
  let n: TSESTree.Node = node;
  while (n.parent && (n.parent.type === AST_NODE_TYPES.ChainExpression || n.parent.type === AST_NODE_TYPES.TSNonNullExpression)) n = n.parent;
  return n.parent && isCast(n.parent) ? n.parent : undefined;
}

/** The local name to call acceptedContent by, and an import fix when the file does not import it yet. */
function acceptedContentName(context: AnyRuleContext): { name: string; importFix?: (fixer: TSESLint.RuleFixer) => TSESLint.RuleFix } {
  const program = context.sourceCode.ast;
  const imports = program.body.filter((s): s is TSESTree.ImportDeclaration => s.type === AST_NODE_TYPES.ImportDeclaration);
  const fromServer = imports.filter(d => isV2ServerModule(d.source.value) && d.importKind !== 'type');
  for (const declaration of fromServer) {
    for (const specifier of declaration.specifiers) {
      if (specifier.type === AST_NODE_TYPES.ImportNamespaceSpecifier) return { name: `${specifier.local.name}.acceptedContent` };
      if (specifier.type === AST_NODE_TYPES.ImportSpecifier && specifier.importKind !== 'type' &&
          specifier.imported.type === AST_NODE_TYPES.Identifier && specifier.imported.name === 'acceptedContent') {
        return { name: specifier.local.name };
      }
    }
  }
  const named = fromServer.find(d => d.specifiers.some(s => s.type === AST_NODE_TYPES.ImportSpecifier));
  if (named) {
    const last = named.specifiers[named.specifiers.length - 1]!;
    return { name: 'acceptedContent', importFix: fixer => fixer.insertTextAfter(last, ', acceptedContent') };
  }
  // After the last import, else before the first statement (never above a shebang or header comment).
  // (A reported read sits in some statement, so the program has a first one.)
  const lastImport = imports[imports.length - 1];
  const line = "import { acceptedContent } from '@modelcontextprotocol/server';";
  return {
    name: 'acceptedContent',
    importFix: fixer => (lastImport ? fixer.insertTextAfter(lastImport, `\n${line}`) : fixer.insertTextBefore(program.body[0]!, `${line}\n`)),
  };
}
