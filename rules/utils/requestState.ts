import { AST_NODE_TYPES } from '@typescript-eslint/types';
import type { TSESTree } from '@typescript-eslint/utils';
import {
  constInitializer,
  findProperty,
  hasSpread,
  isExportOf,
  isMcpModule,
  isV2ServerModule,
  MAX_TRACE_DEPTH,
  memberName,
  skipTypeWrappers,
  variableOf,
  staticString,
  traceConst,
  type AnyRuleContext,
} from './estree.js';

/**
 * Where a `requestState` value comes from. Only the first three are reported: a `value` (a parameter,
 * a property read) or an `opaque` call (possibly the user's own signer) may well be protected.
 */
export type StateOrigin = 'json' | 'encoded-json' | 'plain-string' | 'minted' | 'opaque' | 'value';

export function isUnprotected(origin: StateOrigin): origin is 'json' | 'encoded-json' | 'plain-string' {
  return origin === 'json' || origin === 'encoded-json' || origin === 'plain-string';
}

/**
 * The `requestState` property of `inputRequired({ ... })` (imported from @modelcontextprotocol/server)
 * or of a hand-built `{ resultType: 'input_required', ... }` result.
 */
export function requestStateProperty(context: AnyRuleContext, node: TSESTree.CallExpression | TSESTree.ObjectExpression): TSESTree.Property | undefined {
  if (node.type === AST_NODE_TYPES.ObjectExpression) {
    const resultType = findProperty(node, 'resultType');
    if (!resultType || staticString(resultType.value) !== 'input_required') return undefined;
    return findProperty(node, 'requestState');
  }
  if (!isExportOf(context, node.callee, 'inputRequired', isV2ServerModule)) return undefined;
  const spec = node.arguments[0] && traceConst(context, node.arguments[0]);
  return spec?.type === AST_NODE_TYPES.ObjectExpression ? findProperty(spec, 'requestState') : undefined;
}

/** `codec.mint(payload)`, `this.stateCodec.mint(...)`: the codec call that signs a state. */
export function isMintCall(node: TSESTree.Node): boolean {
  return node.type === AST_NODE_TYPES.CallExpression && node.callee.type === AST_NODE_TYPES.MemberExpression && memberName(node.callee) === 'mint';
}

export function isJsonStringify(node: TSESTree.Node): boolean {
  return node.type === AST_NODE_TYPES.CallExpression && node.callee.type === AST_NODE_TYPES.MemberExpression &&
    node.callee.object.type === AST_NODE_TYPES.Identifier && node.callee.object.name === 'JSON' && memberName(node.callee) === 'stringify';
}

const ENCODERS = new Set(['btoa', 'encodeURIComponent', 'encodeURI', 'escape']);

/**
 * For calls that only re-encode their input (`btoa(x)`, `Buffer.from(x).toString('base64')`,
 * `String(x)`), the input; `undefined` for any other call.
 */
export function encodedInput(node: TSESTree.CallExpression): TSESTree.Node | undefined {
  const callee = node.callee;
  if (callee.type === AST_NODE_TYPES.Identifier && (ENCODERS.has(callee.name) || callee.name === 'String')) return node.arguments[0];
  // Buffer.from(x).toString('base64' | 'base64url' | 'hex' ...)
  if (callee.type === AST_NODE_TYPES.MemberExpression && memberName(callee) === 'toString') {
    const inner = skipTypeWrappers(callee.object);
    if (inner.type === AST_NODE_TYPES.CallExpression && inner.callee.type === AST_NODE_TYPES.MemberExpression &&
        inner.callee.object.type === AST_NODE_TYPES.Identifier && inner.callee.object.name === 'Buffer' && memberName(inner.callee) === 'from') {
      return inner.arguments[0];
    }
  }
  return undefined;
}

const PRIORITY: StateOrigin[] = ['minted', 'opaque', 'json', 'encoded-json', 'plain-string', 'value'];

/** Parts joined into one string (template, `+`): one signed part makes it signed, any unknown call makes it unknown. */
function joinParts(parts: StateOrigin[]): StateOrigin {
  for (const origin of PRIORITY) {
    if (parts.includes(origin)) return origin === 'value' ? 'plain-string' : origin;
  }
  return 'plain-string';
}

/** Alternatives (`?:`, `??`, `||`): one unprotected branch is enough to report. */
function pickBranch(branches: StateOrigin[]): StateOrigin {
  const unprotected = branches.find(isUnprotected);
  if (unprotected) return unprotected;
  if (branches.includes('opaque')) return 'opaque';
  if (branches.includes('value')) return 'value';
  return 'minted';
}

