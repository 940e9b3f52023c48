import { createSiteRule } from './utils/siteRule.js';

const problem = "`{{call}}` lists the client's roots mid-call (roots/list), which throws on 2026-07-28 requests; the handler must return inputRequired() and read the answer on the retry. Roots are also deprecated (SEP-2577).";

export default createSiteRule({
  name: 'no-push-roots',
  kind: 'roots',
  description: 'Disallow server-initiated roots/list requests awaited inside a handler (use inputRequired())',
  messages: {
    migratable: `${problem} mrtr-migrate can rewrite it to inputRequired.listRoots() (npx mrtr-migrate).`,
    migratableForReview: `${problem} mrtr-migrate can rewrite it to inputRequired.listRoots(), for review: {{notes}}.`,
    refused: `${problem} mrtr-migrate cannot rewrite it ({{reason}}): {{hint}}`,
  },
});
