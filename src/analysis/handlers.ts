import type * as ts from 'typescript';
import { isAssignedIn, isFunctionLike, resolveIdentifier, resolveName } from './scope.js';
import { REQUEST_SCHEMA_METHODS, skipOuter, type SdkResolver } from './sdk.js';
import type { Handler, HandlerWrapper, Registration, SdkGeneration, TS } from './types.js';
import { dataRegisteredFunctions } from './dataRegistrations.js';
import { dispatchedHandlers } from './dispatchMaps.js';
import { describeWrapper, handlerParameterType, innerHandlerCall, parameterOf, promisedFunction, returnedFunction, sharedWrapperProblems } from './wrappedHandlers.js';

/**
 * Finds request handlers registered on SDK servers: the McpServer registration methods and
 * low-level `setRequestHandler`, with the method each serves and where its context parameter is.
 */

const MCP_SERVER_REGISTRATIONS = new Set<Registration>(['registerTool', 'tool', 'registerPrompt', 'prompt', 'registerResource', 'resource']);

export function discoverHandlers(ts: TS, sourceFile: ts.SourceFile, resolver: SdkResolver): Handler[] {
  const handlers: Handler[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      handlers.push(...handlersOfRegistration(ts, node, resolver));
    }
    node.forEachChild(visit);
  };
  visit(sourceFile);
  sharedWrapperProblems(handlers);
  return handlers;
}

/** The handlers a registration call registers: its callback, or the functions its registrar is given. */
function handlersOfRegistration(ts: TS, call: ts.CallExpression, resolver: SdkResolver): Handler[] {
  const callee = call.expression as ts.PropertyAccessExpression;
  const registration = callee.name.text as Registration;
  const isMcpServerMethod = MCP_SERVER_REGISTRATIONS.has(registration);
  if (!isMcpServerMethod && registration !== 'setRequestHandler') return [];
  const receiver = resolver.resolve(callee.expression);
  if (!receiver) return [];
  if (isMcpServerMethod && receiver.kind !== 'mcp-server') return [];
  if (registration === 'setRequestHandler' && receiver.kind !== 'server') return [];

  const last = call.arguments[call.arguments.length - 1];
  const fn = last && callbackFunction(ts, last);
  const first = call.arguments[0];
  if (fn) {
    const handler = handlerOf(ts, call, resolver, receiver.sdk, fn, first && registeredName(ts, first, fn, resolver.checker));
    return handler ? [handler, ...registrarWrapped(ts, call, handler, resolver), ...dispatchedHandlers(ts, handler, resolver.checker, e => callbackFunction(ts, e))] : [];
  }
  if (!last) return [];
  const wrapped = wrapperCallHandler(ts, call, last, resolver, receiver.sdk);
  if (wrapped) return [wrapped];
  if (registration === 'setRequestHandler') return [];
  const listed = dataRegisteredFunctions(ts, call, last, e => callbackFunction(ts, e));
  if (listed.length > 0) {
    return listed.flatMap(({ fn: entryFn, name, slotType }) => {
      const handler = handlerOf(ts, call, resolver, receiver.sdk, entryFn, { name, expression: undefined });
      return handler ? [{ ...handler, data: { slotType } }] : [];
    });
  }
  const handled = parameterOf(ts, last);
  if (!handled) return [];
  // The registrar's parameter, where its type is a function type of the file, is widened as a list's slot is.
  const declared = handlerParameterType(ts, handled.owner.parameters[handled.index]!);
  const slotType = declared && promisedFunction(ts, declared);
  return givenFunctions(ts, call, handled, resolver).flatMap(({ fn: forwarded, name }) => {
    const handler = handlerOf(ts, call, resolver, receiver.sdk, forwarded, name);
    return handler ? [slotType ? { ...handler, data: { slotType } } : handler] : [];
  });
}

