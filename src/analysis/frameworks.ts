import type * as ts from 'typescript';
import { enclosingFunction, resolveIdentifier } from './scope.js';
import { functionNameNode } from './sdk.js';
import type { FRAMEWORK_PACKAGES } from './prefilter.js';
import type { MrtrMethod, NoRequestWhy, QuestionKind, SiteContext, TS } from './types.js';

/**
 * MCP frameworks that own the server and its handlers: the user writes a decorated method, a
 * subclass's `execute()`, a tool module or an `execute` option, and the framework registers it with
 * the SDK, calls it for each request and builds its result. A request is live there, but the rewrite
 * cannot return `input_required` through code it does not own: such sites are refused with reason
 * `framework`, naming the framework, where they would otherwise look like code no request reaches.
 */
export type FrameworkName = 'FastMCP' | 'mcp-framework' | '@rekog/mcp-nest' | 'xmcp';

/** By package: every one of the prefilter's, so a file that imports one is parsed. */
const MODULES: Readonly<Record<(typeof FRAMEWORK_PACKAGES)[number], FrameworkName>> = {
  'fastmcp': 'FastMCP',
  'mcp-framework': 'mcp-framework',
  '@rekog/mcp-nest': '@rekog/mcp-nest',
  'xmcp': 'xmcp',
};

/** What each framework offers in its place (none of them turns a result into input_required for its users, but xmcp). */
const HINTS: Readonly<Record<FrameworkName, string>> = {
  'FastMCP': 'FastMCP calls the handler and builds its result, and has no input_required result for it to return: migrate when FastMCP supports MRTR, or by hand.',
  'mcp-framework': 'mcp-framework calls execute() and builds its result, and has no input_required result for it to return: migrate when mcp-framework supports MRTR, or by hand.',
  '@rekog/mcp-nest': '@rekog/mcp-nest calls the method and builds its result, and has no input_required result for it to return: migrate when @rekog/mcp-nest supports MRTR, or by hand.',
  'xmcp': 'xmcp owns the handler; on 2026-07-28 the push throws: return inputRequired({ ... }) from the tool (xmcp re-exports it) and read the answer on the retry, by hand.',
};

export function frameworkHint(framework: FrameworkName): string {
  return HINTS[framework];
}

/** The framework a package is, by its package.json name. */
export function frameworkOfPackage(name: unknown): FrameworkName | undefined {
  return typeof name === 'string' && Object.hasOwn(MODULES, name) ? MODULES[name as keyof typeof MODULES] : undefined;
}

/** For a framework's own code: who would have to change, and how. */
export function ownCodeHint(framework: FrameworkName): string {
  return `its users' handlers reach this question through ${framework}'s API, so it can become an input_required result only through that API (a design change for ${framework}), not by a rewrite of this call.`;
}

/** Where no handler of the project reaches a question, in a framework's own package: the framework's users do. */
const OWN_CODE_WHYS: ReadonlySet<NoRequestWhy> = new Set(['startup', 'oninitialized', 'unreachable-helper', 'caller-not-found']);

/**
 * The context of a question in a framework's own source (the package.json that holds the file names
 * FastMCP, mcp-framework, ...). A handler of the package is the framework's dispatcher and a helper
 * it reaches is the framework's API (`BaseTool.elicit()`, called from its users' `execute()`):
 * splitting them would change what its users call. Where no handler of the package reaches the
 * question, it is that API too, or the framework's session setup. A question in a timer, a
 * notification handler, a test keeps its own reason.
 */
export function ownCodeContext(ts: TS, context: SiteContext, node: ts.Node, framework: FrameworkName | undefined): SiteContext {
  if (!framework || (context.type === 'no-request' && !OWN_CODE_WHYS.has(context.why))) return context;
  // The first named function on the way out (`elicit: (params) => ...` by its property; an arrow
  // handler by the function that registers it).
  const nameOf = (f: ts.FunctionLikeDeclaration): string | undefined =>
    functionNameNode(ts, f)?.text ?? (ts.isPropertyAssignment(f.parent) && ts.isIdentifier(f.parent.name) ? f.parent.name.text : undefined);
  let fn = enclosingFunction(ts, node);
  while (fn && !nameOf(fn) && enclosingFunction(ts, fn)) fn = enclosingFunction(ts, fn);
  const name = fn && nameOf(fn);
  const owner = fn && ts.isMethodDeclaration(fn) && ts.isClassLike(fn.parent) && fn.parent.name ? `${fn.parent.name.text}.` : '';
  const where = name ? `${owner}${name}()` : fn ? 'this function' : 'this module code';
  // The first clause is the marker's: what the code is; the rest, where requests reach it, is the report's.
  const detail = context.type === 'no-request'
    ? `${where} is ${framework}'s own code, which no handler of this package reaches: ${context.detail}`
    : `${where} is ${framework}'s own code, run for the tools its users write`;
  return { type: 'no-request', why: 'framework', framework, ownCode: true, detail };
}

