import { createHash } from 'node:crypto';

import type { CallToolResult, ElicitResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { createRequestStateCodec, inputRequired, inputResponse, McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

/**
 * Hand-migrated fixtures/v2-elicit-straight/input.ts: the reference for what the rewrite should
 * generate, following the SDK guide (docs/migration/support-2026-07-28.md, "Multi-step flows: the
 * phase switch"). The handler returns `inputRequired(...)` instead of awaiting the client; the
 * locals read after the question travel in a signed `requestState`.
 *
 * A records admin server. `purge_records` deletes every record in a status after the user confirms
 * the exact list: a straight-line push-style elicitation in the middle of the handler.
 */

/** Externally visible side effects, counted for the equivalence harness. */
export const effects = { deleted: 0, purgeRuns: 0 };

interface StoredRecord {
  id: string;
  status: 'active' | 'stale' | 'archived';
  owner: string;
}

const RECORDS: readonly StoredRecord[] = [
  { id: 'rec-101', status: 'stale', owner: 'ana' },
  { id: 'rec-102', status: 'active', owner: 'bo' },
  { id: 'rec-103', status: 'stale', owner: 'cy' },
  { id: 'rec-104', status: 'archived', owner: 'ana' },
];

/**
 * The phases of `purge_records` between rounds. `call` ties the state to the tool and arguments
 * that minted it; the rest are the locals the code after the question reads.
 */
type PurgeRecordsState = { step: 'confirm'; call: string; ids: string[]; owners: string[] };

type RequestState = PurgeRecordsState;

// Any server instance may receive the retry, so every instance must verify with the same key. Set
// MCP_REQUEST_STATE_KEY (at least 32 bytes) for multi-instance HTTP; the per-process random key
// only works while one process serves every round (stdio, a single HTTP process).
const stateCodec = createRequestStateCodec<RequestState>({
  key: process.env.MCP_REQUEST_STATE_KEY ?? crypto.getRandomValues(new Uint8Array(32)),
  ttlSeconds: 600,
  // The state only verifies for the same method and the same authenticated client.
  bind: ctx => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}`,
});

/** A digest of the tool and its arguments, so a state cannot be replayed onto another call. */
function callDigest(tool: string, args: unknown): string {
  return createHash('sha256').update(`${tool}\0${JSON.stringify(args)}`).digest('base64url');
}

export function createServer(): McpServer {
  const server = new McpServer(
    { name: 'records-admin', version: '1.4.0' },
    { capabilities: { tools: {} }, requestState: { verify: stateCodec.verify } },
  );

  server.registerTool(
    'purge_records',
    {
      description: 'Permanently delete every record in the given status, after confirmation.',
      inputSchema: z.object({ status: z.enum(['active', 'stale', 'archived']) }),
    },
    async ({ status }, ctx): Promise<CallToolResult | InputRequiredResult> => {
      const call = callDigest('purge_records', { status });
      const state = ctx.mcpReq.requestState<RequestState>();
      if (state !== undefined && state.call !== call) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'requestState was issued for a different call');
      }

      const askConfirm = async (ids: string[], owners: string[]): Promise<InputRequiredResult> =>
        inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              mode: 'form',
              message: `Delete ${ids.length} ${status} record(s) (${ids.join(', ')}) owned by ${owners.join(', ')}?`,
              requestedSchema: {
                type: 'object',
                properties: {
                  confirm: { type: 'boolean', title: 'Delete permanently' },
                  reason: { type: 'string', title: 'Reason for the audit log' },
                },
                required: ['confirm'],
              },
            }),
          },
          requestState: await stateCodec.mint({ step: 'confirm', call, ids, owners }, ctx),
        });

      switch (state?.step) {
        case undefined: {
          // Round 1: the code before the question, once.
          const ids = RECORDS.filter(record => record.status === status).map(record => record.id);
          const owners = [...new Set(RECORDS.filter(record => record.status === status).map(record => record.owner))].sort();
          return askConfirm(ids, owners);
        }
        case 'confirm': {
          const { ids, owners } = state;
          const response = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
          // The client may retry without the answer: ask again rather than fail.
          if (response.kind !== 'elicit') return askConfirm(ids, owners);
          const answer: ElicitResult = { action: response.action, content: response.content as ElicitResult['content'] };

          effects.purgeRuns++;
          if (answer.action !== 'accept' || answer.content?.confirm !== true) {
            return { content: [{ type: 'text', text: `Kept ${ids.length} ${status} record(s) (${answer.action}).` }] };
          }
          // The deletion itself: the externally visible effect that must happen exactly once.
          effects.deleted += ids.length;
          const reason = typeof answer.content.reason === 'string' ? answer.content.reason : 'no reason given';
          return { content: [{ type: 'text', text: `Deleted ${ids.join(', ')} (${reason}).` }] };
        }
      }
    },
  );

  return server;
}
