import { join } from 'node:path';

import { FIXTURES, loadCase, runLegacy, runModern, runShim, runStdio } from './harness.js';

/**
 * Prints one run's transcript, for looking at a fixture or a failing comparison by eye:
 *
 *   npx tsx test/equivalence/show.ts <case> [legacy|modern|stdio|shim] [module.ts]
 *
 * The module defaults to the case's input.ts for legacy and its output.ts otherwise.
 */
const [name, runner = 'legacy', file] = process.argv.slice(2);
if (!name) {
  console.error('usage: npx tsx test/equivalence/show.ts <case> [legacy|modern|stdio|shim] [module.ts]');
  process.exit(2);
}
const fixture = loadCase(join(FIXTURES, name));
const module = file ?? (runner === 'legacy' ? fixture.input : fixture.output);
if (!module) {
  console.error(`fixtures/${name} has no output.ts: pass the module to run`);
  process.exit(2);
}
const run = { legacy: runLegacy, modern: runModern, stdio: runStdio, shim: runShim }[runner];
if (!run) {
  console.error(`unknown runner ${runner}: legacy, modern, stdio or shim`);
  process.exit(2);
}
console.log(JSON.stringify(await run(module, fixture.scenario), null, 2));