/** A function a framework calls for a request: which framework, and a short description of it. */
export interface FrameworkHandler {
  framework: FrameworkName;
  detail: string;
}

/** A question asked through a framework's own API (`extra.elicit()`, `this.elicit()`, `context.elicit()`). */
export interface FrameworkQuestion {
  framework: FrameworkName;
  kind: QuestionKind;
  /** The call as written, shortened (`extra.elicit()`). */
  label: string;
}

/** The frameworks a file imports, and the local names bound to each framework's exports. */
interface FrameworkImports {
  frameworks: Set<FrameworkName>;
  names: Map<string, { framework: FrameworkName; exported: string }>;
}

const importsCache = new WeakMap<ts.SourceFile, FrameworkImports>();

function frameworkImports(ts: TS, file: ts.SourceFile): FrameworkImports {
  let found = importsCache.get(file);
  if (found) return found;
  found = { frameworks: new Set(), names: new Map() };
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const framework = frameworkOfPackage(statement.moduleSpecifier.text.replace(/^((?:@[^/]+\/)?[^/]+).*$/, '$1'));
    if (!framework) continue;
    found.frameworks.add(framework);
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        found.names.set(element.name.text, { framework, exported: (element.propertyName ?? element.name).text });
      }
    }
  }
  importsCache.set(file, found);
  return found;
}

/** Whether a file imports a known framework. */
export function importsFramework(ts: TS, file: ts.SourceFile): boolean {
  return frameworkImports(ts, file).frameworks.size > 0;
}

const NEST_DECORATORS: Readonly<Record<string, MrtrMethod>> = {
  Tool: 'tools/call',
  Prompt: 'prompts/get',
  Resource: 'resources/read',
  ResourceTemplate: 'resources/read',
};

/** mcp-framework's base classes, and the method of each that the framework calls for a request. */
const MCP_FRAMEWORK_BASES: Readonly<Record<string, { method: string; request: MrtrMethod }>> = {
  MCPTool: { method: 'execute', request: 'tools/call' },
  MCPPrompt: { method: 'generateMessages', request: 'prompts/get' },
  MCPResource: { method: 'read', request: 'resources/read' },
};

const FASTMCP_REGISTRARS: Readonly<Record<string, { property: string; request: MrtrMethod }>> = {
  addTool: { property: 'execute', request: 'tools/call' },
  addPrompt: { property: 'load', request: 'prompts/get' },
  addResource: { property: 'load', request: 'resources/read' },
  addResourceTemplate: { property: 'load', request: 'resources/read' },
};

/** The framework that calls `fn` for a request, if one of the known frameworks does. */
export function frameworkHandlerOf(ts: TS, fn: ts.FunctionLikeDeclaration): FrameworkHandler | undefined {
  const imports = frameworkImports(ts, fn.getSourceFile());
  if (imports.frameworks.size === 0) return undefined;
  return nestMethod(ts, fn, imports) ?? baseClassMethod(ts, fn, imports) ?? fastMcpOption(ts, fn, imports) ?? xmcpModule(ts, fn, imports);
}

/** `@Tool({ ... }) async greet(...)` in a class @rekog/mcp-nest discovers. */
function nestMethod(ts: TS, fn: ts.FunctionLikeDeclaration, imports: FrameworkImports): FrameworkHandler | undefined {
  if (!ts.isMethodDeclaration(fn) || !ts.canHaveDecorators(fn)) return undefined;
  for (const decorator of ts.getDecorators(fn) ?? []) {
    const expression = ts.isCallExpression(decorator.expression) ? decorator.expression.expression : decorator.expression;
    const from = ts.isIdentifier(expression) ? imports.names.get(expression.text) : undefined;
    const request = from?.framework === '@rekog/mcp-nest' ? NEST_DECORATORS[from.exported] : undefined;
    if (request) {
      return { framework: '@rekog/mcp-nest', detail: `${fn.name.getText()}() is a @${expression.getText()}() method that @rekog/mcp-nest calls for ${request}` };
    }
  }
  return undefined;
}

