import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport, isSpecType, McpServer, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as V1InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server as V1Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { folderEntry } from '../transforms/folderPipeline.js';

/**
 * The equivalence harness: runs one scripted client session against a fixture server module and
 * records what the client saw, so a migrated module can be compared with its legacy original.
 *
 *   runLegacy  the original push-style module on the era it was written for (v1 client + v1
 *              InMemoryTransport for v1 modules, default 2025-era v2 client otherwise)
 *   runModern  a migrated module on the 2026-07-28 era: per-request servers behind createMcpHandler
 *   runStdio   the same era over serveStdio: one instance per connection (no capability backfill)
 *   runShim    a migrated module on the 2025 era, where the SDK's legacy shim turns
 *              `inputRequired(...)` returns into real server-to-client requests
 *
 * Everything in a transcript is compared exactly; the few things that legitimately differ between
 * eras are removed by the normalisers below, each with the evidence for why it is not behaviour.
 */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = join(ROOT, 'fixtures');

export type CallMethod = 'tools/call' | 'prompts/get' | 'resources/read';
export type QuestionMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

const CALL_METHODS: readonly string[] = ['tools/call', 'prompts/get', 'resources/read'];
const QUESTION_METHODS: readonly string[] = ['elicitation/create', 'sampling/createMessage', 'roots/list'];

/** What the scripted client answers to one question, in the order the questions arrive. */
export interface ScriptedAnswer {
  method: QuestionMethod;
  result: Record<string, unknown>;
}

export interface ScriptedCall {
  method: CallMethod;
  params: Record<string, unknown>;
  answers: ScriptedAnswer[];
  /**
   * `in-order` (the default): each question takes the next answer, which must be for its method.
   * `per-method`: each question takes the next answer for its method, wherever it is in the list
   * (generated sessions, whose question order depends on the answers).
   */
  answerOrder?: 'in-order' | 'per-method';
  /** Another client for this call (e.g. one lacking a capability); the scenario's client otherwise. */
  client?: ScenarioClient;
}

export interface ScenarioClient {
  capabilities: Record<string, unknown>;
}

/** fixtures/<case>/scenario.json */
export interface Scenario {
  description: string;
  client: ScenarioClient;
  calls: ScriptedCall[];
}

/** A question the server asked, as the client's request handler received it (normalised). */
export interface Question {
  method: string;
  params?: unknown;
}

/**
 * How one call ended: a result (without `_meta`) or a JSON-RPC (or client-side) error; or, after
 * the user declined or cancelled a URL-mode elicitation, the failure message the user saw (see
 * `normaliseUrlRefusal`).
 */
export type CallOutcome =
  | { result: unknown }
  | { error: { code: unknown; message: string } }
  | { urlElicitationNotCompleted: { action: string; message: string } };

export interface Transcript {
  /** Per call, the questions in the order they reached the client. */
  questions: Question[][];
  /** Per call, the outcome. */
  results: CallOutcome[];
  /** Per call, how much each counter in the module's `effects` moved during that call. */
  effects: Record<string, number>[];
  /** Per call, how the script was consumed: questions nobody scripted, answers nobody asked for. */
  script: { unexpected: Question[]; unused: ScriptedAnswer[] }[];
}

/** What a runnable fixture module exports (input.ts, output.ts, a reference output). */
export interface FixtureModule {
  /**
   * Called with the era the instance serves, as createMcpHandler / serveStdio pass their factory's
   * McpRequestContext (`{ era: 'legacy' }` for the 2025 runners): a dual-era handler branches on it.
   */
  createServer: (context: { era: 'legacy' | 'modern' }) => unknown;
  effects: Record<string, number>;
  /**
   * Optional, for URL-mode elicitation: the third party the URL leads to (an OAuth provider, a
   * payment page). The scripted user "completes" an accepted URL through `complete(url)`; `reset()`
   * runs before every session so each run starts from the same world.
   */
  urlFlows?: { complete(url: string): void; reset(): void };
  /**
   * Optional: module state the handlers change (carts, accounts), which a later call must see.
   * `reset()` runs before every session so each run starts from the same world.
   */
  world?: { reset(): void };
}

