import { mrtrTransform } from './mrtr/index.js';
import { servingEntryTransform } from './servingEntry.js';
import type { Transform } from './types.js';

/**
 * The transforms the CLI runs on every file after the v1-to-v2 SDK stage, in this order:
 * 1. mrtr: rewrites push-style handlers (it reads `server.connect(...)` nowhere, so it does not care
 *    what the serving entry looks like);
 * 2. serving-entry: `server.connect(new StdioServerTransport())` to `serveStdio(() => server)`, once
 *    the handlers are settled (it only touches the connect call and its import).
 */
export const TRANSFORMS: Transform[] = [mrtrTransform, servingEntryTransform];

export type { Transform, TransformContext, TransformResult } from './types.js';
