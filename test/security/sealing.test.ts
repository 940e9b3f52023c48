import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contentOf, forged, keyedLoad, rawHttp, STATE_KEY, type Module, type Reply } from './attack.js';

/**
 * The sealed requestState attacked over HTTP (createMcpHandler, 2026-07-28) by a client that writes
 * its JSON-RPC by hand: what it can read from a state, what it can make of a state by changing it,
 * what a state sealed under a key it guessed does, and what happens to calls in flight while the
 * key rotates. Each attack is checked for its exact outcome and for side effects that did not happen,
 * and the genuine state is then shown to still work, so that no rejection is owed to something else.
 */

const clients: Array<ReturnType<typeof rawHttp>> = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(clients.splice(0).map(c => c.close()));
});

function client(module: Module): ReturnType<typeof rawHttp> {
  const c = rawHttp(module);
  clients.push(c);
  return c;
}

const REJECTED = { error: { code: -32602, message: 'Invalid or expired requestState' } };
const PURGE = { name: 'purge_records', arguments: { status: 'stale' } };
const CONFIRM = { answer: { action: 'accept', content: { confirm: true } } };
const PURGED = { result: { resultType: 'complete', content: [{ type: 'text', text: 'Deleted rec-101, rec-103 (no reason given).' }] } };

/** The first round of a call: the state it minted and the key it asks under. */
async function firstRound(c: ReturnType<typeof rawHttp>, params: Record<string, unknown>): Promise<{ state: string; key: string }> {
  const reply = await c.call('tools/call', params);
  expect(reply).toMatchObject({ result: { resultType: 'input_required' } });
  const { requestState, inputRequests } = (reply as { result: { requestState: string; inputRequests: Record<string, unknown> } }).result;
  return { state: requestState, key: Object.keys(inputRequests)[0]! };
}

/** Sends each forged state as the purge's second round: every one is rejected and nothing is deleted. */
async function allRejected(module: Module, c: ReturnType<typeof rawHttp>, states: string[]): Promise<number> {
  const before = { ...module.effects };
  for (const requestState of states) {
    const reply: Reply = await c.call('tools/call', { ...PURGE, requestState, inputResponses: CONFIRM });
    expect(reply, requestState).toEqual(REJECTED);
  }
  expect(module.effects).toEqual(before);
  return states.length;
}

describe('what a client can read from a state', () => {
  it('a one-time code made before the question travels in the state, and no client can read it there', async () => {
    const module = await keyedLoad('v2-confirm-code');
    const c = client(module);
    const world = (module as Module & { world: { texts: string[] } }).world;
    const params = { name: 'send_payment', arguments: { payee: 'landlord', amountPence: 125000 } };
    for (let i = 0; i < 50; i++) {
      const { state } = await firstRound(c, params);
      const code = world.texts.at(-1)!;
      // It is there: opened with the server's key, the state carries the code...
      expect(await contentOf(state, 'http', 'send_payment')).toContain(`"code":"${code}"`);
      // ...and nowhere in what the client holds: the string, its bytes, read as text either way.
      const bytes = Buffer.from(state, 'base64url');
      for (const view of [state, bytes.toString('latin1'), bytes.toString('utf8'), bytes.toString('hex')]) expect(view).not.toContain(code);
    }
  });

  it('without the phone, the payment is refused; with it, the payment is sent once', async () => {
    const module = await keyedLoad('v2-confirm-code');
    const c = client(module);
    const world = (module as Module & { world: { texts: string[] } }).world;
    const params = { name: 'send_payment', arguments: { payee: 'landlord', amountPence: 125000 } };
    const before = { ...module.effects };
    const guessed = await firstRound(c, params);
    expect(await c.call('tools/call', { ...params, requestState: guessed.state, inputResponses: { [guessed.key]: { action: 'accept', content: { code: '000000' } } } }))
      .toEqual({ result: { resultType: 'complete', isError: true, content: [{ type: 'text', text: 'That code is not the one we texted: no payment was sent.' }] } });
    const genuine = await firstRound(c, params);
    const answer = { [genuine.key]: { action: 'accept', content: { code: world.texts.at(-1)! } } };
    expect(await c.call('tools/call', { ...params, requestState: genuine.state, inputResponses: answer }))
      .toEqual({ result: { resultType: 'complete', content: [{ type: 'text', text: 'Sent £1250.00 to Harbour Lettings (GB33BUKB20201555555555).' }] } });
    expect(await c.call('tools/call', { ...params, requestState: genuine.state, inputResponses: answer })).toEqual(REJECTED);
    expect(module.effects).toEqual({ codesTexted: before.codesTexted! + 2, paymentsSent: before.paymentsSent! + 1, paymentsRefused: before.paymentsRefused! + 1 });
  });
});