/**
 * `function register(name, handler) { server.registerTool(name, config, handler); }` called as
 * `register('confirm', async (args, ctx) => { ... })`: each function the registrar is given (at
 * `handled`, one of its parameters) in this file, with the name its own call registers it under (or
 * the registration's, when that is not the registrar's parameter). A function given to several
 * calls is left out: one rewrite cannot bind it to two names.
 */
function givenFunctions(ts: TS, call: ts.CallExpression, handled: { owner: ts.FunctionLikeDeclaration; index: number }, resolver: SdkResolver): Array<{ fn: ts.FunctionLikeDeclaration; name: RegisteredName | undefined }> {
  const named = parameterOf(ts, call.arguments[0]);
  const nameIndex = named?.owner === handled.owner ? named.index : undefined;
  // Calls in this file only: a function given from another module is that module's to rewrite.
  // A constructor that registers (`new ToolRegistration(server, 'deploy', async () => ...)`) is called by `new`.
  const registrarCalls: Array<ts.CallExpression | ts.NewExpression> = ts.isConstructorDeclaration(handled.owner) ? constructionsInFile(ts, handled.owner) : resolver.callsOf(handled.owner);
  const given = registrarCalls.filter(c => c.getSourceFile() === call.getSourceFile()).flatMap(registrarCall => {
    const arg = registrarCall.arguments?.[handled.index];
    const fn = arg && callbackFunction(ts, arg);
    return fn ? [{ fn, registrarCall }] : [];
  });
  return given
    .filter(({ fn }) => given.filter(g => g.fn === fn).length === 1)
    .map(({ fn, registrarCall }) => {
      const nameArg = nameIndex === undefined ? call.arguments[0] : registrarCall.arguments?.[nameIndex];
      return { fn, name: nameArg && registeredName(ts, nameArg, fn, resolver.checker) };
    });
}

/** `new C(...)` of the class whose constructor this is, in its file (a class exported or used otherwise has other callers too, which the caller of each handler decides). */
function constructionsInFile(ts: TS, ctor: ts.ConstructorDeclaration): ts.NewExpression[] {
  const cls = ctor.parent;
  const found: ts.NewExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node)) {
      const callee = skipOuter(ts, node.expression);
      if (ts.isIdentifier(callee) && resolveIdentifier(ts, callee)?.declaration === cls) found.push(node);
    }
    node.forEachChild(visit);
  };
  visit(ctor.getSourceFile());
  return found;
}

/**
 * A registrar whose callback wraps the function it is given (`async () => ({ content: [{ type:
 * 'text', text: await handler() }] })`): each function given is a handler behind that wrapper.
 */
function registrarWrapped(ts: TS, call: ts.CallExpression, outer: Handler, resolver: SdkResolver): Handler[] {
  const inner = innerHandlerCall(ts, outer.fn);
  if (!inner) return [];
  const wrapper = describeWrapper(ts, outer.fn, outer.ctxParamIndex, inner, resolver.checker);
  return givenFunctions(ts, call, inner, resolver).map(({ fn, name }) => behind(outer, fn, name, wrapper));
}

/** `registerTool('confirm', config, withErrors(async () => { ... }))`: the function given to the wrapper is the handler. */
function wrapperCallHandler(ts: TS, call: ts.CallExpression, last: ts.Expression, resolver: SdkResolver, sdk: SdkGeneration): Handler | undefined {
  const e = skipOuter(ts, last);
  if (!ts.isCallExpression(e)) return undefined;
  const wrapping = callbackFunction(ts, e.expression);
  const outerFn = wrapping && returnedFunction(ts, wrapping);
  const inner = outerFn && innerHandlerCall(ts, outerFn);
  const given = inner && inner.owner === wrapping ? e.arguments[inner.index] : undefined;
  const fn = given && callbackFunction(ts, given);
  const outer = fn && handlerOf(ts, call, resolver, sdk, outerFn!, undefined);
  if (!fn || !outer) return undefined;
  const first = call.arguments[0];
  return behind(outer, fn, first && registeredName(ts, first, fn, resolver.checker), describeWrapper(ts, outerFn!, outer.ctxParamIndex, inner!, resolver.checker));
}

