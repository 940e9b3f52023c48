import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import type { ServerContext } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { runtimeText } from '../../transforms/mrtr/moduleSupport.js';

// The runtime reads its key when it is first imported; the worker's other test files (isolate: false) see the environment as it was.
type Runtime = typeof import('../../src/runtime/index.js');
let runtime: Runtime;
beforeAll(async () => {
  const before = process.env['MCP_REQUEST_STATE_KEY'];
  process.env['MCP_REQUEST_STATE_KEY'] = 'runtime test key, thirty-two bytes or more';
  try {
    runtime = await import('../../src/runtime/index.js');
  } finally {
    if (before === undefined) delete process.env['MCP_REQUEST_STATE_KEY'];
    else process.env['MCP_REQUEST_STATE_KEY'] = before;
  }
});

let copies = 0;
/** A fresh instance of the runtime (a copy of its module), loaded with these variables set: it reads its keys once, when imported. */
async function runtimeWith(env: Record<string, string>): Promise<Runtime> {
  const dir = resolve(import.meta.dirname, '../../test-output/runtime-keys');
  mkdirSync(dir, { recursive: true });
  const file = resolve(dir, `runtime-${process.pid}-${++copies}.ts`);
  copyFileSync(new URL('../../src/runtime/index.ts', import.meta.url), file);
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  try {
    return (await import(file)) as Runtime;
  } finally {
    vi.unstubAllEnvs();
  }
}

/** What the codec and the helpers read of a request's context. */
function contextOf(method: string, requestState?: unknown, clientId?: string): ServerContext {
  return {
    mcpReq: { method, requestState: () => requestState },
    ...(clientId === undefined ? {} : { http: { authInfo: { clientId, token: 't', scopes: [] } } }),
  } as unknown as ServerContext;
}

