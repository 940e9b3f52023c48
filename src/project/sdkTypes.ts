import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ts } from 'ts-morph';

/**
 * The migrated code imports `@modelcontextprotocol/server`, which a v1 project that was just
 * upgraded has not installed yet. So that the type check still checks the rewrite (rather than
 * seeing `any` everywhere, or "cannot find module" errors), SDK entry points the project cannot
 * resolve are mapped, by exact specifier, to the copies installed with mrtr-migrate itself.
 */
const SDK_ENTRY_POINTS = [
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/server/stdio',
  '@modelcontextprotocol/client',
  '@modelcontextprotocol/client/stdio',
  '@modelcontextprotocol/core',
  // Where the official stage moves a Node HTTP transport (NodeStreamableHTTPServerTransport).
  '@modelcontextprotocol/node',
];

export interface SdkTypeFallback {
  /** `paths` entries to add to the compiler options. */
  paths: Record<string, string[]>;
  /** The specifiers mapped, with the version they were mapped to; `replaced`: the project's own copy is too old (serverApi.ts). */
  borrowed: { specifier: string; version: string | undefined; replaced?: boolean }[];
  /** Specifiers neither the project nor mrtr-migrate can resolve. */
  missing: string[];
}

/** `replace`: entry points the project has, in a version too old for the rewrite: mapped all the same. */
export function sdkTypeFallback(projectDir: string, options: ts.CompilerOptions, replace: readonly string[] = []): SdkTypeFallback {
  const fromProject = path.join(projectDir, PROBE);
  const result: SdkTypeFallback = { paths: {}, borrowed: [], missing: [] };
  for (const specifier of SDK_ENTRY_POINTS) {
    if (options.paths?.[specifier]) continue;
    const replaced = replace.includes(specifier);
    const mine = ts.resolveModuleName(specifier, fromProject, options, ts.sys, undefined, undefined, ts.ModuleKind.ESNext).resolvedModule;
    if (mine && !replaced) continue;
    const theirs = resolveOwn(specifier);
    if (!theirs) {
      result.missing.push(specifier);
      continue;
    }
    result.paths[specifier] = [theirs];
    result.borrowed.push({ specifier, version: packageVersionOf(theirs), ...(mine ? { replaced: true } : {}) });
  }
  return result;
}

/** A file name beside which a module is resolved as it would be from that folder. */
export const PROBE = '__mrtr_migrate_probe__.ts';

/** The declarations a specifier resolves to from mrtr-migrate's own install (bundler resolution). */
export function resolveOwn(specifier: string): string | undefined {
  const own = ownRoot();
  const bundler: ts.CompilerOptions = { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
  return own ? ts.resolveModuleName(specifier, path.join(own, PROBE), bundler, ts.sys).resolvedModule?.resolvedFileName : undefined;
}

/**
 * A package whose zod the run upgrades (zodUpgrade.ts) still has zod 3 installed until the user
 * installs again: its rewritten code is checked against mrtr-migrate's own zod 4, as the SDK's is.
 */
const ZOD_ENTRY_POINTS = ['zod', 'zod/v4', 'zod/v4/core', 'zod/mini'];

export function zodTypePaths(options: ts.CompilerOptions): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const specifier of ZOD_ENTRY_POINTS) {
    const resolved = options.paths?.[specifier] ? undefined : resolveOwn(specifier);
    if (resolved) paths[specifier] = [resolved];
  }
  return paths;
}

export function ownRoot(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'mrtr-migrate') return dir;
      } catch {
        // keep looking upwards
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function packageVersionOf(file: string): string | undefined {
  let dir = path.dirname(file);
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const json = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
        if (json.name) return json.version;
      } catch {
        return undefined;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** A "cannot find module" error about an SDK package: not the rewrite's fault, the install's. */
export function isMissingSdkModule(code: number, message: string): boolean {
  return (code === 2307 || code === 2792 || code === 7016) && message.includes('@modelcontextprotocol/');
}
