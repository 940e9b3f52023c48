import type * as ts from 'typescript';
import { enclosingFunction, isFunctionLike, resolveIdentifier } from './scope.js';
import { callbackFunction } from './handlers.js';
import { functionNameNode, skipOuter } from './sdk.js';
import type { TestFilePredicate } from './testFiles.js';
import { decisiveNoRequest, reasonOfNoRequest } from './reasons.js';
import { fileLine, listed } from './places.js';
import { frameworkHandlerOf } from './frameworks.js';
import { leftRunning } from './flow.js';
import { isGlobal } from './constObjects.js';
import type { Handler, SiteContext, TS } from './types.js';

/**
 * Where a node runs relative to a live client request: directly in a handler, in a helper that
 * handlers reach, or somewhere no request is live (startup, notification handlers, timers).
 */

type NoRequest = Extract<SiteContext, { type: 'no-request' }>;

const DETACHING_CALLEES = new Set(['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask', 'nextTick']);
const LIFECYCLE_HOOKS = new Set(['oninitialized', 'onclose', 'onerror']);

export class ContextFinder {
  private readonly memo = new Map<ts.Node, SiteContext>();

  constructor(
    private readonly ts: TS,
    /** The handlers of a file: this one's, or another's where a helper's callers (from the project index) sit. */
    private readonly handlersOf: (file: ts.SourceFile) => Map<ts.FunctionLikeDeclaration, Handler>,
    /** The calls that run a function: its own, and those through an interface member, a wrapper, ... */
    private readonly callsOf: (fn: ts.FunctionLikeDeclaration) => ts.CallExpression[],
    /** The project's test files: their calls reach a helper outside requests on purpose, and do not count as its callers. */
    private readonly isTestFile: TestFilePredicate,
  ) {}

  contextOf(node: ts.Node, seen: Set<ts.Node> = new Set()): SiteContext {
    const ts = this.ts;
    /** The first function on the way out that is handed to a function of the file, which calls it through a parameter. */
    let handed: SiteContext | undefined;
    for (let fn = enclosingFunction(ts, node); fn; fn = enclosingFunction(ts, fn)) {
      const handler = this.handlerOf(fn);
      if (handler) return { type: 'handler', handler };
      const owned = frameworkHandlerOf(ts, fn);
      if (owned) return { type: 'no-request', why: 'framework', framework: owned.framework, detail: owned.detail };
      const parent = skipParens(ts, fn);
      const container = parent.parent;

      if (container && ts.isCallExpression(container) && container.arguments.includes(parent as ts.Expression)) {
        const callee = calleeName(ts, container);
        if (callee && DETACHING_CALLEES.has(callee)) {
          return { type: 'no-request', why: 'detached-task', detail: `runs later, from ${callee}(), after the request may have finished` };
        }
        if (callee === 'setNotificationHandler') {
          return { type: 'no-request', why: 'notification-handler', detail: 'notification handlers have no request to answer' };
        }
        const relayed = callee === 'setRequestHandler' ? clientRequestMethod(ts, container) : undefined;
        if (relayed) {
          return { type: 'no-request', why: 'relay', detail: `inside the ${relayed} request an upstream server sent to this process's MCP client` };
        }
        handed ??= handedToParameter(ts, container, parent as ts.Expression);
        continue; // an inline callback (map, then, new Promise, ...): keep walking out
      }
      if (container && (ts.isCallExpression(container) || ts.isNewExpression(container)) && container.expression === parent) {
        continue; // an immediately invoked function
      }
      if (container && ts.isNewExpression(container)) {
        // `new Promise(resolve => ...)` runs its executor at once; any other class keeps the function to call it when it decides.
        if (!isPromiseConstruction(ts, container)) handed ??= handedToConstructor(ts, container);
        continue;
      }
      if (container && ts.isBinaryExpression(container) && container.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
          ts.isPropertyAccessExpression(container.left) && LIFECYCLE_HOOKS.has(container.left.name.text)) {
        const hook = container.left.name.text;
        return {
          type: 'no-request',
          why: hook === 'oninitialized' ? 'oninitialized' : 'startup',
          detail: `${hook} runs outside any request`,
        };
      }
      return this.helperContext(fn, seen);
    }
    // `register('confirm', async () => await confirm())`: not run at startup, but by whatever register() does with it.
    if (handed) return handed;
    const file = node.getSourceFile();
    if (this.isTestFile(file.fileName)) return { type: 'no-request', why: 'test', detail: `${file.fileName.split('/').pop()} is a test, which runs outside any request` };
    return { type: 'no-request', why: 'startup', detail: 'module top level runs at startup, outside any request' };
  }

