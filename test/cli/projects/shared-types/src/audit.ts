import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { LedgerExtra } from './types.js';

// The audit log's code for a client that left.
export const leftCode: number = ErrorCode.ConnectionClosed;

function auditLine(entry: string, extra: LedgerExtra): string {
  return `${entry} (session ${extra.sessionId ?? 'none'})`;
}

export function registerAudit(ledger: McpServer): void {
  ledger.tool('audit', 'Audit an entry', { entry: z.string() }, async ({ entry }, extra) => {
    return { content: [{ type: 'text', text: auditLine(entry, extra) }] };
  });
}
