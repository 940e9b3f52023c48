import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport, type Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * One low-level `tools/call` handler serves every tool through a switch, so all its cases share one
 * handler and one state type: state minted in one case must never resume another case, nor the same
 * case for other arguments. Driven by hand on the 2026-07-28 era, over HTTP (where the codec also
 * binds the Mcp-Name header) and over a stdio-style connection (no header: only the handler's own
 * call binding stands between the cases).
 */

const fixture = resolve(import.meta.dirname, '../../fixtures/v2-switch-dispatch/output.ts');
type Module = { createServer(): Server; effects: Record<string, number> };

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function connect(over: 'http' | 'stdio') {
  const module = (await import(fixture)) as Module;
  const client = new Client(
    { name: 'tamper-switch-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  if (over === 'http') {
    const handler = createMcpHandler(() => module.createServer());
    await client.connect(new StreamableHTTPClientTransport(new URL('http://test.local/mcp'), { fetch: (url, init) => handler.fetch(new Request(url, init)) }));
    close = async () => {
      await client.close();
      await handler.close();
    };
  } else {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const served = serveStdio(() => module.createServer(), { transport: serverTransport });
    await client.connect(clientTransport);
    close = async () => {
      await client.close();
      await served.close();
    };
  }
  const round = (name: string, project: string, retry?: { requestState: string; inputResponses: Record<string, unknown> }) =>
    client.request({ method: 'tools/call', params: { name, arguments: { project }, ...retry } }, { allowInputRequired: true }) as Promise<Record<string, unknown>>;
  return { module, round };
}

const ARCHIVE = { confirmation: { action: 'accept', content: { confirm: true } } };
const RENAME = { naming: { action: 'accept', content: { title: 'Forged' } } };

describe.each(['http', 'stdio'] as const)('requestState of a switch-dispatch handler (over %s)', over => {
  it('resumes the case it was minted in', async () => {
    const { module, round } = await connect(over);
    const first = await round('archive_project', 'apollo');
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { confirmation: {} } });
    const before = { ...module.effects };
    const done = await round('archive_project', 'apollo', { requestState: first['requestState'] as string, inputResponses: ARCHIVE });
    expect(done).toMatchObject({ content: [{ type: 'text', text: 'Archived Apollo.' }] });
    expect(module.effects).toEqual({ ...before, archived: before['archived']! + 1, auditEntries: before['auditEntries']! + 1 });
  });

  it('rejects state minted in one case when it comes back to another case, whatever answer it carries', async () => {
    const { module, round } = await connect(over);
    const archive = await round('archive_project', 'apollo');
    const rename = await round('rename_project', 'apollo');
    const before = { ...module.effects };
    for (const inputResponses of [ARCHIVE, RENAME]) {
      await expect(round('rename_project', 'apollo', { requestState: archive['requestState'] as string, inputResponses })).rejects.toMatchObject({ code: -32602 });
      await expect(round('archive_project', 'apollo', { requestState: rename['requestState'] as string, inputResponses })).rejects.toMatchObject({ code: -32602 });
      // A tool that asks nothing must not take a state either.
      await expect(round('list_projects', 'apollo', { requestState: archive['requestState'] as string, inputResponses })).rejects.toMatchObject({ code: -32602 });
    }
    expect(module.effects).toEqual(before);
  });

  it('rejects state minted in the same case for other arguments', async () => {
    const { module, round } = await connect(over);
    const first = await round('archive_project', 'gemini');
    const before = { ...module.effects };
    await expect(round('archive_project', 'apollo', { requestState: first['requestState'] as string, inputResponses: ARCHIVE })).rejects.toMatchObject({ code: -32602 });
    expect(module.effects).toEqual(before);
  });
});
