import { parseArgs } from 'node:util';
import { MigrateError } from '../project/errors.js';

export type ReportFormat = 'md' | 'json' | 'sarif' | 'html';

export interface CliArgs {
  paths: string[];
  dryRun: boolean;
  check: boolean;
  project: string | undefined;
  ignore: string[];
  sdkUpgrade: boolean;
  runtime: 'module' | 'package';
  zodUpgrade: boolean;
  verify: boolean;
  force: boolean;
  report: string;
  formats: ReportFormat[];
  progress: boolean;
  help: boolean;
  version: boolean;
  printJsonSchema: boolean;
}

export const USAGE = `Usage: mrtr-migrate [paths or globs ...] [options]

Moves MCP servers from push-style elicitation / sampling / roots requests to the
2026-07-28 protocol's multi round-trip requests. Default path: the current folder.

Options:
  -d, --dry-run           write nothing; print a unified diff of every change
      --check             write nothing; exit 1 when anything is left to migrate
                          or any site is refused (for CI)
  -p, --project <file>    the tsconfig to use (default: the nearest tsconfig.json)
      --ignore <glob>     skip more files (gitignore syntax, repeatable)
      --no-sdk-upgrade    skip the official v1-to-v2 stage and package.json update
      --no-zod-upgrade    in that stage, leave zod 3 code and zod ranges older than
                          the v2 SDK takes (>= 4.2) as they are
      --runtime <where>   where migrated files take the requestState codec from:
                          module (default) a requestState.ts written into the
                          project; package: mrtr-migrate/runtime, added to the
                          dependencies of their package.json
      --no-verify         do not type-check and roll back rewrites that add errors
      --force             write even when the git work tree has uncommitted changes
      --report <path>     where to write the report (default: mrtr-migrate-report.md),
                          in the format its extension names (.json, .sarif, .html)
      --format <formats>  also write json, sarif and/or html next to the report
                          (comma-separated or repeated); md is always written
      --no-progress       no progress output on stderr
      --print-json-schema print the JSON Schema of --format json and exit
  -h, --help              show this help
  -v, --version           show the version

  mrtr-migrate merge-reports <report.json ...> [--output <file>] [--root <folder>]
                          merge the --format json reports of several runs (one per
                          package of a monorepo) into one; see merge-reports --help

Examples:
  mrtr-migrate --dry-run ./src              see the diff; nothing is written
  mrtr-migrate ./src                        migrate, then review with git diff
  mrtr-migrate --check --format sarif       CI: exit 1 while anything is left
  mrtr-migrate packages/api -p packages/api/tsconfig.build.json
  mrtr-migrate --report out/mrtr.json       the report as JSON (and out/mrtr.md)
  mrtr-migrate merge-reports packages/*/mrtr-migrate-report.json -o all.json

Exit codes: 0 the run completed; 3 it completed, but some files could not be
read, parsed or written (listed with the cause); 1 with --check when anything is
left to migrate or refused; 2 the run could not be done, or with --check the
tsconfig cannot be read as written (the cause is printed on one line); 130 / 143
interrupted by SIGINT / SIGTERM while writing (the report says what was written).
`;

const FORMATS: readonly ReportFormat[] = ['md', 'json', 'sarif', 'html'];

export function parseCliArgs(argv: string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        'dry-run': { type: 'boolean', short: 'd' },
        check: { type: 'boolean' },
        project: { type: 'string', short: 'p' },
        ignore: { type: 'string', multiple: true },
        'no-sdk-upgrade': { type: 'boolean' },
        'no-zod-upgrade': { type: 'boolean' },
        'no-verify': { type: 'boolean' },
        runtime: { type: 'string' },
        force: { type: 'boolean' },
        report: { type: 'string' },
        format: { type: 'string', multiple: true },
        'no-progress': { type: 'boolean' },
        'no-color': { type: 'boolean' },
        color: { type: 'boolean' },
        'print-json-schema': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    throw new MigrateError(`${error instanceof Error ? error.message.replace(/\.$/, '') : String(error)}; see mrtr-migrate --help.`);
  }
  const v = parsed.values;
  const formats = new Set<ReportFormat>(['md']);
  for (const item of (v.format ?? []).flatMap(f => f.split(','))) {
    const format = item.trim().toLowerCase() === 'markdown' ? 'md' : (item.trim().toLowerCase() as ReportFormat);
    if (!FORMATS.includes(format)) throw new MigrateError(`--format ${item} is not a report format; use md, json, sarif or html.`);
    formats.add(format);
  }
  const runtime = v.runtime ?? 'module';
  if (runtime !== 'module' && runtime !== 'package') throw new MigrateError(`--runtime ${runtime} is not a runtime; use module (a requestState module in the project) or package (mrtr-migrate/runtime).`);
  if (v.report !== undefined && v.report.trim() === '') throw new MigrateError('--report needs a file path.');
  return {
    paths: parsed.positionals.length > 0 ? parsed.positionals : ['.'],
    dryRun: v['dry-run'] ?? false,
    check: v.check ?? false,
    project: v.project,
    ignore: v.ignore ?? [],
    sdkUpgrade: !v['no-sdk-upgrade'],
    runtime,
    zodUpgrade: !v['no-zod-upgrade'],
    verify: !v['no-verify'],
    force: v.force ?? false,
    report: v.report ?? 'mrtr-migrate-report.md',
    formats: [...formats],
    progress: !v['no-progress'],
    help: v.help ?? false,
    version: v.version ?? false,
    printJsonSchema: v['print-json-schema'] ?? false,
  };
}