  /**
   * Where a call runs the function it calls, for splitting it: where the call sits, except that a call
   * started and left running (`void save(id)`) runs it past the request that started it, which may be
   * gone when it asks. (Its handler still reaches the question: it is not rewritten without it.)
   */
  callerContextOf(call: ts.CallExpression, seen: Set<ts.Node> = new Set()): SiteContext {
    const context = this.contextOf(call, seen);
    if (context.type === 'no-request' || !leftRunning(this.ts, call)) return context;
    return { type: 'no-request', why: 'fire-and-forget', detail: 'the call is started and never awaited' };
  }

  /** Whether a call no request reaches is a test's: it does not count as a caller outside requests. */
  isTestCall(call: ts.Node, context: SiteContext): boolean {
    return context.type === 'no-request' && (context.why === 'test' || this.isTestFile(call.getSourceFile().fileName));
  }

  /** The handler a function is, in this file or (for callers found through the project index) in another. */
  private handlerOf(fn: ts.FunctionLikeDeclaration): Handler | undefined {
    return this.handlersOf(fn.getSourceFile()).get(fn);
  }

  private helperContext(fn: ts.FunctionLikeDeclaration, seen: Set<ts.Node>): SiteContext {
    const cached = this.memo.get(fn);
    if (cached) return cached;
    const ts = this.ts;
    const name = functionNameNode(ts, fn)?.text ?? '<anonymous function>';
    if (seen.has(fn)) return { type: 'no-request', why: 'caller-not-found', detail: `${name} only calls itself` };
    const nextSeen = new Set(seen).add(fn);
    const callers = this.callsOf(fn);
    const handlers: Handler[] = [];
    const unreachableFrom: string[] = [];
    const fromTests: string[] = [];
    /** Callers whose own callers the analysis cannot find (or a call back into the chain): neither in a request nor shown outside one. */
    const lost: string[] = [];
    /** The callers no request reaches (tests aside), with where each is. */
    const outside: Array<{ at: string; context: NoRequest }> = [];
    for (const call of callers) {
      const context = this.contextOf(call, nextSeen);
      if (context.type === 'handler') {
        if (!handlers.includes(context.handler)) handlers.push(context.handler);
      } else if (context.type === 'helper') {
        for (const h of context.handlers) if (!handlers.includes(h)) handlers.push(h);
        unreachableFrom.push(...context.unreachableFrom);
      } else if (this.isTestCall(call, context)) {
        fromTests.push(fileLine(call));
        continue; // a test's call says nothing of where the server runs it
      } else if (context.why === 'caller-not-found') {
        // Not proven outside requests: it keeps the helper from being split (its call would break), no more.
        lost.push(fileLine(call));
        unreachableFrom.push(`${fileLine(call)} (${context.detail.replace(/: .*$/s, '')})`);
      } else {
        // A caller's own chain stays in its first clause: the reason names where, not every path.
        const at = `${fileLine(call)} (${context.detail.replace(/: .*$/s, '')})`;
        unreachableFrom.push(at);
        outside.push({ at, context });
      }
    }
    let result: SiteContext;
    let timer: string | undefined;
    if (handlers.length > 0) {
      result = { type: 'helper', helper: fn, helperName: name, handlers, unreachableFrom };
    } else if (outside.length === 0 && (timer = timerHandingOver(ts, fn))) {
      result = { type: 'no-request', why: 'detached-task', detail: `${name} runs later, from ${timer}, after any request may have finished` };
    } else if (outside.length === 0) {
      result = { type: 'no-request', why: 'caller-not-found', detail: callerNotFound(ts, fn, name, fromTests, lost) };
    } else {
      // Every caller is outside requests: the decisive one gives the reason (a relay, a timer, ...) and comes first.
      const top = decisiveNoRequest(outside.map(o => o.context))!;
      if (top.why === 'framework') {
        // A helper of a framework's handler runs in its request: the framework is its obstacle too.
        result = { type: 'no-request', why: 'framework', framework: top.framework!, detail: `${name}() runs in a request ${top.framework!} dispatches: ${top.detail.replace(/^.*? dispatches: /, '')}` };
      } else if (top.why === 'function-value') {
        // Least decisive: every caller hands the function on.
        result = { type: 'no-request', why: 'function-value', detail: `${name}() is called ${top.handedAt!}`, handedAt: top.handedAt! };
      } else {
        const reason = reasonOfNoRequest(top.why);
        const rank = (o: { context: NoRequest }): number => (reasonOfNoRequest(o.context.why) === reason ? 0 : 1);
        // A relay or a timer is the helper's reason too; "no live request" reads as a helper no request reaches.
        const why = reason === 'no-live-request' ? 'unreachable-helper' : top.why;
        const at = [...outside].sort((a, b) => rank(a) - rank(b)).map(o => o.at);
        result = { type: 'no-request', why, detail: `${name} is only called outside requests: ${listed(at, '; ')}` };
      }
    }
    if (seen.size === 0) this.memo.set(fn, result);
    return result;
  }
}

