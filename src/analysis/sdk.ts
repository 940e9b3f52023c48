import { readFileSync } from 'node:fs';
import path from 'node:path';
import type * as ts from 'typescript';
import { isFunctionLike, resolveIdentifier, type LocalDecl } from './scope.js';
import type { QuestionKind, SdkGeneration, TS } from './types.js';

/**
 * Resolving receivers: a call is a site only when its receiver really is the MCP SDK's server,
 * handler context or `ctx.mcpReq`. With a checker the receiver's type decides (declared in an
 * `@modelcontextprotocol/*` package or not); without one, values are traced back through imports,
 * declarations, class members, destructuring and helper parameters to SDK constructions.
 */

export type ValueKind =
  /** `McpServer` instance. */
  | 'mcp-server'
  /** Low-level `Server` instance, including `mcpServer.server`. */
  | 'server'
  /** Handler context: v1 `extra` (RequestHandlerExtra), v2 `ctx` (ServerContext). */
  | 'context'
  /** v2 `ctx.mcpReq`. */
  | 'mcp-req'
  /** v1 `sendRequest` taken out of `extra`. */
  | 'send-request';

export interface ResolvedValue {
  kind: ValueKind;
  sdk: SdkGeneration;
}

export function sdkOfModule(specifier: string): SdkGeneration | undefined {
  if (specifier === '@modelcontextprotocol/sdk' || specifier.startsWith('@modelcontextprotocol/sdk/')) return 'v1';
  // core-internal: the shared core of the SDK's own repository, where the context types are declared.
  if (/^@modelcontextprotocol\/(server|core|core-internal|node|express|hono|server-legacy)(\/|$)/.test(specifier)) return 'v2';
  return undefined;
}

/** Where a declaration file of the SDK lives, judged by its path. */
export function sdkOfFileName(fileName: string): SdkGeneration | undefined {
  const normalized = fileName.replaceAll('\\', '/');
  if (normalized.includes('/@modelcontextprotocol/sdk/')) return 'v1';
  if (/\/@modelcontextprotocol\/(server|core|core-internal|node|express|hono|server-legacy|client)\//.test(normalized)) return 'v2';
  // Not installed under its name: a workspace package (the SDK's own repository, where its examples
  // resolve it to packages/*/src), known by the name in its package.json.
  if (normalized.includes('/node_modules/')) return undefined;
  return sdkOfModule(packageNameOf(path.dirname(normalized)) ?? '');
}

/** A source of the project: not a declaration, a package, or the SDK's own source (its repository's workspace packages). */
export function isProjectSource(file: ts.SourceFile): boolean {
  return !file.isDeclarationFile && !/[\\/]node_modules[\\/]/.test(file.fileName) && sdkOfFileName(file.fileName) === undefined;
}

const packageNames = new Map<string, string | undefined>();

/** The `name` of the package.json nearest above `dir`. */
function packageNameOf(dir: string): string | undefined {
  if (packageNames.has(dir)) return packageNames.get(dir);
  let name: string | undefined;
  try {
    name = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name as string | undefined;
    if (typeof name !== 'string') name = undefined;
  } catch {
    const parent = path.dirname(dir);
    name = parent === dir ? undefined : packageNameOf(parent);
  }
  packageNames.set(dir, name);
  return name;
}

/** Result schemas of the three questions, by exported name. */
export const RESULT_SCHEMA_KINDS: Record<string, QuestionKind> = {
  ElicitResultSchema: 'elicitation',
  CreateMessageResultSchema: 'sampling',
  CreateMessageResultWithToolsSchema: 'sampling',
  ListRootsResultSchema: 'roots',
};

export const QUESTION_METHODS: Record<string, QuestionKind> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The tasks/* requests a server sends a client running its question as a task (2025-11-25), and their v1 result schemas. */
export const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);
export const TASK_RESULT_SCHEMAS: ReadonlySet<string> = new Set(['GetTaskResultSchema', 'GetTaskPayloadResultSchema', 'ListTasksResultSchema', 'CancelTaskResultSchema']);

/**
 * v1's experimental task API on a server (`server.experimental.tasks.<method>`): the polls are
 * task requests; the streams ask their question through the task layer v2 removed.
 */
export const EXPERIMENTAL_TASK_METHODS: Record<string, QuestionKind | 'task-request'> = {
  getTask: 'task-request',
  getTaskResult: 'task-request',
  listTasks: 'task-request',
  cancelTask: 'task-request',
  elicitInputStream: 'elicitation',
  createMessageStream: 'sampling',
};

/** v1 request schemas and the method they stand for (the v1 form of `setRequestHandler`). */
export const REQUEST_SCHEMA_METHODS: Record<string, string> = {
  CallToolRequestSchema: 'tools/call',
  GetPromptRequestSchema: 'prompts/get',
  ReadResourceRequestSchema: 'resources/read',
  ListToolsRequestSchema: 'tools/list',
  ListPromptsRequestSchema: 'prompts/list',
  ListResourcesRequestSchema: 'resources/list',
  ListResourceTemplatesRequestSchema: 'resources/templates/list',
  SubscribeRequestSchema: 'resources/subscribe',
  UnsubscribeRequestSchema: 'resources/unsubscribe',
  CompleteRequestSchema: 'completion/complete',
  SetLevelRequestSchema: 'logging/setLevel',
  InitializeRequestSchema: 'initialize',
  PingRequestSchema: 'ping',
};

