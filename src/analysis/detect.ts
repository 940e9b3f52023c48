import type * as ts from 'typescript';
import { EXPERIMENTAL_TASK_METHODS, QUESTION_METHODS, RESULT_SCHEMA_KINDS, skipOuter, TASK_METHODS, TASK_RESULT_SCHEMAS, type SdkResolver } from './sdk.js';
import { followLocal, writtenValue } from './requestLocals.js';
import { frameworkQuestionOf, type FrameworkQuestion } from './frameworks.js';
import type { QuestionKind, SdkGeneration, SiteApi, SiteKind, TS } from './types.js';

/** A push-style call (or URL-elicitation throw, or capability read) found in a file, before classification. */
export interface RawSite {
  node: ts.Node;
  /** The call expression carrying the question (for `throw new ...`, the `new` expression). */
  call: ts.CallExpression | ts.NewExpression;
  kind: SiteKind;
  api: SiteApi;
  sdk: SdkGeneration;
  /** The request parameters expression, when the call has one. */
  params: ts.Expression | undefined;
  /** The options argument (`timeout`, `signal`, ...), when passed. */
  options: ts.Expression | undefined;
  /** For capability guards: the capability read (`elicitation`, `sampling`, `roots`) when visible. */
  capability?: QuestionKind | undefined;
  /** A request built in a local before the call: the local, whose `.params` the rewrite asks with. */
  paramsVia?: ts.Identifier | undefined;
  /** Why that local may not hold its initializer at the question, when it may not. */
  requestChanged?: string | undefined;
  /** The params as written: the initializer of a params local nothing changes (`elicitInput(params)`), else `params`. */
  paramsWritten?: ts.Expression | undefined;
  /** The receiver, when its type is `any` and the call only has the shape of a push (see untypedPush). */
  untypedReceiver?: ts.Expression | undefined;
  /** For api `framework`: the framework whose API asks, and the call as written. */
  framework?: FrameworkQuestion | undefined;
  /** The `task` member of the params as written: a task-augmented request (2025-11-25), which the client runs as a task. */
  task?: ts.Node | undefined;
  /** For kind `task-request`: the tasks/* method it sends (`tasks/get`, ...), where it is known. */
  taskMethod?: string | undefined;
}

export function detectSites(ts: TS, sourceFile: ts.SourceFile, resolver: SdkResolver): RawSite[] {
  const sites: RawSite[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const site = classifyCall(ts, node, resolver) ?? frameworkSite(ts, node, resolver);
      if (site && site.params) site.task = taskMember(ts, site.paramsWritten ?? writtenValue(ts, site.params, node, resolver.checker));
      if (site) sites.push(site);
    } else if (ts.isNewExpression(node)) {
      const ctor = resolver.sdkExport(node.expression);
      if (ctor?.exported === 'UrlElicitationRequiredError') {
        sites.push({ node, call: node, kind: 'url-elicitation', api: 'UrlElicitationRequiredError', sdk: ctor.sdk, params: node.arguments?.[0], options: undefined });
      }
    }
    node.forEachChild(visit);
  };
  visit(sourceFile);
  return sites;
}

function classifyCall(ts: TS, call: ts.CallExpression, resolver: SdkResolver): RawSite | undefined {
  const callee = skipOuter(ts, call.expression);
  const args = call.arguments;
  if (ts.isIdentifier(callee)) {
    // const { sendRequest } = extra; sendRequest({ method: 'elicitation/create', ... }, ElicitResultSchema)
    const fn = resolver.resolve(callee);
    if (fn?.kind !== 'send-request') return undefined;
    // v1's sendRequest(request, schema, options); v2's ctx.mcpReq.send(request, options?) or (request, schema, options?).
    return fn.sdk === 'v2'
      ? requestStyle(ts, call, 'ctx.mcpReq.send', fn.sdk, resolver, optionsAfterSchema(ts, args, resolver))
      : requestStyle(ts, call, 'extra.sendRequest', fn.sdk, resolver, args[2]);
  }
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  const method = callee.name.text;
  if (method in EXPERIMENTAL_TASK_METHODS || method === 'requestStream') return experimentalTasks(ts, call, callee, resolver);
  if (!['elicitInput', 'createMessage', 'listRoots', 'requestSampling', 'sendRequest', 'send', 'request', 'getClientCapabilities'].includes(method)) {
    return undefined;
  }
  const receiver = resolver.resolve(callee.expression);
  if (!receiver) return untypedPush(ts, call, callee, resolver);
  const base = { node: call, call, sdk: receiver.sdk } as const;
  if (receiver.kind === 'server') {
    switch (method) {
      case 'elicitInput':
        return elicitation(ts, base, 'server.elicitInput', args, resolver);
      case 'createMessage':
        return { ...base, kind: 'sampling', api: 'server.createMessage', params: args[0], options: args[1] };
      case 'listRoots':
        return { ...base, kind: 'roots', api: 'server.listRoots', params: args[0], options: args[1] };
      case 'request':
        return requestStyle(ts, call, 'server.request', receiver.sdk, resolver, optionsAfterSchema(ts, args, resolver));
      case 'getClientCapabilities':
        return { ...base, kind: 'capability-guard', api: 'getClientCapabilities', params: undefined, options: undefined, capability: capabilityRead(ts, call) };
    }
    return undefined;
  }
  if (receiver.kind === 'mcp-req') {
    switch (method) {
      case 'elicitInput':
        return elicitation(ts, base, 'ctx.mcpReq.elicitInput', args, resolver);
      case 'requestSampling':
        return { ...base, kind: 'sampling', api: 'ctx.mcpReq.requestSampling', params: args[0], options: args[1] };
      case 'send':
        return requestStyle(ts, call, 'ctx.mcpReq.send', receiver.sdk, resolver, optionsAfterSchema(ts, args, resolver));
    }
    return undefined;
  }
  if (receiver.kind === 'context' && method === 'sendRequest') {
    return requestStyle(ts, call, 'extra.sendRequest', receiver.sdk, resolver, args[2]);
  }
  return undefined;
}