export interface FixtureCase {
  name: string;
  dir: string;
  input: string;
  /** fixtures/<case>/output.ts, when the rewrite has produced it. */
  output: string | undefined;
  scenario: Scenario;
}

// ---------------------------------------------------------------------------------------------
// Loading

/** Every fixtures/<case>/ that has a scenario.json, sorted by name. */
/** The extensions of a fixture's input file: TypeScript, or a JavaScript server. */
export const FIXTURE_EXTENSIONS = ['.ts', '.mjs', '.cjs', '.js'] as const;

export function runnableCases(root = FIXTURES): FixtureCase[] {
  return readdirSync(root, { withFileTypes: true })
    .filter(entry => entry.isDirectory() && existsSync(join(root, entry.name, 'scenario.json')))
    .map(entry => entry.name)
    .sort()
    .map(name => loadCase(join(root, name)));
}

export function loadCase(dir: string): FixtureCase {
  const name = dir.split(/[\\/]/).pop()!;
  // A folder case (a server in several modules): input/index.ts (or .mjs, .js) is its entry, output/ its rewrite.
  const entry = folderEntry(join(dir, 'input'));
  if (entry) {
    const output = join(dir, 'output', basename(entry));
    return { name, dir, input: entry, output: existsSync(output) ? output : undefined, scenario: loadScenario(join(dir, 'scenario.json')) };
  }
  // input.ts, or input.mjs / input.cjs / input.js for a JavaScript server; output.* has the same extension.
  const extension = FIXTURE_EXTENSIONS.find(ext => existsSync(join(dir, `input${ext}`)));
  if (!extension) throw new Error(`${dir}: a runnable fixture needs input.ts (or input.mjs, input.cjs, input.js) next to scenario.json`);
  const input = join(dir, `input${extension}`);
  const output = join(dir, `output${extension}`);
  return { name, dir, input, output: existsSync(output) ? output : undefined, scenario: loadScenario(join(dir, 'scenario.json')) };
}

export function loadScenario(file: string): Scenario {
  const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const fail = (what: string): never => {
    throw new Error(`${file}: ${what} (see fixtures/README.md for the scenario format)`);
  };
  if (!isRecord(raw)) return fail('not a JSON object');
  if (typeof raw.description !== 'string' || raw.description.length === 0) fail('"description" must be a non-empty string');
  if (!isRecord(raw.client) || !isRecord(raw.client.capabilities)) fail('"client.capabilities" must be an object');
  if (!Array.isArray(raw.calls) || raw.calls.length === 0) fail('"calls" must be a non-empty array');
  (raw.calls as unknown[]).forEach((call, i) => {
    if (!isRecord(call)) return fail(`calls[${i}] is not an object`);
    if (typeof call.method !== 'string' || !CALL_METHODS.includes(call.method)) fail(`calls[${i}].method must be one of ${CALL_METHODS.join(', ')}`);
    if (!isRecord(call.params)) fail(`calls[${i}].params must be an object`);
    if (!Array.isArray(call.answers)) fail(`calls[${i}].answers must be an array (empty when no question is expected)`);
    if (call.client !== undefined && (!isRecord(call.client) || !isRecord(call.client.capabilities))) fail(`calls[${i}].client.capabilities must be an object`);
    (call.answers as unknown[]).forEach((answer, j) => {
      if (!isRecord(answer) || typeof answer.method !== 'string' || !QUESTION_METHODS.includes(answer.method) || !isRecord(answer.result)) {
        fail(`calls[${i}].answers[${j}] must be { "method": ${QUESTION_METHODS.join(' | ')}, "result": {...} }`);
      }
    });
    return undefined;
  });
  return raw as unknown as Scenario;
}