export interface SdkImport {
  /** The exported name (`McpServer`), or `*` for a namespace import. */
  exported: string;
  module: string;
  sdk: SdkGeneration;
}

/** Local names bound to SDK exports in one file, from ES imports and CommonJS `require`. */
export function collectSdkImports(ts: TS, sourceFile: ts.SourceFile): Map<string, SdkImport> {
  const imports = new Map<string, SdkImport>();
  for (const statement of sourceFile.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && statement.importClause) {
      const module = statement.moduleSpecifier.text;
      const sdk = sdkOfModule(module);
      if (!sdk) continue;
      const clause = statement.importClause;
      if (clause.name) imports.set(clause.name.text, { exported: 'default', module, sdk });
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) {
        imports.set(bindings.name.text, { exported: '*', module, sdk });
      } else if (bindings) {
        for (const element of bindings.elements) {
          imports.set(element.name.text, { exported: (element.propertyName ?? element.name).text, module, sdk });
        }
      }
    }
  }
  // const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js'), anywhere in the file.
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.initializer) {
      const required = requiredModule(ts, node.initializer);
      const sdk = required && sdkOfModule(required);
      if (required && sdk) {
        if (ts.isIdentifier(node.name)) {
          imports.set(node.name.text, { exported: '*', module: required, sdk });
        } else if (ts.isObjectBindingPattern(node.name)) {
          for (const element of node.name.elements) {
            if (!ts.isIdentifier(element.name)) continue;
            const exported = element.propertyName && ts.isIdentifier(element.propertyName) ? element.propertyName.text : element.name.text;
            imports.set(element.name.text, { exported, module: required, sdk });
          }
        }
      }
    }
    node.forEachChild(visit);
  };
  visit(sourceFile);
  return imports;
}

export function requiredModule(ts: TS, expr: ts.Expression): string | undefined {
  let e = skipOuter(ts, expr);
  if (ts.isAwaitExpression(e)) e = skipOuter(ts, e.expression);
  if (ts.isCallExpression(e) && e.arguments.length === 1) {
    const arg = e.arguments[0]!;
    const isRequire = ts.isIdentifier(e.expression) && e.expression.text === 'require';
    const isDynamicImport = e.expression.kind === ts.SyntaxKind.ImportKeyword;
    if ((isRequire || isDynamicImport) && ts.isStringLiteralLike(arg)) return arg.text;
  }
  return undefined;
}

/** Strips parentheses, `as`, `!`, `satisfies` and type assertions. */
export function skipOuter(ts: TS, expr: ts.Expression): ts.Expression {
  let e = expr;
  for (;;) {
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) ||
        ts.isSatisfiesExpression(e) || ts.isTypeAssertionExpression(e)) {
      e = e.expression;
    } else {
      return e;
    }
  }
}

/** Facts about handler callbacks the resolver needs (filled in once handlers are discovered). */
export interface HandlerParamRoles {
  /** For a handler callback: the index of its context parameter and its SDK generation. */
  contextParam(fn: ts.FunctionLikeDeclaration): { index: number; sdk: SdkGeneration } | undefined;
}

/** Per program, how its interfaces are implemented (one walk of the program's own files, see interfaceUses). */
const INTERFACE_USES = new WeakMap<ts.Program, Map<ts.Symbol, InterfaceUse>>();

interface InterfaceUse {
  /** The classes that declare `implements` it. */
  classes: ts.ClassLikeDeclaration[];
  /** Whether another interface extends it or an object literal is written as one (`{...} satisfies I`, `const x: I = {...}`). */
  other: boolean;
}

function interfaceUses(ts: TS, checker: ts.TypeChecker, program: ts.Program): Map<ts.Symbol, InterfaceUse> {
  const uses = new Map<ts.Symbol, InterfaceUse>();
  const symbolOf = (e: ts.Node): ts.Symbol | undefined => {
    let s = checker.getSymbolAtLocation(e);
    if (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
    return s;
  };
  const useOf = (s: ts.Symbol): InterfaceUse => {
    let use = uses.get(s);
    if (!use) uses.set(s, (use = { classes: [], other: false }));
    return use;
  };
  const typedObject = (type: ts.TypeNode | undefined, value: ts.Expression | undefined): void => {
    if (type && ts.isTypeReferenceNode(type) && value && ts.isObjectLiteralExpression(skipOuter(ts, value))) {
      const s = symbolOf(type.typeName);
      if (s) useOf(s).other = true;
    }
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isClassLike(node) || ts.isInterfaceDeclaration(node)) && node.heritageClauses) {
      for (const clause of node.heritageClauses) {
        if (ts.isClassLike(node) && clause.token !== ts.SyntaxKind.ImplementsKeyword) continue;
        for (const t of clause.types) {
          const s = symbolOf(t.expression);
          if (!s) continue;
          if (ts.isClassLike(node)) useOf(s).classes.push(node);
          else useOf(s).other = true;
        }
      }
    }
    if (ts.isVariableDeclaration(node)) typedObject(node.type, node.initializer);
    if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) typedObject(node.type, node.expression);
    node.forEachChild(visit);
  };
  for (const file of program.getSourceFiles()) if (isProjectSource(file) && !file.isDeclarationFile) visit(file);
  return uses;
}