/**
 * Why no request handler was found above a function none of whose callers is shown to run outside
 * requests: it has none the analysis sees (a function registered through data, an implementation of
 * an interface, an export whose callers need types), only tests call it, or only functions in the
 * same plight do. Never "outside requests": that is said only where it is proven.
 */
function callerNotFound(ts: TS, fn: ts.FunctionLikeDeclaration, name: string, fromTests: string[], lost: string[]): string {
  const called = functionNameNode(ts, fn) ? `${name}()` : `the function at ${fileLine(fn)}`;
  if (lost.length > 0) return `no caller of ${called} leads to a request handler the analysis can see: its callers (${listed(lost)}) have none`;
  if (fromTests.length > 0) return `${called} is only called from tests (${listed(fromTests)}); no request handler that calls it was found`;
  if (isExported(ts, fn)) return `${name} is exported but no caller was found (callers in other files need type information to follow)`;
  return `no caller of ${called} leads to a request handler the analysis can see`;
}

/**
 * A function literal handed to a function declared in the file that calls the parameter it binds
 * (`register(name, handler)` whose tool handler calls `handler()`): where it runs is decided there,
 * through a value the analysis does not follow.
 */
function handedToParameter(ts: TS, call: ts.CallExpression, argument: ts.Expression): SiteContext | undefined {
  const callee = skipOuter(ts, call.expression);
  if (!ts.isIdentifier(callee)) return undefined;
  const target = callbackFunction(ts, callee);
  const parameter = target?.parameters[call.arguments.indexOf(argument)];
  if (!target?.body || !parameter || !ts.isIdentifier(parameter.name) || parameter.dotDotDotToken) return undefined;
  const name = parameter.name;
  const calls = (node: ts.Node): boolean => {
    const called = ts.isCallExpression(node) ? skipOuter(ts, node.expression) : undefined;
    if (called && ts.isIdentifier(called) && resolveIdentifier(ts, called)?.nameNode === name) return true;
    return node.forEachChild(calls) ?? false;
  };
  if (!calls(target.body)) return undefined;
  const line = call.getSourceFile().getLineAndCharacterOfPosition(call.getStart()).line + 1;
  const handedAt = `in a function handed to ${callee.text}() (${call.getSourceFile().fileName.split('/').pop()}:${line}), which calls it through its parameter \`${name.text}\``;
  return { type: 'no-request', why: 'function-value', detail: `the question runs ${handedAt}`, handedAt };
}

