import { basename, dirname, extname, join } from 'node:path';
import { ts, type Project } from 'ts-morph';
import { ProjectIndex } from '../../src/analysis/index.js';
import { createProject } from '../../src/project/load.js';
import { runSdkUpgrade } from '../../src/project/sdkUpgrade.js';
import { moduleText, planProject } from '../../src/project/sharedCodec.js';
import { commonTestFiles } from '../../src/analysis/testFiles.js';
import { directRegistrations } from '../../src/project/stageRepairs.js';
import type { Diagnostic, SiteReport } from '../../src/report/model.js';
import { TRANSFORMS } from '../../transforms/index.js';

/**
 * The two stages the CLI runs, with the CLI's own project setup and SDK stage: the official
 * v1-to-v2 codemod transforms for v1 code, then our transforms. Files keep their real paths so the installed SDK
 * packages resolve; their text comes from the caller (so a test can run on its own output).
 */

export const COMPILER_OPTIONS = {
  strict: true,
  // As in the fixtures' own tsconfig (test/equivalence/tsconfig.fixtures.json).
  noUncheckedIndexedAccess: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  skipLibCheck: true,
  noEmit: true,
  // JavaScript fixtures load as the CLI loads them (src/project/tsconfig.ts forces allowJs).
  allowJs: true,
  types: ['node'],
};

export interface PipelineResult {
  text: string;
  sites: SiteReport[];
  /** What the transforms said about the file (serving entries, ignore comments, ...). */
  diagnostics: Diagnostic[];
  /** Type errors of the resulting file (formatted), empty when it type-checks. */
  typeErrors: string[];
}

/** One project for every run of a test file: the SDK's declaration files are parsed once. */
let shared: Project | undefined;

/** `others`: more files of the project (name → text), next to `path`; only `path` is rewritten. */
export function runPipeline(path: string, text: string, cwd = process.cwd(), others: Record<string, string> = {}): PipelineResult {
  return pipeline(path, text, cwd, others, false);
}

export interface FixtureResult extends PipelineResult {
  /** The support module the file's handlers import (`requestState.ts`, or `.mjs` / `.js` beside JavaScript), if they import one. */
  module: { name: string; text: string } | undefined;
}

/**
 * A file rewritten as the CLI rewrites it (the plan of a project of one file): its handlers take their
 * support code from a module beside it, unless the file could not import one (CommonJS). The module is
 * `requestState` with the file's extension whatever is on disk there (a fixture folder holds its copy).
 * `others` as for runPipeline: a second run gets the module there.
 */
export function runFixture(path: string, text: string, others: Record<string, string> = {}): FixtureResult {
  return pipeline(path, text, process.cwd(), others, true);
}

function pipeline(path: string, text: string, cwd: string, others: Record<string, string>, withModule: boolean): FixtureResult {
  const project = (shared ??= createProject(COMPILER_OPTIONS));
  for (const other of project.getSourceFiles()) if (!other.isDeclarationFile() && !other.isInNodeModules()) project.removeSourceFile(other);
  const sourceFile = project.createSourceFile(path, text, { overwrite: true });
  for (const [name, otherText] of Object.entries(others)) project.createSourceFile(join(dirname(path), name), otherText, { overwrite: true });
  if (/@modelcontextprotocol\/sdk/.test(text)) {
    runSdkUpgrade(sourceFile, 'server', path, directRegistrations([text, ...Object.values(others)]));
  }
  const program = project.getProgram().compilerObject;
  const projectIndex = new ProjectIndex(ts as never, program as never);
  const plan = withModule ? planProject(ts as never, () => program as never, projectIndex as never, [path], new Map(), () => true, commonTestFiles(cwd) as never) : undefined;
  const module = plan?.shared;
  if (module && !module.existing) module.modulePath = join(dirname(path), `requestState${extname(module.modulePath)}`);
  const sites: SiteReport[] = [];
  const said: Diagnostic[] = [];
  for (const transform of TRANSFORMS) {
    const result = transform.apply(sourceFile, { project, ts, projectIndex, cwd, shared: module, planned: plan?.planned });
    sites.push(...result.sites);
    said.push(...result.diagnostics);
  }
  const written = module && module.importers.size > 0 && !module.existing ? moduleText(ts as never, module, sourceFile.compilerNode as never) : undefined;
  if (written !== undefined) project.createSourceFile(module!.modulePath, written, { overwrite: true });
  const diagnostics = project.getPreEmitDiagnostics().filter(d => d.getSourceFile()?.getFilePath() === sourceFile.getFilePath());
  return {
    text: sourceFile.getFullText(),
    sites,
    diagnostics: said,
    module: written === undefined ? undefined : { name: basename(module!.modulePath), text: written },
    typeErrors: diagnostics.map(d => `${d.getLineNumber() ?? '?'}: ${ts.flattenDiagnosticMessageText(d.compilerObject.messageText, '\n')}`),
  };
}