/** Imports a fixture module (vitest transpiles the .ts) and checks it has the runnable exports. */
export async function loadFixtureModule(file: string): Promise<FixtureModule> {
  const mod = (await import(pathToFileURL(file).href)) as Partial<FixtureModule>;
  if (typeof mod.createServer !== 'function') throw new Error(`${file}: must export createServer()`);
  if (!isRecord(mod.effects) || Object.values(mod.effects).some(v => typeof v !== 'number')) {
    throw new Error(`${file}: must export \`effects\`, an object of numeric counters`);
  }
  if (mod.urlFlows !== undefined && (typeof mod.urlFlows.complete !== 'function' || typeof mod.urlFlows.reset !== 'function')) {
    throw new Error(`${file}: \`urlFlows\` must have complete(url) and reset()`);
  }
  if (mod.world !== undefined && typeof mod.world.reset !== 'function') throw new Error(`${file}: \`world\` must have reset()`);
  return mod as FixtureModule;
}

// ---------------------------------------------------------------------------------------------
// The scripted client's brain, shared by every runner

const UNEXPECTED_MESSAGE = 'unexpected question: the scenario scripts no answer for it';

/**
 * Hands out the scripted answers of the current call. A question that does not match the next
 * scripted answer is recorded as unexpected and refused (`cancel` for an elicitation, an error for
 * sampling and roots) without consuming the script, so the difference shows in the transcript.
 */
class Script {
  private answers: ScriptedAnswer[] = [];
  private questions: Question[] = [];
  private unexpected: Question[] = [];
  private lastUrlAction: string | undefined;

  constructor(
    private readonly normaliseQuestion: (method: string, params: unknown) => Question,
    /** The user's browser: an accepted URL-mode elicitation is completed at the third party. */
    private readonly completeUrl: (url: string) => void = () => undefined,
  ) {}

  private perMethod = false;

  startCall(answers: ScriptedAnswer[], order: ScriptedCall['answerOrder'] = 'in-order'): void {
    this.answers = [...answers];
    this.perMethod = order === 'per-method';
    this.questions = [];
    this.unexpected = [];
    this.lastUrlAction = undefined;
  }

  /** Returns the scripted result, or throws for sampling/roots questions nobody scripted. */
  answer(method: QuestionMethod, params: unknown): Record<string, unknown> {
    const result = this.pick(method, params);
    // The user opens an accepted URL and finishes there before the client answers (2026, shim) or
    // sends the call again (2025, after -32042): either way the third party sees it first.
    const url = method === 'elicitation/create' && isRecord(params) && params.mode === 'url' && typeof params.url === 'string' ? params.url : undefined;
    this.lastUrlAction = url === undefined ? undefined : String(result.action);
    if (url !== undefined && result.action === 'accept') this.completeUrl(url);
    return result;
  }

  private pick(method: QuestionMethod, params: unknown): Record<string, unknown> {
    const question = this.normaliseQuestion(method, params);
    this.questions.push(question);
    const index = this.perMethod ? this.answers.findIndex(a => a.method === method) : 0;
    const next = this.answers[index];
    if (next && next.method === method) {
      this.answers.splice(index, 1);
      return structuredClone(next.result);
    }
    this.unexpected.push(question);
    if (method === 'elicitation/create') return { action: 'cancel' };
    throw new Error(UNEXPECTED_MESSAGE);
  }

  endCall(): { questions: Question[]; unexpected: Question[]; unused: ScriptedAnswer[]; lastUrlAction: string | undefined } {
    return { questions: this.questions, unexpected: this.unexpected, unused: this.answers, lastUrlAction: this.lastUrlAction };
  }
}

// ---------------------------------------------------------------------------------------------
// Normalisation: only what legitimately differs between eras and SDK majors

