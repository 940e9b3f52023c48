import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport, type AuthInfo, type McpServer, type Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { copyFileSync, cpSync, existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, vi } from 'vitest';

/**
 * What the security tests attack with: a migrated fixture server on the 2026-07-28 era over HTTP
 * (createMcpHandler, a fresh server per request) or stdio (serveStdio, one per connection), driven one
 * round at a time by a client that sends whatever it is given.
 */

export type Module = { createServer(): McpServer | Server; effects: Record<string, number> };
export type Outcome = Record<string, unknown>;
export interface Session {
  /** One round: the input-required or final result; a JSON-RPC error rejects. */
  round(method: 'tools/call' | 'prompts/get', params: Record<string, unknown>): Promise<Outcome>;
  close(): Promise<void>;
}

export const FIXTURES = resolve(import.meta.dirname, '../../fixtures');
/** A fixture's migrated module: `output.ts`, or the entry `output/index.ts` of one laid out over modules. */
export const load = async (name: string): Promise<Module> => (await import(resolve(FIXTURES, name, existsSync(resolve(FIXTURES, name, 'output.ts')) ? 'output.ts' : 'output/index.ts'))) as Module;

export const STATE_KEY = 'the security tests key: thirty-two bytes or more';
let copies = 0;

/**
 * A fresh copy of a fixture's migrated modules, loaded with MCP_REQUEST_STATE_KEY set (a module reads
 * it once, when first imported), so that the test can open the states its codec seals (contentOf);
 * or with the variables given (MCP_REQUEST_STATE_KEYS, a weak key).
 */
export async function keyedLoad(name: string, env: Record<string, string> = { MCP_REQUEST_STATE_KEY: STATE_KEY }): Promise<Module> {
  const dir = resolve(import.meta.dirname, '../../test-output/security-keyed', `${name}-${process.pid}-${++copies}`);
  mkdirSync(dir, { recursive: true });
  const single = existsSync(resolve(FIXTURES, name, 'output.ts'));
  if (single) for (const file of ['output.ts', 'requestState.ts']) copyFileSync(resolve(FIXTURES, name, file), resolve(dir, file));
  else cpSync(resolve(FIXTURES, name, 'output'), dir, { recursive: true });
  vi.stubEnv('MCP_REQUEST_STATE_KEY', '');
  vi.stubEnv('MCP_REQUEST_STATE_KEYS', '');
  for (const [variable, value] of Object.entries(env)) vi.stubEnv(variable, value);
  return (await import(resolve(dir, single ? 'output.ts' : 'index.ts'))) as Module;
}

/** The AES-GCM key the codec derives from a key string (test/runtime pins the derivation). */
async function sealingKey(secret: string): Promise<Awaited<ReturnType<typeof crypto.subtle.deriveKey>>> {
  const utf8 = new TextEncoder();
  const base = await crypto.subtle.importKey('raw', utf8.encode(secret), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info: utf8.encode('mrtr-migrate requestState AES-256-GCM') }, base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

/** The binding a state is sealed under: the method, the caller and, over HTTP, the Mcp-Name header (the tool's name). */
const bindingOf = (transport: 'http' | 'stdio', tool: string, clientId = '') => new TextEncoder().encode(['tools/call', clientId, transport === 'http' ? tool : ''].join('\u0000'));

/** What a tool call's sealed state carries, opened as its codec opens it. */
export async function contentOf(state: string, transport: 'http' | 'stdio', tool: string, clientId = '', secret = STATE_KEY): Promise<string> {
  const bytes = Buffer.from(state, 'base64url');
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.subarray(0, 12), additionalData: bindingOf(transport, tool, clientId) }, await sealingKey(secret), bytes.subarray(12));
  return new TextDecoder().decode(plain);
}

/** A state sealed as the codec seals one, under a key of the attacker's choosing: `content` is the JSON it carries. */
export async function forged(content: string, secret: string, tool: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: bindingOf('http', tool) }, await sealingKey(secret), new TextEncoder().encode(content));
  return Buffer.concat([iv, new Uint8Array(sealed)]).toString('base64url');
}

/** The state with one bit of its sealed bytes changed (`at` from the end when negative), in canonical base64url. */
export function flipped(state: string, at: number): string {
  const bytes = Buffer.from(state, 'base64url');
  bytes[at < 0 ? bytes.length + at : at]! ^= 0x01;
  return bytes.toString('base64url');
}

export async function open(module: Module, transport: 'http' | 'stdio', authInfo?: AuthInfo): Promise<Session> {
  const client = new Client(
    { name: 'attacker', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  let stop: () => Promise<void>;
  if (transport === 'http') {
    const handler = createMcpHandler(() => module.createServer());
    await client.connect(new StreamableHTTPClientTransport(new URL('http://test.local/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init), authInfo ? { authInfo } : undefined),
    }));
    stop = () => handler.close();
  } else {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const served = serveStdio(() => module.createServer(), { transport: serverSide, legacy: 'reject' });
    await client.connect(clientSide);
    stop = () => served.close();
  }
  return {
    round: (method, params) => client.request({ method, params } as never, { allowInputRequired: true }) as Promise<Outcome>,
    close: async () => {
      await client.close();
      await stop();
    },
  };
}

/** A round that must ask: its state and the keys it asks. */
export function asked(outcome: Outcome): { state: string; keys: string[] } {
  expect(outcome).toMatchObject({ resultType: 'input_required' });
  const { requestState, inputRequests } = outcome as { requestState: string; inputRequests: Record<string, unknown> };
  expect(typeof requestState).toBe('string');
  return { state: requestState, keys: Object.keys(inputRequests) };
}

/** A result without the `_meta` every 2026-era response carries. */
export function bare(outcome: Outcome): Outcome {
  const { _meta, ...rest } = outcome;
  void _meta;
  return rest;
}


export type Reply = { result: Outcome } | { error: { code: unknown; message: string } };

/**
 * A client of the module over HTTP (createMcpHandler, 2026-07-28) that writes its JSON-RPC requests by
 * hand, one POST each, with the headers and `_meta` a 2026 client sends: nothing it sends is checked or
 * reshaped on the way out.
 */
export function rawHttp(module: Module, capabilities: Record<string, unknown> = { elicitation: { form: {} }, sampling: {}, roots: {} }) {
  const handler = createMcpHandler(() => module.createServer());
  let id = 0;
  return {
    async call(method: 'tools/call' | 'prompts/get', params: Record<string, unknown>): Promise<Reply> {
      const body = {
        jsonrpc: '2.0',
        id: ++id,
        method,
        params: {
          ...params,
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' }, 'io.modelcontextprotocol/clientCapabilities': capabilities },
        },
      };
      const response = await handler.fetch(new Request('http://test.local/mcp', {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-method': method, 'mcp-name': String(params.name), 'mcp-protocol-version': '2026-07-28' },
        body: JSON.stringify(body),
      }));
      const reply = (await response.json()) as { result?: Outcome; error?: { code: unknown; message: string } };
      if (reply.error) return { error: { code: reply.error.code, message: reply.error.message } };
      const { _meta, ...result } = reply.result!;
      void _meta;
      return { result };
    },
    close: () => handler.close(),
  };
}