const TASK_API_METHODS: Record<string, string> = { getTask: 'tasks/get', getTaskResult: 'tasks/result', listTasks: 'tasks/list', cancelTask: 'tasks/cancel' };

/**
 * `server.experimental.tasks.getTask(taskId)` (v1): a poll of a task the client runs; `.elicitInputStream()`,
 * `.createMessageStream()` and `.requestStream()` ask their question through that task layer.
 */
function experimentalTasks(ts: TS, call: ts.CallExpression, callee: ts.PropertyAccessExpression, resolver: SdkResolver): RawSite | undefined {
  const tasks = skipOuter(ts, callee.expression);
  if (!ts.isPropertyAccessExpression(tasks) || tasks.name.text !== 'tasks') return undefined;
  const experimental = skipOuter(ts, tasks.expression);
  if (!ts.isPropertyAccessExpression(experimental) || experimental.name.text !== 'experimental') return undefined;
  const server = resolver.resolve(experimental.expression);
  if (server?.kind !== 'server') return undefined;
  const method = callee.name.text;
  const args = call.arguments;
  if (method === 'requestStream') {
    const site = requestStyle(ts, call, 'experimental.tasks', server.sdk, resolver, args[2]);
    return site && { ...site, options: args[2] };
  }
  const kind = EXPERIMENTAL_TASK_METHODS[method]!;
  const base = { node: call, call, api: 'experimental.tasks', sdk: server.sdk } as const;
  if (kind === 'task-request') return { ...base, kind, params: args[0], options: undefined, taskMethod: TASK_API_METHODS[method] };
  const params = args[0];
  return { ...base, kind: kind === 'elicitation' ? elicitationKind(ts, params) : kind, params, options: args[1] };
}

/** The SDK a site found by its shape belongs to: the file's, v1 where it imports any of v1. */
function fileSdk(resolver: SdkResolver): SdkGeneration {
  return [...resolver.imports.values()].some(i => i.sdk === 'v1') ? 'v1' : 'v2';
}

/** A question asked through an MCP framework's API (`extra.elicit({ ... })`): reported, and refused (frameworks.ts). */
function frameworkSite(ts: TS, call: ts.CallExpression, resolver: SdkResolver): RawSite | undefined {
  const question = frameworkQuestionOf(ts, call);
  if (!question) return undefined;
  const sdk = fileSdk(resolver);
  return { node: call, call, kind: question.kind, api: 'framework', sdk, params: call.arguments[0], options: call.arguments[1], framework: question };
}

/**
 * `server.elicitInput({ message, requestedSchema })`, `.createMessage({ messages, ... })` or
 * `.request({ method: 'elicitation/create', ... })`, in a module that imports the SDK, on a receiver the checker types `any` (a server
 * destructured from an `any` parameter, an unresolved import): it may well be the SDK's, so it is
 * reported, never silently skipped; nothing about it can be proven, so it is refused.
 */
