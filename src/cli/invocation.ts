import path from 'node:path';
import { shellQuote } from '../project/formatter.js';

/**
 * How to run mrtr-migrate again the way the user just did, for the `Next:` lines, from the script
 * Node was started with (`process.argv[1]`): `npx mrtr-migrate` for an installed package (npx and npm
 * scripts start it through node_modules/.bin), `mrtr-migrate` for a global install on the PATH, and
 * `node <script>` when a script was run directly (a clone: `node dist/src/cli/main.js`), its path
 * relative to the working directory when that is shorter. npm's environment variables are no guide:
 * they are inherited from whatever npm command started the shell or the test runner.
 */
export function invocation(script: string | undefined, cwd: string): string {
  if (!script) return 'npx mrtr-migrate';
  const normalized = script.split(path.sep).join('/');
  // The bin shim of a local install, or the package's own script started through one (Windows shims).
  if (/\/node_modules\/\.bin\/[^/]+$/.test(normalized) || normalized.includes('/node_modules/mrtr-migrate/')) return 'npx mrtr-migrate';
  if (/^mrtr-migrate(?:\.cmd|\.ps1)?$/i.test(path.basename(script))) return 'mrtr-migrate';
  const absolute = path.resolve(cwd, script);
  const relative = path.relative(cwd, absolute);
  const shown = relative.length < absolute.length ? relative.split(path.sep).join('/') : absolute;
  return `node ${shellQuote(shown)}`;
}
