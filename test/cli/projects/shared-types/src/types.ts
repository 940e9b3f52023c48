import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** What every ledger tool receives beside its arguments. */
export type LedgerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;
