import path from 'node:path';
import type { Project, SourceFile, ts } from 'ts-morph';
import type { ProjectIndex } from '../analysis/index.js';
import type { FrameworkName } from '../analysis/frameworks.js';
import type { Diagnostic, FileReport, PackageJsonChange, RunReport, SiteReport } from '../report/model.js';
import { TRANSFORMS, type Transform } from '../../transforms/index.js';
import { markerText } from '../../transforms/mrtr/index.js';
import type { ReadFile } from './load.js';
import type { DeclarationStubs } from './declarationStubs.js';
import type { GitState } from './git.js';
import type { ProjectPlan } from './sharedCodec.js';
import type { SdkTypeFallback } from './sdkTypes.js';
import type { ServerApiGap } from './serverApi.js';
import { shapeOf, type TextShape } from './sourceText.js';
import type { LoadedTsconfig } from './tsconfig.js';
import type { TypeError } from './typeCheck.js';
import type { ZodStatus } from './zodUpgrade.js';

export interface MigrateOptions {
  /** Working directory: paths are relative to it, reports name files relative to it. Default: `process.cwd()`. */
  cwd?: string;
  /** Files, folders and globs. Default: `['.']`. */
  paths?: string[];
  /** More gitignore-style patterns to skip, relative to `cwd`. */
  ignore?: string[];
  /** The tsconfig to use (file or folder). Default: the nearest one. */
  project?: string;
  /** Write nothing; the report holds every diff. */
  dryRun?: boolean;
  /** Write nothing (like dryRun); the CLI exits 1 when anything is left to migrate. */
  check?: boolean;
  /** Run the official v1-to-v2 stage and update package.json. Default: true. */
  sdkUpgrade?: boolean;
  /**
   * Where migrated files take the requestState codec and helpers from: `module`, one module the run
   * writes into the project (requestState.ts); `package`, mrtr-migrate's runtime entry
   * (`mrtr-migrate/runtime`), which the run adds to their package.json. Default: `module`.
   */
  runtime?: 'module' | 'package';
  /**
   * In that stage, upgrade zod 3 code (zod-v3-to-v4) and zod ranges older than the v2 SDK takes
   * (>= 4.2) in the packages of v1 files. Default: true.
   */
  zodUpgrade?: boolean;
  /** Type-check changed files and roll back rewrites that add type errors. Default: true. */
  verify?: boolean;
  /** Write even when the git work tree has uncommitted changes. */
  force?: boolean;
  /** Paths that do not count as uncommitted changes (the report files of an earlier run). */
  allowDirty?: string[];
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Interrupts the write stage: aborted, the run writes no further source file (the one being written
   * is completed), updates the manifests for what was written, and returns the report with
   * `interrupted` set and the files left as they were marked not written. The CLI aborts it on
   * SIGINT / SIGTERM once writing has started.
   */
  signal?: AbortSignal;
  /** The per-file transforms; default: the shipped list (MRTR rewrite, then the serving entry). */
  transforms?: Transform[];
}

export interface ProgressEvent {
  phase: 'read' | 'sdk-upgrade' | 'rewrite' | 'verify' | 'write';
  done: number;
  total: number;
  /** Path relative to the working directory. */
  file?: string;
}

/** One file of the run on its way through the phases. */
export interface Entry {
  read: ReadFile;
  rel: string;
  shape: TextShape;
  sourceFile: SourceFile | undefined;
  afterSdkUpgrade: string;
  changedBy: string[];
  baseline: TypeError[] | undefined;
  /** For a file the v1-to-v2 stage concerns (v1 SDK, zod upgrade): its type errors as read. */
  readBaseline: TypeError[] | undefined;
  /** The manifest of the package whose zod is upgraded, for a file that imports zod there. */
  zodPackage: string | undefined;
  /** The file as read, parsed (set before the first phase that changes files), for programs of the project as read. */
  asReadNode: ts.SourceFile | undefined;
  newTypeErrors: string[];
  rolledBack: boolean;
  error: string | undefined;
  zodInjected: boolean;
  sites: SiteReport[];
  /** The generated module of a shared codec: a new file, written only where no file is. */
  created: boolean;
  /** For a file wired with the shared codec without handlers of its own: its text before the wiring. */
  beforeWiring: string | undefined;
  /** Back to its text as read, but for the markers the run added (markRolledBack): as read, to the checks. */
  onlyMarked: boolean;
}

