import type { AuthInfo } from '@modelcontextprotocol/server';
import { copyFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { asked, bare, contentOf, FIXTURES, flipped, keyedLoad, load, open, type Module, type Outcome, type Session } from './attack.js';

/**
 * The migrated fixture servers attacked the way a client could on the 2026-07-28 era, over HTTP
 * (createMcpHandler, a fresh server per request) and stdio (serveStdio, one per connection): every
 * round driven by hand, each attack checked for its exact outcome and for side effects that did not
 * happen. test/transforms/tamper.test.ts covers modified, expired and other-call state over HTTP.
 */

const sessions: Session[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  await Promise.all(sessions.splice(0).map(s => s.close()));
});

async function session(name: string, transport: 'http' | 'stdio', authInfo?: AuthInfo, keyed = false): Promise<{ s: Session; module: Module }> {
  const module = keyed ? await keyedLoad(name) : await load(name);
  const s = await open(module, transport, authInfo);
  sessions.push(s);
  return { s, module };
}

const REJECTED = { code: -32602, message: 'Invalid or expired requestState' };
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const toolError = (text: string) => ({ isError: true, content: [{ type: 'text', text }] });
const schemaError = (detail: string) => toolError(`Elicitation response content does not match requested schema: ${detail}`);

describe.each(['http', 'stdio'] as const)('over %s', transport => {
  describe('every round is accepted once', () => {
    it('replaying any round of a three-round call fails with -32602 and runs nothing again', async () => {
      const { s, module } = await session('v2-sequential-three', transport);
      const args = { name: 'request_review', arguments: { pullRequest: 512 } };
      const before = { ...module.effects };
      const r1 = asked(await s.round('tools/call', args));
      const a1 = { [r1.keys[0]!]: accept({ reviewer: 'dee', urgent: true }) };
      const r2 = asked(await s.round('tools/call', { ...args, requestState: r1.state, inputResponses: a1 }));
      await expect(s.round('tools/call', { ...args, requestState: r1.state, inputResponses: a1 })).rejects.toMatchObject(REJECTED);
      const a2 = { [r2.keys[0]!]: { role: 'assistant', content: { type: 'text', text: 'Dee, please review #512.' }, model: 'm', stopReason: 'endTurn' } };
      const r3 = asked(await s.round('tools/call', { ...args, requestState: r2.state, inputResponses: a2 }));
      await expect(s.round('tools/call', { ...args, requestState: r2.state, inputResponses: a2 })).rejects.toMatchObject(REJECTED);
      const a3 = { [r3.keys[0]!]: accept({ send: true }) };
      expect(await s.round('tools/call', { ...args, requestState: r3.state, inputResponses: a3 })).toMatchObject({ content: [{ type: 'text', text: 'Sent to dee (urgent): Dee, please review #512.' }] });
      const after = { ...module.effects };
      expect(after.reviewRequestsSent).toBe(before.reviewRequestsSent! + 1);
      for (let i = 0; i < 2; i++) {
        await expect(s.round('tools/call', { ...args, requestState: r3.state, inputResponses: a3 })).rejects.toMatchObject(REJECTED);
      }
      expect(module.effects).toEqual(after);
    });

    it('one confirmation books once, however often its final round is sent', async () => {
      const { s, module } = await session('v1-elicit-input', transport);
      const args = { name: 'book_room', arguments: { room: 'atlas', slot: transport === 'http' ? '2026-10-01T09' : '2026-10-01T10' } };
      const r1 = asked(await s.round('tools/call', args));
      const answer = { [r1.keys[0]!]: accept({ title: 'Planning', attendees: 5 }) };
      const before = { ...module.effects };
      expect(await s.round('tools/call', { ...args, requestState: r1.state, inputResponses: answer })).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('(5 people)') }] });
      for (let i = 0; i < 3; i++) await expect(s.round('tools/call', { ...args, requestState: r1.state, inputResponses: answer })).rejects.toMatchObject(REJECTED);
      expect(module.effects.bookings).toBe(before.bookings! + 1);
    });

    it('a round asked again gets a fresh state; the one it replaced is spent', async () => {
      const { s, module } = await session('v2-elicit-straight', transport);
      const args = { name: 'purge_records', arguments: { status: 'archived' } };
      const first = asked(await s.round('tools/call', args));
      const again = asked(await s.round('tools/call', { ...args, requestState: first.state }));
      expect(again.state).not.toBe(first.state);
      const answer = { [first.keys[0]!]: accept({ confirm: true }) };
      const before = { ...module.effects };
      await expect(s.round('tools/call', { ...args, requestState: first.state, inputResponses: answer })).rejects.toMatchObject(REJECTED);
      expect(module.effects).toEqual(before);
      expect(await s.round('tools/call', { ...args, requestState: again.state, inputResponses: answer })).toMatchObject({ content: [{ type: 'text', text: 'Deleted rec-104 (no reason given).' }] });
    });
  });

  describe('answers are validated as elicitInput() validated them', () => {
    const cases: Array<[string, string, Record<string, unknown>, Record<string, unknown>, Outcome]> = [
      ['a wrong type', 'v1-elicit-input', { name: 'book_room', arguments: { room: 'atlas', slot: '2026-11-02T09' } }, { title: 'Retro', attendees: 'abc' }, schemaError('data/attendees must be integer')],
      ['a value below the minimum', 'v1-elicit-input', { name: 'book_room', arguments: { room: 'atlas', slot: '2026-11-02T09' } }, { title: 'Retro', attendees: -5 }, schemaError('data/attendees must be >= 1')],
      ['a required field missing', 'v1-elicit-input', { name: 'book_room', arguments: { room: 'atlas', slot: '2026-11-02T09' } }, { attendees: 4 }, schemaError("data must have required property 'title'")],
      ['a value outside the enum', 'v2-sequential-three', { name: 'request_review', arguments: { pullRequest: 512 } }, { reviewer: 'zed' }, schemaError('data/reviewer must be equal to one of the allowed values')],
      ['a string that is not the format', 'v2-elicit-decline-cancel', { name: 'send_invoice', arguments: { invoiceId: 'INV-2041' } }, { email: 'not-an-email' }, schemaError('data/email must match format "email"')],
    ];
    it.each(cases)('%s fails the call (%s) and changes nothing', async (_what, fixture, args, content, expected) => {
      const { s, module } = await session(fixture, transport);
      const r1 = asked(await s.round('tools/call', args));
      const before = { ...module.effects };
      expect(bare(await s.round('tools/call', { ...args, requestState: r1.state, inputResponses: { [r1.keys[0]!]: accept(content) } }))).toEqual(expected);
      expect(module.effects).toEqual(before);
      // As with the push call, the call is over: its state is spent, a corrected answer starts again.
      await expect(s.round('tools/call', { ...args, requestState: r1.state, inputResponses: { [r1.keys[0]!]: accept({ title: 'Retro', attendees: 4, reviewer: 'dee', email: 'a@b.example' }) } }))
        .rejects.toMatchObject(REJECTED);
    });

    it('keys the schema does not forbid are accepted, as elicitInput() accepted them', async () => {
      const { s, module } = await session('v2-elicit-decline-cancel', transport);
      const args = { name: 'send_invoice', arguments: { invoiceId: 'INV-2042' } };
      const r1 = asked(await s.round('tools/call', args));
      const before = { ...module.effects };
      const done = await s.round('tools/call', { ...args, requestState: r1.state, inputResponses: { [r1.keys[0]!]: accept({ email: 'billing@globex.example', copyAccounting: false, cc: 'boss@globex.example' }) } });
      expect(done).toMatchObject({ content: [{ type: 'text', text: 'Sent INV-2042 for Globex: 99.50 USD, due 2026-09-15 to billing@globex.example.' }] });
      expect(module.effects.emailsSent).toBe(before.emailsSent! + 1);
    });

    it('a question built again on resume is not in the state, is asked again alike, and still validates its answer', async () => {
      const { s, module } = await session('v2-switch-nested', transport, undefined, true);
      const args = { name: 'annotate', arguments: {} };
      const first = await s.round('tools/call', args);
      const r1 = asked(first);
      const carried = await contentOf(r1.state, transport, 'annotate');
      expect(carried).toContain('"step"');
      expect(carried).not.toContain('Release note?');
      const again = await s.round('tools/call', { ...args, requestState: r1.state, inputResponses: {} });
      const r2 = asked(again);
      expect((again as { inputRequests: unknown }).inputRequests).toEqual((first as { inputRequests: unknown }).inputRequests);
      const before = { ...module.effects };
      await expect(s.round('tools/call', { ...args, requestState: r2.state, inputResponses: { [r2.keys[0]!]: accept({ text: 42 }) } }))
        .rejects.toMatchObject({ code: -32602, message: 'Elicitation response content does not match requested schema: data/text must be string' });
      expect(module.effects).toEqual(before);
    });

    it('a prompt answered outside its schema fails with JSON-RPC -32602', async () => {
      const { s, module } = await session('v2-prompt', transport);
      const args = { name: 'release_notes', arguments: { version: '4.0.0' } };
      const r1 = asked(await s.round('prompts/get', args));
      const before = { ...module.effects };
      await expect(s.round('prompts/get', { ...args, requestState: r1.state, inputResponses: { [r1.keys[0]!]: accept({ audience: 'everyone' }) } }))
        .rejects.toMatchObject({ code: -32602, message: 'Elicitation response content does not match requested schema: data/audience must be equal to one of the allowed values' });
      expect(module.effects).toEqual(before);
    });
  });

  describe('answers to questions that were not asked', () => {
    const args = { name: 'purge_records', arguments: { status: 'stale' } };
    const yes = accept({ confirm: true });

    it('sent with the first call, they skip nothing: the question is asked', async () => {
      const { s, module } = await session('v2-elicit-straight', transport);
      const before = { ...module.effects };
      asked(await s.round('tools/call', { ...args, inputResponses: { answer: yes } }));
      expect(module.effects).toEqual(before);
    });

    it('under another key, they do not answer the question: it is asked again', async () => {
      const { s, module } = await session('v2-elicit-straight', transport);
      const r1 = asked(await s.round('tools/call', args));
      const before = { ...module.effects };
      const again = asked(await s.round('tools/call', { ...args, requestState: r1.state, inputResponses: { other: yes } }));
      expect(again.keys).toEqual(r1.keys);
      expect(module.effects).toEqual(before);
    });

    it('of another kind under its key, they fail the call as an answer elicitInput() could not take', async () => {
      const { s, module } = await session('v2-elicit-straight', transport);
      const r1 = asked(await s.round('tools/call', args));
      const before = { ...module.effects };
      const failed = bare(await s.round('tools/call', { ...args, requestState: r1.state, inputResponses: { [r1.keys[0]!]: { roots: [] } } }));
      expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^Invalid result for elicitation\/create: \[/) }] });
      expect(module.effects).toEqual(before);
    });

    it('next to the asked answer, they are ignored', async () => {
      const { s, module } = await session('v2-elicit-straight', transport);
      const r1 = asked(await s.round('tools/call', args));
      const before = { ...module.effects };
      const done = await s.round('tools/call', { ...args, requestState: r1.state, inputResponses: { [r1.keys[0]!]: yes, later: accept({ confirm: false }) } });
      expect(done).toMatchObject({ content: [{ type: 'text', text: 'Deleted rec-101, rec-103 (no reason given).' }] });
      expect(module.effects.deleted).toBe(before.deleted! + 2);
    });
  });

  describe('the state is bound to the call, not to how its arguments are spelled', () => {
    it('the same arguments in another key order resume the call; other arguments do not', async () => {
      const { s, module } = await session('v2-switch-dispatch', transport);
      const r1 = asked(await s.round('tools/call', { name: 'archive_project', arguments: { project: 'apollo', note: 'q3', labels: { team: 'core', tier: 1 } } }));
      const answer = { [r1.keys[0]!]: accept({ confirm: true }) };
      const before = { ...module.effects };
      await expect(s.round('tools/call', { name: 'archive_project', arguments: { project: 'apollo', note: 'q4', labels: { team: 'core', tier: 1 } }, requestState: r1.state, inputResponses: answer }))
        .rejects.toMatchObject(REJECTED);
      expect(module.effects).toEqual(before);
      const r2 = asked(await s.round('tools/call', { name: 'archive_project', arguments: { labels: { tier: 1, team: 'core' }, note: 'q3', project: 'apollo' } }));
      const done = await s.round('tools/call', { name: 'archive_project', arguments: { project: 'apollo', note: 'q3', labels: { team: 'core', tier: 1 } }, requestState: r2.state, inputResponses: answer });
      expect(done).toMatchObject({ content: [{ type: 'text', text: 'Archived Apollo.' }] });
      expect(module.effects.archived).toBe(before.archived! + 1);
    });
  });

  describe.each(['v2-own-codec', 'v2-own-codec-across-files'])('beside a codec of the server\'s own (%s)', fixture => {
    const book = { name: 'book_trip', arguments: { city: 'Lisbon', travellers: 2 } };
    // Porto is the city cancel_booking carries in its state: a field book_trip's own state has too.
    const cancel = { name: 'cancel_booking', arguments: { reference: 'TD-4471' } };
    const dates = { dates: accept({ from: '2027-03-01', to: '2027-03-08' }) };

    it('the server\'s own handler resumes with its own state, through its own hook', async () => {
      const { s, module } = await session(fixture, transport);
      const before = { ...module.effects };
      const r1 = asked(await s.round('tools/call', book));
      expect(await s.round('tools/call', { ...book, requestState: r1.state, inputResponses: dates })).toMatchObject({ content: [{ type: 'text', text: 'Booked Lisbon for 2, 2027-03-01 to 2027-03-08.' }] });
      expect(module.effects.booked).toBe(before.booked! + 1);
    });

    it('its state does not resume a rewritten handler: -32602, nothing cancelled', async () => {
      const { s, module } = await session(fixture, transport);
      const r1 = asked(await s.round('tools/call', book));
      const before = { ...module.effects };
      // Thrown by the handler (its state check), which McpServer answers as a tool error.
      expect(bare(await s.round('tools/call', { ...cancel, requestState: r1.state, inputResponses: { answer: accept({ confirm: true }) } }))).toEqual(toolError('Invalid or expired requestState'));
      expect(module.effects).toEqual(before);
    });

    it('a rewritten handler\'s state reaches the server\'s own handler as nothing it can read', async () => {
      const { s, module } = await session(fixture, transport, undefined, true);
      const r1 = asked(await s.round('tools/call', cancel));
      expect(await contentOf(r1.state, transport, 'cancel_booking')).toContain('"city":"Porto"');
      const before = { ...module.effects };
      const resumed = s.round('tools/call', { ...book, requestState: r1.state, inputResponses: dates });
      if (transport === 'http') {
        // Over HTTP the state is also bound to its tool (the Mcp-Name header): neither hook accepts it.
        await expect(resumed).rejects.toMatchObject(REJECTED);
      } else {
        // Unwrapped, book_trip would read city "Porto" from it; it sees no field at all.
        expect(await resumed).toMatchObject({ content: [{ type: 'text', text: 'Booked undefined for undefined, 2027-03-01 to 2027-03-08.' }] });
      }
      expect(module.effects.cancelled).toBe(before.cancelled);
    });
  });

  it('beside a state the server keeps unverified (v2-own-state-unverified), any string resumes its own handler as before, none a rewritten one', async () => {
    const { s, module } = await session('v2-own-state-unverified', transport);
    const plan = { name: 'plan_trip', arguments: {} };
    // The hand-written handler trusts whatever string comes back, as it did without a hook.
    expect(await s.round('tools/call', { ...plan, requestState: 'Atlantis', inputResponses: { when: accept({ date: '2027-01-01' }) } })).toMatchObject({ content: [{ type: 'text', text: 'Trip to Atlantis on 2027-01-01.' }] });
    const rate = { name: 'rate_trip', arguments: { trip: 'Kyoto' } };
    asked(await s.round('tools/call', rate));
    const before = { ...module.effects };
    expect(bare(await s.round('tools/call', { ...rate, requestState: 'Kyoto', inputResponses: { answer: accept({ stars: 1 }) } }))).toEqual(toolError('Invalid or expired requestState'));
    expect(module.effects).toEqual(before);
  });

  it('a modified state fails with -32602', async () => {
    const { s, module } = await session('v2-elicit-straight', transport);
    const args = { name: 'purge_records', arguments: { status: 'stale' } };
    const r1 = asked(await s.round('tools/call', args));
    const before = { ...module.effects };
    // A byte changed anywhere in the sealed bytes (the IV, the sealed state, the tag), and the string with a character more.
    for (const forged of [flipped(r1.state, 0), flipped(r1.state, 20), flipped(r1.state, -1), `${r1.state}A`]) {
      await expect(s.round('tools/call', { ...args, requestState: forged, inputResponses: { answer: accept({ confirm: true }) } })).rejects.toMatchObject(REJECTED);
    }
    expect(module.effects).toEqual(before);
  });

  it('secrets read before the question are read again, not carried in the state', async () => {
    vi.stubEnv('BILLING_API_KEY', 'sk-live-4eC39HqLyjWDarjtT1zdp7dc');
    const { s, module } = await session('v2-secret-reread', transport, { token: 'caller-bearer-9f8e7d', clientId: 'client-1', scopes: [] }, true);
    const args = { name: 'refund', arguments: { chargeId: 'ch-301' } };
    const r1 = asked(await s.round('tools/call', args));
    expect(r1.state).not.toContain('Acme');
    const readable = await contentOf(r1.state, transport, 'refund', transport === 'http' ? 'client-1' : '');
    expect(readable).toContain('"customer":"Acme"');
    expect(readable).not.toContain('sk-live');
    expect(readable).not.toContain('caller-bearer');
    const before = { ...module.effects };
    const done = await s.round('tools/call', { ...args, requestState: r1.state, inputResponses: { [r1.keys[0]!]: accept({ confirm: true }) } });
    expect(done).toMatchObject({ content: [{ type: 'text', text: 'Refunded 125.00 to Acme.' }] });
    expect(module.effects.signedCalls).toBe(before.signedCalls! + 1);
    // The caller's token reaches the handler over HTTP only (serveStdio has no authInfo).
    expect(module.effects.callerTokens).toBe(before.callerTokens! + (transport === 'http' ? 1 : 0));
  });

  it('when minting the state fails, the original finally block still runs', async () => {
    const { s, module } = await session('v2-try-finally', transport);
    const before = { ...module.effects };
    vi.spyOn(crypto, 'randomUUID').mockImplementationOnce(() => {
      throw new Error('no randomness');
    });
    expect(bare(await s.round('tools/call', { name: 'publish_article', arguments: { slug: 'mrtr-explained' } }))).toEqual(toolError('no randomness'));
    expect(module.effects).toEqual({ ...before, auditEntries: before.auditEntries! + 1 });
  });
});

