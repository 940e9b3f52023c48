import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireRunLock, LockedError, lockPath } from '../../src/cli/lock.js';

const root = () => mkdtempSync(path.join(os.tmpdir(), 'mrtr-lock-'));

/** The pid of a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the run lock of a project root', () => {
  it('is held by one run at a time, with its pid, and gone once released', async () => {
    const dir = root();
    const lock = await acquireRunLock(dir, 0);
    expect(JSON.parse(readFileSync(lockPath(dir), 'utf8'))).toMatchObject({ pid: process.pid });
    await expect(acquireRunLock(dir, 0)).rejects.toThrow(LockedError);
    await expect(acquireRunLock(dir, 0)).rejects.toThrow(new RegExp(`^another mrtr-migrate run is writing here \\(pid ${process.pid}, started .*\\); wait for it to finish, or delete .*mrtr-migrate-[0-9a-f]{16}\\.lock if no such process runs$`));
    lock.release();
    expect(existsSync(lockPath(dir))).toBe(false);
    (await acquireRunLock(dir, 0)).release();
  });

  it('waits for a run that ends within the wait', async () => {
    const dir = root();
    const first = await acquireRunLock(dir, 0);
    setTimeout(() => first.release(), 150);
    const second = await acquireRunLock(dir, 2_000);
    expect(JSON.parse(readFileSync(lockPath(dir), 'utf8')).pid).toBe(process.pid);
    second.release();
  });

  it('takes over a lock whose run is gone, or that is unreadable and old', async () => {
    const dir = root();
    writeFileSync(lockPath(dir), JSON.stringify({ pid: deadPid(), startedAt: '2026-01-01T00:00:00.000Z' }));
    (await acquireRunLock(dir, 0)).release();
    writeFileSync(lockPath(dir), 'not json');
    await expect(acquireRunLock(dir, 0)).rejects.toThrow(/^another mrtr-migrate run is starting here; /);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPath(dir), old, old);
    (await acquireRunLock(dir, 0)).release();
  });

  it('is one lock for every path of the same folder', () => {
    const dir = root();
    expect(lockPath(path.join(dir, '.'))).toBe(lockPath(dir));
    expect(lockPath(dir)).not.toBe(lockPath(root()));
  });
});
