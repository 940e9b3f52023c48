import { relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FileAnalysis, Site } from '../../src/analysis/index.js';
import { readExpectations, verdictNotation } from '../helpers/expectations.js';
import { analyzeTyped, analyzeUntyped, createFixtureProgram, FIXTURES, fixtureFiles, isJavaScript, ts } from './harness.js';

/**
 * Every file under fixtures/analysis is analysed twice: without a checker (a bare parse, as a lint run
 * without type information does) and with one program over all fixtures (as the codemod and typed
 * linting do). The reported (line, kind) pairs must be exactly the annotated ones, and each verdict the
 * annotated verdict for that mode.
 */

const files = fixtureFiles();
const name = (file: string): string => relative(FIXTURES, file);

let program: ts.Program;
const typedResults = new Map<string, FileAnalysis>();

beforeAll(() => {
  program = createFixtureProgram(files.filter(f => !isJavaScript(f)));
});

function typed(file: string): FileAnalysis {
  let result = typedResults.get(file);
  if (!result) typedResults.set(file, (result = analyzeTyped(program, file)));
  return result;
}

/** `line kind verdict` rows, sorted, so a failure shows a readable diff. */
function rows(sites: { line: number; kind: string; verdict: string }[]): string[] {
  return sites.map(s => `${s.line} ${s.kind} ${s.verdict}`).sort((a, b) => parseInt(a, 10) - parseInt(b, 10) || a.localeCompare(b));
}

function actualRows(sites: Site[]): string[] {
  return rows(sites.map(s => ({ line: s.line, kind: s.kind, verdict: verdictNotation(s.verdict) })));
}

it('finds the fixture files', () => {
  expect(files.length).toBeGreaterThanOrEqual(15);
  for (const ext of ['.ts', '.js', '.mjs', '.cjs']) expect(files.some(f => f.endsWith(ext)), ext).toBe(true);
});

describe.each(files.map(file => [name(file), file] as const))('%s', (_, file) => {
  const expectations = readExpectations(file);

  it('is annotated', () => {
    expect(expectations.sites.length + expectations.none.length).toBeGreaterThan(0);
  });

  it('untyped: reports exactly the annotated sites, with the untyped verdicts', () => {
    const analysis = analyzeUntyped(file);
    expect(analysis.typed).toBe(false);
    expect(actualRows(analysis.sites)).toEqual(rows(expectations.sites.map(e => ({ line: e.line, kind: e.kind, verdict: e.untyped }))));
    for (const line of expectations.none) expect(analysis.sites.filter(s => s.line === line), `line ${line}`).toEqual([]);
  });

  it('typed: reports exactly the annotated sites, with the typed verdicts', () => {
    const analysis = typed(file);
    // JavaScript is outside the program (allowJs is off): the analysis runs without a checker there.
    expect(analysis.typed).toBe(!isJavaScript(file));
    expect(actualRows(analysis.sites)).toEqual(rows(expectations.sites.map(e => ({ line: e.line, kind: e.kind, verdict: e.typed }))));
    for (const line of expectations.none) expect(analysis.sites.filter(s => s.line === line), `line ${line}`).toEqual([]);
  });

  it('sites are reported on the node the annotation names', () => {
    for (const site of typed(file).sites) {
      const text = site.node.getText();
      if (site.kind === 'url-elicitation' && site.api === 'UrlElicitationRequiredError') expect(text.startsWith('new ')).toBe(true);
      else expect(ts.isCallExpression(site.node)).toBe(true);
      if (site.kind === 'capability-guard') expect(text).toMatch(/getClientCapabilities\(\)$/);
      expect(site.id).toBe(`${site.file}:${site.line}:${site.column}`);
    }
  });

  it('plans hold exactly the handlers whose questions all migrate', () => {
    const analysis = typed(file);
    const planned = new Set(analysis.plans.flatMap(p => p.questions.map(q => q.site)));
    for (const site of analysis.sites) {
      const question = site.kind === 'elicitation' || site.kind === 'sampling' || site.kind === 'roots';
      // A migrating question in a helper is asked by every handler that calls it; its helper is split.
      const reachable = site.context.type === 'handler' || site.context.type === 'helper';
      expect(planned.has(site), `${name(file)}:${site.line}`).toBe(question && reachable && site.verdict.kind === 'migrate');
      if (site.context.type === 'helper') {
        expect(analysis.helperSplits.some(s => s.fn === (site.context as { helper: unknown }).helper), `${name(file)}:${site.line}`).toBe(site.verdict.kind === 'migrate');
      }
    }
    for (const plan of analysis.plans) {
      expect(plan.constructions.length).toBeGreaterThan(0);
      const starts = plan.questions.map(q => q.flow.awaited.getStart());
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
    }
  });
});

