import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import { SDK_NAMES_IMPORTED } from '../analysis/index.js';
import { DEPENDENCY_SECTIONS, ownerManifest, readJsonObject, V2_PACKAGE_RANGES } from './packageJson.js';
import { packageVersionOf, PROBE, resolveOwn } from './sdkTypes.js';

/**
 * The project's own `@modelcontextprotocol/server` may predate the API the rewrite emits
 * (`createRequestStateCodec`, `inputRequired`, ...: 2.0.0-alpha.3 and older, or a workspace copy of
 * the SDK's own repository at such a version). Every migrated file would then fail the type check
 * and be rolled back, one by one. Instead the run moves the package's range to the one the v1-to-v2
 * stage writes, and checks the rewrite against mrtr-migrate's own copy; where the range is not a
 * registry range it can move (a workspace link, a path), it rewrites nothing and says why once.
 */

export const SERVER_PACKAGE = '@modelcontextprotocol/server';
/** The server's entry points the rewrite imports: checked against mrtr-migrate's copy when the project's is too old. */
export const SERVER_ENTRY_POINTS = [SERVER_PACKAGE, `${SERVER_PACKAGE}/stdio`];
/** The first stable version, which (like 2.0.0-alpha.4 on) exports everything the rewrite imports. */
const FIRST_STABLE = '2.0.0';

export interface ServerApiGap {
  /** The installed version, as its package.json says. */
  version: string | undefined;
  /** What the rewrite imports that it does not export. */
  missing: string[];
  /** The package.json that declares the package, and the range it declares there, if one does. */
  declared: { manifest: string; section: string; range: string } | undefined;
  /** Whether that range is the registry's, which the run may move (not `workspace:`, `file:`, a URL, ...). */
  movable: boolean;
  /** The range it would move to. */
  target: string;
}

/** A range npm resolves from the registry: `^2.0.0-alpha.3`, `2.x`, `>=2 <3`, `latest`; not `workspace:^`, `file:..`, `github:...`. */
const REGISTRY_RANGE = /^(?:[\^~<>=]|\d|[xX*]|latest$|next$)[^:/]*$/;

export function serverApiGap(projectDir: string, options: ts.CompilerOptions, manifestStop: string): ServerApiGap | undefined {
  const probe = path.join(projectDir, PROBE);
  const resolved = ts.resolveModuleName(SERVER_PACKAGE, probe, options, ts.sys, undefined, undefined, ts.ModuleKind.ESNext).resolvedModule?.resolvedFileName;
  // Declarations, or the package's sources where the project maps it there (the SDK's own workspace).
  if (!resolved || !/\.[cm]?tsx?$/.test(resolved) || isOwnCopy(resolved)) return undefined;
  // Every stable release exports it all: only a prerelease (or a copy without a version) is read, which costs a program.
  const version = packageVersionOf(resolved);
  if (version && /^(?:[2-9]|[1-9]\d+)\.\d+\.\d+$/.test(version)) return undefined;
  const missing = missingExports(resolved, options);
  if (missing.length === 0) return undefined;
  const manifest = ownerManifest(probe, manifestStop);
  const declared = manifest ? declaredRange(manifest) : undefined;
  return {
    version,
    missing,
    declared,
    movable: declared !== undefined && REGISTRY_RANGE.test(declared.range.trim()),
    target: V2_PACKAGE_RANGES[SERVER_PACKAGE]!,
  };
}

/** The line the run says: what is missing, and what the run does about it. */
export function serverGapMessage(gap: ServerApiGap, rel: (file: string) => string, ownVersion: string | undefined): string {
  const shown = gap.missing.length > 3 ? `${gap.missing.slice(0, 3).join(', ')} and ${gap.missing.length - 3} more` : gap.missing.join(', ');
  const installed = `${SERVER_PACKAGE} ${gap.version ?? '(unknown version)'}`;
  if (gap.movable) {
    return `${installed} does not export ${shown}, which the rewrite imports: its range in ${rel(gap.declared!.manifest)} becomes ${gap.target} (from ${gap.declared!.range}), and the rewrite was checked against mrtr-migrate's own copy (${ownVersion ?? 'unknown version'}); install the packages again after the run.`;
  }
  const where = gap.declared ? `${gap.declared.range} in ${rel(gap.declared.manifest)}` : 'not in the package.json';
  return `${installed} (${where}) does not export ${shown}, which the rewrite imports: the rewrite needs ${FIRST_STABLE} or later; upgrade it and run again (no handler was rewritten).`;
}

/** Whether a declaration file is in mrtr-migrate's own copy of the server package (the project links to it, or runs from it). */
function isOwnCopy(file: string): boolean {
  const own = resolveOwn(SERVER_PACKAGE);
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  const ownManifest = own && ownerManifest(real(own), path.parse(own).root);
  return ownManifest !== undefined && real(file).startsWith(path.dirname(ownManifest) + path.sep);
}

/**
 * The names the rewrite may import that the module does not export (none when it cannot be read as a
 * module). Read as the project's program reads it (its `paths` may map the SDK's own packages).
 */
function missingExports(declarations: string, options: ts.CompilerOptions): string[] {
  const program = ts.createProgram([declarations], { ...options, noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(declarations);
  const module = file && checker.getSymbolAtLocation(file);
  if (!module) return [];
  const exported = new Set(checker.getExportsOfModule(module).map(symbol => symbol.getName()));
  return [...SDK_NAMES_IMPORTED].filter(name => !exported.has(name));
}

function declaredRange(manifest: string): ServerApiGap['declared'] {
  const json = readJsonObject(manifest);
  for (const section of DEPENDENCY_SECTIONS) {
    const entries = json?.[section];
    const range = entries && typeof entries === 'object' ? (entries as Record<string, unknown>)[SERVER_PACKAGE] : undefined;
    if (typeof range === 'string') return { manifest, section, range };
  }
  return undefined;
}
