import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESTree } from '@typescript-eslint/utils';
import { createRule } from './utils/createRule.js';
import { constInitializer, importsMcp, MAX_TRACE_DEPTH, memberName, propertyKeyName, skipTypeWrappers } from './utils/estree.js';
import { encodedInput, isJsonStringify, isMintCall, requestStateProperty } from './utils/requestState.js';
import { isSecretSourceCall, looksSecret } from '../src/analysis/secrets.js';

type MessageIds = 'secretInState' | 'authInfoInState';

export default createRule<[], MessageIds>({
  name: 'no-secrets-in-request-state',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow secrets (tokens, passwords, API keys, authInfo) in requestState payloads',
      recommended: 'strict',
      requiresTypeChecking: false,
    },
    messages: {
      secretInState:
        '`{{name}}` looks like a secret and goes into requestState, which the client holds: readable where the codec only signs it (createRequestStateCodec), and even sealed it leaves the server with every round. Keep the secret on the server (look it up again on the retry).',
      authInfoInState:
        '`{{name}}` carries the caller\'s bearer token and goes into requestState, which the client holds: readable where the codec only signs it (createRequestStateCodec), and even sealed it leaves the server with every round. Carry a principal id (or nothing: bind the codec to the principal) instead.',
    },
    schema: [],
  },
  create(context) {
    const reported = new Set<TSESTree.Node>();
    let mcpFile: boolean | undefined;

    const report = (node: TSESTree.Node, name: string, messageId: MessageIds): void => {
      if (reported.has(node)) return;
      reported.add(node);
      context.report({ node, messageId, data: { name } });
    };

    /** Walks a value that ends up in the state, through literals, encoders and `const` locals. */
    const scan = (expr: TSESTree.Node, depth: number, seen: Set<TSESTree.Node>): void => {
      const e = skipTypeWrappers(expr);
      if (depth > MAX_TRACE_DEPTH || seen.has(e)) return;
      seen.add(e);
      switch (e.type) {
        case AST_NODE_TYPES.Identifier: {
          if (e.name === 'authInfo') return report(e, e.name, 'authInfoInState');
          if (looksSecret(e.name)) return report(e, e.name, 'secretInState');
          const init = constInitializer(context, e);
          if (init) scan(init, depth + 1, seen);
          return;
        }
        case AST_NODE_TYPES.MemberExpression: {
          const name = memberName(e);
          if (name === 'authInfo') return report(e, name, 'authInfoInState');
          if (name && looksSecret(name)) return report(e, name, 'secretInState');
          return;
        }
        case AST_NODE_TYPES.ObjectExpression:
          for (const property of e.properties) {
            if (property.type === AST_NODE_TYPES.SpreadElement) {
              scan(property.argument, depth + 1, seen);
              continue;
            }
            const key = propertyKeyName(property);
            if (key && looksSecret(key)) report(property, key, 'secretInState');
            else scan(property.value, depth + 1, seen);
          }
          return;
        case AST_NODE_TYPES.ArrayExpression:
          for (const element of e.elements) if (element) scan(element, depth + 1, seen);
          return;
        case AST_NODE_TYPES.SpreadElement:
        case AST_NODE_TYPES.AwaitExpression:
          return scan(e.argument, depth, seen);
        case AST_NODE_TYPES.TemplateLiteral:
          for (const part of e.expressions) scan(part, depth + 1, seen);
          return;
        case AST_NODE_TYPES.BinaryExpression:
        case AST_NODE_TYPES.LogicalExpression:
          scan(e.left, depth + 1, seen);
          scan(e.right, depth + 1, seen);
          return;
        case AST_NODE_TYPES.ConditionalExpression:
          scan(e.consequent, depth + 1, seen);
          scan(e.alternate, depth + 1, seen);
          return;
        case AST_NODE_TYPES.CallExpression: {
          // A minted payload is checked at its own mint() call.
          if (isMintCall(e)) return;
          if (isJsonStringify(e)) {
            if (e.arguments[0]) scan(e.arguments[0], depth + 1, seen);
            return;
          }
          const input = encodedInput(e);
          if (input) return scan(input, depth + 1, seen);
          // Any other call transforms its input (a hash of a token is fine); only its name or a secret
          // store as its receiver (`vault.read()`) can tell.
          const callee = e.callee.type === AST_NODE_TYPES.MemberExpression ? memberName(e.callee) : e.callee.type === AST_NODE_TYPES.Identifier ? e.callee.name : undefined;
          const object = e.callee.type === AST_NODE_TYPES.MemberExpression ? skipTypeWrappers(e.callee.object) : undefined;
          const receiver = object?.type === AST_NODE_TYPES.Identifier ? object.name : object?.type === AST_NODE_TYPES.MemberExpression ? memberName(object) : undefined;
          if (isSecretSourceCall(callee, receiver)) report(e, `${receiver ? `${receiver}.` : ''}${callee}()`, 'secretInState');
          return;
        }
        default:
          return;
      }
    };

    const onState = (property: TSESTree.Property | undefined): void => {
      if (property) scan(property.value, 0, new Set());
    };

    return {
      CallExpression(node) {
        if (isMintCall(node)) {
          // `mint` is a common method name: only count it in files that use an MCP SDK.
          mcpFile ??= importsMcp(context.sourceCode.ast);
          if (mcpFile && node.arguments[0]) scan(node.arguments[0], 0, new Set());
          return;
        }
        onState(requestStateProperty(context, node));
      },
      ObjectExpression: node => onState(requestStateProperty(context, node)),
    };
  },
});