/** `new Promise(...)`: the global Promise, whose executor runs during the construction. */
function isPromiseConstruction(ts: TS, construction: ts.NewExpression): boolean {
  return isGlobal(ts, construction.expression, 'Promise');
}

/**
 * A function literal handed to a constructor (`new ToolDefinition('deploy', async () => ...)`): the
 * instance keeps it and something calls it later, which the analysis does not see. Not startup, and
 * not shown to be outside requests: its caller is not found.
 */
function handedToConstructor(ts: TS, construction: ts.NewExpression): SiteContext {
  const callee = skipOuter(ts, construction.expression);
  const name = ts.isIdentifier(callee) || ts.isPropertyAccessExpression(callee) ? callee.getText() : 'a class';
  return { type: 'no-request', why: 'caller-not-found', detail: `the function is handed to new ${name}() (${fileLine(construction)}), which keeps it; no call of it that leads to a request handler was found` };
}

/** The outermost of the parentheses and `as` casts around `node` (itself when there are none). */
export function skipParens(ts: TS, node: ts.Node): ts.Node {
  let n = node;
  while (n.parent && (ts.isParenthesizedExpression(n.parent) || ts.isAsExpression(n.parent))) n = n.parent;
  return n;
}

/**
 * `setTimeout(syncRoots, 5000)`: where a function of the file is handed, by its name, to a timer
 * (`setTimeout() (line 12)`), for a function no call reaches.
 */
function timerHandingOver(ts: TS, fn: ts.FunctionLikeDeclaration): string | undefined {
  const name = functionNameNode(ts, fn);
  if (!name) return undefined;
  const file = fn.getSourceFile();
  let found: string | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(node)) {
      const callee = calleeName(ts, node);
      const handed = callee && DETACHING_CALLEES.has(callee) && node.arguments.some(a => ts.isIdentifier(a) && a.text === name.text && resolveIdentifier(ts, a)?.nameNode === name);
      if (handed) found = `${callee}() (line ${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1})`;
    }
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

/** The requests a server sends its client, by the v1 schema that names them and by method. */
const CLIENT_REQUESTS: Record<string, string> = {
  ElicitRequestSchema: 'elicitation/create',
  CreateMessageRequestSchema: 'sampling/createMessage',
  ListRootsRequestSchema: 'roots/list',
  'elicitation/create': 'elicitation/create',
  'sampling/createMessage': 'sampling/createMessage',
  'roots/list': 'roots/list',
};

/**
 * The method of `x.setRequestHandler(ElicitRequestSchema | 'elicitation/create', ...)`: a request a
 * server sends its client, so `x` is an MCP client and the handler answers an upstream server.
 */
function clientRequestMethod(ts: TS, call: ts.CallExpression): string | undefined {
  const first = call.arguments[0] && skipOuter(ts, call.arguments[0]);
  if (!first) return undefined;
  const name = ts.isIdentifier(first) ? first.text : ts.isPropertyAccessExpression(first) ? first.name.text : ts.isStringLiteralLike(first) ? first.text : undefined;
  return name === undefined ? undefined : CLIENT_REQUESTS[name];
}

function calleeName(ts: TS, call: ts.CallExpression): string | undefined {
  const callee = skipOuter(ts, call.expression);
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

function isExported(ts: TS, fn: ts.FunctionLikeDeclaration): boolean {
  let node: ts.Node | undefined = fn;
  if (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) node = fn.parent?.parent?.parent; // const x = () => {} inside VariableStatement
  if (ts.isMethodDeclaration(fn)) node = fn.parent;
  const modifiers = node && (ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined);
  return !!modifiers?.some(m => m.kind === ts.SyntaxKind.ExportKeyword);
}

export function isInsideFunction(ts: TS, node: ts.Node, fn: ts.Node): boolean {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (n === fn) return true;
  }
  return false;
}

export { isFunctionLike };
