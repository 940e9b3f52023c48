/**
 * Programmatic API: `migrate(options)` runs what the CLI runs and returns the report data;
 * the renderers turn it into the CLI's report formats.
 */
export { migrate, type MigrateOptions, type ProgressEvent } from './project/migrate.js';
export { MigrateError } from './project/errors.js';
export { renderMarkdown, renderJson, toJsonReport, REPORT_JSON_SCHEMA, renderSarif, toSarif, renderHtml, summarize, type Summary } from './report/index.js';
export type * from './report/model.js';
