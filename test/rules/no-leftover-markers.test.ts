import rule from '../../rules/no-leftover-markers.js';
import { at, ruleTester } from './ruleTester.js';

const lineMarker = `export async function run(server: any) {
  // mrtr-migrate: loop — the question is asked inside a loop; ask once for all items.
  await server.ask();
}`;
const lineMarkerRemoved = `export async function run(server: any) {
  await server.ask();
}`;

const trailingMarker = `const x = 1; /* mrtr-migrate: no-live-request — startup */
export { x };`;
const trailingMarkerRemoved = `const x = 1;
export { x };`;

ruleTester.run('no-leftover-markers', rule, {
  valid: [
    '// Migrated with mrtr-migrate (see docs).\nexport const a = 1;',
    "export const note = 'mrtr-migrate: not a comment';",
    '/* see the mrtr-migrate/no-push-sampling docs */\nexport const b = 2;',
    // The codemod's explanatory comments in migrated code are not markers.
    '// mrtr-migrate: requestState of the multi round-trip handlers below (SEP-2322). It is signed, not\nexport const c = 3;',
    '// mrtr-migrate: multi round-trip (SEP-2322). State minted for another call is rejected; see DeleteState.\nexport const d = 4;',
  ],
  invalid: [
    {
      code: lineMarker,
      errors: [{ messageId: 'leftoverMarker', ...at(lineMarker, '// mrtr-migrate'), suggestions: [{ messageId: 'removeMarker', output: lineMarkerRemoved }] }],
    },
    {
      code: trailingMarker,
      errors: [{ messageId: 'leftoverMarker', ...at(trailingMarker, '/* mrtr-migrate'), suggestions: [{ messageId: 'removeMarker', output: trailingMarkerRemoved }] }],
    },
  ],
});
