import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { REPO, tempProject } from './tempProject.js';

it('keeps the v1 SDK in package.json for a file of the package outside the paths given, and names it', async () => {
  const dir = tempProject('manifest');
  cpSync(join(REPO, 'test', 'cli', 'projects', 'v1-server'), dir, { recursive: true });
  writeFileSync(join(dir, 'src', 'admin.ts'), "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const admin = new McpServer({ name: 'admin', version: '1' });\n");
  const report = await migrate({ cwd: dir, paths: ['src/index.ts', 'src/store.ts'], force: true });
  expect(report.files.find(f => f.file === 'src/index.ts')).toMatchObject({ written: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  expect(manifest.dependencies['@modelcontextprotocol/sdk']).toBe('^1.32.0');
  expect(manifest.dependencies['@modelcontextprotocol/server']).toBeDefined();
  expect(report.diagnostics.find(d => d.code === 'sdk-upgrade/v1-kept')?.message).toMatch(/^@modelcontextprotocol\/sdk stays in package\.json: src\/admin\.ts still imports it/);

  // With the whole package in the run, that file is upgraded too, and the v1 package goes.
  const whole = await migrate({ cwd: dir, force: true });
  expect(whole.files.find(f => f.file === 'src/admin.ts')).toMatchObject({ written: true });
  expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies['@modelcontextprotocol/sdk']).toBeUndefined();
});

it('keeps it for a source outside the paths given that cannot be read as UTF-8: whether it imports the v1 SDK is unknown', async () => {
  const dir = tempProject('manifest');
  cpSync(join(REPO, 'test', 'cli', 'projects', 'v1-server'), dir, { recursive: true });
  const v1Import = "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const legacy = new McpServer({ name: 'l', version: '1' });\n";
  writeFileSync(join(dir, 'src', 'legacy.ts'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(v1Import, 'utf16le')]));
  const report = await migrate({ cwd: dir, paths: ['src/index.ts', 'src/store.ts'], force: true });
  expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies['@modelcontextprotocol/sdk']).toBe('^1.32.0');
  expect(report.diagnostics.find(d => d.code === 'sdk-upgrade/v1-kept')?.message).toMatch(/src\/legacy\.ts still imports it or could not be read/);
});
