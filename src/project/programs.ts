import { createRequire } from 'node:module';
import { ts, type Project } from 'ts-morph';
import { resolverOf } from './load.js';

/**
 * Programs the run builds itself, next to ts-morph's `project.getProgram()`: the same compiler host
 * (the project's files as they are now, everything else read and parsed once into the project's
 * cache), but with chosen files swapped. A program built from another with `oldProgram` reuses every
 * file it does not swap, parsed and bound, so it costs a new checker, not a new parse of the project.
 */

interface HostsFactory {
  createHosts(options: Record<string, unknown>): { compilerHost: ts.CompilerHost };
}

interface ProjectContext {
  fileSystemWrapper: unknown;
  compilerOptions: unknown;
  manipulationSettings: { getNewLineKindAsString(): string };
  getSourceFileContainer(): unknown;
}

/** The compiler host ts-morph gives its own programs (ts-morph 28's `LanguageService`), for the project. */
export function projectHost(project: Project): ts.CompilerHost {
  const context = (project as unknown as { _context: ProjectContext })._context;
  // @ts-morph/common is ts-morph's own dependency: resolved from ts-morph, it is the copy ts-morph uses.
  const common = createRequire(createRequire(import.meta.url).resolve('ts-morph'))('@ts-morph/common') as HostsFactory;
  return common.createHosts({
    transactionalFileSystem: context.fileSystemWrapper,
    sourceFileContainer: context.getSourceFileContainer(),
    compilerOptions: context.compilerOptions,
    getNewLine: () => context.manipulationSettings.getNewLineKindAsString(),
    getProjectVersion: () => '0',
    resolutionHost: resolverOf(project),
  }).compilerHost;
}

/**
 * `base` with the files of `swapped` (by path) in place of its own: every other file is the one
 * `base` has, even where the project has changed it since. The roots are `base`'s, and so are the
 * options unless others are given (the project's own zod in place of the one the run checks with:
 * modules then resolve again, files parsed already are not parsed again).
 */
export function programWith(base: ts.Program, host: ts.CompilerHost, swapped: ReadonlyMap<string, ts.SourceFile>, options = base.getCompilerOptions()): ts.Program {
  const withSwapped: ts.CompilerHost = {
    ...host,
    getSourceFile: (fileName, languageVersion, onError, shouldCreate) =>
      swapped.get(fileName) ?? asParsed(base.getSourceFile(fileName)) ?? host.getSourceFile(fileName, languageVersion, onError, shouldCreate),
  };
  return ts.createProgram({ rootNames: base.getRootFileNames(), options, host: withSwapped, oldProgram: base });
}

/**
 * A file as its host parsed it. Where a package is installed twice at the same version (a pnpm or
 * npm workspace), the program holds a redirect to the first copy in place of the second; the
 * compiler makes such redirects itself and asserts that no host returns one.
 */
function asParsed(file: ts.SourceFile | undefined): ts.SourceFile | undefined {
  return (file as { redirectInfo?: { unredirected: ts.SourceFile } } | undefined)?.redirectInfo?.unredirected ?? file;
}