describe('mrtr-migrate/runtime', () => {
  it('is the support module a run writes, as its generator writes it now (npm run runtime:write)', () => {
    const file = readFileSync(new URL('../../src/runtime/index.ts', import.meta.url), 'utf8');
    expect(file).toBe(runtimeText(ts as never));
    // It imports the SDK and nothing else.
    expect([...file.matchAll(/^import .* from '([^']+)';$/gm)].map(m => m[1])).toEqual(['@modelcontextprotocol/server']);
  });

  it('mints a state that verifies once, for the method and caller it was minted for', async () => {
    const { requestStateCodec } = runtime;
    const state = { step: 'confirm', call: 'digest', amount: 3 };
    const minted = await requestStateCodec.mint(state, contextOf('tools/call', undefined, 'alice'));
    await expect(requestStateCodec.verify(minted, contextOf('prompts/get', undefined, 'alice'))).rejects.toThrow();
    await expect(requestStateCodec.verify(minted, contextOf('tools/call', undefined, 'mallory'))).rejects.toThrow();
    expect(await requestStateCodec.verify(minted, contextOf('tools/call', undefined, 'alice'))).toEqual(state);
    await expect(requestStateCodec.verify(minted, contextOf('tools/call', undefined, 'alice'))).rejects.toThrow('requestState already used');
  });

  it('seals a state: its bytes show nothing it carries', async () => {
    const { requestStateCodec } = runtime;
    const state = { step: 'code', call: 'digest', smsCode: '493817', note: 'a sentence the client must not read' };
    const minted = await requestStateCodec.mint(state, contextOf('tools/call'));
    expect(minted).toMatch(/^[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(minted, 'base64url');
    for (const text of [bytes.toString('latin1'), bytes.toString('utf8'), minted]) {
      for (const secret of ['493817', 'must not read', 'smsCode', 'step']) expect(text).not.toContain(secret);
    }
    // Two mints of one state differ (a fresh nonce and IV each time).
    expect(await requestStateCodec.mint(state, contextOf('tools/call'))).not.toBe(minted);
  });

  it('opens only the exact string it minted: any change to it, or another encoding of its bytes, fails', async () => {
    const { requestStateCodec, useRequestStateReplays } = runtime;
    // Every claim succeeds here: a state that fails, fails at opening, not as a replay.
    useRequestStateReplays({ claim: () => true });
    const ctx = contextOf('tools/call', undefined, 'alice');
    const alphabet = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/='];
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), by: fc.constantFrom(...alphabet) }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), by: fc.constantFrom(...alphabet) }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('pad' as const), by: fc.constantFrom('=', '==') }),
    );
    const mutate = (text: string, m: { kind: string; at?: number; by?: string }): string => {
      const at = (m.at ?? 0) % (text.length + 1);
      if (m.kind === 'replace') return text.slice(0, at) + m.by + text.slice(at + 1);
      if (m.kind === 'insert') return text.slice(0, at) + m.by + text.slice(at);
      if (m.kind === 'delete') return text.slice(0, at) + text.slice(at + 1);
      if (m.kind === 'truncate') return text.slice(0, at);
      return text + m.by;
    };
    const carried = fc.dictionary(fc.string({ maxLength: 8 }).filter(k => k !== 'step' && k !== 'call'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    await fc.assert(fc.asyncProperty(carried, mutation, async (extra, m) => {
      const state = { ...extra, step: 'ask', call: 'c' };
      const minted = await requestStateCodec.mint(state, ctx);
      const changed = mutate(minted, m);
      const opened = await requestStateCodec.verify(changed, ctx).then(() => true, () => false);
      expect(opened).toBe(changed === minted);
      expect(await requestStateCodec.verify(minted, ctx)).toEqual(JSON.parse(JSON.stringify(state)));
    }), { numRuns: 300 });
    // The last character of an encoding with spare bits (a length not a multiple of 3, which one of three
    // state lengths gives): another letter gives the same bytes, and fails.
    const lengths = await Promise.all(['', 'x', 'xx'].map(pad => requestStateCodec.mint({ step: 'ask', call: 'c', pad }, ctx)));
    const minted = lengths.find(state => Buffer.from(state, 'base64url').length % 3 !== 0)!;
    expect(minted).toBeDefined();
    const last = minted.at(-1)!;
    const other = alphabet.slice(0, 64).find(c => c !== last && Buffer.from(minted.slice(0, -1) + c, 'base64url').equals(Buffer.from(minted, 'base64url')));
    expect(other).toBeDefined();
    await expect(requestStateCodec.verify(minted.slice(0, -1) + other, ctx)).rejects.toThrow('requestState is malformed');
    expect(await requestStateCodec.verify(minted, ctx)).toMatchObject({ step: 'ask' });
  });

  it('fails a state past its TTL', async () => {
    const { requestStateCodec, useRequestStateReplays } = runtime;
    useRequestStateReplays({ claim: () => true });
    const minted = await requestStateCodec.mint({ step: 'ask', call: 'c' }, contextOf('tools/call'));
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 599_000);
      await expect(requestStateCodec.verify(minted, contextOf('tools/call'))).resolves.toEqual({ step: 'ask', call: 'c' });
      vi.setSystemTime(Date.now() + 3_000);
      await expect(requestStateCodec.verify(minted, contextOf('tools/call'))).rejects.toThrow('requestState has expired');
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a key that is easy to guess, naming the variable, why, and how to make one; takes random ones, hex or base64', async () => {
    const weak: Array<[Record<string, string>, string]> = [
      [{ MCP_REQUEST_STATE_KEY: 'a'.repeat(32) }, 'MCP_REQUEST_STATE_KEY holds a key too easy to guess (fewer than 16 distinct bytes)'],
      [{ MCP_REQUEST_STATE_KEY: 'abcdefghijklmnop'.repeat(2) }, 'MCP_REQUEST_STATE_KEY holds a key too easy to guess (a short pattern repeated)'],
      [{ MCP_REQUEST_STATE_KEY: 'too short for a key' }, 'MCP_REQUEST_STATE_KEY holds a key too easy to guess (shorter than 32 bytes)'],
      // Hex is judged by the bytes it spells: eight distinct.
      [{ MCP_REQUEST_STATE_KEY: '0123456789abcdef'.repeat(4) }, 'MCP_REQUEST_STATE_KEY holds a key too easy to guess (fewer than 16 distinct bytes)'],
      [{ MCP_REQUEST_STATE_KEYS: `${randomBytes(32).toString('base64')}, ${'xy'.repeat(20)}` }, 'MCP_REQUEST_STATE_KEYS holds a key too easy to guess (fewer than 16 distinct bytes)'],
    ];
    for (const [env, message] of weak) {
      await expect(runtimeWith(env)).rejects.toThrow(`${message}; it seals the requestState of multi round-trip requests. Make one with: openssl rand -base64 32`);
    }
    // A list with no key in it is a mistake, not a request for the random key of the process.
    for (const list of [',', ' , ,', ' ']) {
      await expect(runtimeWith({ MCP_REQUEST_STATE_KEYS: list })).rejects.toThrow('MCP_REQUEST_STATE_KEYS holds no key: list them newest first, separated by commas. Make one with: openssl rand -base64 32');
    }
    // openssl rand -hex 32 spells 16 distinct characters or fewer; the bytes are what count.
    for (let i = 0; i < 20; i++) await expect(runtimeWith({ MCP_REQUEST_STATE_KEY: randomBytes(32).toString('hex') })).resolves.toBeDefined();
    await expect(runtimeWith({ MCP_REQUEST_STATE_KEY: randomBytes(32).toString('base64') })).resolves.toBeDefined();
  });

  it('rotates keys: MCP_REQUEST_STATE_KEYS mints with the first and opens with any, so calls in flight finish', async () => {
    const [older, newer] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
    const before = await runtimeWith({ MCP_REQUEST_STATE_KEY: older });
    const during = await runtimeWith({ MCP_REQUEST_STATE_KEYS: `${newer}, ${older}` });
    const after = await runtimeWith({ MCP_REQUEST_STATE_KEYS: newer });
    const ctx = contextOf('tools/call');
    const inFlight = await before.requestStateCodec.mint({ step: 'ask', call: 'c' }, ctx);
    expect(await during.requestStateCodec.verify(inFlight, ctx)).toEqual({ step: 'ask', call: 'c' });
    const minted = await during.requestStateCodec.mint({ step: 'next', call: 'c' }, ctx);
    await expect(before.requestStateCodec.verify(minted, ctx)).rejects.toThrow('requestState does not open with any key');
    expect(await after.requestStateCodec.verify(minted, ctx)).toEqual({ step: 'next', call: 'c' });
    await expect(after.requestStateCodec.verify(await before.requestStateCodec.mint({ step: 'ask', call: 'c' }, ctx), ctx)).rejects.toThrow('requestState does not open with any key');
  });

  it('claims each state in the record useRequestStateReplays sets, for the TTL the state has', async () => {
    const { requestStateCodec, useRequestStateReplays } = runtime;
    const claims: Array<[string, number]> = [];
    useRequestStateReplays({ claim: async (nonce, ttlMs) => (claims.push([nonce, ttlMs]), claims.length === 1) });
    const minted = await requestStateCodec.mint({ step: 'a', call: 'c' }, contextOf('tools/call'));
    await requestStateCodec.verify(minted, contextOf('tools/call'));
    await expect(requestStateCodec.verify(minted, contextOf('tools/call'))).rejects.toThrow('requestState already used');
    expect(claims).toHaveLength(2);
    expect(claims[0]![0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims[1]).toEqual(claims[0]);
    expect(claims[0]![1]).toBe(600_000);
  });

  it('digests a call the same whatever the order of its arguments, and tells calls apart', async () => {
    const { requestStateCall, assertStateFor } = runtime;
    const call = await requestStateCall('transfer', { to: 'bob', amount: { value: 3, unit: 'EUR' } });
    expect(await requestStateCall('transfer', { amount: { unit: 'EUR', value: 3 }, to: 'bob' })).toBe(call);
    expect(await requestStateCall('transfer', { to: 'bob', amount: { value: 4, unit: 'EUR' } })).not.toBe(call);
    expect(() => assertStateFor({ call }, call)).not.toThrow();
    expect(() => assertStateFor(undefined, call)).not.toThrow();
    expect(() => assertStateFor({ call: 'other' }, call)).toThrow('Invalid or expired requestState');
  });

  it('checks accepted elicitation content against the schema it was asked with', () => {
    const { elicitAnswerOf, elicitResultOf } = runtime;
    const question = { method: 'elicitation/create', params: { mode: 'form', message: 'Confirm?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } } as const;
    const accepted = elicitAnswerOf({ confirm: { action: 'accept', content: { ok: true } } }, 'confirm', question as never);
    expect(accepted.kind === 'elicit' && elicitResultOf(accepted)).toEqual({ action: 'accept', content: { ok: true } });
    expect(() => elicitAnswerOf({ confirm: { action: 'accept', content: { ok: 'yes' } } }, 'confirm', question as never)).toThrow('does not match requested schema');
    const declined = elicitAnswerOf({ confirm: { action: 'decline' } }, 'confirm', question as never);
    expect(declined.kind === 'elicit' && elicitResultOf(declined)).toEqual({ action: 'decline' });
  });

  it("keeps a server's own requestState hook for the states it did not mint", async () => {
    const { requestStateCodec, keepRequestStateHook, migratedRequestState, useRequestStateReplays } = runtime;
    const used = new Set<string>();
    useRequestStateReplays({ claim: nonce => !used.has(nonce) && !!used.add(nonce) });
    const hook = keepRequestStateHook(own => `own:${own}`);
    expect(await hook('their-state', contextOf('tools/call'))).toBe('own:their-state');
    const minted = await requestStateCodec.mint({ step: 'b', call: 'c' }, contextOf('tools/call'));
    const verified = await hook(minted, contextOf('tools/call'));
    expect(migratedRequestState(contextOf('tools/call', verified))).toEqual({ step: 'b', call: 'c' });
    expect(migratedRequestState(contextOf('tools/call'))).toBeUndefined();
    expect(() => migratedRequestState(contextOf('tools/call', 'own:their-state'))).toThrow('Invalid or expired requestState');
  });
});
