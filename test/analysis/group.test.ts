import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile, analyzeGroup, ProjectIndex, type AnalyzeOptions, type FileAnalysis } from '../../src/analysis/index.js';
import { createFixtureProgram, fixtureFiles, ROOT, ts } from './harness.js';

/**
 * A group of files linked by an asking helper is analysed once: the analysis of each of its files,
 * taken from the group analysed from another of its files, is the one analysing that file first gives.
 * Only `linkedFiles` may say more: from a file that reaches others (a server's file reaches the
 * files whose asking functions it calls) the group is larger than from those others, and each file
 * of it lists the whole group; the planner merges the groups the files list into the same groups.
 */

/** Everything an analysis says but its group, compiler nodes written as their kind and place. */
function summary(analysis: FileAnalysis): string {
  return JSON.stringify(analysis, (key, value: unknown) => {
    if (value && typeof value === 'object' && 'kind' in value && 'pos' in value && 'end' in value && typeof (value as ts.Node).getSourceFile === 'function') {
      const node = value as ts.Node;
      return `${ts.SyntaxKind[node.kind]} ${node.getSourceFile().fileName.slice(ROOT.length)}:${node.pos}`;
    }
    if (key === 'linkedFiles') return undefined;
    if (value instanceof Map || value instanceof Set) return [...value];
    return value;
  });
}

const folders = readdirSync(join(ROOT, 'fixtures'), { withFileTypes: true })
  .filter(entry => entry.isDirectory())
  .flatMap(entry => ['input', 'output'].map(side => join(ROOT, 'fixtures', entry.name, side)))
  .filter(dir => existsSync(dir) && statSync(dir).isDirectory());

describe.each(folders.map(dir => [dir.slice(ROOT.length + 1), dir]))('%s', (_, dir) => {
  const files = fixtureFiles(dir).filter(f => f.endsWith('.ts'));
  const program = createFixtureProgram(files);
  const index = new ProjectIndex(ts, program);
  const options = (file: string): AnalyzeOptions => ({
    ts, sourceFile: program.getSourceFile(file)!, program, crossFile: true,
    externalCallSites: fn => index.callsOf(fn), indirectCallSites: fn => index.indirectCallsOf(fn), externalConstructions: ctor => index.constructionsOf(ctor),
  });

  it('gives each file of a group the analysis that file gets on its own', () => {
    let compared = 0;
    for (const start of files) {
      const group = analyzeGroup(options(start));
      const members = [...group.keys()].map(f => f.fileName);
      for (const [sourceFile, analysis] of group) {
        const alone = analyzeFile(options(sourceFile.fileName));
        expect(summary(analysis), `${sourceFile.fileName} from ${start}`).toBe(summary(alone));
        expect(members).toEqual(expect.arrayContaining([sourceFile.fileName, ...alone.linkedFiles]));
        expect([...analysis.linkedFiles, sourceFile.fileName].sort()).toEqual([...members].sort());
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(files.length);
  });
});

it('the folders hold groups: a helper asked across files links them', () => {
  const dir = join(ROOT, 'fixtures/v2-helper-across-files/input');
  const files = fixtureFiles(dir).filter(f => f.endsWith('.ts'));
  const program = createFixtureProgram(files);
  const index = new ProjectIndex(ts, program);
  const group = analyzeGroup({ ts, sourceFile: program.getSourceFile(join(dir, 'ask.ts'))!, program, crossFile: true, externalCallSites: fn => index.callsOf(fn) });
  expect([...group.keys()].map(f => f.fileName.slice(dir.length + 1)).sort()).toEqual(['accounts.ts', 'ask.ts', 'orders.ts']);
});
