import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * The requestState the rewrite mints is integrity-protected and bound to its call: a modified,
 * expired, other-tool or other-arguments state is rejected with -32602, and a retry that comes
 * without the answer gets the question again. Driven by hand on the 2026-07-28 era (the client's
 * automatic fulfilment is off so the test controls every round).
 */

const fixture = resolve(import.meta.dirname, '../../fixtures/v2-two-tools/output.ts');
type Module = { createServer(): McpServer; effects: Record<string, number> };

let module: Module;
let client: Client;
let close: () => Promise<void>;

beforeEach(async () => {
  module = (await import(fixture)) as Module;
  const handler = createMcpHandler(() => module.createServer());
  client = new Client(
    { name: 'tamper-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL('http://test.local/mcp'), { fetch: (url, init) => handler.fetch(new Request(url, init)) }));
  close = async () => {
    await client.close();
    await handler.close();
  };
});

afterEach(async () => {
  vi.useRealTimers();
  await close();
});

/** One round of tools/call; returns the input-required result or the final result. */
async function round(name: string, args: Record<string, unknown>, retry?: { requestState?: string; inputResponses?: Record<string, unknown> }) {
  return client.request({ method: 'tools/call', params: { name, arguments: args, ...retry } }, { allowInputRequired: true }) as Promise<Record<string, unknown>>;
}

async function firstRound(name: string, project: string) {
  const first = await round(name, { project });
  expect(first).toMatchObject({ resultType: 'input_required' });
  const { inputRequests, requestState } = first as { inputRequests: Record<string, unknown>; requestState: string };
  expect(Object.keys(inputRequests)).toEqual(['answer']);
  expect(typeof requestState).toBe('string');
  return requestState;
}

const ACCEPT = { answer: { action: 'accept', content: { confirm: true } } };

async function expectInvalidParams(promise: Promise<unknown>) {
  await expect(promise).rejects.toMatchObject({ code: -32602 });
}

describe('requestState minted by the rewrite', () => {
  it('resumes the call it was minted for', async () => {
    const state = await firstRound('archive_project', 'apollo');
    const before = module.effects.archived!;
    const done = await round('archive_project', { project: 'apollo' }, { requestState: state, inputResponses: ACCEPT });
    expect(done).toMatchObject({ content: [{ type: 'text', text: 'Archived Apollo (4 members).' }] });
    expect(module.effects.archived).toBe(before + 1);
  });

  it('asks again when the retry carries no answer', async () => {
    const state = await firstRound('archive_project', 'apollo');
    const again = await round('archive_project', { project: 'apollo' }, { requestState: state });
    expect(again).toMatchObject({
      resultType: 'input_required',
      inputRequests: { answer: { method: 'elicitation/create', params: { message: 'Archive Apollo (4 members)?' } } },
    });
    // Each state is accepted once: the next retry echoes the state of the round that asked again. An
    // answer of another kind is no elicitation result: the call fails, as elicitInput() failed on it.
    const wrongKind = await round('archive_project', { project: 'apollo' }, { requestState: (again as { requestState: string }).requestState, inputResponses: { answer: { roots: [] } } });
    expect(wrongKind).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^Invalid result for elicitation\/create: \[/) }] });
  });

  it('rejects a modified state with -32602', async () => {
    const state = await firstRound('archive_project', 'apollo');
    // Sealed, the state cannot be read to be rewritten: a bit changed in each part of it (IV, sealed state, tag).
    const bytes = Buffer.from(state, 'base64url');
    for (const at of [0, 12, bytes.length - 1]) {
      const forged = Buffer.from(bytes);
      forged[at]! ^= 0x80;
      await expectInvalidParams(round('archive_project', { project: 'apollo' }, { requestState: forged.toString('base64url'), inputResponses: ACCEPT }));
    }
    await expectInvalidParams(round('archive_project', { project: 'apollo' }, { requestState: `${state}x`, inputResponses: ACCEPT }));
  });

  it('rejects an expired state with -32602', async () => {
    const state = await firstRound('archive_project', 'apollo');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 601_000);
    await expectInvalidParams(round('archive_project', { project: 'apollo' }, { requestState: state, inputResponses: ACCEPT }));
  });

  it('rejects a state minted for another tool with -32602 (bound to the Mcp-Name header over HTTP)', async () => {
    const state = await firstRound('delete_project', 'apollo');
    const before = { ...module.effects };
    await expectInvalidParams(round('archive_project', { project: 'apollo' }, { requestState: state, inputResponses: ACCEPT }));
    expect(module.effects).toEqual(before);
  });

  it('rejects a state minted for other arguments', async () => {
    const state = await firstRound('delete_project', 'gemini');
    const before = { ...module.effects };
    await expectRejected(round('delete_project', { project: 'apollo' }, { requestState: state, inputResponses: ACCEPT }));
    expect(module.effects).toEqual(before);
  });
});

/**
 * The arguments binding is checked inside the handler (the SDK's verify hook sees no request
 * parameters). McpServer turns any error a tool handler throws into an `isError` result, so on
 * McpServer tools the -32602 ProtocolError the handler throws reaches the client as that result.
 */
async function expectRejected(promise: Promise<unknown>) {
  expect(await promise).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Invalid or expired requestState' }] });
}

/** A fresh 2026-era client on a fixture's migrated module (automatic fulfilment off). */
async function connect(path: string) {
  const mod = (await import(resolve(import.meta.dirname, '../../fixtures', path))) as { createServer(): McpServer };
  const handler = createMcpHandler(() => mod.createServer());
  const c = new Client(
    { name: 'tamper-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await c.connect(new StreamableHTTPClientTransport(new URL('http://test.local/mcp'), { fetch: (url, init) => handler.fetch(new Request(url, init)) }));
  return {
    client: c,
    close: async () => {
      await c.close();
      await handler.close();
    },
  };
}

describe('other-arguments state on handlers whose errors reach the wire', () => {
  it('prompts/get: rejected with -32602', async () => {
    const { client: c, close: done } = await connect('v2-prompt/output.ts');
    try {
      const first = (await c.request({ method: 'prompts/get', params: { name: 'release_notes', arguments: { version: '4.0.0' } } }, { allowInputRequired: true })) as unknown as { requestState: string };
      expect(typeof first.requestState).toBe('string');
      const retry = c.request(
        { method: 'prompts/get', params: { name: 'release_notes', arguments: { version: '4.0.1' }, requestState: first.requestState, inputResponses: { audience: { action: 'decline' } } } },
        { allowInputRequired: true },
      );
      await expectInvalidParams(retry);
    } finally {
      await done();
    }
  });

  it('low-level tools/call: rejected with -32602', async () => {
    const { client: c, close: done } = await connect('v2-low-level-server/output.ts');
    try {
      const first = (await c.request({ method: 'tools/call', params: { name: 'rotate_api_key', arguments: { keyId: 'key-ingest' } } }, { allowInputRequired: true })) as unknown as { requestState: string };
      expect(typeof first.requestState).toBe('string');
      const retry = c.request(
        { method: 'tools/call', params: { name: 'rotate_api_key', arguments: { keyId: 'key-reports' }, requestState: first.requestState, inputResponses: { answer: { action: 'decline' } } } },
        { allowInputRequired: true },
      );
      await expectInvalidParams(retry);
    } finally {
      await done();
    }
  });
});
