import { readFileSync } from 'node:fs';
import path from 'node:path';
import { IndentationText, QuoteKind, type SourceFile } from 'ts-morph';
import { indentUnit } from '../../transforms/mrtr/text.js';
import { migrateZodV3ToV4 } from 'zod-v3-to-v4/dist/migrate.js';
import { DEPENDENCY_SECTIONS, installedVersion } from './packageJson.js';
import { splitBom } from './sourceText.js';

/**
 * The v2 SDK takes zod >= 4.2 schemas (`~standard.jsonSchema`): a v1 project on zod 3 gets TS2769 on
 * every `registerTool` once upgraded. For such a package the run upgrades zod too: the
 * `zod-v3-to-v4` codemod (ts-morph 28, like ours) on every file of the package that imports zod,
 * before the official transforms, and the zod range in its package.json. A package on zod 4.0 or
 * 4.1 gets the range only.
 */

export interface ZodStatus {
  /** The version the package resolves (node_modules above its manifest), when one is installed. */
  installed: string | undefined;
  /** The range its package.json declares, when it declares zod. */
  declared: string | undefined;
  /** The version the verdict was taken from: the installed one, else the lowest the range allows. */
  version: string;
  /** The package's code is zod 3: its zod files go through zod-v3-to-v4. */
  migrateCode: boolean;
}

const ZOD_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"`]zod(?:\/v3|\/v4)?['"`]/;

/** Whether a source imports zod (its main entry, `zod/v3` or `zod/v4`): the files the zod upgrade concerns. */
export function importsZod(text: string): boolean {
  return ZOD_IMPORT.test(text);
}

/**
 * The zod a package (by its manifest) runs on, when that is older than the v2 SDK takes; undefined
 * when it is recent enough or unknown (neither installed nor declared).
 */
export function outdatedZod(manifest: string): ZodStatus | undefined {
  const declared = declaredZod(manifest);
  const installed = installedVersion(path.dirname(manifest), 'zod');
  const version = installed ?? (declared !== undefined ? lowestOf(declared) : undefined);
  if (version === undefined) return undefined;
  const [major = NaN, minor = 0] = version.split('.').map(Number);
  if (Number.isNaN(major) || major > 4 || (major === 4 && minor >= 2)) return undefined;
  return { installed, declared, version, migrateCode: major < 4 };
}

function declaredZod(manifest: string): string | undefined {
  try {
    const json = JSON.parse(splitBom(readFileSync(manifest, 'utf8')).text) as Record<string, Record<string, unknown> | undefined>;
    for (const section of DEPENDENCY_SECTIONS) {
      const range = json[section]?.['zod'];
      if (typeof range === 'string') return range;
    }
  } catch {
    // an unreadable manifest declares nothing; the manifest phase says so
  }
  return undefined;
}

/**
 * The lowest version a range allows, as far as its numbers show it (`^3.22.4` 3.22, `~3.23` 3.23,
 * `3.x` 3.0, `>=3.20 <5` 3.20); undefined for a tag, a URL or a workspace link.
 */
export function lowestOf(range: string): string | undefined {
  if (/[:/]/.test(range)) return undefined;
  const versions = [...range.matchAll(/(?<![\w.])(\d+)(?:\.(\d+|x|\*))?/g)].map(m => [Number(m[1]), /^\d+$/.test(m[2] ?? '') ? Number(m[2]) : 0] as const);
  versions.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return versions[0] && `${versions[0][0]}.${versions[0][1]}`;
}

/**
 * zod-v3-to-v4 on one file of the project, in place. Returns whether it changed; throws what the
 * codemod threw. What it prints anew (`z.uuid({ error })` for `z.string().uuid({ message })`) is
 * indented and quoted as the file is.
 */
export function migrateZodCode(sourceFile: SourceFile): boolean {
  const before = sourceFile.getFullText();
  const settings = sourceFile.getProject().manipulationSettings;
  const saved = settings.get();
  // The quote of the first module specifier, as the transforms pick it (single where there is none).
  const quote = /^\s*(?:import|export)\b[^'"]*(['"])/m.exec(before)?.[1] === '"' ? QuoteKind.Double : QuoteKind.Single;
  settings.set({ indentationText: indentUnit(before) as IndentationText, quoteKind: quote });
  try {
    migrateZodV3ToV4(sourceFile);
  } finally {
    settings.set(saved);
  }
  return sourceFile.getFullText() !== before;
}
