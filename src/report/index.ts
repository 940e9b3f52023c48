export type * from './model.js';
export { renderMarkdown } from './markdown.js';
export { renderJson, toJsonReport, REPORT_JSON_SCHEMA } from './json.js';
export { renderSarif, toSarif } from './sarif.js';
export { renderHtml } from './html.js';
export { renderDiffs, renderTerminalSummary } from './terminal.js';
export { summarize, type Summary } from './summary.js';
