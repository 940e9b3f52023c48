import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { frameworkOfPackage, type FrameworkName } from '../analysis/frameworks.js';

/**
 * The manifest side of the v1-to-v2 stage (the official codemod does not export its updater): the
 * v1 `@modelcontextprotocol/sdk` dependency goes, the v2 packages the code now imports come in,
 * at the ranges the official codemod writes. Key order, indentation, line endings and the final
 * newline of the user's file are kept: new entries take the old entry's place.
 */

export const V1_PACKAGE = '@modelcontextprotocol/sdk';

/** This package, which the migrated files of a `--runtime package` run import (mrtr-migrate/runtime). */
export const RUNTIME_PACKAGE = 'mrtr-migrate';

/** The ranges `@modelcontextprotocol/codemod` 2.3.1 writes (its `V2_PACKAGE_VERSIONS`); a test keeps them in step. */
export const V2_PACKAGE_RANGES: Readonly<Record<string, string>> = {
  '@modelcontextprotocol/client': '^2.3.1',
  '@modelcontextprotocol/server': '^2.3.1',
  '@modelcontextprotocol/node': '^2.1.1',
  '@modelcontextprotocol/express': '^2.0.2',
  '@modelcontextprotocol/server-legacy': '^2.3.1',
  '@modelcontextprotocol/core': '^2.3.1',
};

/** The range the official codemod writes for zod (its `ZOD_RANGE`): the v2 SDK's own floor. */
export const ZOD_RANGE = '^4.2.0';

/** The sections of a manifest that may declare zod. */
export const DEPENDENCY_SECTIONS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