/**
 * A question's params as the client's handler received them, minus what the transport adds.
 *
 * - `_meta.progressToken`: the legacy shim sends each embedded request with `onprogress` set
 *   (it uses `resetTimeoutOnProgress` for its long human-paced legs, see
 *   LegacyInputRequiredShim in @modelcontextprotocol/server), so the protocol layer stamps
 *   `_meta: { progressToken: <n> }` onto the params. Observed: shim `{"_meta":{"progressToken":0},
 *   "mode":"form",...}` against push `{"mode":"form",...}` and modern `{"mode":"form",...}`. It is a
 *   transport correlation id, like a JSON-RPC id, not content the server chose. Any other `_meta`
 *   key is kept and compared.
 * - `roots/list` params: the push call sends no params at all, the shim sends `{ _meta }` only; once
 *   the progress token is gone, an empty params object on roots/list (whose params carry nothing
 *   but `_meta` by spec) is the same as none.
 *
 * - `elicitationId` of a URL-mode `elicitation/create` (and only there): the 2025 server chooses it
 *   (the UrlElicitationRequiredError's data, or a pushed URL elicitInput), the legacy shim
 *   synthesizes a random one (the 2025-11-25 wire requires it; see "Legacy shim for input_required"
 *   in docs/migration/support-2026-07-28.md), and a 2026-07-28 URL question has none
 *   (`inputRequired.elicitUrl` omits it). It correlates the 2025 completion notification, which
 *   the harness's client never uses; the URL and message the user sees are compared.
 *
 * Deliberately NOT normalised: elicitation `mode`. Push `elicitInput` (v1 and v2) adds
 * `mode: 'form'` and so does `inputRequired.elicit`, but a raw v1 `extra.sendRequest({ method:
 * 'elicitation/create', params })` sends params as written; fixtures write `mode: 'form'` there.
 */
export function normaliseQuestion(method: string, params: unknown): Question {
  if (params === undefined) return { method };
  const copy = jsonClone(params);
  if (isRecord(copy) && isRecord(copy._meta)) {
    delete copy._meta.progressToken;
    if (Object.keys(copy._meta).length === 0) delete copy._meta;
  }
  if (method === 'roots/list' && isRecord(copy) && Object.keys(copy).length === 0) return { method };
  if (method === 'elicitation/create' && isRecord(copy) && copy.mode === 'url') delete copy.elicitationId;
  return { method, params: copy };
}

/**
 * A call result minus what the era stamps on it.
 *
 * - `_meta`: every 2026-era response carries `_meta['io.modelcontextprotocol/serverInfo']` (server
 *   identity moved there from the discover result); 2025-era results carry none. Observed on every
 *   modern result. The whole top-level `_meta` is dropped, as the contract says: fixtures never
 *   author result `_meta`.
 * - `ttlMs: 0` / `cacheScope: 'private'` (modern runner only, only these default values): the
 *   2026-07-28 revision requires cache fields on cacheable results and the SDK fills in the most
 *   conservative defaults; 2025-era results never carry them. Observed on `resources/read` results.
 *
 * - `MCP error -32602: ` at the start of an `isError` tool result's text: a v1 McpServer turns an
 *   error its tool throws into that result with the error's message, and v1's `McpError` bakes the
 *   code into its message (see normaliseError); v2's `ProtocolError` does not. Observed when v1's
 *   push `elicitInput` rejects content that does not match its schema.
 *
 * Everything is JSON round-tripped: it is what travels on the wire, and `undefined` members vanish.
 */
export function normaliseResult(result: unknown, era: 'legacy' | 'modern'): unknown {
  const copy = jsonClone(result);
  if (!isRecord(copy)) return copy;
  delete copy._meta;
  if (copy.isError === true && Array.isArray(copy.content)) {
    for (const block of copy.content) {
      if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') block.text = block.text.replace(/^(MCP error -?\d+: )+/, '');
    }
  }
  if (era === 'modern') {
    if (copy.ttlMs === 0) delete copy.ttlMs;
    if (copy.cacheScope === 'private') delete copy.cacheScope;
  }
  return copy;
}

