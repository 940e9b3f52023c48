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

async function verdictIn(packageName: string) {
  const dir = fixtureOptionsProject('framework-package', { 'BaseTool.ts': baseTool });
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

  it('is a helper no request reaches in any other package', async () => {
    const [site] = await verdictIn('my-server');
    expect(site).toMatchObject({ line: 10, status: 'refused', reason: 'no-live-request' });
  });
});
