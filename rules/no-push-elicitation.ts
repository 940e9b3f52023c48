import { createSiteRule } from './utils/siteRule.js';

const problem = '`{{call}}` asks the user mid-call (elicitation/create), which throws on 2026-07-28 requests; the handler must return inputRequired() and read the answer on the retry.';

export default createSiteRule({
  name: 'no-push-elicitation',
  kind: 'elicitation',
  description: 'Disallow server-initiated elicitation requests awaited inside a handler (use inputRequired())',
  messages: {
    migratable: `${problem} mrtr-migrate can rewrite it (npx mrtr-migrate).`,
    migratableForReview: `${problem} mrtr-migrate can rewrite it, for review: {{notes}}.`,
    refused: `${problem} mrtr-migrate cannot rewrite it ({{reason}}): {{hint}}`,
  },
});