/**
 * A failed call as `{ code, message }`. v1's `McpError` bakes the code into its message
 * (`MCP error -32603: boom`), v2's `ProtocolError` does not (`boom`); the code is compared on its
 * own, so the prefix is dropped. A v1 server's `McpError` already carries it on the wire and the v1
 * client adds it again (`MCP error -32602: MCP error -32602: boom`), so every leading copy goes.
 * Client-side failures (e.g. an `SdkError` from the modern driver) keep their own code, so they
 * never compare equal to a server's JSON-RPC error by accident.
 */
export function normaliseError(error: unknown): { code: unknown; message: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code ?? null;
    return { code, message: error.message.replace(/^(MCP error -?\d+: )+/, '') };
  }
  return { code: null, message: String(error) };
}

/**
 * How a call ends after the user declined or cancelled a URL-mode elicitation, as the user sees it:
 * the call failed, with this message.
 *
 * - 2025 (push style): the handler threw UrlElicitationRequiredError; the client got JSON-RPC
 *   -32042 with the URL, the user did not complete it, so the client does not send the call again
 *   and the -32042 error (its message) is what the user sees.
 * - Migrated: the URL question was answered decline/cancel and the handler fails the call with the
 *   same message. The 2026-07-28 revision has no -32042 error (the SDK turns a thrown -32042 into
 *   -32603 there, see Server._invokeInputRequiredCapableHandler), so a thrown error surfaces the
 *   way the SDK surfaces handler errors: an `isError` tool result with the message as its only
 *   text, or JSON-RPC -32603 with the message for prompts/get and resources/read.
 *
 * Only applied when the call's last question was a URL-mode elicitation that the script answered
 * `decline` or `cancel`, and only to these three exact shapes; anything else is kept as it is and
 * compared as usual. The action is kept, so decline and cancel never compare equal.
 */
export function normaliseUrlRefusal(outcome: CallOutcome, lastUrlAction: string | undefined): CallOutcome {
  if (lastUrlAction !== 'decline' && lastUrlAction !== 'cancel') return outcome;
  if ('error' in outcome && (outcome.error.code === URL_ELICITATION_REQUIRED || outcome.error.code === INTERNAL_ERROR)) {
    return { urlElicitationNotCompleted: { action: lastUrlAction, message: outcome.error.message } };
  }
  if ('result' in outcome && isRecord(outcome.result) && outcome.result.isError === true && Object.keys(outcome.result).length === 2 &&
      Array.isArray(outcome.result.content) && outcome.result.content.length === 1 &&
      isRecord(outcome.result.content[0]) && outcome.result.content[0].type === 'text' && Object.keys(outcome.result.content[0]).length === 2) {
    return { urlElicitationNotCompleted: { action: lastUrlAction, message: String(outcome.result.content[0].text) } };
  }
  return outcome;
}

const URL_ELICITATION_REQUIRED = -32042;
const INTERNAL_ERROR = -32603;

/** The elicitations of a -32042 error (v1 McpError or v2 ProtocolError, `data.elicitations`). */
function urlElicitationsOf(error: unknown): Record<string, unknown>[] | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== URL_ELICITATION_REQUIRED) return undefined;
  const data = (error as { data?: unknown }).data;
  return isRecord(data) && Array.isArray(data.elicitations) && data.elicitations.every(isRecord) ? data.elicitations : undefined;
}

/** A 2025 client sends the call again at most this often after -32042 (the shim's own round cap). */
const MAX_URL_RETRIES = 8;

// ---------------------------------------------------------------------------------------------
// Runners

/**
 * The client half every runner shares: a way to register handlers for the declared question
 * kinds and to issue the three call methods. v1 and v2 clients differ only in these.
 */