/** The handler `fn` behind a wrapper: it takes the wrapper's parameters, so its context sits where the wrapper's does. */
function behind(outer: Handler, fn: ts.FunctionLikeDeclaration, name: RegisteredName | undefined, wrapper: HandlerWrapper): Handler {
  const nameExpression = outer.registration === 'setRequestHandler' ? undefined : name?.expression;
  return { ...outer, fn, name: name?.name, nameExpression, wrapper };
}

type RegisteredName = { name: string | undefined; expression: ts.Expression | undefined };

function handlerOf(ts: TS, call: ts.CallExpression, resolver: SdkResolver, sdk: SdkGeneration, fn: ts.FunctionLikeDeclaration, registered: RegisteredName | undefined): Handler | undefined {
  const callee = call.expression as ts.PropertyAccessExpression;
  const registration = callee.name.text as Registration;
  const literalName = registered?.name;

  switch (registration) {
    case 'registerTool': {
      const hasArgs = configHas(ts, call.arguments[1], 'inputSchema', fn);
      return make(fn, 'tools/call', literalName, hasArgs ? 1 : 0, hasArgs ? 0 : undefined);
    }
    case 'registerPrompt': {
      const hasArgs = configHas(ts, call.arguments[1], 'argsSchema', fn);
      return make(fn, 'prompts/get', literalName, hasArgs ? 1 : 0, hasArgs ? 0 : undefined);
    }
    case 'tool':
    case 'prompt': {
      // tool(name, description?, paramsSchema?, annotations?, cb) / prompt(name, description?, argsSchema?, cb)
      const middle = call.arguments.slice(1, -1).filter(arg => !ts.isStringLiteralLike(arg));
      const hasArgs = middle.length > 0 && (middle.length >= 2 || !looksLikeAnnotations(ts, middle[0]!));
      return make(fn, registration === 'tool' ? 'tools/call' : 'prompts/get', literalName, hasArgs ? 1 : 0, hasArgs ? 0 : undefined);
    }
    case 'registerResource':
    case 'resource': {
      const template = call.arguments[1] && isResourceTemplate(ts, call.arguments[1], resolver);
      return make(fn, 'resources/read', literalName, template ? 2 : 1, 0);
    }
    case 'setRequestHandler': {
      const method = requestMethodOf(ts, call.arguments[0], resolver);
      if (!method) return undefined;
      return make(fn, method, undefined, 1, 0);
    }
  }
  return undefined;

  function make(fn: ts.FunctionLikeDeclaration, method: string, name: string | undefined, ctxParamIndex: number, argsParamIndex: number | undefined): Handler {
    const nameExpression = registration === 'setRequestHandler' ? undefined : registered?.expression;
    return { fn, registration, registrationCall: call, method, name, nameExpression, ctxParamIndex, argsParamIndex, receiver: callee.expression, sdk };
  }
}

/**
 * The name a tool / prompt / resource is registered under, when the handler can read the same value
 * on every request: a string literal, or an expression that cannot change after the registration
 * and that the handler sees unshadowed (a `const`, a member of an `as const` object or of an enum,
 * a parameter of a registrar function that is never assigned). Found by syntax, so lint with and
 * without types agrees, except for what only the checker can read: an imported name, an element of
 * a constant object typed with literal types.
 */
