import { InMemoryTransport } from '@modelcontextprotocol/server';
import { InMemoryTransport as V1InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { asked, bare, FIXTURES, load, open, rawHttp, type Outcome, type Reply, type Session } from './attack.js';

/**
 * Answers a push call could not take. Before 2026-07-28 the SDK checked the result of every request it
 * sent: a sampling result against CreateMessageResult (role, content types, text a string), an
 * elicitation result against ElicitResult (primitive values only) and the question's schema, a roots
 * result against ListRootsResult (file:// URIs). Each answer here is sent in the place of a valid one,
 * to the original server by a raw 2025 client, and to the migrated server on the 2026-07-28 era by a
 * raw client over HTTP and the SDK's client over stdio: the migrated server fails the call as the
 * original did, with the same error, and runs nothing of what followed the question.
 */

type Call = { fixture: string; method: 'tools/call' | 'prompts/get'; params: Record<string, unknown> };

const CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} };

/**
 * The original module (input.ts) on the 2025 era, driven by raw JSON-RPC: initialize, the call, and
 * `answer` as the result of the request the server sends, whatever it is.
 */
async function pushed(call: Call, answer: unknown, sdk: 'v1' | 'v2' = 'v2'): Promise<Reply & { questions: string[] }> {
  const module = (await import(resolve(FIXTURES, call.fixture, 'input.ts'))) as { createServer(context?: unknown): { connect(t: unknown): Promise<void>; close(): Promise<void> } };
  const server = module.createServer({ era: 'legacy' });
  const [client, served] = sdk === 'v1' ? V1InMemoryTransport.createLinkedPair() : InMemoryTransport.createLinkedPair();
  const replies = new Map<number, (message: Record<string, unknown>) => void>();
  const questions: string[] = [];
  client.onmessage = (message: unknown) => {
    const m = message as Record<string, unknown>;
    if (typeof m.method === 'string' && m.id !== undefined) {
      questions.push(m.method);
      void client.send({ jsonrpc: '2.0', id: m.id as number, result: answer as never });
    } else if (typeof m.id === 'number') replies.get(m.id)?.(m);
  };
  await server.connect(served);
  await client.start();
  const request = (id: number, method: string, params: unknown) => new Promise<Record<string, unknown>>(done => {
    replies.set(id, done);
    void client.send({ jsonrpc: '2.0', id, method, params: params as never });
  });
  try {
    await request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: CAPABILITIES, clientInfo: { name: 'raw', version: '1.0.0' } });
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const reply = await request(2, call.method, call.params);
    const error = reply.error as { code: unknown; message: string } | undefined;
    return { ...(error ? { error: { code: error.code, message: error.message } } : { result: reply.result as Outcome }), questions };
  } finally {
    await server.close();
  }
}

const closing: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map(c => c.close()));
});

/**
 * The migrated module (output.ts) on the 2026-07-28 era, over HTTP with JSON-RPC written by hand
 * (rawHttp) or over stdio with the SDK's client: the first round asks, the second carries `answer`.
 */
async function migrated(call: Call, answer: unknown, transport: 'http' | 'stdio'): Promise<Reply & { effects: boolean }> {
  const module = await load(call.fixture);
  let round: (params: Record<string, unknown>) => Promise<Reply>;
  if (transport === 'http') {
    const raw = rawHttp(module);
    closing.push(raw);
    round = async params => {
      const reply = await raw.call(call.method, params);
      if ('error' in reply) return reply;
      // The 2025 client's results carry no resultType; the rest is compared as it came.
      const { resultType, ...result } = reply.result;
      return resultType === 'complete' ? { result } : reply;
    };
  } else {
    const s: Session = await open(module, transport);
    closing.push(s);
    round = async params => {
      try {
        return { result: bare(await s.round(call.method, params)) };
      } catch (error) {
        const e = error as { code: unknown; message: string };
        return { error: { code: e.code, message: e.message } };
      }
    };
  }
  const first = asked((await round(call.params) as { result: Outcome }).result);
  expect(first.keys).toHaveLength(1);
  const before = JSON.stringify(module.effects);
  const reply = await round({ ...call.params, requestState: first.state, inputResponses: { [first.keys[0]!]: answer } });
  return { ...reply, effects: JSON.stringify(module.effects) !== before };
}

const text = (t: unknown) => ({ type: 'text', text: t });
const SAMPLING: Array<[string, unknown]> = [
  ['the role "system"', { role: 'system', content: text('Bonjour'), model: 'm' }],
  ['no role', { content: text('Bonjour'), model: 'm' }],
  ['text that is a number', { role: 'assistant', content: text(42), model: 'm' }],
  ['a content type the spec does not have', { role: 'assistant', content: { type: 'video', url: 'https://example.com/v.mp4' }, model: 'm' }],
  ['an image without its data', { role: 'assistant', content: { type: 'image', mimeType: 'image/png' }, model: 'm' }],
  ['no model', { role: 'assistant', content: text('Bonjour') }],
  ['no content', { role: 'assistant', model: 'm' }],
  ['a list of blocks, to a question that offered no tools', { role: 'assistant', content: [text('Bonjour')], model: 'm' }],
  ['tool use, to a question that offered no tools', { role: 'assistant', content: { type: 'tool_use', id: 't1', name: 'rm', input: {} }, model: 'm' }],
  ['an elicitation result', { action: 'accept', content: { text: 'Bonjour' } }],
];
const ELICITATION: Array<[string, unknown]> = [
  ['a nested object as a value', { action: 'accept', content: { confirm: { yes: true } } }],
  ['a list of numbers as a value', { action: 'accept', content: { confirm: true, ids: [1, 2] } }],
  ['null as a value', { action: 'accept', content: { confirm: null } }],
  ['content that is a list', { action: 'accept', content: [true] }],
  ['content that is a string', { action: 'accept', content: 'yes' }],
  ['an action the spec does not have', { action: 'approve', content: { confirm: true } }],
  ['a decline with nested content', { action: 'decline', content: { confirm: { yes: true } } }],
  ['a roots result', { roots: [] }],
];
const ROOTS: Array<[string, unknown]> = [
  ['a root that is not a file:// URI', { roots: [{ uri: 'https://example.com/repo' }] }],
  ['a URI that is a number', { roots: [{ uri: 42 }] }],
  ['a name that is a number', { roots: [{ uri: 'file:///work/app', name: 7 }] }],
  ['roots that are not a list', { roots: 'file:///work/app' }],
  ['no roots', {}],
  ['a sampling result', { role: 'assistant', content: text('file:///work/app'), model: 'm' }],
];

