import type * as ts from 'typescript';
import type { TS } from './types.js';

/**
 * Names for code the rewrite adds, free in the files it goes into: `preferred`, or `preferred2`,
 * `preferred3`, ... Every identifier of those files counts as taken, whatever it names.
 */
export class NameAllocator {
  private readonly taken = new Set<string>();

  constructor(ts: TS, files: readonly ts.SourceFile[]) {
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) this.taken.add(node.text);
      node.forEachChild(visit);
    };
    for (const file of files) visit(file);
  }

  take(preferred: string): string {
    let name = preferred;
    for (let i = 2; this.taken.has(name); i++) name = `${preferred}${i}`;
    this.taken.add(name);
    return name;
  }
}
