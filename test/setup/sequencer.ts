import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files measured to run longest (`vitest run --reporter=json`), longest first.
 *
 * Vitest starts the files it has timings for longest first, but a fresh clone has no timings
 * (node_modules/.vite/vitest is empty) and it starts the largest files first instead. These files are
 * short and slow: test/transforms/fixtures.test.ts alone is about 40% of the unit project's time, so
 * started last on a 2-core machine it runs alone on one core after everything else has finished.
 * Only an order: a file missing from this list, or one that got faster, still runs.
 */
const LONGEST = [
  'test/transforms/fixtures.test.ts',
  'test/agreement.test.ts',
  'test/cli/edge-cases.test.ts',
  'test/cli/projects.test.ts',
];

/** Vitest's own order, except that without timings for every file the files in LONGEST start first. */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    // The key of vitest's timings cache (as BaseSequencer builds it).
    if (sorted.every(spec => this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative(root, spec.moduleId)}`))) return sorted;
    const rank = (spec: TestSpecification) => {
      const index = LONGEST.indexOf(relative(root, spec.moduleId).split('\\').join('/'));
      return index === -1 ? LONGEST.length : index;
    };
    // Projects keep the order BaseSequencer gave them; within each, a stable sort by rank.
    const projects = [...new Set(sorted.map(spec => spec.project.name))];
    return projects.flatMap(name => sorted.filter(spec => spec.project.name === name).sort((a, b) => rank(a) - rank(b)));
  }
}