export class SdkResolver {
  readonly imports: Map<string, SdkImport>;
  private readonly memo = new Map<ts.Node, ResolvedValue | null>();
  private readonly visiting = new Set<ts.Node>();
  private readonly callSites = new Map<ts.Node, ts.CallExpression[]>();
  roles: HandlerParamRoles | undefined;

  constructor(
    readonly ts: TS,
    readonly sourceFile: ts.SourceFile,
    readonly checker: ts.TypeChecker | undefined,
    /** Calls of functions declared in other files, from the project index (checker mode only). */
    readonly externalCallSites?: (fn: ts.FunctionLikeDeclaration) => ts.CallExpression[],
  ) {
    this.imports = collectSdkImports(ts, sourceFile);
  }

  /** Whether a server constructed in another file of the program can be wired (see AnalyzeOptions). */
  crossFileServers = false;

  /** `new` expressions of a class in other files, from the project index (checker mode only). */
  externalConstructions: ((ctor: ts.ConstructorDeclaration) => ts.NewExpression[]) | undefined;

  /** The program, to find the classes that implement an interface of the project (checker mode only). */
  program: ts.Program | undefined;

  /** Forget resolutions made before handler roles were known. */
  resetMemo(): void {
    this.memo.clear();
  }

  /** The SDK export a name or `ns.Name` expression refers to, when it is one. */
  sdkExport(expr: ts.Expression): SdkImport | undefined {
    const e = skipOuter(this.ts, expr);
    return this.importedExport(e) ?? (this.checker ? this.exportFromChecker(e) : undefined);
  }

