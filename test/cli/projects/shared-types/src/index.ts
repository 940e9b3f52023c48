import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { registerAudit } from './audit.js';
import type { LedgerExtra } from './types.js';

export const ledger = new McpServer({ name: 'ledger-tools', version: '0.4.0' });

async function balance(account: string, extra: LedgerExtra) {
  return { content: [{ type: 'text' as const, text: `${account}: 0 (request ${String(extra.requestId)})` }] };
}

ledger.tool('balance', 'Balance of an account', { account: z.string() }, async ({ account }, extra) => balance(account, extra));
registerAudit(ledger);

ledger.tool('close_account', 'Close an account', { account: z.string() }, async ({ account }) => {
  const sure = await ledger.server.elicitInput({
    message: `Close ${account}? Its history is kept.`,
    requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } } },
  });
  return { content: [{ type: 'text', text: `${account}: ${sure.action}` }] };
});