describe('what a client can make of a state by changing it', () => {
  it('200 single-byte changes, spread over the IV, the sealed state and the tag, are all rejected', async () => {
    const module = await keyedLoad('v2-elicit-straight');
    const c = client(module);
    const { state } = await firstRound(c, PURGE);
    const bytes = Buffer.from(state, 'base64url');
    const states = Array.from({ length: 200 }, (_, i) => {
      const changed = Buffer.from(bytes);
      // Every position in turn, with a different non-zero change each time round.
      changed[i % bytes.length]! ^= 1 + ((i * 37) % 255);
      return changed.toString('base64url');
    });
    expect(new Set(states).size).toBe(200);
    expect(await allRejected(module, c, states)).toBe(200);
    expect(await c.call('tools/call', { ...PURGE, requestState: state, inputResponses: CONFIRM })).toEqual(PURGED);
  });

  it('every truncation of it (down to the empty string), and the state with bytes added, are rejected', async () => {
    const module = await keyedLoad('v2-elicit-straight');
    const c = client(module);
    const { state } = await firstRound(c, PURGE);
    const states = [
      ...Array.from({ length: state.length - 1 }, (_, n) => state.slice(0, n + 1)),
      ...Array.from({ length: state.length - 1 }, (_, n) => state.slice(n + 1)),
      `${state}A`, `${state}AAAA`, `A${state}`, '',
    ];
    expect(await allRejected(module, c, states)).toBe(2 * (state.length - 1) + 4);
    expect(await c.call('tools/call', { ...PURGE, requestState: state, inputResponses: CONFIRM })).toEqual(PURGED);
  });

  it('other encodings of its bytes are rejected: padding, the base64 alphabet, other spare bits, spaces, another case', async () => {
    const module = await keyedLoad('v2-elicit-straight');
    const c = client(module);
    // A state whose bytes need `-` or `_` (its IV is random), so that the base64 alphabet differs; its
    // length (fixed by what it carries) leaves spare bits in its last character.
    let state = '';
    for (let i = 0; i < 40 && !/[-_]/.test(state); i++) state = (await firstRound(c, PURGE)).state;
    expect(/[-_]/.test(state), 'no state with - or _ in 40 tries').toBe(true);
    expect(state.length % 4, 'the state has no spare bits').not.toBe(0);
    const bytes = Buffer.from(state, 'base64url');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(state.at(-1)!);
    const spare = state.length % 4 === 2 ? 0b1111 : 0b11;
    const others = [
      bytes.toString('base64'), // `+`, `/` and `=` padding
      `${state}${'='.repeat((4 - (state.length % 4)) % 4)}`,
      state.slice(0, -1) + alphabet[(last & ~spare) | ((last & spare) ^ 1)], // the same bytes, other spare bits
      `${state.slice(0, 20)} ${state.slice(20)}`,
      `${state.slice(0, 20)}\n${state.slice(20)}`,
      `${state} `,
      encodeURIComponent(bytes.toString('base64')),
      state.replace(/[a-z]/, ch => ch.toUpperCase()),
    ];
    for (const other of others.slice(0, 3)) expect(Buffer.from(other, 'base64url').equals(bytes), other).toBe(true);
    expect(await allRejected(module, c, others)).toBe(others.length);
    expect(await c.call('tools/call', { ...PURGE, requestState: state, inputResponses: CONFIRM })).toEqual(PURGED);
  });
});

