import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { REPO, tempProject } from './tempProject.js';

/** A v1 project with one server file; `handler` is the body of its `ping` tool. */
function v1Project(prefix: string, context: string, handler: string): string {
  const dir = tempProject(prefix);
  const tsconfig = JSON.parse(readFileSync(join(REPO, 'fixtures', 'tsconfig.json'), 'utf8')) as { include: string[] };
  tsconfig.include = ['*.ts'];
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', dependencies: { '@modelcontextprotocol/sdk': '^1.32.0' } }));
  writeFileSync(join(dir, 'server.ts'), `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const fallback = new AbortController().signal;
export const server = new McpServer({ name: 's', version: '1.0.0' });
server.tool('ping', { who: z.string() }, async ({ who }, ${context}) => {
${handler}
});
`);
  return dir;
}

// The v1 files' own type errors come from a program made only when an upgraded file has errors
// (phases/upgrade.ts): the project before the rewrite with the v1 files swapped back as read.
describe('type errors of the official v1-to-v2 stage', () => {
  it('keep a file on v1 when its upgrade adds them in a handler', async () => {
    const dir = v1Project('v1-broken', '{ sendRequest, signal = fallback }', `  const answer = await sendRequest({ method: 'roots/list' }, z.object({ roots: z.array(z.object({ uri: z.string() })) }));
  return { content: [{ type: 'text', text: \`\${who} \${answer.roots.length} \${signal.aborted}\` }] };`);
    const report = await migrate({ cwd: dir, dryRun: true });
    const file = report.files.find(f => f.file === 'server.ts')!;
    expect(file.rolledBack).toBe(true);
    // The code stays as read; the question it keeps gets its marker, and the statement with the
    // upgrade's error one with the error: the only edits.
    const lines = file.before.split('\n');
    lines.splice(6, 0, '  // mrtr-migrate: unsupported-construct — the handler destructures its context parameter; the rewrite needs the whole context (name it, e.g. `ctx`).');
    lines.splice(5, 0, "// mrtr-migrate: upgrade-error — TS2339 on v2: Property 'sendRequest' does not exist on type 'ServerContext'.");
    expect(file.after).toBe(lines.join('\n'));
    expect(file.newTypeErrors[0]).toBe("line 6: TS2339: Property 'sendRequest' does not exist on type 'ServerContext'.");
    expect(report.diagnostics.map(d => d.code)).toContain('sdk-upgrade/rolled-back');
  });

  it('do not count the errors the file had on v1', async () => {
    // The same error before and after the upgrade: not one the upgrade added, so the upgrade stays.
    const dir = v1Project('v1-own-error', 'extra', `  const count: number = who;
  return { content: [{ type: 'text', text: \`\${count} \${extra.signal.aborted}\` }] };`);
    const report = await migrate({ cwd: dir, dryRun: true });
    const file = report.files.find(f => f.file === 'server.ts')!;
    expect(file.rolledBack).toBe(false);
    expect(file.after).toContain("from '@modelcontextprotocol/server'");
    expect(file.newTypeErrors).toEqual([]);
    expect(report.diagnostics.map(d => d.code)).not.toContain('sdk-upgrade/rolled-back');
  });
});

