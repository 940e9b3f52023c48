import path from 'node:path';
import { ts, type Project } from 'ts-morph';
import { ProjectIndex } from '../src/analysis/index.js';
import { parentPort } from 'node:worker_threads';
import { createProject } from '../src/project/load.js';
import { classify } from '../src/project/prefilter.js';
import { detectProjectType, mentionsV1Sdk, runSdkUpgrade } from '../src/project/sdkUpgrade.js';
import { restoreShape, shapeOf, splitBom } from '../src/project/sourceText.js';
import { findTsconfig, loadTsconfig } from '../src/project/tsconfig.js';
import { TRANSFORMS } from './index.js';

/**
 * The work behind `mrtr-migrate/jscodeshift` (see jscodeshift.ts), run in a worker thread: the
 * SDK stage, the MRTR rewrite and the serving entry on one file, on the TypeScript compiler's AST.
 */

export interface FileInfo {
  path: string;
  source: string;
}

export interface FileOutcome {
  /** The new text, or the same text when nothing changed. */
  output: string;
  reports: string[];
}

/** Projects reused across the files one jscodeshift worker handles: lib and SDK types are read once. */
const projects = new Map<string, Project>();
const UNSEEN_REGISTRATIONS: ReadonlySet<string> = new Set(['registerTool', 'registerPrompt', 'registerResource']);

function projectFor(file: string): Project {
  const tsconfig = findTsconfig(path.dirname(file), undefined);
  const key = tsconfig ?? '<defaults>';
  let project = projects.get(key);
  if (!project) {
    project = createProject(loadTsconfig(tsconfig, false).options);
    projects.set(key, project);
  }
  return project;
}

function enabled(value: unknown): boolean {
  return !(value === false || value === 'false' || value === '0' || value === 'no');
}

export function transformFile(file: FileInfo, options: Record<string, unknown> = {}): FileOutcome {
  const sdkUpgrade = enabled(options['sdkUpgrade'] ?? options['sdk-upgrade']);
  const { text } = splitBom(file.source);
  const reports: string[] = [];
  if (classify(text, sdkUpgrade) !== 'rewrite') return { output: file.source, reports };
  const absolute = path.resolve(file.path);
  const cwd = process.cwd();
  const project = projectFor(absolute);
  const sourceFile = project.createSourceFile(absolute, text, { overwrite: true });
  const report = (message: string) => reports.push(message);
  try {
    const syntax = project.getProgram().compilerObject.getSyntacticDiagnostics(project.getProgram().compilerObject.getSourceFile(absolute));
    if (syntax.length > 0) {
      // Throwing makes jscodeshift list the file as an error and leave it as it is.
      throw new Error(`syntax error: ${ts.flattenDiagnosticMessageText(syntax[0]!.messageText, ' ')}; the file was left untouched`);
    }
    if (sdkUpgrade && mentionsV1Sdk(text)) {
      // One file at a time: whether others call registerTool is unknown, so a patch of tool() stays.
      const upgrade = runSdkUpgrade(sourceFile, detectProjectType(new Set(), [text]), path.relative(cwd, absolute), UNSEEN_REGISTRATIONS);
      for (const d of upgrade.diagnostics) if (d.level !== 'info') report(`${d.level}: ${d.message} (line ${d.line ?? '?'})`);
    }
    for (const transform of TRANSFORMS) {
      const program = project.getProgram().compilerObject;
      const result = transform.apply(sourceFile, { project, ts, projectIndex: new ProjectIndex(ts as never, program as never), cwd });
      for (const site of result.sites) {
        if (site.status === 'migrated') continue;
        report(`${site.file}:${site.line}: ${site.status}${site.reason ? ` (${site.reason})` : ''}${site.hint ? `: ${site.hint}` : ''}`);
      }
      for (const d of result.diagnostics) if (d.level !== 'info') report(`${d.file ?? ''}:${d.line ?? ''}: ${d.message}`);
    }
    const next = sourceFile.getFullText();
    return { output: next === text ? file.source : restoreShape(next, shapeOf(file.source)), reports };
  } finally {
    project.removeSourceFile(sourceFile);
  }
}

// As a worker thread: one request per file, answered in order.
parentPort?.on('message', (request: { id: number; file: FileInfo; options: Record<string, unknown> }) => {
  try {
    parentPort!.postMessage({ id: request.id, outcome: transformFile(request.file, request.options) });
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
});