describe('keys', () => {
  it('a state sealed under a guessed key, carrying what the genuine state carries, is rejected', async () => {
    const module = await keyedLoad('v2-elicit-straight');
    const c = client(module);
    const { state } = await firstRound(c, PURGE);
    const carried = await contentOf(state, 'http', 'purge_records');
    const guesses = ['a'.repeat(32), '0'.repeat(64), 'changeme-changeme-changeme-changeme', 'the security tests key: thirty-two bytes or mor', randomBytes(32).toString('base64')];
    const states = await Promise.all(guesses.map(guess => forged(carried.replace(/"nonce":"[^"]+"/, `"nonce":"${crypto.randomUUID()}"`), guess, 'purge_records')));
    // The forger's own key opens what it sealed: the rejection is the server's key, not a malformed state.
    expect(await contentOf(states[0]!, 'http', 'purge_records', '', guesses[0])).toContain('"step"');
    expect(await allRejected(module, c, states)).toBe(guesses.length);
    // Sealed under the server's own key, the same content resumes the call: so only the key was wrong.
    expect(await c.call('tools/call', { ...PURGE, requestState: await forged(carried, STATE_KEY, 'purge_records'), inputResponses: CONFIRM })).toEqual(PURGED);
  });

  it('a server given a key easy to guess does not start, and says how to make one', async () => {
    const weak = ['a'.repeat(32), 'ab'.repeat(32), 'short key', '0123456789abcdef'.repeat(4), `${'x'.repeat(20)}0123456789abcd`];
    for (const key of weak) {
      await expect(keyedLoad('v2-elicit-straight', { MCP_REQUEST_STATE_KEY: key }), key).rejects.toThrow(/^MCP_REQUEST_STATE_KEY holds a key too easy to guess \(.+\); .* Make one with: openssl rand -base64 32$/);
    }
    await expect(keyedLoad('v2-elicit-straight', { MCP_REQUEST_STATE_KEYS: `${randomBytes(32).toString('base64')},${'b'.repeat(40)}` }))
      .rejects.toThrow(/^MCP_REQUEST_STATE_KEYS holds a key too easy to guess \(fewer than 16 distinct bytes\)/);
  });

  it('rotating: calls in flight under the old key finish on servers given new,old; servers given only the new key take states minted there', async () => {
    const [older, newer] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
    const before = client(await keyedLoad('v2-elicit-straight', { MCP_REQUEST_STATE_KEY: older }));
    const duringModule = await keyedLoad('v2-elicit-straight', { MCP_REQUEST_STATE_KEYS: `${newer},${older}` });
    const during = client(duringModule);
    const after = client(await keyedLoad('v2-elicit-straight', { MCP_REQUEST_STATE_KEYS: newer }));
    // Three calls asked by a server of the old key, answered after the deploy of new,old.
    const inFlight = [await firstRound(before, PURGE), await firstRound(before, PURGE), await firstRound(before, PURGE)];
    const deleted = duringModule.effects.deleted!;
    for (const { state } of inFlight) expect(await during.call('tools/call', { ...PURGE, requestState: state, inputResponses: CONFIRM })).toEqual(PURGED);
    expect(duringModule.effects.deleted).toBe(deleted + 6);
    // A call asked under the old key and answered only after the old key is gone: rejected.
    const late = await firstRound(before, PURGE);
    expect(await after.call('tools/call', { ...PURGE, requestState: late.state, inputResponses: CONFIRM })).toEqual(REJECTED);
    // States minted during the rotation are sealed with the new key: they resume where only it is left.
    const minted = await firstRound(during, PURGE);
    expect(await contentOf(minted.state, 'http', 'purge_records', '', newer)).toContain('"step"');
    expect(await after.call('tools/call', { ...PURGE, requestState: minted.state, inputResponses: CONFIRM })).toEqual(PURGED);
  });
});
