import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

declare global {
  namespace Express {
    interface Request {
      auth?: AuthInfo;
    }
  }
}

// Sent when the client goes away mid-check.
export const refusedCode: number = ErrorCode.ConnectionClosed;
