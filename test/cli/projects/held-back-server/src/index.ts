import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { registerFiring } from './firing.js';

export const kiln = new McpServer({ name: 'kiln-monitor', version: '1.1.0' });

// Logged when the client goes away mid-firing.
export const goneCode: number = ErrorCode.ConnectionClosed;

registerFiring(kiln);
