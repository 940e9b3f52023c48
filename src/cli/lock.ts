import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * One run per project root at a time: two runs on one tree would each rewrite files the other has
 * changed under it, and the second's report would replace the first's. The lock is a file in the
 * system's temporary folder (none in the project: a second run's git check would see it), keyed by the
 * root's real path and holding the owner's pid; a lock whose process is gone is taken over.
 */
export interface RunLock {
  release(): void;
}

export class LockedError extends Error {}

interface Owner {
  pid: number;
  startedAt: string;
  /** The lock file's text as read. */
  text?: string | undefined;
}

/** Where the lock of a project root lives. */
export function lockPath(root: string): string {
  let real = path.resolve(root);
  try {
    real = realpathSync(real);
  } catch {
    // A root that cannot be resolved is locked under the path given.
  }
  return path.join(os.tmpdir(), `mrtr-migrate-${createHash('sha256').update(real).digest('hex').slice(0, 16)}.lock`);
}

/** Takes the lock of `root`, waiting up to `waitMs` for another run to finish; throws LockedError when it does not. */
export async function acquireRunLock(root: string, waitMs: number): Promise<RunLock> {
  const file = lockPath(root);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const owner: Owner = { pid: process.pid, startedAt: new Date().toISOString() };
    try {
      const fd = openSync(file, 'wx');
      try {
        writeSync(fd, JSON.stringify(owner));
      } finally {
        closeSync(fd);
      }
      return { release: () => releaseIfOurs(file) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = ownerOf(file);
    if (!holder || !alive(holder.pid)) {
      // Left by a run that ended without releasing it (killed, out of memory): taken over, unless
      // another waiting run took it over first (then its lock is not the one read here).
      if (textOf(file) === holder?.text) removeQuietly(file);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = holder.pid === -1 ? 'is starting here' : `is writing here (pid ${holder.pid}${holder.startedAt ? `, started ${holder.startedAt}` : ''})`;
      throw new LockedError(`another mrtr-migrate run ${who}; wait for it to finish, or delete ${file} if no such process runs`);
    }
    await new Promise(resolve => setTimeout(resolve, Math.min(100, Math.max(0, deadline - Date.now()))));
  }
}

function ownerOf(file: string): Owner | undefined {
  const text = textOf(file);
  try {
    const parsed = JSON.parse(text ?? '') as Partial<Owner>;
    if (typeof parsed.pid === 'number') return { pid: parsed.pid, startedAt: String(parsed.startedAt ?? ''), text };
  } catch {
    // Gone, or being written by its owner this instant.
  }
  // Unreadable: held while it is fresh (its owner is writing it), stale after a few seconds.
  try {
    return Date.now() - statSync(file).mtimeMs < 5_000 ? { pid: -1, startedAt: '', text } : { pid: 0, startedAt: '', text };
  } catch {
    return undefined;
  }
}

function textOf(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  if (pid === -1) return true;
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseIfOurs(file: string): void {
  if (ownerOf(file)?.pid === process.pid) removeQuietly(file);
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}
