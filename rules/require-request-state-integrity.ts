import type { TSESTree } from '@typescript-eslint/utils';
import { createRule } from './utils/createRule.js';
import { classifyState, isServerConstruction, isUnprotected, requestStateProperty, serverVerifyOption } from './utils/requestState.js';

type Options = [{ allowVerifyElsewhere?: boolean }];
type MessageIds = 'unprotectedState' | 'serverWithoutVerify' | 'noVerifiedServer';

const DESCRIPTION = {
  json: 'JSON.stringify(...) output',
  'encoded-json': 'encoded JSON (base64 or URI encoding is not a signature)',
  'plain-string': 'a plain string',
} as const;

export default createRule<Options, MessageIds>({
  name: 'require-request-state-integrity',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require requestState to be minted by a codec and verified by the server',
      recommended: 'strict',
      requiresTypeChecking: false,
    },
    messages: {
      unprotectedState:
        'requestState is {{what}}: the client holds it and can change it, and the retry hands it back to the handler. Mint it with a codec (createRequestStateCodec(...).mint(payload, ctx)) and verify it with the server option requestState: { verify: codec.verify }.',
      serverWithoutVerify:
        'This server has no requestState.verify option, but handlers in this file return requestState: every echoed state reaches them unverified. Pass requestState: { verify: codec.verify } (createRequestStateCodec) in the server options.',
      noVerifiedServer:
        'This file returns requestState but constructs no server with a requestState.verify option: unless the server built elsewhere passes requestState: { verify: codec.verify }, echoed state reaches the handlers unverified.',
    },
    schema: [
      {
        type: 'object',
        properties: {
          allowVerifyElsewhere: {
            type: 'boolean',
            description: 'Do not report files that return requestState but construct no server (the server and its verify hook live in another file).',
          },
        },
        additionalProperties: false,
      },
    ],
    defaultOptions: [{ allowVerifyElsewhere: false }],
  },
  create(context, [{ allowVerifyElsewhere }]) {
    const stateProperties: TSESTree.Property[] = [];
    const servers: TSESTree.NewExpression[] = [];

    const onState = (property: TSESTree.Property | undefined): void => {
      if (!property || stateProperties.includes(property)) return;
      stateProperties.push(property);
      const origin = classifyState(context, property.value);
      if (isUnprotected(origin)) {
        context.report({ node: property.value, messageId: 'unprotectedState', data: { what: DESCRIPTION[origin] } });
      }
    };

    return {
      CallExpression: node => onState(requestStateProperty(context, node)),
      ObjectExpression: node => onState(requestStateProperty(context, node)),
      NewExpression(node) {
        if (isServerConstruction(context, node)) servers.push(node);
      },
      'Program:exit'() {
        if (stateProperties.length === 0) return;
        // One verified (or possibly verified) server in the file is enough: handlers may be registered on it.
        if (servers.some(server => serverVerifyOption(context, server) !== 'no')) return;
        if (servers.length > 0) {
          for (const server of servers) context.report({ node: server, messageId: 'serverWithoutVerify' });
        } else if (!allowVerifyElsewhere && !stateProperties.every(p => mintedByProjectCodec(context.sourceCode.ast, p.value))) {
          context.report({ node: stateProperties[0]!, messageId: 'noVerifiedServer' });
        }
      },
    };
  },
});

/**
 * `await codec.mint(...)` with a codec imported from a module of the project (`./requestState.js`)
 * or from mrtr-migrate's runtime (`--runtime package`): the layout mrtr-migrate generates for a server
 * whose handlers span files, where the codec is wired into the server in the file that builds it.
 */
function mintedByProjectCodec(program: TSESTree.Program, value: TSESTree.Node): boolean {
  const imported = new Set<string>();
  for (const statement of program.body) {
    if (statement.type !== 'ImportDeclaration' || !(statement.source.value.startsWith('.') || statement.source.value === 'mrtr-migrate/runtime')) continue;
    for (const specifier of statement.specifiers) imported.add(specifier.local.name);
  }
  const call = value.type === 'AwaitExpression' ? value.argument : value;
  return call.type === 'CallExpression' && call.callee.type === 'MemberExpression' && call.callee.object.type === 'Identifier' &&
    call.callee.property.type === 'Identifier' && call.callee.property.name === 'mint' && imported.has(call.callee.object.name);
}
