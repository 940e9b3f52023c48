import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { handlerDiff } from '../../src/report/sites.js';
import { fixtureOptionsProject, REPO } from '../project/tempProject.js';

/** What the report says of the calls of a v1 file, which the v1-to-v2 stage rewrote before the MRTR rewrite. */
describe('the report on a v1 file', () => {
  const input = readFileSync(join(REPO, 'fixtures', 'v1-request-locals', 'input.ts'), 'utf8');

  it('names each call and its SDK as the file had them, and diffs each handler from the file as it was', async () => {
    const dir = fixtureOptionsProject('as-read', { 'server.ts': input });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', dependencies: { '@modelcontextprotocol/sdk': '^1.32.0' } }));
    const report = await migrate({ cwd: dir, dryRun: true });
    expect(report.sites.map(s => `${s.line} ${s.api} ${s.sdk} ${s.status}`)).toEqual([
      '31 extra.sendRequest v1 migrated',
      '45 extra.sendRequest v1 migrated',
      '56 server.elicitInput v1 migrated',
    ]);
    const release = report.sites.find(s => s.line === 31)!;
    const diff = handlerDiff(report, release);
    // The before side is the user's text: v1's server.tool(...) and extra.sendRequest(...), not the stage's.
    expect(diff).toContain("-  server.tool('release', 'Release a version after confirmation.', { version: z.string() }, async ({ version }, extra) => {");
    expect(diff).toContain('-    const answer = await extra.sendRequest(request as Parameters<typeof extra.sendRequest>[0], ElicitResultSchema);');
    expect(diff).not.toMatch(/^-.*registerTool/m);
    expect(renderMarkdown(report)).toContain('- Call: `extra.sendRequest` (elicitation, SDK v1)');
  });
});

describe('the to-dos of a migrated site', () => {
  const server = (serving: string[]) => [
    "import { McpServer } from '@modelcontextprotocol/server';",
    ...serving.filter(l => l.startsWith('import')),
    "export const server = new McpServer({ name: 'n', version: '1' });",
    "server.registerTool('go', {}, async (ctx) => {",
    "  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } });",
    "  return { content: [{ type: 'text', text: answer.action }] };",
    '});',
    ...serving.filter(l => !l.startsWith('import')),
    '',
  ].join('\n');
  const todos = async (serving: string[]): Promise<string[]> => {
    const dir = fixtureOptionsProject('todos', { 'server.ts': server(serving) });
    const report = await migrate({ cwd: dir, dryRun: true });
    expect(report.sites.map(s => s.status)).toEqual(['migrated']);
    return report.sites[0]!.todo;
  };
  const SERVE = /^Serve the 2026-07-28 era through serveStdio/;

  it('leave out serving the 2026-07-28 era where the run moved the only serving entry to serveStdio', async () => {
    const list = await todos(["import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';", 'await server.connect(new StdioServerTransport());']);
    expect(list.some(t => SERVE.test(t))).toBe(false);
    expect(list.some(t => t.startsWith('Set MCP_REQUEST_STATE_KEY'))).toBe(true);
  });

  it('keep it where no serving entry was found, or one is left to move by hand', async () => {
    expect((await todos([])).some(t => SERVE.test(t))).toBe(true);
    const custom = ["import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';", 'await server.connect(new StdioServerTransport(process.stdin, process.stdout));'];
    expect((await todos(custom)).some(t => SERVE.test(t))).toBe(true);
  });
});