  /** `Name` or `ns.Name` bound by an SDK import (or `require`) of this file that nothing shadows: no checker needed. */
  private importedExport(e: ts.Expression): SdkImport | undefined {
    const ts = this.ts;
    // A local declaration shadowing the import is not the import.
    const unshadowed = (id: ts.Identifier): boolean => {
      const decl = resolveIdentifier(ts, id);
      return !decl || decl.kind === 'import' || ts.isSourceFile(decl.scope) || isRequireDeclaration(ts, decl);
    };
    if (ts.isIdentifier(e)) {
      const imported = this.imports.get(e.text);
      return imported && imported.exported !== '*' && unshadowed(e) ? imported : undefined;
    }
    if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression)) {
      const ns = this.imports.get(e.expression.text);
      return ns?.exported === '*' && unshadowed(e.expression) ? { exported: e.name.text, module: ns.module, sdk: ns.sdk } : undefined;
    }
    return undefined;
  }

  /**
   * What `new <ctor>(...)` builds when `ctor` is the SDK's McpServer / Server or a class of the
   * project that extends one (at any depth: `class AppServer extends Server {}`), with those classes,
   * nearest first. `exportOf` reads an SDK name (by syntax only, or with the checker too).
   */
  serverClassOf(ctor: ts.Expression, exportOf: (e: ts.Expression) => SdkImport | undefined = e => this.sdkExport(e), seen = new Set<ts.Node>()): { value: ResolvedValue; subclasses: ts.ClassLikeDeclaration[] } | undefined {
    const ts = this.ts;
    const e = skipOuter(ts, ctor);
    const own = serverOf(exportOf(e));
    if (own) return { value: own, subclasses: [] };
    const cls = this.classOf(e);
    if (!cls || seen.has(cls)) return undefined;
    seen.add(cls);
    const base = cls.heritageClauses?.find(h => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
    const found = base && this.serverClassOf(base, exportOf, seen);
    return found ? { value: found.value, subclasses: [cls, ...found.subclasses] } : undefined;
  }

  /** The project's class a name denotes: declared in this file, or (with the checker) imported from another of the project. */
  private classOf(e: ts.Expression): ts.ClassLikeDeclaration | undefined {
    const ts = this.ts;
    if (!ts.isIdentifier(e)) return undefined;
    const decl = resolveIdentifier(ts, e);
    const node = decl?.declaration;
    if (node && ts.isClassLike(node)) return node;
    if (node && ts.isVariableDeclaration(node) && decl.kind === 'const' && node.initializer && ts.isClassExpression(skipOuter(ts, node.initializer))) {
      return skipOuter(ts, node.initializer) as ts.ClassExpression;
    }
    if (decl?.kind !== 'import' || !this.checker) return undefined;
    let symbol = this.checker.getSymbolAtLocation(e);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    return symbol?.declarations?.find((d): d is ts.ClassDeclaration => ts.isClassDeclaration(d) && isProjectSource(d.getSourceFile()));
  }

  private exportFromChecker(e: ts.Expression): SdkImport | undefined {
    const checker = this.checker!;
    const target = this.ts.isPropertyAccessExpression(e) ? e.name : e;
    let symbol = checker.getSymbolAtLocation(target);
    if (!symbol) return undefined;
    if (symbol.flags & this.ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    for (const declaration of symbol.declarations ?? []) {
      const sdk = sdkOfFileName(declaration.getSourceFile().fileName);
      if (sdk) return { exported: symbol.name, module: declaration.getSourceFile().fileName, sdk };
    }
    return undefined;
  }

  /** What an expression evaluates to, as far as the SDK is concerned. */
  resolve(expr: ts.Expression): ResolvedValue | undefined {
    const e = skipOuter(this.ts, expr);
    const cached = this.memo.get(e);
    if (cached !== undefined) return cached ?? undefined;
    if (this.visiting.has(e)) return undefined;
    this.visiting.add(e);
    let result: ResolvedValue | undefined;
    try {
      const typed = this.handlerContext(e) ?? this.constructedServer(e) ?? this.resolveByType(e);
      if (typed !== 'not-sdk') result = typed ?? this.resolveBySyntax(e);
      // A parameter typed with a function type written in the file takes whatever its callers pass (`ctx.mcpReq.send`).
      else if (this.isFunctionTypedParameter(e)) result = this.resolveBySyntax(e);
    } finally {
      this.visiting.delete(e);
    }
    this.memo.set(e, result ?? null);
    return result;
  }

  /** A parameter whose written type is a function type, in place or through an alias of the project (`ask: Ask`). */
  private isFunctionTypedParameter(e: ts.Expression): boolean {
    const ts = this.ts;
    const parameter = ts.isIdentifier(e) ? resolveIdentifier(ts, e)?.declaration : undefined;
    if (!parameter || !ts.isParameter(parameter) || !parameter.type) return false;
    const type = skipParentheses(ts, parameter.type);
    if (ts.isFunctionTypeNode(type)) return true;
    const written = ts.isTypeReferenceNode(type) && this.checker ? this.checker.getTypeFromTypeNode(type) : undefined;
    return !!written && written.getCallSignatures().length > 0 && !written.getSymbol()?.declarations?.some(d => sdkOfFileName(d.getSourceFile().fileName));
  }

  /**
   * A discovered handler's own context parameter, written without a type (and members read from it):
   * the SDK types that parameter through the registration call, so the syntax is as certain as the
   * checker, which would infer it through the SDK's and zod's overloads (most of a typed lint run's
   * analysis time, scripts/bench-lint.mjs).
   */
  private handlerContext(e: ts.Expression): ResolvedValue | undefined {
    const ts = this.ts;
    if (!this.roles) return undefined;
    if (ts.isPropertyAccessExpression(e)) {
      const owner = this.handlerContext(skipOuter(ts, e.expression));
      return owner && memberKind(owner, e.name.text);
    }
    if (!ts.isIdentifier(e)) return undefined;
    const decl = resolveIdentifier(ts, e);
    const parameter = decl?.declaration;
    // A type written in place does not change what the SDK passes (its own context): only a named type is asked of the checker.
    if (!parameter || !ts.isParameter(parameter) || (parameter.type && !isTypeLiteral(ts, parameter.type)) || ts.getJSDocType(parameter)) return undefined;
    const fn = parameter.parent;
    const role = isFunctionLike(ts, fn) ? this.roles.contextParam(fn) : undefined;
    if (!role || fn.parameters.indexOf(parameter) !== role.index) return undefined;
    const ctx: ResolvedValue = { kind: 'context', sdk: role.sdk };
    return ts.isIdentifier(parameter.name) ? ctx : this.resolveBindingElement(decl.nameNode, ctx);
  }

  /**
   * A server the syntax alone names for certain: `new McpServer(...)` of the SDK's own import (or `require`), a
   * `const` holding one (no type written on it), and its `.server`. The checker could only agree (the
   * type of such an expression is the SDK class); asking it costs the SDK's declarations for every file
   * a typed lint run sees (scripts/bench-lint.mjs).
   */
  private constructedServer(e: ts.Expression): ResolvedValue | undefined {
    const ts = this.ts;
    if (ts.isNewExpression(e)) return this.serverClassOf(e.expression, x => this.importedExport(x))?.value;
    if (ts.isPropertyAccessExpression(e)) {
      const owner = this.constructedServer(skipOuter(ts, e.expression));
      return owner?.kind === 'mcp-server' ? memberKind(owner, e.name.text) : undefined;
    }
    if (!ts.isIdentifier(e)) return undefined;
    const decl = resolveIdentifier(ts, e);
    const node = decl?.declaration;
    if (decl?.kind !== 'const' || !node || !ts.isVariableDeclaration(node) || node.type || !ts.isIdentifier(node.name) || !node.initializer) return undefined;
    const initializer = skipOuter(ts, node.initializer);
    return ts.isNewExpression(initializer) ? this.constructedServer(initializer) : undefined;
  }

  /** Type-based resolution: a definite non-SDK type means "not ours" (look-alikes), any/unknown means "ask the syntax". */
  private resolveByType(e: ts.Expression): ResolvedValue | 'not-sdk' | undefined {
    const checker = this.checker;
    if (!checker) return undefined;
    const ts = this.ts;
    let type: ts.Type;
    try {
      type = checker.getTypeAtLocation(e);
    } catch {
      return undefined;
    }
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return undefined;
    const candidates = type.isUnion() ? type.types : [type];
    for (const t of candidates) {
      if (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)) continue;
      const found = this.kindOfType(t);
      if (found) return found;
    }
    // An unresolved import (error type) prints as any; anything else concrete is not the SDK's.
    return type.flags & ts.TypeFlags.Object || type.isUnionOrIntersection() ? 'not-sdk' : undefined;
  }

  kindOfType(t: ts.Type): ResolvedValue | undefined {
    const checker = this.checker;
    if (!checker) return undefined;
    const symbol = t.getSymbol();
    const declaredIn = (s: ts.Symbol | undefined): SdkGeneration | undefined => {
      const declaration = s?.declarations?.[0];
      return declaration ? sdkOfFileName(declaration.getSourceFile().fileName) : undefined;
    };
    if (symbol) {
      const sdk = declaredIn(symbol);
      if (sdk && symbol.name === 'McpServer') return { kind: 'mcp-server', sdk };
      if (sdk && symbol.name === 'Server') return { kind: 'server', sdk };
      // A class of the project that extends one of them (`class AppServer extends Server {}`), at any depth.
      const target = (t.flags & this.ts.TypeFlags.Object) && ((t as ts.ObjectType).objectFlags & this.ts.ObjectFlags.Reference) ? (t as ts.TypeReference).target : t;
      if (!sdk && target.isClassOrInterface() && symbol.flags & this.ts.SymbolFlags.Class) {
        for (const base of checker.getBaseTypes(target)) {
          const found = this.kindOfType(base);
          if (found?.kind === 'mcp-server' || found?.kind === 'server') return found;
        }
      }
      if (!sdk && symbol.flags & this.ts.SymbolFlags.Interface) {
        const found = this.serverImplementing(symbol);
        if (found) return found;
      }
    }
    // Contexts are structural: recognise them by members the SDK declares.
    const sendRequest = t.getProperty('sendRequest');
    const mcpReq = t.getProperty('mcpReq');
    const requestSampling = t.getProperty('requestSampling');
    const elicitInput = t.getProperty('elicitInput');
    if (sendRequest && t.getProperty('signal') && declaredIn(sendRequest) === 'v1') return { kind: 'context', sdk: 'v1' };
    if (mcpReq && declaredIn(mcpReq)) return { kind: 'context', sdk: 'v2' };
    if (requestSampling && elicitInput && declaredIn(requestSampling)) return { kind: 'mcp-req', sdk: 'v2' };
    // `const { sendRequest } = extra`: the value's type is the anonymous function type written on the
    // SDK's `sendRequest` property, so the type's own symbol is `__type`; name it by that property.
    if (t.getCallSignatures().length > 0 && symbol && declaredIn(symbol) &&
        (symbol.name === 'sendRequest' || declaringPropertyName(this.ts, symbol) === 'sendRequest')) {
      return { kind: 'send-request', sdk: 'v1' };
    }
    // v2's `ctx.mcpReq.send` as a value: the call signatures written on the `send` member of the context's `mcpReq`.
    if (t.getCallSignatures().length > 0 && symbol && declaredIn(symbol) === 'v2' && isMcpReqSend(this.ts, symbol)) {
      return { kind: 'send-request', sdk: 'v2' };
    }
    return undefined;
  }

  /**
   * An interface of the project (`interface ToolHost { registerTool: McpServer['registerTool'] }`) whose
   * implementations in the program are all classes extending one SDK server class: a value of that
   * type is that server. Any other implementation, or none, and it is not.
   */
  private serverImplementing(symbol: ts.Symbol): ResolvedValue | undefined {
    const ts = this.ts;
    const checker = this.checker;
    if (!checker || !this.program || !symbol.declarations?.every(d => isProjectSource(d.getSourceFile()))) return undefined;
    let uses = INTERFACE_USES.get(this.program);
    if (!uses) INTERFACE_USES.set(this.program, (uses = interfaceUses(ts, checker, this.program)));
    const use = uses.get(symbol);
    // Extended by another interface or typing an object literal: other values may have that type.
    if (!use || use.other) return undefined;
    const kinds = use.classes.map(cls => {
      const declared = cls.name && checker.getSymbolAtLocation(cls.name);
      return declared ? this.kindOfType(checker.getDeclaredTypeOfSymbol(declared)) : undefined;
    });
    const first = kinds[0];
    return first && (first.kind === 'mcp-server' || first.kind === 'server') && kinds.every(k => k?.kind === first.kind && k.sdk === first.sdk) ? first : undefined;
  }

  private resolveBySyntax(e: ts.Expression): ResolvedValue | undefined {
    const ts = this.ts;
    if (ts.isNewExpression(e)) return this.serverClassOf(e.expression, x => this.sdkExport(x))?.value;
    if (ts.isPropertyAccessExpression(e)) {
      const member = e.name.text;
      if (e.expression.kind === ts.SyntaxKind.ThisKeyword) return this.resolveThisMember(e, member);
      const owner = this.resolve(e.expression);
      return owner ? memberKind(owner, member) : this.typeLiteralMember(e);
    }
    if (ts.isIdentifier(e)) {
      const decl = resolveIdentifier(ts, e);
      return decl ? this.resolveDeclaration(decl) : undefined;
    }
    if (ts.isCallExpression(e)) return this.resolveCallResult(e);
    if (ts.isAwaitExpression(e)) return this.resolve(e.expression);
    if (ts.isConditionalExpression(e)) return this.resolve(e.whenTrue) ?? this.resolve(e.whenFalse);
    if (ts.isBinaryExpression(e) && (e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || e.operatorToken.kind === ts.SyntaxKind.BarBarToken)) {
      return this.resolve(e.left) ?? this.resolve(e.right);
    }
    return undefined;
  }

  private resolveDeclaration(decl: LocalDecl): ResolvedValue | undefined {
    const ts = this.ts;
    const node = decl.declaration;
    if (ts.isVariableDeclaration(node)) {
      if (node.type) {
        const byType = this.resolveTypeNode(node.type);
        if (byType) return byType;
        if (isTypeLiteral(ts, node.type)) return undefined;
      }
      if (ts.isIdentifier(node.name)) return node.initializer ? this.resolve(node.initializer) : this.resolveLaterAssignment(decl);
      // const { server } = mcpServer / const { mcpReq } = ctx / const { sendRequest } = extra
      if (node.initializer) return this.resolveBindingElement(decl.nameNode, this.resolve(node.initializer));
      return undefined;
    }
    if (ts.isParameter(node)) return this.resolveParameter(node, decl.nameNode);
    return undefined;
  }

  /** `let server; ... server = new McpServer(...)`. */
  private resolveLaterAssignment(decl: LocalDecl): ResolvedValue | undefined {
    const ts = this.ts;
    let found: ResolvedValue | undefined;
    const visit = (node: ts.Node): void => {
      if (found) return;
      if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
          ts.isIdentifier(node.left) && node.left.text === decl.name && resolveIdentifier(ts, node.left)?.nameNode === decl.nameNode) {
        found = this.resolve(node.right);
      }
      node.forEachChild(visit);
    };
    visit(decl.scope);
    return found;
  }

  private resolveBindingElement(name: ts.Identifier, owner: ResolvedValue | undefined): ResolvedValue | undefined {
    if (!owner) return undefined;
    const ts = this.ts;
    const element = name.parent;
    if (!ts.isBindingElement(element) || !ts.isObjectBindingPattern(element.parent)) return undefined;
    const key = element.propertyName && ts.isIdentifier(element.propertyName) ? element.propertyName.text : name.text;
    // Nested patterns: const { mcpReq: { elicitInput } } = ctx is not a receiver we rewrite.
    const outer = element.parent.parent;
    if (ts.isBindingElement(outer)) return undefined;
    return memberKind(owner, key);
  }

  private resolveParameter(parameter: ts.ParameterDeclaration, name: ts.Identifier): ResolvedValue | undefined {
    const ts = this.ts;
    const fn = parameter.parent;
    if (!isFunctionLike(ts, fn)) return undefined;
    const index = fn.parameters.indexOf(parameter);
    // A parameter property (`constructor(private server: McpServer)`) or a typed parameter.
    if (parameter.type) {
      const byType = this.resolveTypeNode(parameter.type);
      if (byType) return ts.isIdentifier(parameter.name) ? byType : this.resolveBindingElement(name, byType);
    }
    const role = this.roles?.contextParam(fn);
    if (role && role.index === index) {
      const ctx: ResolvedValue = { kind: 'context', sdk: role.sdk };
      return ts.isIdentifier(parameter.name) ? ctx : this.resolveBindingElement(name, ctx);
    }
    // A helper's parameter typed in place: whatever the callers pass, the code sees the structure
    // written here (see typeLiteralMember).
    if (parameter.type && isTypeLiteral(ts, parameter.type)) return undefined;
    // A helper's parameter: whatever its callers pass in that position.
    const calls = this.callsOf(fn);
    for (const call of calls) {
      const arg = call.arguments[index];
      if (!arg) continue;
      const passed = this.resolve(arg);
      // A function called through the parameter asks the client only if every caller hands it the SDK's sendRequest
      // (a recursive call that hands on the same parameter included).
      const handsOn = (c: ts.CallExpression): boolean => {
        const a = c.arguments[index] && skipOuter(ts, c.arguments[index]!);
        return !!a && ts.isIdentifier(a) && resolveIdentifier(ts, a)?.declaration === parameter;
      };
      if (passed?.kind === 'send-request' && !calls.every(c => handsOn(c) || (c.arguments[index] && this.resolve(c.arguments[index]!)?.kind === 'send-request'))) return undefined;
      if (passed) return ts.isIdentifier(parameter.name) ? passed : this.resolveBindingElement(name, passed);
    }
    return undefined;
  }

  private resolveThisMember(access: ts.PropertyAccessExpression, member: string): ResolvedValue | undefined {
    const ts = this.ts;
    let cls: ts.Node | undefined = access.parent;
    while (cls && !ts.isClassLike(cls)) cls = cls.parent;
    if (!cls || !ts.isClassLike(cls)) return undefined;
    for (const element of cls.members) {
      if (ts.isPropertyDeclaration(element) && element.name.getText() === member) {
        if (element.type) {
          const byType = this.resolveTypeNode(element.type);
          if (byType) return byType;
        }
        if (element.initializer) {
          const byInit = this.resolve(element.initializer);
          if (byInit) return byInit;
        }
      }
      if (ts.isConstructorDeclaration(element)) {
        for (const parameter of element.parameters) {
          if (ts.isIdentifier(parameter.name) && parameter.name.text === member && ts.getModifiers(parameter)?.length) {
            const byParam = this.resolveParameter(parameter, parameter.name);
            if (byParam) return byParam;
          }
        }
      }
    }
    // this.server = new McpServer(...) anywhere in the class.
    let found: ResolvedValue | undefined;
    const visit = (node: ts.Node): void => {
      if (found) return;
      if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
          ts.isPropertyAccessExpression(node.left) && node.left.expression.kind === ts.SyntaxKind.ThisKeyword &&
          node.left.name.text === member && node.left !== access) {
        found = this.resolve(node.right);
      }
      node.forEachChild(visit);
    };
    visit(cls);
    return found;
  }

  /**
   * `ctx.mcpReq` where `ctx` is a parameter typed with an object type written in place
   * (`ctx: { mcpReq: ServerContext['mcpReq'] }`): the member's written type. The parameter itself
   * resolves to nothing, as with the checker, which sees a structure declared in this file, neither an
   * SDK class nor a context: the generated `clientCapabilitiesOf(ctx, server: { getClientCapabilities(): ... })`
   * reads capabilities the migrated way, whatever server its callers pass.
   */
  private typeLiteralMember(access: ts.PropertyAccessExpression): ResolvedValue | undefined {
    const ts = this.ts;
    const literal = typeWrittenInPlace(ts, access.expression);
    if (!literal) return undefined;
    const member = literal.members.find(m => ts.isPropertySignature(m) && m.name && ts.isIdentifier(m.name) && m.name.text === access.name.text);
    return member && ts.isPropertySignature(member) && member.type ? this.resolveTypeNode(member.type) : undefined;
  }

  /** `createServer()` returning an SDK server built in this file. */
  private resolveCallResult(call: ts.CallExpression): ResolvedValue | undefined {
    const ts = this.ts;
    const callee = skipOuter(ts, call.expression);
    if (!ts.isIdentifier(callee)) return undefined;
    const decl = resolveIdentifier(ts, callee);
    if (!decl) return undefined;
    let fn: ts.Node | undefined = decl.declaration;
    if (ts.isVariableDeclaration(fn)) fn = fn.initializer;
    if (!fn || !isFunctionLike(ts, fn) || !fn.body) return undefined;
    if (!ts.isBlock(fn.body)) return this.resolve(fn.body);
    let found: ResolvedValue | undefined;
    const visit = (node: ts.Node): void => {
      if (found || isFunctionLike(ts, node)) return;
      if (ts.isReturnStatement(node) && node.expression) found = this.resolve(node.expression);
      node.forEachChild(visit);
    };
    fn.body.forEachChild(visit);
    return found;
  }

  resolveTypeNode(type: ts.TypeNode): ResolvedValue | undefined {
    const ts = this.ts;
    if (ts.isUnionTypeNode(type)) {
      for (const member of type.types) {
        const found = this.resolveTypeNode(member);
        if (found) return found;
      }
      return undefined;
    }
    if (ts.isParenthesizedTypeNode(type)) return this.resolveTypeNode(type.type);
    // ServerContext['mcpReq']
    if (ts.isIndexedAccessTypeNode(type) && ts.isLiteralTypeNode(type.indexType) && ts.isStringLiteral(type.indexType.literal)) {
      const owner = this.resolveTypeNode(type.objectType);
      return owner && memberKind(owner, type.indexType.literal.text);
    }
    if (!ts.isTypeReferenceNode(type)) return undefined;
    const name = type.typeName;
    let exported: SdkImport | undefined;
    if (ts.isIdentifier(name)) {
      exported = this.imports.get(name.text);
    } else if (ts.isIdentifier(name.left)) {
      const ns = this.imports.get(name.left.text);
      if (ns?.exported === '*') exported = { exported: name.right.text, module: ns.module, sdk: ns.sdk };
    }
    if (!exported && this.checker) {
      const byChecker = this.kindOfType(this.checker.getTypeFromTypeNode(type));
      if (byChecker) return byChecker;
    }
    if (!exported) return undefined;
    switch (exported.exported) {
      case 'McpServer':
        return { kind: 'mcp-server', sdk: exported.sdk };
      case 'Server':
        return { kind: 'server', sdk: exported.sdk };
      case 'RequestHandlerExtra':
      case 'ServerContext':
        return { kind: 'context', sdk: exported.sdk };
      default:
        return undefined;
    }
  }

  /** Calls of a function declared in this file (by name) or, with a project index, anywhere. */
  callsOf(fn: ts.FunctionLikeDeclaration): ts.CallExpression[] {
    let calls = this.callSites.get(fn);
    if (calls) return calls;
    calls = [];
    const ts = this.ts;
    const nameNode = functionNameNode(ts, fn);
    if (nameNode) {
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node)) {
          const callee = skipOuter(ts, node.expression);
          if (ts.isIdentifier(callee) && callee.text === nameNode.text && resolveIdentifier(ts, callee)?.nameNode === nameNode) {
            calls!.push(node);
          } else if (ts.isPropertyAccessExpression(callee) && callee.name.text === nameNode.text && isMethodOfSameClass(ts, callee, fn)) {
            calls!.push(node);
          }
        }
        node.forEachChild(visit);
      };
      visit(this.sourceFile);
    }
    if (this.externalCallSites) {
      for (const call of this.externalCallSites(fn)) if (!calls.includes(call)) calls.push(call);
    }
    this.callSites.set(fn, calls);
    return calls;
  }
}

