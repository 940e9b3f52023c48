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
  /** The specifiers mapped, with the version they were mapped to. */
  borrowed: { specifier: string; version: string | undefined }[];
  /** Specifiers neither the project nor mrtr-migrate can resolve. */
  missing: string[];
}

export function sdkTypeFallback(projectDir: string, options: ts.CompilerOptions): SdkTypeFallback {
  const fromProject = path.join(projectDir, '__mrtr_migrate_probe__.ts');
  const own = ownRoot();
  const fromOwn = own ? path.join(own, '__mrtr_migrate_probe__.ts') : undefined;
  const bundler: ts.CompilerOptions = { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
  const result: SdkTypeFallback = { paths: {}, borrowed: [], missing: [] };
  for (const specifier of SDK_ENTRY_POINTS) {
    if (options.paths?.[specifier]) continue;
    const mine = ts.resolveModuleName(specifier, fromProject, options, ts.sys, undefined, undefined, ts.ModuleKind.ESNext).resolvedModule;
    if (mine) continue;
    const theirs = fromOwn ? ts.resolveModuleName(specifier, fromOwn, bundler, ts.sys).resolvedModule : undefined;
    if (!theirs) {
      result.missing.push(specifier);
      continue;
    }
    result.paths[specifier] = [theirs.resolvedFileName];
    result.borrowed.push({ specifier, version: packageVersionOf(theirs.resolvedFileName) });
  }
  return result;
}

/**
 * A package whose zod the run upgrades (zodUpgrade.ts) still has zod 3 installed until the user
 * installs again: its rewritten code is checked against mrtr-migrate's own zod 4, as the SDK's is.
 */
const ZOD_ENTRY_POINTS = ['zod', 'zod/v4', 'zod/v4/core', 'zod/mini'];

export function zodTypePaths(options: ts.CompilerOptions): Record<string, string[]> {
  const own = ownRoot();
  if (!own) return {};
  const bundler: ts.CompilerOptions = { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
  const paths: Record<string, string[]> = {};
  for (const specifier of ZOD_ENTRY_POINTS) {
    if (options.paths?.[specifier]) continue;
    const resolved = ts.resolveModuleName(specifier, path.join(own, '__mrtr_migrate_probe__.ts'), bundler, ts.sys).resolvedModule;
    if (resolved) paths[specifier] = [resolved.resolvedFileName];
  }
  return paths;
}

function ownRoot(): string | undefined {
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

function packageVersionOf(file: string): string | undefined {
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
