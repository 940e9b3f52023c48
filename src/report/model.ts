import type { ControlFlowTag, QuestionKind, RefusalReason, SdkGeneration, SiteApi, SiteKind } from '../analysis/types.js';

/**
 * The plain data a run produces: what the markdown, JSON, SARIF and HTML reports render and what
 * the terminal summary counts. No compiler objects, so it serializes as is (`--format json`).
 */

/**
 * `rolled-back`: the rewrite was made but added type errors, so the file went back to its text
 * before the rewrite. `not-written`: the rewrite was made in memory but the file could not be written.
 * `ignored`: under a `// mrtr-migrate-ignore <reason>` comment, left as it is (the hint gives the reason).
 */
export type SiteStatus = 'migrated' | 'migrated-for-review' | 'refused' | 'rolled-back' | 'not-written' | 'ignored';

export interface LocalReport {
  name: string;
  type: string | undefined;
  /**
   * `carry`: travels in requestState; `rebuild`: its declaration runs again on resume; `declare`:
   * declared again without a value (only written after the question); `server-object`: an object the
   * server keeps (a client, a handle, an SDK object), which cannot travel (the site is refused).
   */
  how: 'carry' | 'rebuild' | 'declare' | 'server-object';
  /** For a server object: what it is (`is an MCP SDK Client`, `holds the MCP McpServer (\`server\`)`). */
  what?: string;
}

export interface SiteReport {
  id: string;
  /** Path relative to the working directory, with forward slashes. */
  file: string;
  /** Line in the file as it was on disk before the run (every line in the report is). */
  line: number;
  /** Column in the text the MRTR rewrite analysed (after the v1-to-v2 stage). */
  column: number;
  kind: SiteKind;
  api: SiteApi;
  sdk: SdkGeneration;
  status: SiteStatus;
  reason: RefusalReason | undefined;
  hint: string | undefined;
  notes: string[];
  handler: { method: string; name: string | undefined; line: number } | undefined;
  /** Where the site runs: a handler, a helper reached from handlers, or no live request. */
  context: string;
  controlFlow: ControlFlowTag[];
  liveLocals: LocalReport[];
  sideEffectsBefore: string[];
  callOptions: string[];
  /** What the user must still do for this site. */
  todo: string[];
  /** Code that does by hand what the rewrite cannot (a relay's pass-through, src/report/relaySketch.ts). */
  sketch?: string;
  /** Lines of the enclosing handler in the text the rewrite started from, to cut its diff out of the file diff. */
  handlerLines: { start: number; end: number } | undefined;
  /** Line, in the text the rewrite started from, above which the site's marker goes (a rolled-back site gets one too). */
  markerLine?: number;
}

export interface Diagnostic {
  level: 'error' | 'warning' | 'info';
  /** Which stage said it: the official v1-to-v2 codemod, the MRTR rewrite, the serving entry, the CLI. */
  source: 'sdk-upgrade' | 'mrtr' | 'serving' | 'verify' | 'cli';
  file: string | undefined;
  line: number | undefined;
  message: string;
  /** Stable machine-readable kind, e.g. `serving/http-manual`, `verify/new-type-error`. */
  code?: string;
}

export interface FileReport {
  /** Path relative to the working directory, with forward slashes. */
  file: string;
  /** The file text on disk before the run (line endings and BOM as read). */
  before: string;
  /**
   * The text the MRTR rewrite started from: `before` after the v1-to-v2 SDK stage (equal to
   * `before` when that stage changed nothing). `SiteReport.handlerLines` count lines of this text.
   */
  afterSdkUpgrade: string;
  /** The file text after the run (equal to `before` when nothing changed). */
  after: string;
  changed: boolean;
  /** Which stages changed the file: `sdk-upgrade` and transform ids (`mrtr`, `serving-entry`). */
  changedBy: string[];
  /** The rewrite added type errors and was undone (the SDK stage's edits are kept). */
  rolledBack: boolean;
  /** The type errors the rewrite added, when it was rolled back. */
  newTypeErrors: string[];
  /** Whether the new text is on disk (false on dry runs, checks and failed writes). */
  written: boolean;
  /** Parse error, unreadable or unwritable file, ...: the file was left untouched. */
  error: string | undefined;
}

export interface ServingEntryReport {
  file: string;
  line: number;
  transport: 'stdio' | 'streamable-http' | 'sse' | 'other';
  /** `rewritten` to serveStdio, `manual` (reported with guidance), `already` on a 2026-era entry. */
  status: 'rewritten' | 'manual' | 'already';
  message: string;
}

export interface PackageJsonChange {
  /** Path relative to the working directory. */
  file: string;
  added: string[];
  removed: string[];
  /** Entries whose range changed, as `zod ^3.25.76 -> ^4.2.0`. */
  updated: string[];
  /** Whether the change was written (false on dry runs and checks). */
  applied: boolean;
  before: string;
  after: string;
}

export interface RunReport {
  schemaVersion: 1;
  tool: { name: 'mrtr-migrate'; version: string };
  startedAt: string;
  durationMs: number;
  cwd: string;
  options: {
    paths: string[];
    dryRun: boolean;
    check: boolean;
    sdkUpgrade: boolean;
    /** zod 3 code and old zod ranges upgraded in the v1-to-v2 stage (false with the stage off). */
    zodUpgrade: boolean;
    /** Where migrated files take their support code from (--runtime); absent in reports of versions before it. */
    runtime?: 'module' | 'package';
    verify: boolean;
    force: boolean;
    ignore: string[];
    project: string | undefined;
  };
  /** The tsconfig whose compiler options were used, relative to the working directory. */
  tsconfig: string | undefined;
  /** Source files found (after ignores). */
  filesScanned: number;
  /** Files the cheap text check found worth parsing. */
  filesParsed: number;
  /** Files parsed, changed, failed, or carrying diagnostics; untouched files are not listed. */
  files: FileReport[];
  sites: SiteReport[];
  /** Handlers already in the multi round-trip form (second runs). */
  /** `dualEra`: the handler's push calls serve 2025-era connections beside its own inputRequired path. */
  alreadyMigrated: { file: string; line: number; method: string; name: string | undefined; dualEra: boolean }[];
  servingEntries: ServingEntryReport[];
  diagnostics: Diagnostic[];
  packageJsonChanges: PackageJsonChange[];
  /** The formatter command for the changed files, when one was detected. */
  formatCommand: string | undefined;
  /**
   * Set when the write stage was interrupted (the signal's name, e.g. `SIGINT`): the files written
   * are marked written, the others are unchanged and carry a "not written" error.
   */
  interrupted?: string | undefined;
}

export type { QuestionKind };