/** `execute()` of `class Confirm extends MCPTool`. */
function baseClassMethod(ts: TS, fn: ts.FunctionLikeDeclaration, imports: FrameworkImports): FrameworkHandler | undefined {
  if (!ts.isMethodDeclaration(fn) || !ts.isClassLike(fn.parent)) return undefined;
  const base = mcpFrameworkBase(ts, fn.parent, imports);
  const called = base && MCP_FRAMEWORK_BASES[base];
  if (!called || fn.name.getText() !== called.method) return undefined;
  const owner = fn.parent.name?.text ?? 'a class';
  return { framework: 'mcp-framework', detail: `${called.method}() of ${owner} (extends ${base}) is called by mcp-framework for ${called.request}` };
}

/** The mcp-framework base class a class extends directly, by its exported name. */
function mcpFrameworkBase(ts: TS, cls: ts.ClassLikeDeclaration, imports: FrameworkImports): string | undefined {
  for (const clause of cls.heritageClauses ?? []) {
    if (clause.token !== ts.SyntaxKind.ExtendsKeyword) continue;
    const expression = clause.types[0]?.expression;
    const from = expression && ts.isIdentifier(expression) ? imports.names.get(expression.text) : undefined;
    if (from?.framework === 'mcp-framework' && MCP_FRAMEWORK_BASES[from.exported]) return from.exported;
  }
  return undefined;
}

/** `server.addTool({ name, execute: async (args, context) => ... })`. */
function fastMcpOption(ts: TS, fn: ts.FunctionLikeDeclaration, imports: FrameworkImports): FrameworkHandler | undefined {
  if (!imports.frameworks.has('FastMCP')) return undefined;
  const property = fn.parent;
  const named = ts.isPropertyAssignment(property) && property.initializer === fn ? property : ts.isMethodDeclaration(fn) ? fn : undefined;
  const options = named?.parent;
  if (!named || !options || !ts.isObjectLiteralExpression(options) || !ts.isCallExpression(options.parent)) return undefined;
  const call = options.parent;
  const registrar = ts.isPropertyAccessExpression(call.expression) ? FASTMCP_REGISTRARS[call.expression.name.text] : undefined;
  if (!registrar || call.arguments[0] !== options || named.name.getText() !== registrar.property) return undefined;
  const name = options.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText() === 'name');
  const which = name && ts.isStringLiteralLike(name.initializer) ? ` '${name.initializer.text}'` : '';
  return { framework: 'FastMCP', detail: `the ${registrar.property} of${which} handed to ${call.expression.getText()}() is called by FastMCP for ${registrar.request}` };
}

/** The default export of a module that imports xmcp: xmcp's file-based tools, prompts and resources. */
function xmcpModule(ts: TS, fn: ts.FunctionLikeDeclaration, imports: FrameworkImports): FrameworkHandler | undefined {
  if (!imports.frameworks.has('xmcp') || !isDefaultExport(ts, fn)) return undefined;
  const file = fn.getSourceFile().fileName.split('/').pop();
  const name = ts.isFunctionDeclaration(fn) && fn.name ? `${fn.name.text}()` : 'the function';
  return { framework: 'xmcp', detail: `${name} is the default export of ${file}, a module xmcp registers and calls for each request` };
}

function isDefaultExport(ts: TS, fn: ts.FunctionLikeDeclaration): boolean {
  if (ts.isFunctionDeclaration(fn)) {
    const modifiers = ts.getModifiers(fn) ?? [];
    if (modifiers.some(m => m.kind === ts.SyntaxKind.DefaultKeyword)) return true;
  }
  if (ts.isExportAssignment(fn.parent) && !fn.parent.isExportEquals) return true;
  // `const tool = async (...) => ...; export default tool;` and `function tool() {} export default tool;`
  const name = ts.isFunctionDeclaration(fn) ? fn.name : ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name) ? fn.parent.name : undefined;
  if (!name) return false;
  return fn.getSourceFile().statements.some(s =>
    ts.isExportAssignment(s) && !s.isExportEquals && ts.isIdentifier(s.expression) && s.expression.text === name.text);
}