interface SessionClient {
  call(method: CallMethod, params: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'mrtr-equivalence-client', version: '1.0.0' };

/** Which question kinds the client may answer: the v1 and v2 clients refuse handlers for undeclared ones. */
function declaredKinds(capabilities: Record<string, unknown>): QuestionMethod[] {
  const kinds: QuestionMethod[] = [];
  if (capabilities.elicitation !== undefined) kinds.push('elicitation/create');
  if (capabilities.sampling !== undefined) kinds.push('sampling/createMessage');
  if (capabilities.roots !== undefined) kinds.push('roots/list');
  return kinds;
}

function v2Client(capabilities: Record<string, unknown>, script: Script, modern: boolean): Client {
  const client = new Client(CLIENT_INFO, {
    capabilities,
    ...(modern ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {}),
  });
  for (const kind of declaredKinds(capabilities)) {
    // The result types differ per method; the script holds JSON the scenario author wrote for it.
    client.setRequestHandler(kind, async request => script.answer(kind, request.params) as never);
  }
  return client;
}

function v2Session(client: Client): SessionClient {
  return {
    call(method, params) {
      switch (method) {
        case 'tools/call':
          return client.callTool(params as Parameters<Client['callTool']>[0]);
        case 'prompts/get':
          return client.getPrompt(params as Parameters<Client['getPrompt']>[0]);
        case 'resources/read':
          return client.readResource(params as Parameters<Client['readResource']>[0]);
      }
    },
    close: () => client.close(),
  };
}

async function v1Session(server: V1McpServer | V1Server, capabilities: Record<string, unknown>, script: Script): Promise<SessionClient> {
  const client = new V1Client(CLIENT_INFO, { capabilities });
  const schemas = {
    'elicitation/create': ElicitRequestSchema,
    'sampling/createMessage': CreateMessageRequestSchema,
    'roots/list': ListRootsRequestSchema,
  } as const;
  for (const kind of declaredKinds(capabilities)) {
    client.setRequestHandler(schemas[kind] as typeof ElicitRequestSchema, async request => script.answer(kind, request.params) as never);
  }
  const [clientTransport, serverTransport] = V1InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  return {
    call(method, params) {
      switch (method) {
        case 'tools/call':
          return client.callTool(params as Parameters<V1Client['callTool']>[0]);
        case 'prompts/get':
          return client.getPrompt(params as Parameters<V1Client['getPrompt']>[0]);
        case 'resources/read':
          return client.readResource(params as Parameters<V1Client['readResource']>[0]);
      }
    },
    close: () => client.close(),
  };
}

async function v2InMemorySession(server: McpServer | Server, capabilities: Record<string, unknown>, script: Script): Promise<SessionClient> {
  const client = v2Client(capabilities, script, false);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  return v2Session(client);
}

/** Opens a client session with the given capabilities (a runner's transport and server setup). */
type OpenSession = (capabilities: Record<string, unknown>) => Promise<SessionClient>;

/**
 * Plays the calls in order. A call with its own `client` runs in a session of that client; the
 * session changes only when the declared capabilities do, so consecutive calls share a connection.
 */
async function play(open: OpenSession, module: FixtureModule, scenario: Scenario, script: Script, era: 'legacy' | 'modern'): Promise<Transcript> {
  const transcript: Transcript = { questions: [], results: [], effects: [], script: [] };
  module.urlFlows?.reset();
  module.world?.reset();
  let current: { key: string; session: SessionClient } | undefined;
  try {
    for (const call of scenario.calls) {
      const capabilities = (call.client ?? scenario.client).capabilities;
      const key = JSON.stringify(capabilities);
      if (current?.key !== key) {
        const previous = current;
        current = undefined;
        await previous?.session.close();
        current = { key, session: await open(capabilities) };
      }
      const session = current.session;
      const before = { ...module.effects };
      script.startCall(call.answers, call.answerOrder);
      let outcome: CallOutcome;
      try {
        outcome = { result: normaliseResult(await callWithUrlRetries(session, call, script), era) };
      } catch (error) {
        outcome = { error: normaliseError(error) };
      }
      const { questions, unexpected, unused, lastUrlAction } = script.endCall();
      transcript.questions.push(questions);
      transcript.results.push(normaliseUrlRefusal(outcome, lastUrlAction));
      transcript.effects.push(effectDelta(before, module.effects));
      transcript.script.push({ unexpected, unused });
    }
  } finally {
    await current?.session.close();
  }
  return transcript;
}

/**
 * One scripted call as a 2025 client makes it: on -32042 (URL elicitation required) each URL is
 * shown to the user as the question it is (scripted like any elicitation/create), and when the
 * user completed them all the same call is sent again; otherwise the -32042 error ends the call.
 * A 2026-07-28 or shim session never sees -32042 (URLs arrive as elicitation/create questions).
 */
async function callWithUrlRetries(session: SessionClient, call: ScriptedCall, script: Script): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await session.call(call.method, structuredClone(call.params));
    } catch (error) {
      const elicitations = urlElicitationsOf(error);
      if (!elicitations || attempt >= MAX_URL_RETRIES) throw error;
      let completed = true;
      for (const elicitation of elicitations) {
        if (script.answer('elicitation/create', elicitation).action !== 'accept') completed = false;
      }
      if (!completed) throw error;
    }
  }
}

function effectDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)]).values()) {
    delta[key] = (after[key] ?? 0) - (before[key] ?? 0);
  }
  return delta;
}

/**
 * A v2 server: from the ES build of @modelcontextprotocol/server, or from its CommonJS build, which a
 * CommonJS fixture `require`s (another copy of the classes, so instanceof alone cannot tell).
 */
function isV2Server(server: unknown): server is McpServer | Server {
  if (server instanceof McpServer || server instanceof Server) return true;
  const name = (server as { constructor?: { name?: string } } | null)?.constructor?.name;
  return (name === 'McpServer' || name === 'Server') && cjsServer !== undefined &&
    (server instanceof (cjsServer.McpServer as never) || server instanceof (cjsServer.Server as never));
}
const requireCjs = createRequire(import.meta.url);
const cjsServer = requireCjs('@modelcontextprotocol/server') as { McpServer: unknown; Server: unknown; createMcpHandler: typeof createMcpHandler };

/** The serving entry points of the SDK build a fixture loads: a CommonJS fixture's server only works with the CommonJS build's. */
function servingFor(file: string): { createMcpHandler: typeof createMcpHandler; serveStdio: typeof serveStdio } {
  if (!file.endsWith('.cjs')) return { createMcpHandler, serveStdio };
  return { createMcpHandler: cjsServer.createMcpHandler, serveStdio: (requireCjs('@modelcontextprotocol/server/stdio') as { serveStdio: typeof serveStdio }).serveStdio };
}

/** The original push-style module on the era it was written for. */
export async function runLegacy(file: string, scenario: Scenario): Promise<Transcript> {
  const module = await loadFixtureModule(file);
  const script = new Script(normaliseQuestion, url => module.urlFlows?.complete(url));
  // A server per session, as a server connects to one client.
  return play(async capabilities => {
    const server = module.createServer({ era: 'legacy' });
    if (server instanceof V1McpServer || server instanceof V1Server) return v1Session(server, capabilities, script);
    if (isV2Server(server)) return v2InMemorySession(server, capabilities, script);
    throw new Error(`${file}: createServer() must return an McpServer or Server from @modelcontextprotocol/server or @modelcontextprotocol/sdk`);
  }, module, scenario, script, 'legacy');
}

