import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/**
 * The `.gitignore` files from the repository root down to a path, applied the way git does: each
 * file's patterns are relative to its folder, and a deeper file can re-include (`!pattern`).
 */
export class GitignoreRules {
  private readonly byDirectory = new Map<string, Ignore | undefined>();

  constructor(private readonly root: string) {
    const exclude = path.join(root, '.git', 'info', 'exclude');
    const rules = this.load(path.join(root, '.gitignore'));
    if (existsSync(exclude)) {
      const merged = ignore().add(readFileSync(exclude, 'utf8'));
      if (rules) merged.add(rules);
      this.byDirectory.set(root, merged);
    } else {
      this.byDirectory.set(root, rules);
    }
  }

  ignores(absolutePath: string, isDirectory: boolean): boolean {
    const fromRoot = path.relative(this.root, absolutePath);
    if (fromRoot === '' || fromRoot.startsWith('..') || path.isAbsolute(fromRoot)) return false;
    let ignored = false;
    let dir = this.root;
    for (const part of ['', ...path.dirname(fromRoot).split(path.sep).filter(p => p !== '.' && p !== '')]) {
      if (part) dir = path.join(dir, part);
      const rules = this.rulesOf(dir);
      if (!rules) continue;
      const relative = path.relative(dir, absolutePath).split(path.sep).join('/') + (isDirectory ? '/' : '');
      const verdict = rules.test(relative);
      if (verdict.ignored) ignored = true;
      else if (verdict.unignored) ignored = false;
    }
    return ignored;
  }

  private rulesOf(dir: string): Ignore | undefined {
    if (!this.byDirectory.has(dir)) this.byDirectory.set(dir, this.load(path.join(dir, '.gitignore')));
    return this.byDirectory.get(dir);
  }

  private load(file: string): Ignore | undefined {
    if (!existsSync(file)) return undefined;
    try {
      return ignore().add(readFileSync(file, 'utf8'));
    } catch {
      return undefined;
    }
  }
}