export function classifyState(context: AnyRuleContext, expr: TSESTree.Node, depth = 0): StateOrigin {
  const e = skipTypeWrappers(expr);
  if (depth > MAX_TRACE_DEPTH) return 'opaque';
  switch (e.type) {
    case AST_NODE_TYPES.AwaitExpression:
      return classifyState(context, e.argument, depth);
    case AST_NODE_TYPES.Literal:
      return typeof e.value === 'string' ? 'plain-string' : 'value';
    case AST_NODE_TYPES.TemplateLiteral: {
      const parts = e.expressions.map(part => classifyState(context, part, depth + 1));
      // `${state}` alone is the value itself, not a string built here.
      const noText = e.quasis.every(q => q.value.raw === '');
      return noText && parts.length > 0 && parts.every(p => p === 'value') ? 'value' : joinParts(parts);
    }
    case AST_NODE_TYPES.BinaryExpression: {
      if (e.operator !== '+') return 'value';
      const parts = [classifyState(context, e.left, depth + 1), classifyState(context, e.right, depth + 1)];
      return parts.every(p => p === 'value') ? 'value' : joinParts(parts);
    }
    case AST_NODE_TYPES.Identifier: {
      const init = constInitializer(context, e);
      return init ? classifyState(context, init, depth + 1) : 'value';
    }
    case AST_NODE_TYPES.ConditionalExpression:
      return pickBranch([classifyState(context, e.consequent, depth + 1), classifyState(context, e.alternate, depth + 1)]);
    case AST_NODE_TYPES.LogicalExpression:
      return pickBranch([classifyState(context, e.left, depth + 1), classifyState(context, e.right, depth + 1)]);
    case AST_NODE_TYPES.CallExpression: {
      if (isMintCall(e)) return 'minted';
      if (isJsonStringify(e)) return 'json';
      const input = encodedInput(e);
      if (!input) return 'opaque';
      const inner = classifyState(context, input, depth + 1);
      if (e.callee.type === AST_NODE_TYPES.Identifier && e.callee.name === 'String') return inner;
      if (inner === 'json' || inner === 'encoded-json') return 'encoded-json';
      if (inner === 'value') return 'plain-string';
      return inner;
    }
    default:
      return 'value';
  }
}

export type VerifyOption = 'yes' | 'no' | 'unknown';

/** Whether `new McpServer(info, options)` passes `requestState: { verify }`; `unknown` when the options are not literal. */
export function serverVerifyOption(context: AnyRuleContext, construction: TSESTree.NewExpression): VerifyOption {
  const options = construction.arguments[1];
  if (!options) return 'no';
  const object = traceConst(context, options);
  if (object.type !== AST_NODE_TYPES.ObjectExpression) return 'unknown';
  const requestState = findProperty(object, 'requestState');
  if (!requestState) return hasSpread(object) ? 'unknown' : 'no';
  const value = traceConst(context, requestState.value);
  if (value.type !== AST_NODE_TYPES.ObjectExpression) return 'unknown';
  if (findProperty(value, 'verify')) return 'yes';
  return hasSpread(value) ? 'unknown' : 'no';
}

/** `new McpServer(...)` / `new Server(...)` of an MCP SDK package. */
export function isServerConstruction(context: AnyRuleContext, node: TSESTree.NewExpression): boolean {
  return isServerClass(context, node.callee, new Set());
}

/** The SDK's McpServer / Server, or a class of the file that extends one at any depth (`class AppServer extends Server {}`). */
function isServerClass(context: AnyRuleContext, callee: TSESTree.Node, seen: Set<TSESTree.Node>): boolean {
  if (isExportOf(context, callee, 'McpServer', isMcpModule) || isExportOf(context, callee, 'Server', isMcpModule)) return true;
  const e = skipTypeWrappers(callee);
  if (e.type !== AST_NODE_TYPES.Identifier) return false;
  const def = variableOf(context, e)?.defs[0];
  const node = def?.node;
  // As the analysis reads them: a class declaration, or a class expression held in a const.
  const cls = node?.type === AST_NODE_TYPES.ClassDeclaration ? node
    : node?.type === AST_NODE_TYPES.VariableDeclarator && node.parent.kind === 'const' && node.init?.type === AST_NODE_TYPES.ClassExpression ? node.init : undefined;
  if (!cls?.superClass || seen.has(cls)) return false;
  seen.add(cls);
  return isServerClass(context, cls.superClass, seen);
}