/**
 * Everything one migration knows, filled in phase by phase (migrate.ts lists the phases in order).
 * A field is set by the phase named in its comment; the phases after it read it.
 */
export class RunState {
  readonly startedAt = new Date();
  readonly cwd: string;
  readonly paths: string[];
  readonly sdkUpgrade: boolean;
  readonly runtime: 'module' | 'package';
  readonly zodUpgrade: boolean;
  readonly verify: boolean;
  /** Neither a dry run nor a check: the phases write files. */
  readonly write: boolean;
  readonly transforms: Transform[];
  readonly progress: (event: ProgressEvent) => void;
  readonly diagnostics: Diagnostic[] = [];

  // start
  git!: GitState;
  tsconfig!: LoadedTsconfig;
  // discover
  files: string[] = [];
  // read
  /** The files that may change, in discovery order; later phases add the files they join. */
  entries: Entry[] = [];
  /** Files parsed for cross-file facts only. */
  contextFiles: ReadFile[] = [];
  unreadable: FileReport[] = [];
  /** Sources that could not be read: whether they import the v1 SDK is unknown, so their manifest keeps it. */
  unreadablePaths: string[] = [];
  /** Every readable source's text as read. */
  texts = new Map<string, string>();
  /** Counted before a shared codec's server file joins the entries and its module is added. */
  filesParsed = 0;
  /** The packages (by manifest) of v1 files whose zod is older than the v2 SDK takes (upgraded unless `zodUpgrade` is off). */
  zodPackages = new Map<string, ZodStatus>();
  // load
  project!: Project;
  fallback!: SdkTypeFallback;
  /** The installed @modelcontextprotocol/server lacks what the rewrite imports (serverApi.ts). */
  serverGap: ServerApiGap | undefined;
  /** Set when that server's range cannot move: the line the run says, and the reason of every site it does not rewrite. */
  serverTooOld: string | undefined;
  /** The modules given as declarations, and who imports whom among the files read (declarationStubs.ts). */
  stubs!: DeclarationStubs;

  /** The entries that parsed: the only ones any later phase changes. */
  live: Entry[] = [];
  // upgrade
  /** The live files that import the v1 SDK (when the SDK stage runs). */
  v1: Entry[] = [];
  /** Takes the type errors, as read, of the files the stage changes, the first time it is called (a verify run). */
  readBaselines: () => void = () => {};
  // plan
  /** Files whose type errors before the rewrite count when they have errors after it. */
  baselineFiles: Entry[] = [];
  /** Takes those errors, the first time it is called. */
  baselines: () => void = () => {};
  /**
   * A verify run: the program of the project after the SDK stage, before any rewrite, with its own
   * checker (made the first time it is asked for, from the analysis program).
   */
  beforeRewrite: (() => ts.Program) | undefined;
  /** The project's compiler host, for programs made from that one (programs.ts). */
  host: ts.CompilerHost | undefined;
  plan: ProjectPlan | undefined;
  /** The project's test files (testFiles.ts), known from the plan phase on. */
  isTestFile: ((fileName: string) => boolean) | undefined;
  /** The MCP framework whose own package holds a file (packageJson.ts), known from the plan phase on. */
  frameworkPackageOf: ((fileName: string) => FrameworkName | undefined) | undefined;
  /**
   * The program every file is analysed against (built in the plan phase unless every file could be
   * analysed without it), until the emit phase is done with it.
   */
  analysis: { program: () => ts.Program; index: ProjectIndex } | undefined;
  // emit
  sites: SiteReport[] = [];
  alreadyMigrated: RunReport['alreadyMigrated'] = [];
  // group
  /** Files that stand or fall together: a shared codec's, those linked by an asking helper. */
  groups: Entry[][] = [];
  /**
   * The support module (the shared requestState codec and its helpers), set by phases/group.ts: it is in
   * no group, since files that import it may stand alone; it goes when none of them is left.
   */
  supportModule: Entry | undefined;
  // verify
  /**
   * Sites whose handler's rewrite added type errors on an earlier attempt: per file (resolved path),
   * the site's index among the file's sites and the errors in a line. Every later attempt refuses them
   * (AnalyzeOptions.rolledBack), so each is rolled back alone; what the run said of each stays said.
   */
  rolledBackSites = new Map<string, Map<number, string>>();
  rolledBackNotes: Diagnostic[] = [];
  // write
  written: string[] = [];
  interrupted: string | undefined;
  // verify
  /** Packages whose zod upgrade broke a file: their files stay as read, their zod range as it was. */
  zodHeldBack = new Set<string>();
  // manifests
  packageJsonChanges: PackageJsonChange[] = [];