function registeredName(ts: TS, arg: ts.Expression, fn: ts.FunctionLikeDeclaration, checker: ts.TypeChecker | undefined): { name: string | undefined; expression: ts.Expression | undefined } | undefined {
  const e = skipOuter(ts, arg);
  if (ts.isStringLiteralLike(e)) return { name: e.text, expression: undefined };
  const syntactic = constantName(ts, e, fn);
  if (syntactic || !checker) return syntactic;
  // With the checker: a name whose type is one string's literal type can hold no other (`TOOLS['reserve']`,
  // `import { TOOL_NAME } from './names.js'`), read through a constant the handler sees unshadowed.
  let root: ts.Expression = e;
  while (ts.isPropertyAccessExpression(root) || (ts.isElementAccessExpression(root) && ts.isStringLiteralLike(root.argumentExpression))) root = skipOuter(ts, root.expression);
  const decl = ts.isIdentifier(root) ? resolveIdentifier(ts, root) : undefined;
  if (!decl || !['const', 'import', 'enum'].includes(decl.kind) || resolveName(ts, (root as ts.Identifier).text, fn.body ?? fn) !== decl) return undefined;
  const type = checker.getTypeAtLocation(e);
  return type.isStringLiteral() ? { name: type.value, expression: e } : undefined;
}

/** A name the syntax can show constant: a `const`, an `as const` or enum member, a registrar's unassigned parameter. */
function constantName(ts: TS, e: ts.Expression, fn: ts.FunctionLikeDeclaration): { name: string | undefined; expression: ts.Expression | undefined } | undefined {
  const root = ts.isIdentifier(e) ? e : ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression) ? e.expression : undefined;
  const decl = root && resolveIdentifier(ts, root);
  // The handler reads the expression when it runs: its root must mean the same there.
  if (!root || !decl || resolveName(ts, root.text, fn.body ?? fn) !== decl) return undefined;
  const initializer = ts.isVariableDeclaration(decl.declaration) && decl.declaration.initializer ? decl.declaration.initializer : undefined;
  const literal = (node: ts.Expression | undefined) => {
    const inner = node && skipOuter(ts, node);
    return inner && ts.isStringLiteralLike(inner) ? inner.text : undefined;
  };
  if (e === root) {
    if (decl.kind === 'const') return { name: literal(initializer), expression: e };
    if (decl.kind === 'parameter' && !(decl.declaration as ts.ParameterDeclaration).dotDotDotToken && !isAssignedIn(ts, decl.scope, decl)) return { name: undefined, expression: e };
    return undefined;
  }
  const member = (e as ts.PropertyAccessExpression).name.text;
  if (decl.kind === 'enum' && ts.isEnumDeclaration(decl.declaration)) {
    const value = literal(decl.declaration.members.find(m => ts.isIdentifier(m.name) && m.name.text === member)?.initializer);
    return value === undefined ? undefined : { name: value, expression: e };
  }
  // An object's members can be assigned later; `as const` makes them readonly.
  if (decl.kind !== 'const' || !initializer || !ts.isAsExpression(initializer) || initializer.type.getText() !== 'const') return undefined;
  const object = skipOuter(ts, initializer);
  if (!ts.isObjectLiteralExpression(object)) return undefined;
  const property = object.properties.find(p => ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === member);
  const value = property && ts.isPropertyAssignment(property) ? literal(property.initializer) : undefined;
  return value === undefined ? undefined : { name: value, expression: e };
}

/** The function a callback argument denotes: inline, or a function / const arrow declared elsewhere in the file. */
export function callbackFunction(ts: TS, arg: ts.Expression): ts.FunctionLikeDeclaration | undefined {
  const e = skipOuter(ts, arg);
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return e;
  if (ts.isIdentifier(e)) {
    const decl = resolveIdentifier(ts, e);
    if (!decl) return undefined;
    if (ts.isFunctionDeclaration(decl.declaration)) return decl.declaration;
    if (ts.isVariableDeclaration(decl.declaration) && decl.declaration.initializer) {
      const init = skipOuter(ts, decl.declaration.initializer);
      if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) return init;
    }
  }
  if (ts.isPropertyAccessExpression(e) && e.expression.kind === ts.SyntaxKind.ThisKeyword) {
    let cls: ts.Node | undefined = e.parent;
    while (cls && !ts.isClassLike(cls)) cls = cls.parent;
    if (cls && ts.isClassLike(cls)) {
      for (const member of cls.members) {
        if (ts.isMethodDeclaration(member) && member.name.getText() === e.name.text) return member;
        if (ts.isPropertyDeclaration(member) && member.name.getText() === e.name.text && member.initializer) {
          const init = skipOuter(ts, member.initializer);
          if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) return init;
        }
      }
    }
  }
  // handler.bind(this)
  if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === 'bind') {
    return callbackFunction(ts, e.expression.expression);
  }
  return undefined;
}

