import type * as ts from 'typescript';
import type { FrameworkName } from './frameworks.js';

/** The TypeScript namespace in use: ESLint hands over `typescript`, the codemod ts-morph's bundled copy. */
export type TS = Omit<typeof ts, 'default'>;

export type SdkGeneration = 'v1' | 'v2';

/** What a question asks the client for. */
export type QuestionKind = 'elicitation' | 'sampling' | 'roots';

/**
 * `task-request`: a tasks/* request the server sends the client (`tasks/get`, `tasks/result`, ...),
 * the poll of a question the client runs as a task (2025-11-25); 2026-07-28 has no client-side tasks.
 */
export type SiteKind = QuestionKind | 'url-elicitation' | 'capability-guard' | 'task-request';

/** How the push-style call is spelled; stable, used for report counts and lint messages. */
export type SiteApi =
  | 'server.elicitInput'
  | 'server.createMessage'
  | 'server.listRoots'
  | 'server.request'
  | 'extra.sendRequest'
  | 'ctx.mcpReq.elicitInput'
  | 'ctx.mcpReq.requestSampling'
  | 'ctx.mcpReq.send'
  | 'UrlElicitationRequiredError'
  | 'getClientCapabilities'
  /** v1's experimental task API on the server (`server.experimental.tasks.getTask()`, `.elicitInputStream()`, ...). */
  | 'experimental.tasks'
  /** A question asked through an MCP framework's own API (`extra.elicit()`, `this.elicit()`; see frameworks.ts). */
  | 'framework';

/** The three methods whose handlers may answer `input_required`. */
export type MrtrMethod = 'tools/call' | 'prompts/get' | 'resources/read';

export type Registration =
  | 'registerTool'
  | 'tool'
  | 'registerPrompt'
  | 'prompt'
  | 'registerResource'
  | 'resource'
  | 'setRequestHandler';

/** A request handler registered on an MCP SDK server. */
export interface Handler {
  /** The callback: an arrow function, function expression or function declaration passed by name. */
  fn: ts.FunctionLikeDeclaration;
  registration: Registration;
  registrationCall: ts.CallExpression;
  /** `tools/call`, `prompts/get`, `resources/read`, or another method string (custom methods included). */
  method: string;
  /** Tool / prompt / resource name, when its value is known: written as a literal, or a constant's literal. */
  name: string | undefined;
  /**
   * The registration's name expression, when it is not a literal but the handler reads the same value
   * on every request (`TOOL_NAME`, `Tools.Delete`, a registrar's `name` parameter): the state is
   * bound to it at run time.
   */
  nameExpression: ts.Expression | undefined;
  /** Index of the context (`extra` / `ctx`) parameter in the callback's signature. */
  ctxParamIndex: number;
  /** Index of the arguments parameter, when the callback receives arguments. */
  argsParamIndex: number | undefined;
  /** The expression the handler is registered on (`server`, `this.server`, `server.server`, ...). */
  receiver: ts.Expression;
  sdk: SdkGeneration;
  /** Set when the SDK's callback is a wrapper that calls this function once per request (see wrappedHandlers.ts). */
  wrapper?: HandlerWrapper;
  /**
   * Set when the function is registered through data (an entry of a list iterated into the
   * registration, see dataRegistrations.ts) or handed to a registrar whose parameter declares a
   * function type: the function type its slot declares, which the rewrite widens (undefined where
   * the list declares no type).
   */
  data?: { slotType: ts.FunctionTypeNode | undefined };
  /**
   * Set when a low-level `tools/call` handler picks this function from a map by the tool's name
   * (dispatchMaps.ts): it takes the tool's arguments and the context, not the request.
   */
  dispatched?: true;
}

/**
 * `withErrors(async (args) => ...)` or a registrar's `async () => ({ content: [{ text: await handler() }] })`:
 * the SDK calls `outer`, which calls the handler through `parameter` once per request and shapes its result.
 */
export interface HandlerWrapper {
  /** The callback the SDK calls. */
  outer: ts.FunctionLikeDeclaration;
  /** Its one call of the handler. */
  call: ts.CallExpression;
  /** The parameter of the wrapping / registering function the handler is given through (none where it picks it from a map: dispatchMaps.ts). */
  parameter: ts.ParameterDeclaration | undefined;
  /** Where `outer` takes its context (it may not declare it yet). */
  outerCtxParamIndex: number;
  /** Why the wrapper cannot pass a handler's input-required result on, when it cannot. */
  problem: string | undefined;
  /** The problem is code the wrapper runs before the handler, which would run again in every round (a side effect that repeats). */
  repeats?: boolean;
}

/** Where a site sits relative to a live client request. */
export type SiteContext =
  | { type: 'handler'; handler: Handler }
  | { type: 'helper'; helper: ts.FunctionLikeDeclaration; helperName: string; handlers: Handler[]; unreachableFrom: string[] }
  | {
    type: 'no-request';
    why: NoRequestWhy;
    detail: string;
    /** function-value: where the function is handed (`in a function handed to register() ...`). */
    handedAt?: string;
    /** framework: the framework that calls the function for a request. */
    framework?: FrameworkName;
    /** framework: the question is in the framework's own source, not in a handler of its user. */
    ownCode?: boolean;
  };