  constructor(readonly options: MigrateOptions) {
    this.cwd = path.resolve(options.cwd ?? process.cwd());
    this.paths = options.paths && options.paths.length > 0 ? options.paths : ['.'];
    this.sdkUpgrade = options.sdkUpgrade ?? true;
    this.runtime = options.runtime ?? 'module';
    this.zodUpgrade = this.sdkUpgrade && (options.zodUpgrade ?? true);
    this.verify = options.verify ?? true;
    this.write = !options.dryRun && !options.check;
    this.transforms = options.transforms ?? TRANSFORMS;
    this.progress = options.onProgress ?? (() => {});
  }

  /** Path relative to the working directory, with `/`: how the report names files. */
  rel(file: string): string {
    return path.relative(this.cwd, file).split(path.sep).join('/') || '.';
  }

  /** The run checks upgraded code against its own zod 4 (zodUpgrade.ts): some package's zod is older. */
  get checksOwnZod(): boolean {
    return this.zodUpgrade && this.zodPackages.size > 0;
  }

  /** The `paths` of the project as read: SDK types borrowed, zod its own. */
  get asReadPaths(): ts.MapLike<string[]> {
    return { ...this.tsconfig.options.paths, ...this.fallback.paths };
  }

  /**
   * The options of a program of the project as read, made from `base` (programs.ts): its own zod
   * where the run checks against zod 4; undefined where they are `base`'s.
   */
  asReadOptions(base: ts.Program): ts.CompilerOptions | undefined {
    return this.checksOwnZod ? { ...base.getCompilerOptions(), paths: this.asReadPaths } : undefined;
  }

  /** Where the search for a file's package.json stops: the repository's root, else the file system's. */
  get manifestStop(): string {
    return this.git.root ?? path.parse(this.cwd).root;
  }

  /** The root gitignore patterns and `--ignore` are relative to. */
  get ignoreRoot(): string {
    return this.git.root ?? this.cwd;
  }

  get ignore(): string[] {
    return this.options.ignore ?? [];
  }

  /** The sites of a file an earlier attempt rolled back (see rolledBackSites). */
  readonly rolledBackIn = (fileName: string): ReadonlyMap<number, string> | undefined => this.rolledBackSites.get(path.resolve(fileName));

  groupOf(entry: Entry): Entry[] | undefined {
    return this.groups.find(g => g.includes(entry));
  }
}

export function newEntry(read: ReadFile, rel: string): Entry {
  return {
    read, rel, shape: shapeOf(read.raw), sourceFile: undefined, afterSdkUpgrade: read.text, changedBy: [],
    baseline: undefined, readBaseline: undefined, zodPackage: undefined, asReadNode: undefined, newTypeErrors: [], rolledBack: false, error: undefined, zodInjected: false, sites: [],
    created: false, beforeWiring: undefined, onlyMarked: false,
  };
}

/**
 * A file read for context only joins the entries, as it is (unchanged so far): a later phase changes
 * it. Undefined when it is not in the project.
 */
