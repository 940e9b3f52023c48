import { mrtrTransform } from './mrtr/index.js';
import type { Transform } from './types.js';

/**
 * The transforms the CLI runs on every file after the v1-to-v2 SDK stage, in this order:
 * 1. mrtr: rewrites push-style handlers (it reads `server.connect(...)` nowhere, so it does not care
 *    what the serving entry looks like);
 * 2. further transforms are appended after it (the serving entry moves once handlers are settled).
 */
export const TRANSFORMS: Transform[] = [mrtrTransform];

export type { Transform, TransformContext, TransformResult } from './types.js';