function isRequireDeclaration(ts: TS, decl: LocalDecl): boolean {
  const node = decl.declaration;
  let declaration: ts.Node | undefined = node;
  while (declaration && !ts.isVariableDeclaration(declaration)) declaration = declaration.parent;
  return !!declaration && ts.isVariableDeclaration(declaration) && !!declaration.initializer && requiredModule(ts, declaration.initializer) !== undefined;
}

/** The identifier that names a function: its own name, or the variable / property it is assigned to. */
export function functionNameNode(ts: TS, fn: ts.FunctionLikeDeclaration): ts.Identifier | undefined {
  if ((ts.isFunctionDeclaration(fn) || ts.isFunctionExpression(fn)) && fn.name) return fn.name;
  if (ts.isMethodDeclaration(fn) && ts.isIdentifier(fn.name)) return fn.name;
  const parent = fn.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name;
  if (parent && ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name;
  return undefined;
}

/** `this.helper()` / `obj.helper()` where `helper` is a method of the class that declares `fn`. */
function isMethodOfSameClass(ts: TS, callee: ts.PropertyAccessExpression, fn: ts.FunctionLikeDeclaration): boolean {
  const owner = ts.isMethodDeclaration(fn) ? fn.parent : ts.isPropertyDeclaration(fn.parent) ? fn.parent.parent : undefined;
  if (!owner || !ts.isClassLike(owner)) return false;
  if (callee.expression.kind === ts.SyntaxKind.ThisKeyword) {
    let cls: ts.Node | undefined = callee.parent;
    while (cls && !ts.isClassLike(cls)) cls = cls.parent;
    return cls === owner;
  }
  return false;
}

/** What `new <ctor>(...)` builds, for the SDK's two server classes. */
function serverOf(ctor: SdkImport | undefined): ResolvedValue | undefined {
  if (ctor?.exported === 'McpServer') return { kind: 'mcp-server', sdk: ctor.sdk };
  if (ctor?.exported === 'Server') return { kind: 'server', sdk: ctor.sdk };
  return undefined;
}

function skipParentheses(ts: TS, type: ts.TypeNode): ts.TypeNode {
  return ts.isParenthesizedTypeNode(type) ? skipParentheses(ts, type.type) : type;
}

/** `{ ... }` written as a type: a structure of the file, never an SDK class or context to the checker. */
export function isTypeLiteral(ts: TS, type: ts.TypeNode): boolean {
  return ts.isTypeLiteralNode(skipParentheses(ts, type));
}

/** The object type written in place on the declaration of `name` (`server: { getClientCapabilities(): ... }`), if any. */
export function typeWrittenInPlace(ts: TS, name: ts.Expression): ts.TypeLiteralNode | undefined {
  const e = skipOuter(ts, name);
  const node = ts.isIdentifier(e) ? resolveIdentifier(ts, e)?.declaration : undefined;
  if (!node || !(ts.isParameter(node) || ts.isVariableDeclaration(node)) || !node.type || !ts.isIdentifier(node.name)) return undefined;
  const type = skipParentheses(ts, node.type);
  return ts.isTypeLiteralNode(type) ? type : undefined;
}

function memberKind(owner: ResolvedValue, member: string): ResolvedValue | undefined {
  if (owner.kind === 'mcp-server' && member === 'server') return { kind: 'server', sdk: owner.sdk };
  if (owner.kind === 'context' && member === 'mcpReq') return { kind: 'mcp-req', sdk: owner.sdk };
  if (owner.kind === 'context' && member === 'sendRequest') return { kind: 'send-request', sdk: owner.sdk };
  // `ctx.mcpReq.send` taken as a value (handed to a helper): v2's sendRequest.
  if (owner.kind === 'mcp-req' && member === 'send') return { kind: 'send-request', sdk: owner.sdk };
  return undefined;
}

/** The type written on `mcpReq: { send: { <M>(...): ...; ... } }` of the v2 context. */
function isMcpReqSend(ts: TS, symbol: ts.Symbol): boolean {
  const property = symbol.declarations?.[0]?.parent;
  const owner = property && (ts.isPropertySignature(property) && ts.isIdentifier(property.name) && property.name.text === 'send') ? property.parent : undefined;
  const holder = owner && ts.isTypeLiteralNode(owner) ? owner.parent : undefined;
  return !!holder && ts.isPropertySignature(holder) && ts.isIdentifier(holder.name) && holder.name.text === 'mcpReq';
}

/** For a function type written on a property (`sendRequest: <U>(...) => ...`), that property's name. */
function declaringPropertyName(ts: TS, symbol: ts.Symbol): string | undefined {
  const parent = symbol.declarations?.[0]?.parent;
  if (parent && (ts.isPropertySignature(parent) || ts.isPropertyDeclaration(parent)) && ts.isIdentifier(parent.name)) return parent.name.text;
  return undefined;
}