describe('fixtures as code', () => {
  it('every fixture parses', () => {
    for (const file of files) {
      const sourceFile = ts.createSourceFile(file, ts.sys.readFile(file)!, ts.ScriptTarget.Latest, true,
        isJavaScript(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
      const diagnostics = (sourceFile as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
      expect(diagnostics.map(d => ts.flattenDiagnosticMessageText(d.messageText, ' ')), name(file)).toEqual([]);
    }
  });

  it('TypeScript fixtures type-check against the installed SDKs', () => {
    const messages: string[] = [];
    for (const file of files.filter(f => !isJavaScript(f))) {
      const sourceFile = program.getSourceFile(file)!;
      for (const d of [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)]) {
        const line = sourceFile.getLineAndCharacterOfPosition(d.start ?? 0).line + 1;
        messages.push(`${name(file)}:${line} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
      }
    }
    expect(messages).toEqual([]);
  });

  it('the SDK declarations were resolved from node_modules, not stubbed', () => {
    const sdkFiles = program.getSourceFiles().map(f => f.fileName).filter(f => f.includes('/node_modules/@modelcontextprotocol/'));
    expect(sdkFiles.some(f => f.includes('/@modelcontextprotocol/sdk/'))).toBe(true);
    expect(sdkFiles.some(f => f.includes('/@modelcontextprotocol/server/'))).toBe(true);
  });
});

describe('fixture coverage', () => {
  const all = (): Site[] => files.flatMap(file => typed(file).sites);

  it('covers every push-style API of MRTR.md section 2 in each SDK generation where it exists', () => {
    const seen = new Set(all().map(s => `${s.sdk} ${s.api}`));
    const required = [
      'v1 server.elicitInput', 'v2 server.elicitInput',
      'v1 server.createMessage', 'v2 server.createMessage',
      'v1 server.listRoots', 'v2 server.listRoots',
      'v1 server.request', 'v2 server.request',
      'v1 extra.sendRequest',
      'v2 ctx.mcpReq.elicitInput', 'v2 ctx.mcpReq.requestSampling', 'v2 ctx.mcpReq.send',
      'v1 UrlElicitationRequiredError', 'v2 UrlElicitationRequiredError',
      'v1 getClientCapabilities', 'v2 getClientCapabilities',
    ];
    expect(required.filter(r => !seen.has(r))).toEqual([]);
    const sendRequestKinds = new Set(all().filter(s => s.api === 'extra.sendRequest').map(s => s.kind));
    expect([...sendRequestKinds].sort()).toEqual(['elicitation', 'roots', 'sampling']);
    const sendKinds = new Set(all().filter(s => s.api === 'ctx.mcpReq.send').map(s => s.kind));
    expect([...sendKinds].sort()).toEqual(['elicitation', 'roots', 'sampling']);
  });

  it('covers every handler registration and the three MRTR methods', () => {
    const handlers = files.flatMap(file => typed(file).handlers);
    const registrations = new Set(handlers.map(h => `${h.sdk} ${h.registration}`));
    for (const r of ['v1 tool', 'v1 registerTool', 'v1 prompt', 'v1 registerPrompt', 'v1 resource', 'v1 registerResource',
      'v1 setRequestHandler', 'v2 registerTool', 'v2 registerPrompt', 'v2 registerResource', 'v2 setRequestHandler']) {
      expect(registrations, r).toContain(r);
    }
    const methods = new Set(all().flatMap(s => (s.context.type === 'handler' ? [`${s.sdk} ${s.context.handler.method}`] : [])));
    for (const m of ['v1 tools/call', 'v1 prompts/get', 'v1 resources/read', 'v2 tools/call', 'v2 prompts/get', 'v2 resources/read',
      'v1 resources/list', 'v2 tools/list']) {
      expect(methods, m).toContain(m);
    }
  });

  it('covers every control-flow class and every place without a live request', () => {
    const tags = new Set(all().flatMap(s => s.controlFlow));
    for (const tag of ['straight-line', 'if', 'if-condition', 'try', 'catch', 'finally', 'switch-case', 'loop', 'nested-callback', 'parallel', 'conditional-expression']) {
      expect(tags, tag).toContain(tag);
    }
    const contexts = new Set(all().map(s => (s.context.type === 'no-request' ? s.context.why : s.context.type)));
    for (const c of ['handler', 'helper', 'startup', 'oninitialized', 'notification-handler', 'detached-task', 'caller-not-found']) {
      expect(contexts, c).toContain(c);
    }
    // Refusal reasons in either mode (unknown-local-type mostly shows up without a checker).
    const untyped = files.flatMap(f => analyzeUntyped(f).sites);
    const reasons = new Set([...all(), ...untyped].flatMap(s => (s.verdict.kind === 'refuse' ? [s.verdict.reason] : [])));
    for (const r of ['non-json-local', 'unknown-local-type', 'no-live-request', 'caller-not-found', 'fire-and-forget', 'detached-task', 'handler-kind',
      'loop', 'parallel', 'nested-callback', 'server-not-found', 'blocked-by-sibling', 'unsupported-construct']) {
      expect(reasons, r).toContain(r);
    }
    expect(all().some(s => s.verdict.kind === 'migrate' && s.verdict.review)).toBe(true);
  });
});