export type NoRequestWhy =
  | 'startup'
  | 'oninitialized'
  | 'notification-handler'
  | 'other-method'
  | 'detached-task'
  | 'fire-and-forget'
  | 'unreachable-helper'
  /** A function no call the analysis can follow reaches: not shown to run outside requests, nor in one. */
  | 'caller-not-found'
  /** Runs in a test file, outside any request (a helper's callers there do not count). */
  | 'test'
  /** Runs in a request handler of an MCP client (`upstream.setRequestHandler(ElicitRequestSchema, ...)`). */
  | 'relay'
  /** Runs in a function handed as a value to one of the project's functions, which calls it later (a registrar). */
  | 'function-value'
  /**
   * Runs in a request an MCP framework dispatches (a `@Tool()` method, an `MCPTool`'s `execute()`, an
   * xmcp module): a request is live, but the framework, not the SDK, calls the function and builds its result.
   */
  | 'framework';

/** Structural tags for the code around a site, from the site outwards to its function. */
export type ControlFlowTag =
  | 'straight-line'
  | 'if'
  | 'if-condition'
  | 'try'
  | 'catch'
  | 'finally'
  | 'switch-case'
  | 'loop'
  | 'conditional-expression'
  | 'labeled'
  | 'nested-callback'
  | 'helper'
  | 'parallel';

/** A handler-local value defined before a question and read after it. */
export interface LiveLocal {
  name: string;
  /** Printed type, when a checker is available. */
  type: string | undefined;
  /** Whether the value survives a JSON round trip unchanged. */
  json: 'yes' | 'no' | 'unknown';
  /**
   * `carry`: travels in requestState; `rebuild`: its side-effect-free declaration is re-run on resume;
   * `declare`: only written after the question, so the resumed code declares it again without a value.
   */
  how: 'carry' | 'rebuild' | 'declare';
  /** Why it cannot travel (when json is not 'yes' and it is carried). */
  why: string | undefined;
  /** Where the secret it holds comes from, when it is carried and holds one (see secrets.ts). */
  secret: string | undefined;
  /** The handler parameter this local is, when it is a reassigned parameter. */
  isParameter: boolean;
  /**
   * What it is, when it cannot travel because it is an object the server keeps, not data (`is an
   * MCP SDK Client`, `holds the MCP McpServer (\`server\`)`): named as such, never as state to carry.
   */
  liveObject: string | undefined;
  /**
   * When it holds objects of module or class state (`carts`, `this.carts`, or what a project function
   * returns of them) and the code after the question changes them or relies on their identity, or
   * (`changes: 'call'`) calls something that may change that state before reading them: a copy would
   * not reach, or not see, the originals. `code` and `line`: that use, or that call. `guardLine`: the
   * guard that kept a lookup by key from being run again on resume (it does more than return).
   */
  sharedState?: { origin: string; via: string | undefined; changes: boolean | 'call'; code: string; line: number; guardLine?: number | undefined };
  declaration: ts.Node;
  /** Why its type cannot be written at module scope (declared inside a function), if so. */
  typeProblem: string | undefined;
  /** SDK type names the printed type uses that the file does not import yet. */
  typeImports: string[];
}

export type RefusalReason =
  | 'non-json-local'
  | 'shared-state-mutated'
  | 'unknown-local-type'
  | 'no-live-request'
  /** A helper whose callers the analysis cannot find (handed on through data, an interface, ...): see context.ts. */
  | 'caller-not-found'
  | 'fire-and-forget'
  | 'detached-task'
  | 'handler-kind'
  | 'loop'
  | 'parallel'
  | 'nested-callback'
  | 'server-not-found'
  | 'blocked-by-sibling'
  | 'unsupported-construct'
  /** A push-shaped call on a receiver whose type is `any`: the checker cannot tell it is the SDK's. */
  | 'untyped-receiver'
  /** Inside a request handler of an MCP client: a question an upstream server asked, relayed to this server's client. */
  | 'relay'
  /** A question the client is to run as a task (`params.task`, the `task` / `relatedTask` call options): no 2026-07-28 question is one. */
  | 'task-augmented'
  /** In a handler an MCP framework owns, or asked through a framework's API (see frameworks.ts). */
  | 'framework'
  /** Under a `// mrtr-migrate-ignore <reason>` comment (see suppressions.ts). */
  | 'ignored'
  /** Would migrate, but the project's @modelcontextprotocol/server lacks what the rewrite imports (set by the CLI, src/project/serverApi.ts). */
  | 'sdk-version';

export type Verdict =
  | { kind: 'migrate'; review: boolean; notes: string[] }
  /**
   * `rolledBack`: the CLI rewrote the handler once and the rewrite added type errors (phases/verify.ts):
   * refused (the reason is the rewrite's gap) and reported as rolled back, with the errors as its hint.
   */
  | { kind: 'refuse'; reason: RefusalReason; hint: string; rolledBack?: true };

export interface Site {
  /** `path:line:column`, stable across runs on the same text. */
  id: string;
  file: string;
  /** Offsets of the reported node (the call, the `new` expression, the capability read). */
  start: number;
  end: number;
  line: number;
  column: number;
  kind: SiteKind;
  api: SiteApi;
  sdk: SdkGeneration;
  node: ts.Node;
  context: SiteContext;
  controlFlow: ControlFlowTag[];
  liveLocals: LiveLocal[];
  /** Short descriptions of side-effecting code that runs before the question. */
  sideEffectsBefore: string[];
  /** Option names passed to the push call (`timeout`, `signal`, ...); `<expression>` when not a literal. */
  callOptions: string[];
  verdict: Verdict;
}
