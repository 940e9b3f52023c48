import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installCommand } from '../../src/project/formatter.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A folder holding `files` (path → text; folders are made as needed). */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(os.tmpdir(), 'mrtr-install-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('the install command of the `Next:` line', () => {
  it("is the package manager's whose lockfile is next to the manifest", () => {
    expect(installCommand(tree({ 'package.json': '{}', 'pnpm-lock.yaml': '' }))).toBe('pnpm install');
    expect(installCommand(tree({ 'package.json': '{}', 'yarn.lock': '' }))).toBe('yarn install');
    expect(installCommand(tree({ 'package.json': '{}', 'bun.lock': '' }))).toBe('bun install');
    expect(installCommand(tree({ 'package.json': '{}', 'package-lock.json': '{}' }))).toBe('npm install');
  });

  it("is the workspace's for a package of a workspace, whose lockfile is at the workspace's root", () => {
    const pnpm = tree({ 'pnpm-workspace.yaml': "packages: ['examples/*']\n", 'pnpm-lock.yaml': '', 'examples/elicit/package.json': '{}' });
    expect(installCommand(join(pnpm, 'examples', 'elicit'), pnpm)).toBe('pnpm install');
    // Before the first install there is no lockfile yet: the workspace file says pnpm.
    const fresh = tree({ 'pnpm-workspace.yaml': "packages: ['packages/*']\n", 'packages/server/package.json': '{}' });
    expect(installCommand(join(fresh, 'packages', 'server'), fresh)).toBe('pnpm install');
    const yarn = tree({ 'package.json': JSON.stringify({ workspaces: ['apps/*'] }), 'yarn.lock': '', 'apps/mcp/package.json': '{}' });
    expect(installCommand(join(yarn, 'apps', 'mcp'), yarn)).toBe('yarn install');
  });

  it('is the one package.json names in `packageManager` (corepack), nearest first', () => {
    const root = tree({ 'package.json': JSON.stringify({ packageManager: 'yarn@4.5.0' }), 'package-lock.json': '{}', 'tools/package.json': '{}' });
    expect(installCommand(join(root, 'tools'), root)).toBe('yarn install');
    const own = tree({ 'package.json': JSON.stringify({ packageManager: 'pnpm@9.1.0+sha512.abc' }), 'sub/package.json': JSON.stringify({ packageManager: 'bun@1.1.0' }) });
    expect(installCommand(join(own, 'sub'), own)).toBe('bun install');
  });

  it('is npm where nothing up to the repository root names one: a lockfile above it does not count', () => {
    const outer = tree({ 'pnpm-lock.yaml': '', 'repo/package.json': '{}', 'repo/src/package.json': '{}' });
    expect(installCommand(join(outer, 'repo', 'src'), join(outer, 'repo'))).toBe('npm install');
    // An unreadable package.json names nothing; the lockfile beside it still does.
    expect(installCommand(tree({ 'package.json': '{ not json', 'yarn.lock': '' }))).toBe('yarn install');
  });
});
