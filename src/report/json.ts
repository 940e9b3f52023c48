import { unifiedDiff } from './diff.js';
import type { RunReport } from './model.js';
import { handlerDiff } from './sites.js';
import { summarize } from './summary.js';

/**
 * `--format json`: the report as data for scripts, described by REPORT_JSON_SCHEMA (JSON Schema
 * draft-07). `schemaVersion` changes only when a field is removed or changes meaning; new fields
 * may appear in any release. File texts are given as unified diffs, not whole files.
 */
export function toJsonReport(report: RunReport) {
  return {
    schemaVersion: report.schemaVersion,
    tool: report.tool,
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    cwd: report.cwd,
    options: report.options,
    tsconfig: report.tsconfig ?? null,
    summary: summarize(report),
    files: report.files.map(f => ({
      file: f.file,
      changed: f.changed,
      changedBy: f.changedBy,
      written: f.written,
      rolledBack: f.rolledBack,
      newTypeErrors: f.newTypeErrors,
      error: f.error ?? null,
      diff: unifiedDiff(f.file, f.before, f.after),
    })),
    sites: report.sites.map(s => ({
      ...s,
      reason: s.reason ?? null,
      hint: s.hint ?? null,
      handler: s.handler ? { ...s.handler, name: s.handler.name ?? null } : null,
      handlerLines: s.handlerLines ?? null,
      liveLocals: s.liveLocals.map(l => ({ ...l, type: l.type ?? null })),
      handlerDiff: handlerDiff(report, s),
    })),
    alreadyMigrated: report.alreadyMigrated.map(a => ({ ...a, name: a.name ?? null })),
    servingEntries: report.servingEntries,
    diagnostics: report.diagnostics.map(d => ({ level: d.level, source: d.source, code: d.code ?? null, file: d.file ?? null, line: d.line ?? null, message: d.message })),
    packageJsonChanges: report.packageJsonChanges.map(c => ({ file: c.file, added: c.added, removed: c.removed, updated: c.updated, applied: c.applied, diff: unifiedDiff(c.file, c.before, c.after) })),
    formatCommand: report.formatCommand ?? null,
    interrupted: report.interrupted ?? null,
  };
}

export function renderJson(report: RunReport): string {
  return JSON.stringify(toJsonReport(report), null, 2) + '\n';
}

const str = { type: 'string' } as const;
const int = { type: 'integer', minimum: 0 } as const;
const bool = { type: 'boolean' } as const;
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const strings = { type: 'array', items: str } as const;
const statusEnum = { enum: ['migrated', 'migrated-for-review', 'refused', 'rolled-back', 'not-written', 'ignored'] } as const;
const statusCounts = {
  type: 'object',
  required: ['migrated', 'migrated-for-review', 'refused', 'rolled-back', 'not-written', 'ignored'],
  properties: { migrated: int, 'migrated-for-review': int, refused: int, 'rolled-back': int, 'not-written': int, ignored: int },
} as const;

