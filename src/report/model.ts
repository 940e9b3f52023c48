import type { ControlFlowTag, QuestionKind, RefusalReason, SdkGeneration, SiteApi, SiteKind } from '../analysis/types.js';

/**
 * The plain data a run produces: what the markdown, JSON, SARIF and HTML reports render and what
 * the terminal summary counts. No compiler objects, so it serializes as is (`--format json`).
 */

export type SiteStatus = 'migrated' | 'migrated-for-review' | 'refused';

export interface LocalReport {
  name: string;
  type: string | undefined;
  /** `carry`: travels in requestState; `rebuild`: its declaration runs again on resume. */
  how: 'carry' | 'rebuild';
}

export interface SiteReport {
  id: string;
  /** Path relative to the working directory, with forward slashes. */
  file: string;
  line: number;
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
  /** Lines of the enclosing handler in the original file, to cut its diff out of the file diff. */
  handlerLines: { start: number; end: number } | undefined;
}

export interface Diagnostic {
  level: 'error' | 'warning' | 'info';
  /** Which stage said it: the official v1-to-v2 codemod, the MRTR rewrite, the serving entry, the CLI. */
  source: 'sdk-upgrade' | 'mrtr' | 'serving' | 'verify' | 'cli';
  file: string | undefined;
  line: number | undefined;
  message: string;
}

export interface FileReport {
  file: string;
  /** The file text before and after the run (after = before when nothing changed or it was rolled back). */
  before: string;
  after: string;
  changed: boolean;
  rolledBack: boolean;
  /** Parse error, unreadable file, ...: the file was left untouched. */
  error: string | undefined;
}

export interface RunReport {
  schemaVersion: 1;
  tool: { name: 'mrtr-migrate'; version: string };
  startedAt: string;
  cwd: string;
  options: { dryRun: boolean; check: boolean; sdkUpgrade: boolean; verify: boolean };
  filesScanned: number;
  files: FileReport[];
  sites: SiteReport[];
  /** Handlers already in the multi round-trip form (second runs). */
  alreadyMigrated: { file: string; line: number; method: string; name: string | undefined }[];
  diagnostics: Diagnostic[];
  packageJsonChanges: { file: string; added: string[]; removed: string[]; applied: boolean }[];
}

export type { QuestionKind };