/**
 * Whether a registration's config object declares a property. When the config is not a literal,
 * the callback's arity decides (a callback with two or more parameters receives arguments first).
 */
function configHas(ts: TS, config: ts.Expression | undefined, property: string, fn: ts.FunctionLikeDeclaration): boolean {
  const e = config && skipOuter(ts, config);
  if (e && ts.isObjectLiteralExpression(e)) {
    const found = e.properties.some(p => p.name && p.name.getText().replace(/['"]/g, '') === property);
    if (found || !e.properties.some(p => ts.isSpreadAssignment(p))) return found;
  }
  return fn.parameters.length >= 2;
}

/** v1 `tool(name, annotations, cb)`: an annotations object has literal values (readOnlyHint: true). */
function looksLikeAnnotations(ts: TS, arg: ts.Expression): boolean {
  const e = skipOuter(ts, arg);
  if (!ts.isObjectLiteralExpression(e)) return false;
  return e.properties.length > 0 && e.properties.every(p =>
    ts.isPropertyAssignment(p) &&
    (p.initializer.kind === ts.SyntaxKind.TrueKeyword || p.initializer.kind === ts.SyntaxKind.FalseKeyword || ts.isStringLiteralLike(p.initializer)));
}

function isResourceTemplate(ts: TS, arg: ts.Expression, resolver: SdkResolver): boolean {
  let e = skipOuter(ts, arg);
  if (ts.isIdentifier(e)) {
    const decl = resolveIdentifier(ts, e);
    if (decl && ts.isVariableDeclaration(decl.declaration) && decl.declaration.initializer) e = skipOuter(ts, decl.declaration.initializer);
  }
  if (ts.isNewExpression(e)) {
    const ctor = resolver.sdkExport(e.expression);
    if (ctor?.exported === 'ResourceTemplate') return true;
    return ts.isIdentifier(e.expression) && e.expression.text === 'ResourceTemplate';
  }
  return false;
}

/** The method a `setRequestHandler` first argument stands for: a string, or a v1 request schema. */
export function requestMethodOf(ts: TS, arg: ts.Expression | undefined, resolver: SdkResolver): string | undefined {
  if (!arg) return undefined;
  const e = skipOuter(ts, arg);
  if (ts.isStringLiteralLike(e)) return e.text;
  const exported = resolver.sdkExport(e);
  if (exported) return REQUEST_SCHEMA_METHODS[exported.exported] ?? `<${exported.exported}>`;
  if (ts.isIdentifier(e) && REQUEST_SCHEMA_METHODS[e.text]) return REQUEST_SCHEMA_METHODS[e.text];
  return undefined;
}

/** Function-like nodes that are handler callbacks, for the resolver's context-parameter role. */
export function handlerIndex(handlers: Handler[]): Map<ts.FunctionLikeDeclaration, Handler> {
  const index = new Map<ts.FunctionLikeDeclaration, Handler>();
  for (const handler of handlers) if (!index.has(handler.fn)) index.set(handler.fn, handler);
  return index;
}

export function isHandlerCallback(ts: TS, node: ts.Node, index: Map<ts.FunctionLikeDeclaration, Handler>): node is ts.FunctionLikeDeclaration {
  return isFunctionLike(ts, node) && index.has(node);
}

/** A low-level handler's callback takes the request (a tool picked from a dispatch map takes its arguments). */
export function takesRequest(handler: Pick<Handler, 'registration' | 'dispatched'>): boolean {
  return handler.registration === 'setRequestHandler' && !handler.dispatched;
}