/** The v2 package an import specifier belongs to (`@modelcontextprotocol/server/stdio` -> server). */
export function v2PackageOf(specifier: string): string | undefined {
  const match = /^(@modelcontextprotocol\/[^/'"`]+)/.exec(specifier);
  return match && match[1]! in V2_PACKAGE_RANGES ? match[1] : undefined;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"`](@modelcontextprotocol\/[^'"`]+)['"`]/g;

/** The v2 packages a source text imports (a text scan: cheap, and good enough for a manifest). */
export function v2PackagesIn(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(SPECIFIER)) {
    const pkg = v2PackageOf(match[1]!);
    if (pkg) found.add(pkg);
  }
  return [...found];
}

/** The version of the copy of `name` Node's lookup finds from `dir` upwards (the first node_modules/name above it). */
export function installedVersion(dir: string, name: string): string | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    const manifest = path.join(at, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) {
      const version = readJsonObject(manifest)?.['version'];
      return typeof version === 'string' ? version : undefined;
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/** A JSON file holding an object (a manifest, a config); undefined when it cannot be read or parsed. */
export function readJsonObject(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The nearest package.json above a file, not above `stop`. */
export function ownerManifest(file: string, stop: string): string | undefined {
  let dir = path.dirname(file);
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (dir === stop || parent === dir) return undefined;
    dir = parent;
  }
}

export interface ManifestUpdate {
  file: string;
  before: string;
  after: string;
  added: string[];
  removed: string[];
  /** Entries whose range changed, as `zod ^3.25.76 -> ^4.2.0`. */
  updated: string[];
}

type Json = Record<string, unknown>;

/**
 * The update for one manifest, or undefined when there is nothing to change: it does not declare
 * the v1 SDK (nothing to swap) and its zod stays. `keepV1`: a source the manifest owns still imports
 * the v1 SDK (it was not written), so the v1 package stays and the v2 packages are added after it.
 * `zodRange`: its zod was upgraded (zodUpgrade.ts), so each zod range it declares becomes ZOD_RANGE,
 * and zod is added where the code imports it without declaring it (it came with the v1 SDK).
 */
export function planManifestUpdate(file: string, used: Set<string>, zodInjected: boolean, keepV1 = false, zodRange = false, serverRange = false, runtimeRange?: string): ManifestUpdate | undefined {
  const raw = readFileSync(file, 'utf8');
  const bom = raw.startsWith('\uFEFF');
  const text = bom ? raw.slice(1) : raw;
  let json: Json;
  try {
    json = JSON.parse(text) as Json;
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${error instanceof Error ? error.message : String(error)}); fix it and run again.`);
  }
  const deps = section(json, 'dependencies');
  const devDeps = section(json, 'devDependencies');
  const inDeps = deps !== undefined && V1_PACKAGE in deps;
  const inDevDeps = devDeps !== undefined && V1_PACKAGE in devDeps;
  const needsRuntime = runtimeRange !== undefined && deps?.[RUNTIME_PACKAGE] === undefined;
  if (!inDeps && !inDevDeps && !zodRange && !serverRange && !needsRuntime) return undefined;

  const declared = (name: string) => (deps !== undefined && name in deps) || (devDeps !== undefined && name in devDeps);
  const added = [...used].filter(pkg => pkg in V2_PACKAGE_RANGES && !declared(pkg)).sort();
  const declaresZod = DEPENDENCY_SECTIONS.some(s => section(json, s)?.['zod'] !== undefined);
  if ((zodInjected || zodRange) && !declaresZod) added.push('zod');
  const updated: string[] = [];
  for (const name of zodRange ? DEPENDENCY_SECTIONS : []) {
    const current = section(json, name);
    const range = current?.['zod'];
    if (typeof range !== 'string' || range === ZOD_RANGE) continue;
    current!['zod'] = ZOD_RANGE;
    updated.push(`zod ${range} -> ${ZOD_RANGE}`);
  }
  // An installed server too old for the rewrite (serverApi.ts): its range moves where it is declared.
  const server = '@modelcontextprotocol/server';
  for (const name of serverRange ? DEPENDENCY_SECTIONS : []) {
    const current = section(json, name);
    const range = current?.[server];
    if (typeof range !== 'string' || range === V2_PACKAGE_RANGES[server]) continue;
    current![server] = V2_PACKAGE_RANGES[server]!;
    updated.push(`${server} ${range} -> ${V2_PACKAGE_RANGES[server]}`);
  }
  const target = inDeps ? 'dependencies' : 'devDependencies';
  const entries = Object.fromEntries(added.map(pkg => [pkg, pkg === 'zod' ? ZOD_RANGE : V2_PACKAGE_RANGES[pkg]!]));

  for (const name of ['dependencies', 'devDependencies'] as const) {
    const current = section(json, name);
    if (!current || !(V1_PACKAGE in current)) continue;
    const replaced: Json = {};
    for (const [key, value] of Object.entries(current)) {
      if (key === V1_PACKAGE) {
        if (keepV1) replaced[key] = value;
        if (name === target) Object.assign(replaced, entries);
      } else {
        replaced[key] = value;
      }
    }
    json[name] = replaced;
  }
  // Without the v1 SDK to take the place of, what is added goes at the end of the dependencies.
  if (!inDeps && !inDevDeps && added.length > 0) json['dependencies'] = { ...deps, ...entries };
  if (needsRuntime) addRuntime(json, runtimeRange, added, updated);
  if ((keepV1 || (!inDeps && !inDevDeps)) && added.length === 0 && updated.length === 0) return undefined;

  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  const crlf = text.includes('\r\n');
  let out = JSON.stringify(json, null, indent);
  if (/\r?\n$/.test(text)) out += '\n';
  if (crlf) out = out.replace(/\n/g, '\r\n');
  return { file, before: raw, after: (bom ? '\uFEFF' : '') + out, added, removed: keepV1 || (!inDeps && !inDevDeps) ? [] : [V1_PACKAGE], updated };
}

/**
 * mrtr-migrate as a dependency of a package whose migrated files import its runtime (`--runtime
 * package`): in `dependencies`, since the server runs it, moved there from `devDependencies`; in
 * name order where the section is in name order (as npm keeps it), at its end otherwise.
 */
function addRuntime(json: Json, range: string, added: string[], updated: string[]): void {
  const dev = section(json, 'devDependencies');
  if (dev?.[RUNTIME_PACKAGE] !== undefined) {
    updated.push(`${RUNTIME_PACKAGE} ${String(dev[RUNTIME_PACKAGE])} in devDependencies -> ${range} in dependencies`);
    delete dev[RUNTIME_PACKAGE];
  } else {
    added.push(RUNTIME_PACKAGE);
  }
  const deps = section(json, 'dependencies') ?? {};
  const names = Object.keys(deps);
  const sorted = names.every((name, i) => i === 0 || names[i - 1]! <= name);
  const entries: Array<[string, unknown]> = [...Object.entries(deps), [RUNTIME_PACKAGE, range]];
  if (sorted) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  json['dependencies'] = Object.fromEntries(entries);
}

/** Whether the manifest declares the v1 SDK in its dependencies or devDependencies (false when it is not JSON). */
export function declaresV1(file: string): boolean {
  try {
    const json = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, '')) as Json;
    return ['dependencies', 'devDependencies'].some(name => section(json, name)?.[V1_PACKAGE] !== undefined);
  } catch {
    return false;
  }
}

function section(json: Json, name: string): Json | undefined {
  const value = json[name];
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/**
 * The MCP framework whose own package holds a file (the nearest package.json is FastMCP's,
 * mcp-framework's, ...), memoised per folder: in the framework's own source, its questions are the
 * framework's own code (src/analysis/frameworks.ts ownCodeContext).
 */
export function frameworkPackages(): (fileName: string) => FrameworkName | undefined {
  const byFolder = new Map<string, FrameworkName | undefined>();
  return fileName => {
    const folder = path.dirname(fileName);
    if (!byFolder.has(folder)) {
      const manifest = ownerManifest(fileName, path.parse(folder).root);
      byFolder.set(folder, frameworkOfPackage(manifest && readJsonObject(manifest)?.['name']));
    }
    return byFolder.get(folder);
  };
}