function untypedPush(ts: TS, call: ts.CallExpression, callee: ts.PropertyAccessExpression, resolver: SdkResolver): RawSite | undefined {
  const checker = resolver.checker;
  // Only in a module of an MCP server (it imports the SDK): elsewhere such a call is someone else's.
  if (!checker || resolver.imports.size === 0) return undefined;
  const first = call.arguments[0] && skipOuter(ts, call.arguments[0]);
  if (!first || !ts.isObjectLiteralExpression(first)) return undefined;
  // The shape first, the type last: `res.send(...)` and `http.request(...)` are common, the checker's answer costly.
  const isAny = (): boolean => (checker.getTypeAtLocation(callee.expression).flags & ts.TypeFlags.Any) !== 0;
  const has = (name: string): ts.ObjectLiteralElementLike | undefined => first.properties.find(p => p.name !== undefined && p.name.getText().replace(/['"]/g, '') === name);
  const sdk = fileSdk(resolver);
  const base = { node: call, call, sdk, params: first, options: call.arguments[1], untypedReceiver: callee.expression } as const;
  switch (callee.name.text) {
    case 'elicitInput':
      return has('message') && has('requestedSchema') && isAny() ? { ...base, kind: 'elicitation', api: 'server.elicitInput' } : undefined;
    case 'createMessage':
      return has('messages') && isAny() ? { ...base, kind: 'sampling', api: 'server.createMessage' } : undefined;
    case 'request':
    case 'sendRequest':
    case 'send': {
      const method = has('method');
      const value = method && ts.isPropertyAssignment(method) ? skipOuter(ts, method.initializer) : undefined;
      const kind = value && ts.isStringLiteralLike(value) ? methodKind(value.text) : undefined;
      if (!kind || !isAny()) return undefined;
      const api: SiteApi = callee.name.text === 'request' ? 'server.request' : callee.name.text === 'send' ? 'ctx.mcpReq.send' : 'extra.sendRequest';
      return { ...base, kind, api, params: has('params') && ts.isPropertyAssignment(has('params')!) ? (has('params') as ts.PropertyAssignment).initializer : undefined };
    }
  }
  return undefined;
}

/** `send(request, options)` (v2, spec method) or `send(request, schema, options)`: find the options. */
function optionsAfterSchema(ts: TS, args: ts.NodeArray<ts.Expression>, resolver: SdkResolver): ts.Expression | undefined {
  const second = args[1];
  if (!second) return undefined;
  return isResultSchema(ts, second, resolver) || args.length >= 3 ? args[2] : second;
}

function isResultSchema(ts: TS, expr: ts.Expression, resolver: SdkResolver): boolean {
  const e = skipOuter(ts, expr);
  if (ts.isObjectLiteralExpression(e)) return false;
  const exported = resolver.sdkExport(e);
  if (exported && exported.exported.endsWith('Schema')) return true;
  if (ts.isIdentifier(e) && e.text.endsWith('Schema')) return true;
  // An inline schema, `z.object({ ... }).passthrough()`: a call chain from a zod namespace.
  let root: ts.Expression = e;
  while (ts.isCallExpression(root) || ts.isPropertyAccessExpression(root)) root = ts.isCallExpression(root) ? root.expression : root.expression;
  if (root !== e && ts.isIdentifier(root) && (root.text === 'z' || root.text === 'zod')) return true;
  // With types: anything a schema can be (it parses, or is a Standard Schema).
  const type = resolver.checker?.getTypeAtLocation(e);
  return !!type && ['safeParse', '~standard'].some(name => type.getProperty(name) !== undefined);
}

/** `sendRequest({ method, params }, Schema)`: a site only for the three question methods. */
function requestStyle(ts: TS, call: ts.CallExpression, api: SiteApi, sdk: SdkGeneration, resolver: SdkResolver, options: ts.Expression | undefined): RawSite | undefined {
  const request = call.arguments[0];
  let kind: QuestionKind | 'task-request' | undefined;
  let method: string | undefined;
  let params: ts.Expression | undefined;
  const followed = request && followLocal(ts, request, call, resolver.checker);
  const literal = followed ? followed.literal : request && skipOuter(ts, request);
  if (literal && ts.isObjectLiteralExpression(literal)) {
    for (const property of literal.properties) {
      if (ts.isShorthandPropertyAssignment(property) && property.name.text === 'params') params = property.name;
      if (!ts.isPropertyAssignment(property) || !property.name) continue;
      const key = property.name.getText().replace(/['"]/g, '');
      const value = skipOuter(ts, property.initializer);
      if (key === 'method' && ts.isStringLiteralLike(value)) [method, kind] = [value.text, methodKind(value.text)];
      if (key === 'params') params = property.initializer;
    }
  }
  if (!kind && request && resolver.checker) {
    const methodType = resolver.checker.getTypeAtLocation(request).getProperty('method');
    if (methodType) {
      const t = resolver.checker.getTypeOfSymbolAtLocation(methodType, request);
      if (t.isStringLiteral()) [method, kind] = [t.value, methodKind(t.value)];
    }
  }
  const schema = call.arguments[1];
  if (!kind && schema) {
    const exported = resolver.sdkExport(schema);
    if (exported) kind = RESULT_SCHEMA_KINDS[exported.exported] ?? (TASK_RESULT_SCHEMAS.has(exported.exported) ? 'task-request' : undefined);
  }
  if (!kind) return undefined;
  const siteKind: SiteKind = kind === 'elicitation' ? elicitationKind(ts, params) : kind;
  const via = followed && params ? { paramsVia: followed.local, requestChanged: followed.changed } : {};
  const task = kind === 'task-request' ? { taskMethod: method } : {};
  return { node: call, call, kind: siteKind, api, sdk, params, options, ...via, ...task };
}

/** What a request of this method is a site of: one of the three questions, or a tasks/* request. */
function methodKind(method: string): QuestionKind | 'task-request' | undefined {
  return QUESTION_METHODS[method] ?? (TASK_METHODS.has(method) ? 'task-request' : undefined);
}

/** `elicitInput(params, options)`: its params read once as written, for the kind here and the form check later. */
function elicitation(ts: TS, base: Pick<RawSite, 'node' | 'call' | 'sdk'>, api: SiteApi, args: ts.NodeArray<ts.Expression>, resolver: SdkResolver): RawSite {
  const paramsWritten = args[0] && writtenValue(ts, args[0], base.call, resolver.checker);
  return { ...base, kind: elicitationKind(ts, paramsWritten), api, params: args[0], options: args[1], paramsWritten };
}

/** `{ ..., task: { ttl } }`: the member that makes a request task-augmented, where the params are written out. */
function taskMember(ts: TS, params: ts.Expression): ts.ObjectLiteralElementLike | undefined {
  const e = skipOuter(ts, params);
  if (!ts.isObjectLiteralExpression(e)) return undefined;
  return e.properties.find(p => p.name !== undefined && (ts.isIdentifier(p.name) || ts.isStringLiteralLike(p.name)) && p.name.text === 'task');
}

/** URL-mode elicitation through `elicitInput({ mode: 'url', ... })` is the URL flavour. */
function elicitationKind(ts: TS, params: ts.Expression | undefined): SiteKind {
  const e = params && skipOuter(ts, params);
  if (e && ts.isObjectLiteralExpression(e)) {
    for (const property of e.properties) {
      const value = ts.isPropertyAssignment(property) ? skipOuter(ts, property.initializer) : undefined;
      if (value && property.name?.getText().replace(/['"]/g, '') === 'mode' && ts.isStringLiteralLike(value) && value.text === 'url') {
        return 'url-elicitation';
      }
    }
  }
  return 'elicitation';
}

/** What a 2025 URL elicitation may hold for `inputRequired.elicitUrl({ message, url })` (which drops mode and elicitationId). */
export const URL_QUESTION_KEYS: ReadonlySet<string> = new Set(['mode', 'message', 'url', 'elicitationId']);

export type UrlMember = ts.PropertyAssignment | ts.ShorthandPropertyAssignment;

/**
 * The members of a URL elicitation written as an object literal, by name (`'url'` and `url` alike);
 * or the first member that is not one of URL_QUESTION_KEYS (`name` undefined for a spread, a method
 * or a computed key).
 */
export function urlMembers(ts: TS, literal: ts.ObjectLiteralExpression): { members: Map<string, UrlMember> } | { stray: ts.ObjectLiteralElementLike; name: string | undefined } {
  const members = new Map<string, UrlMember>();
  for (const property of literal.properties) {
    if (!(ts.isPropertyAssignment(property) || ts.isShorthandPropertyAssignment(property)) || ts.isComputedPropertyName(property.name)) return { stray: property, name: undefined };
    const name = property.name.getText().replace(/['"]/g, '');
    if (!URL_QUESTION_KEYS.has(name)) return { stray: property, name };
    members.set(name, property);
  }
  return { members };
}

/** A member's value: its initializer, or the name a shorthand reads. */
export function memberValue(ts: TS, member: UrlMember): ts.Expression {
  return ts.isPropertyAssignment(member) ? member.initializer : member.name;
}

/** `getClientCapabilities()?.elicitation` → elicitation. */
function capabilityRead(ts: TS, call: ts.CallExpression): QuestionKind | undefined {
  let node: ts.Node = call;
  while (node.parent && (ts.isParenthesizedExpression(node.parent) || ts.isNonNullExpression(node.parent))) node = node.parent;
  const parent = node.parent;
  if (parent && ts.isPropertyAccessExpression(parent) && parent.expression === node) {
    const name = parent.name.text;
    if (name === 'elicitation') return 'elicitation';
    if (name === 'sampling') return 'sampling';
    if (name === 'roots') return 'roots';
  }
  return undefined;
}