describe('files that hand SDK objects to each other', () => {
  it('stay on v1 together: a file importing one kept on v1 is held back with it when v2 would break the hand-over', async () => {
    const dir = v1Project('v1-held-back', '{ sendRequest, signal = fallback }', `  const answer = await sendRequest({ method: 'roots/list' }, z.object({ roots: z.array(z.object({ uri: z.string() })) }));
  return { content: [{ type: 'text', text: \`\${who} \${answer.roots.length} \${signal.aborted}\` }] };`);
    // A second module builds nothing of its own: it registers one more tool on the server it is handed.
    writeFileSync(join(dir, 'extra.ts'), `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { server } from './server.js';

export function registerExtra(target: McpServer): void {
  target.tool('pong', async () => ({ content: [{ type: 'text', text: 'pong' }] }));
}
registerExtra(server);
`);
    const report = await migrate({ cwd: dir, dryRun: true });
    const server = report.files.find(f => f.file === 'server.ts')!;
    const extra = report.files.find(f => f.file === 'extra.ts')!;
    expect(server.rolledBack).toBe(true);
    expect(extra.after).toBe(extra.before);
    const held = report.diagnostics.find(d => d.file === 'extra.ts' && d.code === 'sdk-upgrade/rolled-back');
    expect(held?.message).toMatch(/^server\.ts stays on the v1 SDK, and this file, which exchanges SDK objects with it, would get \d+ type error\(s\) on v2 \(line 7: TS2345/);
  });

  it('a file that only shares a module with it keeps its upgrade', async () => {
    const dir = v1Project('v1-not-held', '{ sendRequest, signal = fallback }', `  const answer = await sendRequest({ method: 'roots/list' }, z.object({ roots: z.array(z.object({ uri: z.string() })) }));
  return { content: [{ type: 'text', text: \`\${who} \${answer.roots.length} \${signal.aborted}\` }] };`);
    writeFileSync(join(dir, 'other.ts'), `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { fallback } from './server.js';

export const other = new McpServer({ name: 'o', version: '1.0.0' });
other.tool('aborted', async () => ({ content: [{ type: 'text', text: String(fallback.aborted) }] }));
`);
    writeFileSync(join(dir, 'server.ts'), readFileSync(join(dir, 'server.ts'), 'utf8').replace('const fallback', 'export const fallback'));
    const report = await migrate({ cwd: dir, dryRun: true });
    expect(report.files.find(f => f.file === 'server.ts')!.rolledBack).toBe(true);
    const other = report.files.find(f => f.file === 'other.ts')!;
    expect(other.after).toContain("from '@modelcontextprotocol/server'");
    expect(report.diagnostics.filter(d => d.file === 'other.ts' && d.code === 'sdk-upgrade/rolled-back')).toEqual([]);
  });
});

// The invariant: no file of the project gets a type error from the run, not even one the run skipped.
describe('files that import a changed file', () => {
  it('hold it back as read when its change would give them type errors, though they name no SDK API', async () => {
    const dir = v1Project('importer-held', 'extra', `  await notifyDone(extra, who);
  return { content: [{ type: 'text', text: who }] };`);
    writeFileSync(join(dir, 'server.ts'), readFileSync(join(dir, 'server.ts'), 'utf8')
      .replace("import { z } from 'zod';", "import { z } from 'zod';\nimport { notifyDone } from './notify.js';"));
    writeFileSync(join(dir, 'context.ts'), `import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
`);
    // Skipped by the run (no SDK name, no question): it reads a member the v2 context does not have.
    writeFileSync(join(dir, 'notify.ts'), `import type { Extra } from './context.js';

export async function notifyDone(extra: Extra, who: string): Promise<void> {
  await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: \`done for \${who}\` } });
}
`);
    const report = await migrate({ cwd: dir, dryRun: true });
    const context = report.files.find(f => f.file === 'context.ts')!;
    expect(context.after).toBe(context.before);
    const held = report.diagnostics.find(d => d.file === 'context.ts' && d.code === 'sdk-upgrade/rolled-back');
    expect(held?.message).toMatch(/^notify\.ts, which imports this file, would get 1 type error\(s\) \(line 4: TS2339: Property 'sendNotification' does not exist on type 'ServerContext'/);
    // server.ts hands its context to notify.ts, which takes the v1 type: it stays on v1 with context.ts.
    const server = report.files.find(f => f.file === 'server.ts')!;
    expect(server.after).toBe(server.before);
    expect(report.diagnostics.find(d => d.file === 'server.ts' && d.code === 'sdk-upgrade/rolled-back')?.message)
      .toMatch(/^context\.ts stays on the v1 SDK, and this file, which exchanges SDK objects with it, would get 1 type error\(s\) on v2 \(line 8: TS2345: Argument of type .ServerContext. is not assignable to parameter of type .Extra./);
  });
});

/** An empty v1 project of files at its root, with the fixtures' compiler options. */
function v1FlatProject(prefix: string): string {
  const dir = tempProject(prefix);
  const tsconfig = JSON.parse(readFileSync(join(REPO, 'fixtures', 'tsconfig.json'), 'utf8')) as { include: string[] };
  tsconfig.include = ['*.ts'];
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', dependencies: { '@modelcontextprotocol/sdk': '^1.32.0' } }));
  return dir;
}

describe('a file held back on v1 because of another', () => {
  it('keeps its code byte for byte and gets a marker above each question, naming the file and line that keep it on v1', async () => {
    const dir = v1FlatProject('v1-held-marker');
    const server = [
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { registerDeploy } from './deploy.js';",
      '',
      "export const server = new McpServer({ name: 'ops', version: '1.0.0' });",
      "if (server.experimental) console.error('experimental');",
      'registerDeploy(server);',
      '',
    ];
    writeFileSync(join(dir, 'server.ts'), server.join('\n'));
    const deploy = [
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { z } from 'zod';",
      '',
      'export function registerDeploy(server: McpServer): void {',
      "  server.tool('deploy', 'Deploy a service.', { service: z.string() }, async ({ service }) => {",
      '    const answer = await server.server.elicitInput({',
      '      message: `Deploy ${service}?`,',
      "      requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } } },",
      '    });',
      "    return { content: [{ type: 'text', text: `${service}: ${answer.action}` }] };",
      '  });',
      '}',
      '',
    ];
    writeFileSync(join(dir, 'deploy.ts'), deploy.join('\n'));
    const report = await migrate({ cwd: dir });
    expect(report.sites.map(s => `${s.id} ${s.line} ${s.status}`)).toEqual(['deploy.ts:6:26 6 rolled-back']);
    const held = report.diagnostics.find(d => d.file === 'server.ts' && d.code === 'sdk-upgrade/rolled-back');
    expect(held?.message).toMatch(/^the v1-to-v2 upgrade of this file added 1 type error\(s\) \(line 5: TS2339/);
    const marked = [...deploy];
    marked.splice(5, 0, '    // mrtr-migrate: rolled-back — server.ts:5 stays on the v1 SDK, and this file exchanges SDK objects with it, so it stays on v1 too');
    expect(readFileSync(join(dir, 'deploy.ts'), 'utf8')).toBe(marked.join('\n'));
    // The file held back by its own upgrade error gets a marker above the statement with the error, its only edit.
    const errorMarked = [...server];
    errorMarked.splice(4, 0, "// mrtr-migrate: upgrade-error — TS2339 on v2: Property 'experimental' does not exist on type 'McpServer'.");
    expect(readFileSync(join(dir, 'server.ts'), 'utf8')).toBe(errorMarked.join('\n'));
    // A second run finds the markers and writes nothing.
    const again = await migrate({ cwd: dir });
    expect(again.files.filter(f => f.written).map(f => f.file)).toEqual([]);
  });
});

describe('a file held back by its own upgrade errors', () => {
  it('gets one marker above each statement or class member with one, never inside a literal', async () => {
    const dir = v1FlatProject('v1-error-markers');
    const probe = [
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "export const server = new McpServer({ name: 'probe', version: '1.0.0' });",
      'export class Probe {',
      '  flag = server.experimental;',
      '}',
      'const banner = `probe',
      '${String(server.experimental)}`;',
      'export const note = `a',
      '`; export const again = server.experimental;',
      'if (server.experimental && server.experimental) console.error(banner);',
      '',
    ];
    writeFileSync(join(dir, 'probe.ts'), probe.join('\n'));
    const report = await migrate({ cwd: dir });
    expect(report.files.find(f => f.file === 'probe.ts')?.newTypeErrors).toHaveLength(5);
    const marker = "// mrtr-migrate: upgrade-error — TS2339 on v2: Property 'experimental' does not exist on type 'McpServer'.";
    const marked = [...probe];
    marked.splice(9, 0, marker);
    // The line holding `again` starts in the literal of `note`: the marker goes above `note`'s first line.
    marked.splice(7, 0, marker);
    marked.splice(5, 0, marker);
    marked.splice(3, 0, `  ${marker}`);
    expect(readFileSync(join(dir, 'probe.ts'), 'utf8')).toBe(marked.join('\n'));
    const again = await migrate({ cwd: dir });
    expect(again.files.filter(f => f.written).map(f => f.file)).toEqual([]);
  });
});