/** The JSON Schema of `--format json`, version 1. */
export const REPORT_JSON_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'urn:mrtr-migrate:report:1',
  title: 'mrtr-migrate report, schema version 1',
  type: 'object',
  required: ['schemaVersion', 'tool', 'startedAt', 'durationMs', 'cwd', 'options', 'tsconfig', 'summary', 'files', 'sites', 'alreadyMigrated', 'servingEntries', 'diagnostics', 'packageJsonChanges', 'formatCommand', 'interrupted'],
  properties: {
    schemaVersion: { const: 1 },
    tool: { type: 'object', required: ['name', 'version'], properties: { name: { const: 'mrtr-migrate' }, version: str } },
    startedAt: { type: 'string', format: 'date-time' },
    durationMs: int,
    cwd: { ...str, description: 'Absolute working directory; every other path is relative to it, with forward slashes.' },
    options: {
      type: 'object',
      required: ['paths', 'dryRun', 'check', 'sdkUpgrade', 'zodUpgrade', 'verify', 'force', 'ignore'],
      properties: { paths: strings, dryRun: bool, check: bool, sdkUpgrade: bool, zodUpgrade: bool, runtime: { enum: ['module', 'package'], description: 'Where migrated files take the requestState codec from (--runtime): a module of the project, or mrtr-migrate/runtime.' }, verify: bool, force: bool, ignore: strings, project: str },
    },
    tsconfig: nullable(str),
    summary: {
      type: 'object',
      required: ['filesScanned', 'filesParsed', 'filesChanged', 'filesWritten', 'filesFailed', 'filesRolledBack', 'sites', 'byStatus', 'refusedByReason', 'byApi', 'alreadyMigrated', 'servingRewritten', 'servingManual', 'servingAlready', 'ignoreProblems', 'leftToMigrate'],
      properties: {
        filesScanned: int, filesParsed: int, filesChanged: int, filesWritten: int, filesFailed: int, filesRolledBack: int, sites: int,
        byStatus: statusCounts,
        refusedByReason: { type: 'object', additionalProperties: int, description: 'Refusal reason (or rolled-back / not-written) to number of sites.' },
        byApi: { type: 'object', additionalProperties: { ...statusCounts, required: [...statusCounts.required, 'total'], properties: { ...statusCounts.properties, total: int } } },
        alreadyMigrated: int, servingRewritten: int, servingManual: int, servingAlready: int,
        ignoreProblems: { ...int, description: 'mrtr-migrate-ignore comments without a reason or that suppress nothing (diagnostics mrtr/ignore-*).' },
        leftToMigrate: { ...bool, description: 'What --check fails on: pending changes, sites not migrated, files that failed, ignore comments to fix.' },
      },
    },
    files: {
      type: 'array',
      items: {
        type: 'object',
        required: ['file', 'changed', 'changedBy', 'written', 'rolledBack', 'newTypeErrors', 'error', 'diff'],
        properties: { file: str, changed: bool, changedBy: strings, written: bool, rolledBack: bool, newTypeErrors: strings, error: nullable(str), diff: { ...str, description: 'Unified diff of the whole file, empty when unchanged.' } },
      },
    },
    sites: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'file', 'line', 'column', 'kind', 'api', 'sdk', 'status', 'reason', 'hint', 'notes', 'handler', 'context', 'controlFlow', 'liveLocals', 'sideEffectsBefore', 'callOptions', 'todo', 'handlerLines', 'handlerDiff'],
        properties: {
          id: str, file: str, line: { type: 'integer', minimum: 1 }, column: { type: 'integer', minimum: 1 },
          kind: { ...str, description: 'elicitation | sampling | roots | url-elicitation | capability-guard | task-request' },
          api: { ...str, description: 'How the push-style call is spelled, e.g. server.elicitInput.' },
          sdk: { enum: ['v1', 'v2'] },
          status: statusEnum,
          reason: { ...nullable(str), description: 'Refusal reason code when refused.' },
          hint: { ...nullable(str), description: 'What to do when refused; for an ignored site, the ignore comment and its reason.' },
          notes: strings,
          handler: nullable({ type: 'object', required: ['method', 'name', 'line'], properties: { method: str, name: nullable(str), line: int } }),
          context: str,
          controlFlow: strings,
          liveLocals: { type: 'array', items: { type: 'object', required: ['name', 'type', 'how'], properties: { name: str, type: nullable(str), how: { enum: ['carry', 'rebuild', 'declare', 'server-object'] }, what: str } } },
          sideEffectsBefore: strings,
          callOptions: strings,
          todo: strings,
          sketch: { ...str, description: 'Code to write by hand instead, where the report has it (a relay\'s pass-through).' },
          handlerLines: nullable({ type: 'object', required: ['start', 'end'], properties: { start: int, end: int } }),
          handlerDiff: str,
        },
      },
    },
    alreadyMigrated: { type: 'array', items: { type: 'object', required: ['file', 'line', 'method', 'name', 'dualEra'], properties: { file: str, line: int, method: str, name: nullable(str), dualEra: bool } } },
    servingEntries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['file', 'line', 'transport', 'status', 'message'],
        properties: { file: str, line: int, transport: { enum: ['stdio', 'streamable-http', 'sse', 'other'] }, status: { enum: ['rewritten', 'manual', 'already'] }, message: str },
      },
    },
    diagnostics: {
      type: 'array',
      items: {
        type: 'object',
        required: ['level', 'source', 'code', 'file', 'line', 'message'],
        properties: { level: { enum: ['error', 'warning', 'info'] }, source: { enum: ['sdk-upgrade', 'mrtr', 'serving', 'verify', 'cli'] }, code: nullable(str), file: nullable(str), line: nullable(int), message: str },
      },
    },
    packageJsonChanges: {
      type: 'array',
      items: { type: 'object', required: ['file', 'added', 'removed', 'updated', 'applied', 'diff'], properties: { file: str, added: strings, removed: strings, updated: { ...strings, description: 'Entries whose range changed, as `zod ^3.25.76 -> ^4.2.0`.' }, applied: bool, diff: str } },
    },
    formatCommand: nullable(str),
    interrupted: { ...nullable(str), description: 'The signal that interrupted the write stage (e.g. SIGINT), or null; files not written then have an error saying so.' },
  },
} as const;