/** A migrated module on the 2026-07-28 era: a fresh server per HTTP request, in process. */
export async function runModern(file: string, scenario: Scenario): Promise<Transcript> {
  const module = await loadFixtureModule(file);
  const script = new Script(normaliseQuestion, url => module.urlFlows?.complete(url));
  const handler = servingFor(file).createMcpHandler(context => {
    const server = module.createServer(context);
    if (!(isV2Server(server))) throw notV2(file);
    return server;
  });
  try {
    return await play(async capabilities => {
      const transport = new StreamableHTTPClientTransport(new URL('http://test.local/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      });
      const client = v2Client(capabilities, script, true);
      await client.connect(transport);
      return v2Session(client);
    }, module, scenario, script, 'modern');
  } finally {
    await handler.close();
  }
}

/**
 * A migrated module on the 2026-07-28 era over `serveStdio` (an in-memory pipe as its transport):
 * one instance pinned per connection, which, unlike createMcpHandler's per-request instances, never
 * learns the client's capabilities through getClientCapabilities().
 */
export async function runStdio(file: string, scenario: Scenario): Promise<Transcript> {
  const module = await loadFixtureModule(file);
  const script = new Script(normaliseQuestion, url => module.urlFlows?.complete(url));
  const handles: Array<{ close(): Promise<void> }> = [];
  try {
    return await play(async capabilities => {
      const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
      handles.push(servingFor(file).serveStdio(context => {
        const server = module.createServer(context);
        if (!(isV2Server(server))) throw notV2(file);
        return server;
      }, { transport: serverTransport, legacy: 'reject' }));
      const client = v2Client(capabilities, script, true);
      await client.connect(clientTransport);
      return v2Session(client);
    }, module, scenario, script, 'modern');
  } finally {
    await Promise.all(handles.map(h => h.close()));
  }
}

/** A migrated module on the 2025 era: the SDK's legacy shim fulfils `inputRequired` returns. */
export async function runShim(file: string, scenario: Scenario): Promise<Transcript> {
  const module = await loadFixtureModule(file);
  const script = new Script(normaliseQuestion, url => module.urlFlows?.complete(url));
  return play(async capabilities => {
    const server = module.createServer({ era: 'legacy' });
    if (!(isV2Server(server))) throw notV2(file);
    return v2InMemorySession(server, capabilities, script);
  }, module, scenario, script, 'legacy');
}

function notV2(file: string): Error {
  return new Error(`${file}: a migrated module's createServer() must return an McpServer or Server from @modelcontextprotocol/server`);
}

// ---------------------------------------------------------------------------------------------
// Reading transcripts

/** The part of a transcript that must be identical across eras. */
export function comparable(transcript: Transcript): Pick<Transcript, 'questions' | 'results' | 'effects'> {
  return { questions: transcript.questions, results: transcript.results, effects: transcript.effects };
}

/** Problems with how a run consumed its script, one line each; empty when it was consumed exactly. */
export function scriptProblems(transcript: Transcript, scenario: Scenario): string[] {
  const problems: string[] = [];
  transcript.script.forEach(({ unexpected, unused }, i) => {
    const call = scenario.calls[i]!;
    const label = `call ${i + 1} (${call.method} ${JSON.stringify(call.params.name ?? call.params.uri)})`;
    for (const question of unexpected) problems.push(`${label}: unexpected question ${JSON.stringify(question)}`);
    if (unused.length > 0) problems.push(`${label}: ${unused.length} scripted answer(s) never asked for, next: ${unused[0]!.method}`);
  });
  return problems;
}

/**
 * Scripted answers the SDK would reject as results (e.g. a non-`file://` root): one line each. A
 * rejected answer still "answers" the question, so without this check a typo in a scenario shows up
 * only as an odd "Invalid result for ..." tool error in every transcript alike.
 */
export function invalidAnswers(scenario: Scenario): string[] {
  const valid: Record<QuestionMethod, (result: unknown) => boolean> = {
    'elicitation/create': result => isSpecType.ElicitResult(result),
    'sampling/createMessage': result => isSpecType.CreateMessageResult(result) || isSpecType.CreateMessageResultWithTools(result),
    'roots/list': result => isSpecType.ListRootsResult(result),
  };
  const problems: string[] = [];
  scenario.calls.forEach((call, i) =>
    call.answers.forEach((answer, j) => {
      if (!valid[answer.method](answer.result)) problems.push(`calls[${i}].answers[${j}]: not a valid ${answer.method} result`);
    }),
  );
  return problems;
}

function isRecord(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonClone(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