describe('without MCP_REQUEST_STATE_KEY', () => {
  it('says so on stderr once, and a state minted by one server process does not resume on another', async () => {
    vi.stubEnv('MCP_REQUEST_STATE_KEY', '');
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    // Two copies of the server and its support module: two module instances of each, as in two processes.
    const copy = (name: string): string => {
      const dir = resolve(import.meta.dirname, '../../test-output/security-processes', name);
      mkdirSync(dir, { recursive: true });
      for (const file of ['output.ts', 'requestState.ts']) copyFileSync(resolve(FIXTURES, 'v2-elicit-straight', file), resolve(dir, file));
      return resolve(dir, 'output.ts');
    };
    const one = (await import(copy(`one-${process.pid}`))) as Module;
    const two = (await import(copy(`two-${process.pid}`))) as Module;
    expect(errors.mock.calls).toEqual([
      ['MCP_REQUEST_STATE_KEY is not set: requestState is sealed with a random key of this process, so a retry that reaches another server instance fails.'],
      ['MCP_REQUEST_STATE_KEY is not set: requestState is sealed with a random key of this process, so a retry that reaches another server instance fails.'],
    ]);
    const first = await open(one, 'http');
    const second = await open(two, 'http');
    sessions.push(first, second);
    const args = { name: 'purge_records', arguments: { status: 'stale' } };
    const r1 = asked(await first.round('tools/call', args));
    await expect(second.round('tools/call', { ...args, requestState: r1.state, inputResponses: { answer: accept({ confirm: true }) } })).rejects.toMatchObject(REJECTED);
    expect(two.effects.deleted).toBe(0);
  });
});
