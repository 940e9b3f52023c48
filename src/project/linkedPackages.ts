import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ts, type ResolutionHostFactory } from 'ts-morph';
import { installedVersion, readJsonObject } from './packageJson.js';

/**
 * A package linked into the project (`"file:../../packages/lib"`, `npm link`, a workspace symlink)
 * is read by the compiler from its real folder, so its imports find the dependencies installed
 * there, not the project's. Where both hold the same package at different versions, the program
 * loads two copies, and every value handed from one to the other is compared structurally across
 * them. For two zod 4 copies that comparison grows without bound: on MCP-Nest's examples the type
 * check of a `@Tool({ parameters: z.object(...) })` runs out of any heap (`tsc` itself does, unless
 * given `--preserveSymlinks`, as that repository's tsconfig advises).
 *
 * Installed from the registry, such a package would share the project's copy wherever the major
 * versions agree (npm dedupes them). The run's type check does the same, for these dependencies
 * only: every other import resolves as the compiler resolves it.
 */
export interface LinkedPackage {
  /** The link, inside a node_modules folder of the project or of a folder above it. */
  link: string;
  /** The folder it points to. */
  real: string;
  /** The folder whose node_modules holds the link: the copies it shares are resolved from there. */
  consumer: string;
  /** Its dependencies read from the consumer's copy in place of its own. */
  shared: SharedDependency[];
}

export interface SharedDependency {
  name: string;
  ownVersion: string;
  projectVersion: string;
}

const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'] as const;

/**
 * The linked packages the project sees (the nearest link to a folder wins), with the dependencies
 * they would share. A link into the project's own folder is one of its own packages, checked as its
 * tsconfig says, and is left alone.
 */
export function linkedPackages(projectDir: string): LinkedPackage[] {
  const found: LinkedPackage[] = [];
  const seen = new Set<string>();
  const project = realDir(projectDir) ?? projectDir;
  for (let dir = projectDir; ; dir = path.dirname(dir)) {
    for (const link of linksIn(path.join(dir, 'node_modules'))) {
      const real = realDir(link);
      if (!real || seen.has(real) || isInside(real, project) || real.split(path.sep).includes('node_modules')) continue;
      seen.add(real);
      found.push({ link, real, consumer: dir, shared: sharedDependencies(real, dir) });
    }
    if (path.dirname(dir) === dir) return found;
  }
}

/** Symbolic links among a node_modules folder's packages (scoped ones included). */
function linksIn(nodeModules: string): string[] {
  const links: string[] = [];
  for (const name of entries(nodeModules)) {
    const names = name.startsWith('@') ? entries(path.join(nodeModules, name)).map(inner => path.join(name, inner)) : [name];
    for (const pkg of names) {
      const full = path.join(nodeModules, pkg);
      try {
        if (lstatSync(full).isSymbolicLink()) links.push(full);
      } catch {
        // gone while listed
      }
    }
  }
  return links;
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir).filter(name => !name.startsWith('.'));
  } catch {
    return [];
  }
}

function realDir(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

function isInside(file: string, dir: string): boolean {
  return file === dir || file.startsWith(dir + path.sep);
}

/** The dependencies of the package at `real` that `consumer` installs too, at another version of the same major. */
function sharedDependencies(real: string, consumer: string): SharedDependency[] {
  const manifest = readJsonObject(path.join(real, 'package.json'));
  const names = new Set(DEPENDENCY_FIELDS.flatMap(field => Object.keys((manifest?.[field] as Record<string, string> | undefined) ?? {})));
  const shared: SharedDependency[] = [];
  for (const name of names) {
    const own = installedVersion(real, name);
    const theirs = installedVersion(consumer, name);
    // One version in two folders is one package to the compiler already (it keeps the first copy).
    if (!own || !theirs || own === theirs || !sameMajor(own, theirs)) continue;
    shared.push({ name, ownVersion: own, projectVersion: theirs });
  }
  return shared;
}

/** Versions npm would let one range satisfy: the same major (the same minor below 1.0). */
function sameMajor(a: string, b: string): boolean {
  const [majorA, minorA] = a.split('.');
  const [majorB, minorB] = b.split('.');
  return majorA === majorB && (majorA !== '0' || minorA === minorB);
}

/** `zod/v4` → `zod`, `@scope/name/sub` → `@scope/name`; undefined for a relative or absolute path. */
function packageNameOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || path.isAbsolute(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** A file name beside which a module is resolved as it would be from that folder. */
const PROBE = '__mrtr_migrate_probe__.ts';

/**
 * Module resolution for the run's project where a linked package shares copies with it (undefined
 * where none does, so the compiler keeps its own): imports of a shared dependency from the linked
 * package's files resolve from the consumer's folder; every other import as the compiler would.
 */
export function sharedCopiesResolution(linked: readonly LinkedPackage[]): ResolutionHostFactory | undefined {
  const sharing = linked.filter(pkg => pkg.shared.length > 0).map(pkg => ({ ...pkg, real: pkg.real.split(path.sep).join('/'), names: new Set(pkg.shared.map(s => s.name)) }));
  if (sharing.length === 0) return undefined;
  return host => {
    const caches = new WeakMap<ts.CompilerOptions, ts.ModuleResolutionCache>();
    const cacheFor = (options: ts.CompilerOptions): ts.ModuleResolutionCache => {
      let cache = caches.get(options);
      if (!cache) caches.set(options, (cache = ts.createModuleResolutionCache(host.getCurrentDirectory?.() ?? process.cwd(), name => name, options)));
      return cache;
    };
    return {
      resolveModuleNames: (names, containingFile, _reused, redirected, options, containingSourceFile) => {
        const cache = cacheFor(options);
        const pkg = sharing.find(p => containingFile.startsWith(p.real + '/'));
        return names.map(name => {
          const shared = pkg && pkg.names.has(packageNameOf(name) ?? '');
          const from = shared ? path.join(pkg.consumer, PROBE) : containingFile;
          return ts.resolveModuleName(name, from, options, host, cache, redirected, modeOf(containingSourceFile, name, options)).resolvedModule;
        });
      },
    };
  };
}

/**
 * The resolution mode of an import (ESM `import` or CommonJS `require` conditions under node16 and
 * nodenext), which the compiler passes to its own resolver but not to a host's: read from the
 * import itself, or for a name without one (a `declare module`), from the file's format.
 */
function modeOf(file: ts.SourceFile | undefined, name: string, options: ts.CompilerOptions): ts.ResolutionMode {
  if (!file) return undefined;
  const literal = (file as { imports?: readonly ts.StringLiteralLike[] }).imports?.find(usage => usage.text === name);
  return literal ? ts.getModeForUsageLocation(file, literal, options) : file.impliedNodeFormat;
}
