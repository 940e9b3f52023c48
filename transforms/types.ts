import type { Project, SourceFile, ts } from 'ts-morph';
import type { FileAnalysis, ProjectIndex } from '../src/analysis/index.js';
import type { Diagnostic, SiteReport } from '../src/report/model.js';
import type { FrameworkName } from '../src/analysis/frameworks.js';

/**
 * A transform rewrites one source file of the in-memory ts-morph project. Transforms run in the
 * order of the list in `transforms/index.ts`; each sees the previous ones' edits.
 */
export interface Transform {
  id: string;
  title: string;
  apply(sourceFile: SourceFile, context: TransformContext): TransformResult;
}

export interface TransformContext {
  project: Project;
  /** ts-morph's TypeScript namespace: the analysis runs on the same compiler objects. */
  ts: typeof ts;
  /** Cross-file call index of the program the file is analysed against. */
  projectIndex: ProjectIndex;
  /**
   * The program to analyse the file against, with the file as it is now. The CLI gives every file
   * the program of the project as it was before any rewrite (one program for all files, so every
   * file sees the others as they are on disk, after the SDK stage); without it,
   * `project.getProgram()`.
   */
  program?: (() => ts.Program) | undefined;
  /** Working directory, for relative paths in reports. */
  cwd: string;
  /**
   * The CLI's plan of the project's files together: the servers whose handlers it rewrites get one
   * codec, in the support module every such file imports. Absent in a per-file run (jscodeshift,
   * tests), where the codec is written into the file and handlers whose server is constructed in
   * another file are refused as `server-not-found`.
   */
  shared?: SharedRequestState | undefined;
  /**
   * The analyses the CLI's plan made on the same program (see ProjectPlan): used for a file whose
   * text has not changed since, instead of analysing it again.
   */
  planned?: ReadonlyMap<string, PlannedAnalysis> | undefined;
  /** The project's test files (src/project/testFiles.ts); default: the usual names and folders under `cwd`. */
  isTestFile?: ((fileName: string) => boolean) | undefined;
  /** The MCP framework whose own package holds a file (src/project/packageJson.ts); default: read from the files' package.json. */
  frameworkPackageOf?: ((fileName: string) => FrameworkName | undefined) | undefined;
  /** The installed @modelcontextprotocol/server lacks what the rewrite imports (src/project/serverApi.ts): why nothing is rewritten. */
  serverTooOld?: string | undefined;
  /** False with --no-sdk-upgrade: a file that still imports the v1 SDK stays on it, so its handlers are not rewritten. */
  sdkUpgrade?: boolean;
  /** The sites whose rewrite an earlier attempt of the run rolled back (the CLI's verify phase): refused (AnalyzeOptions). */
  rolledBack?: ((fileName: string) => ReadonlyMap<number, string> | undefined) | undefined;
}

/** A file's analysis on the program the run planned with (compiler objects of that program). */
export interface PlannedAnalysis {
  text: string;
  analysis: FileAnalysis;
  sourceFile: import('typescript').SourceFile;
  /**
   * Undefined for an analysis made without a checker because it is the one the checker would make
   * (src/analysis/withoutChecker.ts): a file with nothing to rewrite, only handlers to report.
   */
  program: import('typescript').Program | undefined;
}

/** One requestState codec and its helpers in a support module, for every server whose handlers the run rewrites. */
export interface SharedRequestState {
  /** Absolute path of the module to generate, or of the one an earlier run wrote (`existing`), which is added to. */
  modulePath: string;
  /** With `--runtime package`, the entry every file imports instead (`mrtr-migrate/runtime`): no module is written. */
  package?: string;
  existing?: boolean;
  /** The server constructions (constructionKey) whose codec lives in the module. */
  constructions: ReadonlySet<string>;
  /**
   * One of them keeps requestState of its own (a verify hook, or handlers that read their state
   * unverified): every server of the module is wired through its keepRequestStateHook, and every
   * rewritten handler reads its state through its migratedRequestState.
   */
  keeps: boolean;
  /**
   * With `keeps`, the file of a server an earlier run wired to the module without the keep hook: the
   * handlers it rewrote read their state as it comes, new ones would read it through the hook, so the
   * group is undone (phases/group.ts).
   */
  wiredPlain?: string | undefined;
  /**
   * Files whose servers and handlers are all their own, which take their support code from the module
   * too (so it is written once per project) but stand alone: one rolled back leaves the others.
   */
  optional?: ReadonlySet<string>;
  /** Filled by the rewrite: the files that import the module, and the optional helpers they use. */
  importers: Set<string>;
  uses: Set<SupportHelper>;
}

/** The optional helpers of the support code, which a module has only where its handlers use them. */
export type SupportHelper = 'checkedResponse' | 'elicitAnswerOf' | 'elicitResultOf';

export interface TransformResult {
  changed: boolean;
  diagnostics: Diagnostic[];
  /** Sites found in the file, with what became of them (MRTR rewrite only). */
  sites: SiteReport[];
  /** Handlers already in the multi round-trip form. */
  /** `dualEra`: its push calls serve 2025-era connections beside its own inputRequired path (left as they are). */
  alreadyMigrated: { line: number; method: string; name: string | undefined; dualEra: boolean }[];
}
