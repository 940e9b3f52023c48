import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * What a file's bytes carry besides its code: a byte order mark, its line endings, a shebang.
 * The rewrite works on BOM-less text; these are put back exactly before writing.
 */
export interface TextShape {
  bom: boolean;
  crlf: boolean;
  shebang: string | undefined;
}

const BOM = '\uFEFF';

export function splitBom(raw: string): { text: string; bom: boolean } {
  return raw.startsWith(BOM) ? { text: raw.slice(1), bom: true } : { text: raw, bom: false };
}

export function shapeOf(text: string): TextShape {
  const { text: body, bom } = splitBom(text);
  const crlfCount = body.match(/\r\n/g)?.length ?? 0;
  const lfCount = (body.match(/\n/g)?.length ?? 0) - crlfCount;
  return { bom, crlf: crlfCount > lfCount, shebang: /^#![^\n]*\n(?:[ \t]*\r?\n)*/.exec(body)?.[0] };
}

/**
 * Puts the original's shape back on rewritten text: inserted lines get the file's line endings
 * (CRLF in template literals is read as LF by the language, so this changes no value), a shebang a
 * transform lost is restored (as the official codemod's runner does), the BOM is kept.
 */
export function restoreShape(rewritten: string, shape: TextShape): string {
  let text = splitBom(rewritten).text;
  if (shape.crlf) text = text.replace(/\r?\n/g, '\r\n');
  if (shape.shebang && !text.startsWith('#!')) text = shape.shebang + text;
  return shape.bom ? BOM + text : text;
}

/** A file with no write permission for its owner is left alone, even when we could write it (root). */
export function isReadOnly(file: string): boolean {
  return (statSync(file).mode & 0o200) === 0;
}

/** Temporary files of writes under way: what an interruption must not leave behind. */
const pendingTemps = new Set<string>();

/**
 * Removes the temporary files of writes that did not finish (the targets are untouched: the rename
 * is the last step). Writes are synchronous, so an interruption handled on the event loop finds
 * none; this covers an exit from inside a write (an exception in a caller's handler, `process.exit`).
 */
export function removePendingTemps(): void {
  for (const temp of pendingTemps) {
    try {
      unlinkSync(temp);
    } catch {
      // already gone
    }
    pendingTemps.delete(temp);
  }
}

/**
 * Write through a temporary file in the same directory and rename it over the target, so a crash
 * or a full disk never leaves a half-written source file. Keeps the file's permission bits.
 */
export function writeFileAtomic(file: string, text: string): void {
  // A new file (the generated codec module) gets the default mode under the umask.
  const mode = existsSync(file) ? statSync(file).mode & 0o7777 : undefined;
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.mrtr-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  let fd: number | undefined;
  pendingTemps.add(temp);
  try {
    fd = openSync(temp, 'wx', mode ?? 0o666);
    writeSync(fd, text, null, 'utf8');
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // the temporary file was never created or is already gone
    }
    throw error;
  } finally {
    pendingTemps.delete(temp);
  }
}
