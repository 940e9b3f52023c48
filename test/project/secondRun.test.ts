import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Project } from 'ts-morph';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { tempProject } from './tempProject.js';

const OPTIONS = { target: 99, module: 199, moduleResolution: 99, strict: true, skipLibCheck: true, noEmit: true, types: [] };

const SERVER = `import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

export const server = new McpServer({ name: 's', version: '1' });

server.registerTool('archive', { inputSchema: z.object({ project: z.string() }) }, async ({ project }, ctx) => {
  const answer = await ctx.mcpReq.elicitInput({
    mode: 'form',
    message: \`Archive \${project}?\`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  });
  if (answer.action !== 'accept') return { content: [{ type: 'text', text: 'Kept.' }] };
  return { content: [{ type: 'text', text: \`Archived \${project}.\` }] };
});
`;

function project(): string {
  const dir = tempProject('second-run');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: OPTIONS }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', dependencies: { '@modelcontextprotocol/server': '^2.4.0' } }));
  writeFileSync(join(dir, 'server.ts'), SERVER);
  return dir;
}

describe('a second run on migrated code', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('builds no program: it reports the handler as already migrated from the syntax alone', async () => {
    const dir = project();
    const first = await migrate({ cwd: dir, sdkUpgrade: false });
    expect(first.sites.map(s => s.status)).toEqual(['migrated']);
    const migrated = readFileSync(join(dir, 'server.ts'), 'utf8');
    expect(migrated).toContain('inputRequired(');

    const programs = vi.spyOn(Project.prototype, 'getProgram');
    const second = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
    expect(programs).not.toHaveBeenCalled();
    expect(second.sites).toEqual([]);
    expect(second.files.every(f => !f.changed)).toBe(true);
    expect(second.alreadyMigrated).toEqual([expect.objectContaining({ file: 'server.ts', method: 'tools/call', name: 'archive' })]);
  });

  it('builds the program when a file still names a push-style API, and reports the same', async () => {
    const dir = project();
    await migrate({ cwd: dir, sdkUpgrade: false });
    // A second tool asking push-style, added after the migration.
    writeFileSync(join(dir, 'late.ts'), SERVER.replace("'archive'", "'late'").replace("name: 's'", "name: 'late'"));
    const programs = vi.spyOn(Project.prototype, 'getProgram');
    const second = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
    expect(programs).toHaveBeenCalled();
    expect(second.sites.map(s => `${s.file} ${s.status}`)).toEqual(['late.ts migrated']);
    expect(second.alreadyMigrated.map(a => `${a.file} ${a.name}`)).toEqual(['server.ts archive']);
  });
});
