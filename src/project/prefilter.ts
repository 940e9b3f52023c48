import path from 'node:path';
import { mightContainSites } from '../analysis/prefilter.js';

/**
 * The cheap text checks that run before any parsing. No compiler import here: the jscodeshift
 * entry uses them in a process where CommonJS modules may be recompiled by Babel.
 */

const V1_IMPORT = /['"`]@modelcontextprotocol\/sdk(?:\/[^'"`]*)?['"`]/;
const SERVING = /StdioServerTransport|StreamableHTTPServerTransport|SSEServerTransport|serveStdio|createMcpHandler/;
/**
 * Handlers in the multi round-trip form (a run's own output, whose support code is in its module): read
 * to report them as already migrated, as analysis/withoutChecker.ts's RETURNS_INPUT_REQUIRED finds them.
 */
const MIGRATED = /\binputRequired\s*[.(]/;
/** Files that register handlers or use the SDK: other files' helpers may be called from them. */
const CONTEXT = /@modelcontextprotocol\/|registerTool|registerPrompt|registerResource|setRequestHandler|\.(?:tool|prompt|resource)\s*\(/;

/** Whether a file's text refers to the v1 SDK at all (the SDK stage is a no-op otherwise). */
export function mentionsV1Sdk(text: string): boolean {
  return V1_IMPORT.test(text);
}

export type FileRole = 'rewrite' | 'context' | 'skip';

/**
 * A file is parsed only when it can hold a site, a v1 import for the SDK stage, a serving entry or a
 * handler already migrated (`rewrite`), or registers handlers that may call a helper with a site in another file (`context`).
 */
export function classify(text: string, sdkUpgrade: boolean): FileRole {
  if (mightContainSites(text) || SERVING.test(text) || MIGRATED.test(text) || (sdkUpgrade && mentionsV1Sdk(text))) return 'rewrite';
  if (CONTEXT.test(text)) return 'context';
  return 'skip';
}

/** Relative module specifiers a file imports, re-exports or requires. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"\n]*)\1/gm;
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/**
 * Whether a file the text check skipped imports one of `files` by a relative path: an entry module
 * that builds the server through a factory and hands it to a class or function of another module
 * (`new Tools(makeServer())`) names neither the SDK nor a registration, yet ties the two together.
 */
export function importsAnyOf(file: string, text: string, files: ReadonlySet<string>): boolean {
  for (const match of text.matchAll(RELATIVE_IMPORT)) {
    const target = path.resolve(path.dirname(file), match[2]!);
    // `./tools.js` names tools.ts; `./tools` names tools.ts or tools/index.ts.
    const stem = target.replace(/\.(?:[cm]?js|jsx)$/, '');
    const candidates = [target, ...SOURCE_EXTENSIONS.map(ext => stem + ext), ...SOURCE_EXTENSIONS.map(ext => path.join(target, `index${ext}`))];
    if (candidates.some(candidate => files.has(candidate))) return true;
  }
  return false;
}
