import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analysisWithoutChecker, analyzeFile, RETURNS_INPUT_REQUIRED, type FileAnalysis } from '../../src/analysis/index.js';
import { createFixtureProgram, fixtureFiles, ROOT, snippetProgram, ts } from './harness.js';

/** What a run reports of a file with no sites: its handlers already migrated. */
const alreadyMigrated = (analysis: FileAnalysis, sourceFile: ts.SourceFile): string[] =>
  analysis.handlers
    .filter(h => RETURNS_INPUT_REQUIRED.test(h.fn.getText(sourceFile)))
    .map(h => `${sourceFile.getLineAndCharacterOfPosition(h.fn.getStart(sourceFile)).line + 1} ${h.method} ${h.name ?? ''}`);

describe('analysis without a checker', () => {
  // Every fixture, before and after its rewrite: where the plain analysis is taken, the checker finds
  // no site either and the same handlers already migrated.
  const files = fixtureFiles(join(ROOT, 'fixtures')).filter(f => !f.endsWith('.js') && !f.endsWith('.cjs') && !f.endsWith('.mjs'));
  const program = createFixtureProgram(files);
  // The run's files come parsed with their parents set (ts-morph); a program's get them when bound.
  program.getTypeChecker();
  const taken = files.filter(file => {
    const sourceFile = program.getSourceFile(file)!;
    return analysisWithoutChecker(ts, sourceFile) !== undefined;
  });

  it.each(taken.map(f => [f.slice(ROOT.length + 1)]))('%s: the checker finds what the syntax found', rel => {
    const sourceFile = program.getSourceFile(join(ROOT, rel))!;
    const plain = analysisWithoutChecker(ts, sourceFile)!;
    const typed = analyzeFile({ ts, sourceFile, program, crossFile: true });
    expect(typed.sites).toEqual([]);
    expect(plain.sites).toEqual([]);
    expect(alreadyMigrated(plain, sourceFile)).toEqual(alreadyMigrated(typed, sourceFile));
  });

  it('is taken for migrated files, whatever they asked, and never for a file with a site', () => {
    const rel = taken.map(f => f.slice(ROOT.length + 1));
    // Sampling and roots: the generated code calls inputRequired.createMessage() and inputRequired.listRoots().
    for (const fixture of ['v2-elicit-straight', 'v2-sampling-create-message', 'v2-roots-list', 'v1-send-request', 'v2-loop-until-valid']) {
      expect(rel).toContain(`fixtures/${fixture}/output.ts`);
    }
    for (const file of taken) {
      if (/\/input(\.ts|\/)/.test(file)) expect(analyzeFile({ ts, sourceFile: program.getSourceFile(file)!, program }).sites).toEqual([]);
    }
    expect(rel).not.toContain('fixtures/v2-elicit-straight/input.ts');
    expect(rel).not.toContain('fixtures/v2-ignore-comments/output.ts');
    // A migrated capability guard reads the server's getClientCapabilities() (on 2025 connections)
    // through a parameter typed in place, which the checker does not take for the SDK's server either.
    expect(rel).toContain('fixtures/v2-capability-guard/output.ts');
    expect(rel).toContain('fixtures/v1-capability-guard/output.ts');
    expect(rel).not.toContain('fixtures/v2-capability-guard/input.ts');
  });

  const plain = (text: string): FileAnalysis | undefined => analysisWithoutChecker(ts, snippetProgram(text).sourceFile);
  const header = `import { McpServer, inputRequired } from '@modelcontextprotocol/server';\nimport * as z from 'zod/v4';\n`;

  it('is not taken when the code names a push-style API', () => {
    const asks = [
      `const server = new McpServer({ name: 's', version: '1' });\nserver.registerTool('t', {}, async (ctx) => { await ctx.mcpReq.elicitInput({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } }); return { content: [] }; });`,
      `const server = new McpServer({ name: 's', version: '1' });\nserver.registerTool('t', {}, async (ctx) => { const { sendRequest } = ctx as never; return { content: [] }; });`,
      `export const request = { method: 'elicitation/create', params: {} };`,
      `// Asks for elicitation/create.\nexport async function ask(mcpReq: { send(r: unknown): Promise<unknown> }, r: unknown) { return mcpReq.send(r); }`,
      `type Send = import('@modelcontextprotocol/server').ServerContext['sendRequest'];`,
      `// mrtr-migrate-ignore: asked elsewhere\nexport const x = 1;`,
      `import { ElicitResultSchema as Answer } from '@modelcontextprotocol/core';\nexport const schema = Answer;`,
      // The tasks/* requests a server sends (task-request sites): by method, result schema or v1's experimental task API.
      `export const poll = { method: 'tasks/get', params: { taskId: 't1' } };`,
      `import { GetTaskResultSchema as Status } from '@modelcontextprotocol/core';\nexport const schema = Status;`,
      `export async function status(low: import('@modelcontextprotocol/sdk/server/index.js').Server) { return low.experimental.tasks.getTask('t1'); }`,
    ];
    for (const text of asks) expect(plain(header + text), text).toBeUndefined();
  });

  it('is taken when the words are only in comments, or in code that cannot ask', () => {
    const quiet = [
      `// Was server.server.elicitInput(); elicitation/create is now inputRequired.elicit().\nexport const x = 1;`,
      `export const roots = inputRequired.listRoots();\nexport const sample = inputRequired.createMessage({ messages: [], maxTokens: 1 });`,
      `export const same = (method: string) => method === 'elicitation/create';`,
      `import { ElicitResultSchema } from '@modelcontextprotocol/core';`,
      `export function reply(res: { send(body: string): void }) { res.send('elicitInput is gone'); }`,
    ];
    for (const text of quiet) expect(plain(header + text), text).toBeDefined();
  });

  it('is not taken when a handler that returns inputRequired() is registered on a server only types can tell', () => {
    const text = `${header}import { server } from './elsewhere.js';
server.registerTool('t', { inputSchema: z.object({ a: z.string() }) }, async ({ a }, ctx) => {
  return inputRequired({ inputRequests: { q: inputRequired.elicit({ message: a, requestedSchema: { type: 'object', properties: {} } }) } });
});`;
    expect(plain(text)).toBeUndefined();
    // The same handler on a server the syntax resolves is reported without a checker.
    const local = text.replace(`import { server } from './elsewhere.js';`, `const server = new McpServer({ name: 's', version: '1' });`);
    const analysis = plain(local)!;
    expect(analysis.handlers.map(h => h.name)).toEqual(['t']);
    const { sourceFile, program } = snippetProgram(local);
    expect(alreadyMigrated(analysis, sourceFile)).toEqual(alreadyMigrated(analyzeFile({ ts, sourceFile, program }), sourceFile));
  });
});
