import { mightContainSites } from '../analysis/prefilter.js';

/**
 * The cheap text checks that run before any parsing. No compiler import here: the jscodeshift
 * entry uses them in a process where CommonJS modules may be recompiled by Babel.
 */

const V1_IMPORT = /['"`]@modelcontextprotocol\/sdk(?:\/[^'"`]*)?['"`]/;
const SERVING = /StdioServerTransport|StreamableHTTPServerTransport|SSEServerTransport|serveStdio|createMcpHandler/;
/** Files that register handlers or use the SDK: other files' helpers may be called from them. */
const CONTEXT = /@modelcontextprotocol\/|registerTool|registerPrompt|registerResource|setRequestHandler|\.(?:tool|prompt|resource)\s*\(/;

/** Whether a file's text refers to the v1 SDK at all (the SDK stage is a no-op otherwise). */
export function mentionsV1Sdk(text: string): boolean {
  return V1_IMPORT.test(text);
}

export type FileRole = 'rewrite' | 'context' | 'skip';

/**
 * A file is parsed only when it can hold a site, a v1 import for the SDK stage or a serving entry
 * (`rewrite`), or registers handlers that may call a helper with a site in another file (`context`).
 */
export function classify(text: string, sdkUpgrade: boolean): FileRole {
  if (mightContainSites(text) || SERVING.test(text) || (sdkUpgrade && mentionsV1Sdk(text))) return 'rewrite';
  if (CONTEXT.test(text)) return 'context';
  return 'skip';
}
