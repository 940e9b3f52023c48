import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/setup/sequencer.js';

/**
 * Two projects:
 *
 * - `unit` (`npm test`): everything that runs in the test process: analysis, rules, transforms,
 *   equivalence, reports. Needs neither `dist/` nor a browser.
 * - `e2e` (`npm run test:e2e`): the tests that run the BUILT package or spawn processes: the CLI
 *   binary (test/cli/helpers.ts), the real jscodeshift runner, `tsc` on a user's eslint.config.ts
 *   importing the built plugin, and Chromium rendering the HTML report (needs Chromium:
 *   `apt-get install chromium`, or CHROMIUM_PATH); and whole migrate() runs that write copied
 *   projects in temporary folders. Its global setup builds `dist/` once before any of
 *   them starts; no test builds it.
 *
 * A new test that spawns the CLI or reads `dist/` goes in E2E; test/cli/helpers.ts refuses to run
 * outside the e2e project.
 */
const E2E = [
  // The second run of every fixture pair (idempotence, and the type check of output.ts): 100 s or more.
  'test/transforms/fixturesSecondRun.test.ts',
  'test/cli/edge-cases.test.ts',
  'test/cli/projects.test.ts',
  'test/cli/jscodeshift.test.ts',
  'test/cli/interrupt.test.ts',
  'test/cli/linkedPackage.test.ts',
  // Packs the package and installs the tarball with npm.
  'test/cli/package.test.ts',
  'test/report/html.test.ts',
  'test/rules/readme-config.test.ts',
  'test/rules/plugin-types.test.ts',
  // Generates handlers, rewrites and runs each on three transports: minutes, not seconds.
  'test/property/handlers.test.ts',
  // Whole runs of migrate() on projects copied to temporary folders, writing them: seconds each.
  'test/project/sharedCodec.test.ts',
  'test/project/supportModule.test.ts',
  'test/project/secondRun.test.ts',
  'test/project/javascript.test.ts',
  'test/project/manifest.test.ts',
  'test/project/lines.test.ts',
  'test/project/zodUpgrade.test.ts',
  'test/project/invariant.test.ts',
  'test/project/rolledBack.test.ts',
  // Mocks the lowering (vi.mock), which the unit project's shared module cache would hand to other files.
  'test/project/loweringChanged.test.ts',
  'test/project/runtimePackage.test.ts',
  'test/project/v1Errors.test.ts',
  'test/project/heldBackProjects.test.ts',
  'test/report/merge.test.ts',
  // Real ESLint with typed linting and the codemod over every v2 fixture, compared: over a minute.
  'test/agreement.test.ts',
  // The handler shapes of real servers, each rewritten and type-checked: about 40 s.
  'test/transforms/handlerShapes.test.ts',
  // The CLI on a copy of every shape in ../shared/shapes, compared with test/shapes/snapshot.txt: minutes.
  'test/shapes/shapes.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    // The key every server instance of a deployment shares. Without it each migrated module logs a line
    // and signs with a random key (test/security covers that path on its own).
    env: { MCP_REQUEST_STATE_KEY: 'mrtr-migrate test key, at least 32 bytes long' },
    // Vitest's default is one worker less than the CPUs: a single worker on a 2-core machine, while
    // the main process mostly waits. Both cores run test files.
    maxWorkers: availableParallelism(),
    // The few long files start first, also on a fresh clone with no timings yet (test/setup/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...E2E],
          // The test files share their worker's module cache, so the TypeScript and SDK
          // declarations they parse (test/transforms/pipeline.ts's Project, the analysis harness's
          // source files, ts-morph, typescript) are loaded once per worker instead of once per file:
          // about half the CPU time. Test files must not rely on fresh module state (none does:
          // fixture modules are compared by effect deltas, fake timers are restored after each test).
          isolate: false,
          // Type-checking fixtures is slow on a shared 2-core machine; not a speed assertion.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: E2E,
          globalSetup: ['test/setup/build.ts'],
          // Each test spawns one or more type-checking CLI runs; CI machines are slow and shared.
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
