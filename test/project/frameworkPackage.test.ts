import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { fixtureOptionsProject } from './tempProject.js';

/**
 * A framework's own source: its tools' base class asks through the SDK server on behalf of the
 * tools its users write, so no handler of the package reaches the question. In the package of a
 * known framework that is the framework's API (reason framework, with who would have to change);
 * the same code in any other package is a helper no request reaches.
 */
const baseTool = `import type { Server } from '@modelcontextprotocol/server';

export abstract class MCPTool {
  protected server!: Server;

  protected abstract execute(input: Record<string, unknown>): Promise<string>;

  /** Asks the user to confirm; the tools the framework's users write call it from execute(). */
  protected async confirm(message: string): Promise<boolean> {
    const answer = await this.server.elicitInput({
      mode: 'form',
      message,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    return answer.action === 'accept' && answer.content?.ok === true;
  }
}
`;

/** The framework's dispatcher: the tools/call handler it registers for its users' tools, asking on their behalf. */
const dispatcher = `import { McpServer } from '@modelcontextprotocol/server';

export function serve(tools: Map<string, (confirmed: boolean) => string>): McpServer {
  const server = new McpServer({ name: 'framework', version: '1.0.0' });
  server.registerTool('run', {}, async () => {
    const answer = await server.server.elicitInput({ mode: 'form', message: 'Run every tool?', requestedSchema: { type: 'object', properties: {} } });
    return { content: [...tools.values()].map(tool => ({ type: 'text' as const, text: tool(answer.action === 'accept') })) };
  });
  return server;
}
`;

async function verdictIn(packageName: string, file = 'BaseTool.ts', text = baseTool) {
  const dir = fixtureOptionsProject('framework-package', { [file]: text });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: packageName, version: '0.0.1', type: 'module' }));
  const report = await migrate({ cwd: dir, dryRun: true });
  return report.sites.map(s => ({ line: s.line, status: s.status, reason: s.reason, hint: s.hint }));
}

describe("a question in a framework's own package", () => {
  it("is refused as the framework's API where its package.json names a known framework", async () => {
    const [site, ...rest] = await verdictIn('mcp-framework');
    expect(rest).toEqual([]);
    expect(site).toMatchObject({ line: 10, status: 'refused', reason: 'framework' });
    expect(site!.hint).toMatch(/^MCPTool\.confirm\(\) is mcp-framework's own code, which no handler of this package reaches: confirm /);
    expect(site!.hint).toContain("its users' handlers reach this question through mcp-framework's API");
  });

  it('is a helper whose callers are not found in any other package', async () => {
    const [site] = await verdictIn('my-server');
    expect(site).toMatchObject({ line: 10, status: 'refused', reason: 'caller-not-found' });
  });

  it("in the framework's own dispatcher is the framework's too; in any other package the same handler migrates", async () => {
    const [site] = await verdictIn('fastmcp', 'serve.ts', dispatcher);
    expect(site).toMatchObject({ line: 6, status: 'refused', reason: 'framework' });
    expect(site!.hint).toMatch(/^serve\(\) is FastMCP's own code, run for the tools its users write; /);
    expect((await verdictIn('my-server', 'serve.ts', dispatcher))[0]).toMatchObject({ line: 6, status: 'migrated' });
  });
});