/** The questions each framework's own API asks, by method name. */
const FRAMEWORK_QUESTIONS: Readonly<Record<FrameworkName, Readonly<Record<string, QuestionKind>>>> = {
  'xmcp': { elicit: 'elicitation', sample: 'sampling' },
  'mcp-framework': { elicit: 'elicitation', elicitUrl: 'elicitation', samplingRequest: 'sampling', samplingRequestWithTools: 'sampling', getRoots: 'roots' },
  'FastMCP': { elicit: 'elicitation', requestSampling: 'sampling' },
  // @rekog/mcp-nest hands over the SDK's server: its questions are the SDK's own calls.
  '@rekog/mcp-nest': {},
};

/**
 * A question asked through a framework's API: `extra.elicit()` / `extra.sample()` on the second
 * parameter of an xmcp module, `this.elicit()` (and the like) in an mcp-framework tool,
 * `context.elicit()` / `session.requestSampling()` from the parameters of a FastMCP `execute`.
 */
export function frameworkQuestionOf(ts: TS, call: ts.CallExpression): FrameworkQuestion | undefined {
  const callee = call.expression;
  const imports = frameworkImports(ts, call.getSourceFile());
  if (imports.frameworks.size === 0) return undefined;
  // `extra.elicit(...)`, or `elicit(...)` destructured from the context parameter (`{ session, elicit }`).
  const method = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? destructuredMember(ts, callee) : undefined;
  const receiver = ts.isPropertyAccessExpression(callee) ? callee.expression : callee;
  const framework = method && askingFramework(ts, receiver, imports);
  const kind = framework && FRAMEWORK_QUESTIONS[framework][method];
  if (!framework || !kind) return undefined;
  const written = callee.getText();
  const label = `${written.length > 40 ? `...${written.slice(-37)}` : written}()`;
  return { framework, kind, label };
}

/** The member a name was destructured from (`{ elicit }`, `{ elicit: ask }`), if it was. */
function destructuredMember(ts: TS, id: ts.Identifier): string | undefined {
  const element = resolveIdentifier(ts, id)?.nameNode.parent;
  return element && ts.isBindingElement(element) ? (element.propertyName ?? element.name).getText() : undefined;
}

/** The framework whose handler hands over the receiver of a question method, if one does. */
function askingFramework(ts: TS, receiver: ts.Expression, imports: FrameworkImports): FrameworkName | undefined {
  if (receiver.kind === ts.SyntaxKind.ThisKeyword) {
    // In an mcp-framework tool, `this.elicit()` is the base class's, whichever method calls it.
    let cls: ts.Node | undefined = receiver.parent;
    while (cls && !ts.isClassLike(cls)) cls = cls.parent;
    return cls && mcpFrameworkBase(ts, cls as ts.ClassLikeDeclaration, imports) ? 'mcp-framework' : undefined;
  }
  // `extra`, `context`, `context.session`, or `session` destructured from the context parameter.
  let root = receiver;
  while (ts.isPropertyAccessExpression(root)) root = root.expression;
  if (!ts.isIdentifier(root)) return undefined;
  const declared = resolveIdentifier(ts, root);
  let parameter: ts.Node | undefined = declared?.nameNode;
  while (parameter && !ts.isParameter(parameter) && !ts.isFunctionLike(parameter)) parameter = parameter.parent;
  if (!parameter || !ts.isParameter(parameter)) return undefined;
  // A helper handed the extras, typed with xmcp's own type.
  const type = parameter.type && ts.isTypeReferenceNode(parameter.type) ? imports.names.get(parameter.type.typeName.getText()) : undefined;
  if (type?.framework === 'xmcp' && type.exported === 'ToolExtraArguments') return 'xmcp';
  // The second parameter of a handler: the request's extra arguments (xmcp) or context (FastMCP).
  const fn = parameter.parent as ts.FunctionLikeDeclaration;
  const handler = fn.parameters.indexOf(parameter) === 1 ? frameworkHandlerOf(ts, fn) : undefined;
  return handler?.framework === 'xmcp' || handler?.framework === 'FastMCP' ? handler.framework : undefined;
}
