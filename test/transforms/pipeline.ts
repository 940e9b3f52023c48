import { dirname, join } from 'node:path';
import { ts, type Project } from 'ts-morph';
import { ProjectIndex } from '../../src/analysis/index.js';
import { createProject } from '../../src/project/load.js';
import { runSdkUpgrade } from '../../src/project/sdkUpgrade.js';
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
  const project = (shared ??= createProject(COMPILER_OPTIONS));
  for (const other of project.getSourceFiles()) if (!other.isDeclarationFile() && !other.isInNodeModules()) project.removeSourceFile(other);
  const sourceFile = project.createSourceFile(path, text, { overwrite: true });
  for (const [name, otherText] of Object.entries(others)) project.createSourceFile(join(dirname(path), name), otherText, { overwrite: true });
  if (/@modelcontextprotocol\/sdk/.test(text)) {
    runSdkUpgrade(sourceFile, 'server', path, directRegistrations([text, ...Object.values(others)]));
  }
  const projectIndex = new ProjectIndex(ts as never, project.getProgram().compilerObject as never);
  const sites: SiteReport[] = [];
  const said: Diagnostic[] = [];
  for (const transform of TRANSFORMS) {
    const result = transform.apply(sourceFile, { project, ts, projectIndex, cwd });
    sites.push(...result.sites);
    said.push(...result.diagnostics);
  }
  const diagnostics = project.getPreEmitDiagnostics().filter(d => d.getSourceFile()?.getFilePath() === sourceFile.getFilePath());
  return {
    text: sourceFile.getFullText(),
    sites,
    diagnostics: said,
    typeErrors: diagnostics.map(d => `${d.getLineNumber() ?? '?'}: ${ts.flattenDiagnosticMessageText(d.compilerObject.messageText, '\n')}`),
  };
}
