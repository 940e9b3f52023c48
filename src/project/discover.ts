import { lstatSync, readdirSync, realpathSync, type Dirent } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import ignore from 'ignore';
import { MigrateError } from './errors.js';
import { GitignoreRules } from './gitignore.js';
import { readSource } from './load.js';
import { isDeclarationFileName, isSourceFileName, SKIPPED_DIRECTORIES } from './sourceFiles.js';

export interface DiscoverOptions {
  cwd: string;
  /** Paths (files or folders) and globs, relative to `cwd`. */
  inputs: string[];
  /** Extra gitignore-style patterns, relative to `cwd`. */
  ignore: string[];
  /** Root whose `.gitignore` files apply (the git work tree, else `cwd`). */
  ignoreRoot: string;
  /** More folders to skip, absolute (the tsconfig's outDir). */
  buildOutputs: string[];
}

export interface Discovery {
  /** Absolute paths, sorted, without duplicates. */
  files: string[];
  /** Symbolic links met and not followed, absolute. */
  symlinks: string[];
}

/**
 * The source files a run reads. Folders are walked without following symbolic links (a link can
 * point outside the project or back up into it), pruning ignored folders before reading them; a link
 * given by name is followed, as the user asked for what it points to.
 */
export function discoverSources(options: DiscoverOptions): Discovery {
  const gitignore = new GitignoreRules(options.ignoreRoot);
  const userIgnore = ignore().add(options.ignore);
  const outputs = new Set(options.buildOutputs.map(p => path.resolve(p)));
  const files = new Set<string>();
  const symlinks = new Set<string>();

  const userIgnores = (absolute: string, isDirectory: boolean): boolean => {
    if (options.ignore.length === 0) return false;
    const relative = path.relative(options.cwd, absolute);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return false;
    return userIgnore.ignores(relative.split(path.sep).join('/') + (isDirectory ? '/' : ''));
  };
  const skipsDirectory = (absolute: string): boolean =>
    SKIPPED_DIRECTORIES.has(path.basename(absolute)) || outputs.has(absolute) || gitignore.ignores(absolute, true) || userIgnores(absolute, true);
  const takesFile = (absolute: string): boolean =>
    isSourceFileName(absolute) && !gitignore.ignores(absolute, false) && !userIgnores(absolute, false);

  const walk = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // unreadable folder: nothing of it can be migrated, and the rest still can
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const absolute = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) symlinks.add(absolute);
      } else if (entry.isDirectory()) {
        if (!skipsDirectory(absolute)) walk(absolute);
      } else if (entry.isFile() && takesFile(absolute)) {
        files.add(absolute);
      }
    }
  };

  for (const input of options.inputs) {
    let absolute = path.resolve(options.cwd, input);
    let stat = lstatOrUndefined(absolute);
    // A link given by name is followed, to where it points (files are read and written there); the
    // links met while walking are not.
    const target = stat?.isSymbolicLink() ? realpathOrUndefined(absolute) : undefined;
    if (target !== undefined) {
      absolute = target;
      stat = lstatOrUndefined(target);
    }
    if (stat?.isSymbolicLink()) {
      throw new MigrateError(`${input} is a symbolic link that leads nowhere (its target does not exist, or links loop); pass the file or folder it should point to.`);
    } else if (stat?.isDirectory()) {
      walk(absolute);
    } else if (stat?.isFile()) {
      if (isDeclarationFileName(absolute)) throw new MigrateError(`${input} is a declaration file; declaration files are not migrated.`);
      if (!isSourceFileName(absolute)) throw new MigrateError(`${input} is not a TypeScript or JavaScript source file (.ts .tsx .mts .cts .js .jsx .mjs .cjs).`);
      files.add(absolute);
    } else if (fg.isDynamicPattern(input)) {
      const matches = fg.sync(input, {
        cwd: options.cwd,
        absolute: true,
        onlyFiles: true,
        followSymbolicLinks: false,
        suppressErrors: true,
        ignore: [...SKIPPED_DIRECTORIES].map(name => `**/${name}/**`),
      });
      let taken = 0;
      for (const match of matches) {
        const file = path.resolve(match);
        if (lstatOrUndefined(file)?.isSymbolicLink()) {
          symlinks.add(file);
          continue;
        }
        if ([...outputs].some(out => file.startsWith(out + path.sep))) continue;
        if (takesFile(file)) {
          files.add(file);
          taken++;
        }
      }
      if (matches.length === 0) throw new MigrateError(`no file matches the pattern ${input} (relative to ${options.cwd}).`);
      if (taken === 0) throw new MigrateError(`the pattern ${input} matches no TypeScript or JavaScript source file that is not ignored.`);
    } else {
      throw new MigrateError(`${input} does not exist (relative to ${options.cwd}); pass a file, a folder or a glob.`);
    }
  }
  return { files: [...files].sort(), symlinks: [...symlinks].sort() };
}

function realpathOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

function lstatOrUndefined(file: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Sources under `root` that `include` accepts and whose text `matches`; one that cannot be read
 * counts as matching, since what it holds is unknown. (The run's checks on files it did not read.)
 */
export function sourcesMatching(root: string, include: (file: string) => boolean, matches: (text: string, file: string) => boolean, ignore: string[], ignoreRoot: string): string[] {
  const found: string[] = [];
  for (const file of discoverSources({ cwd: root, inputs: ['.'], ignore, ignoreRoot, buildOutputs: [] }).files) {
    if (!include(file)) continue;
    let text: string;
    try {
      text = readSource(file, true).text;
    } catch {
      found.push(file); // unreadable or not UTF-8
      continue;
    }
    if (matches(text, file)) found.push(file);
  }
  return found;
}