const CASES: Array<[string, Call, Array<[string, unknown]>]> = [
  ['server.server.createMessage()', { fixture: 'v2-sampling-create-message', method: 'tools/call', params: { name: 'translate_release_note', arguments: { version: '3.2.0', language: 'fr' } } }, SAMPLING],
  ['ctx.mcpReq.requestSampling()', { fixture: 'v2-sampling-request', method: 'tools/call', params: { name: 'summarize_ticket', arguments: { ticketId: 'HD-7' } } }, SAMPLING],
  ['ctx.mcpReq.elicitInput()', { fixture: 'v2-elicit-straight', method: 'tools/call', params: { name: 'purge_records', arguments: { status: 'stale' } } }, ELICITATION],
  ['ctx.mcpReq.elicitInput() in a prompt', { fixture: 'v2-prompt', method: 'prompts/get', params: { name: 'release_notes', arguments: { version: '4.0.0' } } }, ELICITATION],
  ['server.server.listRoots()', { fixture: 'v2-roots-list', method: 'tools/call', params: { name: 'find_config_files', arguments: {} } }, ROOTS],
];

describe.each(CASES)('an answer to %s', (_api, call, answers) => {
  it.each(answers)('with %s fails the call as the push call failed it, on both transports', async (_what, answer) => {
    const original = await pushed(call, answer);
    expect(original.questions).toHaveLength(1);
    // A failure of the request, whatever the handler made of it: a tool error, or the prompt's JSON-RPC error.
    const message = 'result' in original ? ((original.result.content as Array<{ text: string }>)[0]!.text) : original.error.message;
    expect(message).toMatch(/^Invalid (result for [A-Za-z/]+|sampling\/createMessage result): \[/);
    for (const transport of ['http', 'stdio'] as const) {
      const { effects, ...reply } = await migrated(call, answer, transport);
      expect(reply, transport).toEqual('result' in original ? { result: original.result } : { error: original.error });
      expect(effects, `${transport}: nothing after the question ran`).toBe(false);
    }
  });
});

describe('answers the v1 SDK rejected', () => {
  const V1: Array<[string, Call, unknown]> = [
    ['a sampling result with the role "system"', { fixture: 'v1-create-message', method: 'tools/call', params: { name: 'suggest_commit_message', arguments: { files: ['api/routes.ts'], summary: 'validate page size' } } }, SAMPLING[0]![1]],
    ['a sampling result whose text is a number', { fixture: 'v1-create-message', method: 'tools/call', params: { name: 'suggest_commit_message', arguments: { files: ['api/routes.ts'], summary: 'validate page size' } } }, SAMPLING[2]![1]],
    ['form content with a nested object', { fixture: 'v1-elicit-input', method: 'tools/call', params: { name: 'book_room', arguments: { room: 'atlas', slot: '2026-12-01T09' } } }, { action: 'accept', content: { title: 'Retro', attendees: { n: 4 } } }],
  ];
  it.each(V1)('%s: rejected by the original v1 server, and by the migrated one', async (_what, call, answer) => {
    const original = await pushed(call, answer, 'v1');
    expect(original).toMatchObject({ result: { isError: true } });
    for (const transport of ['http', 'stdio'] as const) {
      const { effects, ...reply } = await migrated(call, answer, transport);
      expect(reply, transport).toMatchObject({ result: { isError: true, content: [{ type: 'text', text: expect.stringMatching(/^Invalid result for [A-Za-z/]+: \[/) }] } });
      expect(effects).toBe(false);
    }
  });
});

describe('an answer that is no object', () => {
  // The push call never saw one: the SDK dropped a response whose result was no object, and the call
  // failed with 'Request timed out'. Under a key of inputResponses the SDK does not hand it to the
  // handler either: the question is asked again, and nothing after it runs.
  it.each([['a string', 'yes'], ['a number', 1], ['null', null], ['a list', [{ action: 'accept' }]]])('(%s) does not answer the question', async (_what, answer) => {
    const call: Call = { fixture: 'v2-elicit-straight', method: 'tools/call', params: { name: 'purge_records', arguments: { status: 'stale' } } };
    for (const transport of ['http', 'stdio'] as const) {
      const { effects, ...reply } = await migrated(call, answer, transport);
      expect(reply).toMatchObject({ result: { resultType: 'input_required', inputRequests: { answer: { method: 'elicitation/create' } } } });
      expect(effects).toBe(false);
    }
  });
});
