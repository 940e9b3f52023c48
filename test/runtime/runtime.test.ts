import { readFileSync } from 'node:fs';
import ts from 'typescript';
import type { ServerContext } from '@modelcontextprotocol/server';
import { beforeAll, describe, expect, it } from 'vitest';
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
