import { readFileSync } from 'node:fs';
import path from 'node:path';
import ajvDraft04 from 'ajv-draft-04';
import ajv from 'ajv';
import ajvFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPORT_JSON_SCHEMA, renderJson, renderMarkdown, renderSarif } from '../../src/index.js';
import { summarize } from '../../src/report/summary.js';
import { renderTerminalSummary } from '../../src/report/terminal.js';
import type { RunReport } from '../../src/report/model.js';
import { fixtureDryRunReport, REPO, v1DryRunReport } from './fixture.js';

// CommonJS packages: their classes are the `default` of the module object.
const AjvDraft04 = ajvDraft04.default;
const Ajv = ajv.default;
const addFormats = ajvFormats.default;

let report: RunReport;
beforeAll(async () => {
  report = await v1DryRunReport();
});

function sarifValidator() {
  // The SARIF 2.1.0 schema as shipped by Microsoft's SARIF SDK (draft-04 JSON Schema).
  const schema = JSON.parse(readFileSync(path.join(REPO, 'node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'));
  // The schema's language pattern is not valid with the u flag, which Ajv uses by default.
  const ajv = new AjvDraft04({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv as never);
  return ajv.compile(schema);
}

function jsonValidator() {
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats(ajv);
  return ajv.compile(REPORT_JSON_SCHEMA);
}

describe('--format sarif', () => {
  it('validates against the official SARIF 2.1.0 schema', () => {
    const validate = sarifValidator();
    const sarif = JSON.parse(renderSarif(report));
    expect(validate(sarif), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('has one result per refused or for-review site, at its location', () => {
    const sarif = JSON.parse(renderSarif(report));
    const needing = report.sites.filter(s => s.status !== 'migrated');
    expect(needing.length).toBeGreaterThan(0);
    expect(sarif.runs[0].results).toHaveLength(needing.length);
    const loop = sarif.runs[0].results.find((r: any) => r.ruleId === 'mrtr/refused/loop');
    expect(loop.level).toBe('error');
    expect(loop.locations[0].physicalLocation).toMatchObject({ artifactLocation: { uri: 'src/index.ts', uriBaseId: '%SRCROOT%' }, region: { startLine: expect.any(Number) } });
    const rules = sarif.runs[0].tool.driver.rules.map((r: any) => r.id);
    for (const result of sarif.runs[0].results) expect(rules[result.ruleIndex]).toBe(result.ruleId);
  });
});

describe('--format json', () => {
  it('validates against its documented schema (version 1)', () => {
    const validate = jsonValidator();
    const json = JSON.parse(renderJson(report));
    expect(validate(json), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(json.schemaVersion).toBe(1);
    expect(json.sites.some((s: any) => s.handlerDiff.includes('inputRequired'))).toBe(true);
  });
});

describe('the markdown report', () => {
  it('has the summary, the per-API table and one entry per site', () => {
    const md = renderMarkdown(report);
    expect(md).toMatch(/^# mrtr-migrate report/);
    expect(md).toContain('### By API');
    expect(md).toContain('| `server.elicitInput` | 2 |');
    expect(md.match(/^### \d+\. `src\/index\.ts:\d+:\d+`/gm)).toHaveLength(report.sites.length);
    expect(md).toContain('## package.json');
  });
});

describe('dropped call options', () => {
  it('are named, with what replaces each, in the markdown and json reports', async () => {
    const options = await fixtureDryRunReport('v2-call-options');
    expect(options.sites.map(s => [s.status, s.callOptions])).toEqual([
      ['migrated-for-review', ['timeout', 'relatedRequestId']],
      ['migrated-for-review', ['signal', 'timeout']],
    ]);
    const md = renderMarkdown(options);
    expect(md).toMatch(/^- Note: timeout dropped: there is no per-question wait any more; .*requestState TTL/m);
    expect(md).toMatch(/^- Note: relatedRequestId dropped: the question now travels in the result of the call itself/m);
    expect(md).toMatch(/^- Note: signal dropped: .*cancelling the tool call \(ctx\.mcpReq\.signal\) ends the flow/m);
    const json = JSON.parse(renderJson(options));
    expect(json.sites[0].notes).toEqual([expect.stringMatching(/^timeout dropped/), expect.stringMatching(/^relatedRequestId dropped/)]);
    expect(json.sites[1].notes).toEqual([expect.stringMatching(/^signal dropped/), expect.stringMatching(/^timeout dropped/)]);
  });
});

describe('objects that live in the server', () => {
  it('are listed as such, never as locals to carry, in the markdown and json reports', async () => {
    const refused = await fixtureDryRunReport('refuse-non-json-local');
    const sync = refused.sites.find(s => s.liveLocals.some(l => l.name === 'sync'))!;
    expect(sync.liveLocals).toEqual([{ name: 'sync', type: 'CalendarSync', how: 'server-object', what: 'holds the MCP McpServer (`server`)' }]);
    expect(renderMarkdown(refused)).toContain('sync: CalendarSync (lives in the server, cannot travel: it holds the MCP McpServer (`server`))');
    const validate = jsonValidator();
    const json = JSON.parse(renderJson(refused));
    expect(validate(json), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });
});

describe('a relay', () => {
  it('comes with the pass-through sketch in the markdown and json reports (test/report/relaySketch.test.ts runs it)', async () => {
    const relay = await fixtureDryRunReport('refuse-relay');
    expect(relay.sites.map(s => s.reason)).toEqual(['relay', 'relay']);
    for (const site of relay.sites) expect(site.sketch).toContain('{ allowInputRequired: true }');
    expect(renderMarkdown(relay)).toContain('<details><summary>Sketch: the pass-through, in the tool that calls the upstream</summary>');
    const validate = jsonValidator();
    const json = JSON.parse(renderJson(relay));
    expect(validate(json), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(json.sites[0].sketch).toMatch(/^import \{ isInputRequiredResult, withInputRequired \} from '@modelcontextprotocol\/client';/);
  });
});

describe('// mrtr-migrate-ignore in the reports', () => {
  let ignores: RunReport;
  beforeAll(async () => {
    ignores = await fixtureDryRunReport('v2-ignore-comments');
  });

  it('lists ignored sites with their reason; --check fails only on the comments to fix', () => {
    expect(ignores.sites.map(s => [s.line, s.status, s.reason ?? null])).toEqual([
      [11, 'migrated', null],
      [23, 'ignored', null],
      [33, 'refused', 'blocked-by-sibling'],
      [40, 'ignored', null],
      [50, 'ignored', null],
    ]);
    expect(ignores.sites[1]!.hint).toBe('left as it is by the mrtr-migrate-ignore comment on line 22 (only 2025 clients call this tool (the bridge retires in Q3)).');
    expect(ignores.sites[1]!.todo).toEqual([]);
    expect(ignores.diagnostics.filter(d => d.code?.startsWith('mrtr/ignore-')).map(d => [d.code, d.file, d.line, d.level])).toEqual([
      ['mrtr/ignore-missing-reason', 'src/server.ts', 49, 'error'],
      ['mrtr/ignore-unused', 'src/server.ts', 55, 'error'],
      ['mrtr/ignore-trailing', 'src/server.ts', 57, 'error'],
    ]);
    const summary = summarize(ignores);
    expect(summary.byStatus.ignored).toBe(3);
    expect(summary.refusedByReason).toEqual({ 'blocked-by-sibling': 1 });
    expect(summary.ignoreProblems).toBe(3);
    expect(summary.leftToMigrate).toBe(true);
    const plain = (text: unknown) => String(text);
    const terminal = renderTerminalSummary(ignores, [], [], { red: plain, green: plain, cyan: plain, bold: plain, dim: plain, yellow: plain });
    expect(terminal).toContain('3 ignored (mrtr-migrate-ignore)');
    expect(terminal).toContain('✗ src/server.ts:49: `// mrtr-migrate-ignore` gives no reason');
    expect(terminal).toContain('✗ src/server.ts:55: `// mrtr-migrate-ignore` suppresses nothing: no push-style site is in the statement on line 56');
    expect(renderMarkdown(ignores)).toContain('| Ignored (`mrtr-migrate-ignore`) | 3 |');
  });

  it('json validates; sarif validates, with ignored sites suppressed in source and the comments to fix as errors', () => {
    const validateJson = jsonValidator();
    expect(validateJson(JSON.parse(renderJson(ignores))), JSON.stringify(validateJson.errors, null, 2)).toBe(true);
    const validate = sarifValidator();
    const sarif = JSON.parse(renderSarif(ignores));
    expect(validate(sarif), JSON.stringify(validate.errors, null, 2)).toBe(true);
    const results = sarif.runs[0].results;
    const ignored = results.filter((r: any) => r.ruleId === 'mrtr/ignored');
    expect(ignored).toHaveLength(3);
    expect(ignored[0]).toMatchObject({ level: 'note', suppressions: [{ kind: 'inSource', justification: expect.stringContaining('only 2025 clients call this tool') }] });
    expect(results.filter((r: any) => r.ruleId === 'mrtr/ignore-comment').map((r: any) => [r.level, r.locations[0].physicalLocation.region.startLine])).toEqual([['error', 49], ['error', 55], ['error', 57]]);
  });
});