export function joinEntry(run: RunState, read: ReadFile): Entry | undefined {
  const sourceFile = run.project.getSourceFile(read.path);
  if (!sourceFile) return undefined;
  const entry: Entry = { ...newEntry(read, run.rel(read.path)), sourceFile, asReadNode: sourceFile.compilerNode };
  run.entries.push(entry);
  run.live.push(entry);
  return entry;
}

/** The entry's text now: as the phases so far left it. */
export function sourceTextOf(entry: Entry): string {
  return entry.sourceFile ? entry.sourceFile.getFullText() : entry.read.text;
}

/** A site whose rewrite is not kept: why, and the hand migration as its first to-do. */
export function markUndone(site: SiteReport, status: 'rolled-back' | 'not-written', why: string): void {
  site.status = status;
  site.hint = why;
  site.todo = [`Migrate by hand: ${why}`, ...site.todo.filter(t => !t.startsWith('Migrate by hand'))];
}

/** A marker above a line of the text as read that is not a site's: `// mrtr-migrate: <reason> — <text>`, cut at a word to fit. */
export interface LineMarker {
  line: number;
  reason: string;
  text: string;
}

/**
 * A rolled-back file keeps the push calls of the sites it undid: each gets a marker with the
 * rollback's cause, and each refused site of the file gets its reason back (its marker was part of
 * the rewrite undone), so no push call is left in a written file without one (and a second run,
 * which finds the markers, adds none). Only where the file is back to the text the rewrite
 * analysed, whose lines the sites name. `errorMarkers` go above other lines of it (the errors that
 * keep a file on v1).
 */
export function markRolledBack(entry: Entry, undone: readonly SiteReport[], cause: string, errorMarkers: readonly LineMarker[] = []): void {
  const text = entry.sourceFile?.getFullText();
  if (text === undefined || text !== entry.afterSdkUpgrade) return;
  const markers = new Map<number, { reason: string; hint: string; whole?: boolean }>();
  for (const site of entry.sites) {
    if (site.markerLine === undefined || markers.has(site.markerLine - 1)) continue;
    if (undone.includes(site)) markers.set(site.markerLine - 1, { reason: 'rolled-back', hint: cause });
    else if (site.status === 'refused' && site.reason !== undefined) markers.set(site.markerLine - 1, { reason: site.reason, hint: site.hint ?? '' });
    // Rolled back alone on an earlier attempt (verify.ts): its marker was part of the rewrite undone.
    else if (site.status === 'rolled-back' && site.hint !== undefined) markers.set(site.markerLine - 1, { reason: 'rolled-back', hint: site.hint });
  }
  // A line that holds a push call keeps its site's marker, which names the first error already.
  for (const marker of errorMarkers) if (!markers.has(marker.line - 1)) markers.set(marker.line - 1, { reason: marker.reason, hint: marker.text, whole: true });
  const lines = text.split('\n');
  const cr = text.includes('\r\n') ? '\r' : '';
  for (const [index, marker] of [...markers].sort(([a], [b]) => b - a)) {
    if (index >= lines.length || (index > 0 && lines[index - 1]!.includes('mrtr-migrate:'))) continue;
    const indent = /^[ \t]*/.exec(lines[index]!)![0];
    lines.splice(index, 0, `${indent}${markerText(marker.reason, marker.hint, indent, marker.whole)}${cr}`);
  }
  entry.sourceFile!.replaceWithText(lines.join('\n'));
  if (entry.afterSdkUpgrade === entry.read.text) entry.onlyMarked = true;
}

/** Whether a file is as it was read, or is so but for the markers the run added. */
export function isAsRead(entry: Entry): boolean {
  return entry.onlyMarked || sourceTextOf(entry) === entry.read.text;
}

/** `run` the first time the result is called; later calls give what it returned. */
export function once<T>(run: () => T): () => T {
  let result: { value: T } | undefined;
  return () => (result ??= { value: run() }).value;
}

export function errorText(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof (error as { code: unknown }).code === 'string' && 'message' in error) {
    const e = error as { code: string; message: string };
    return e.code === 'EACCES' || e.code === 'EPERM' ? `permission denied (${e.code})` : e.message;
  }
  return error instanceof Error ? error.message : String(error);
}
