import { createSiteRule } from './utils/siteRule.js';

const problem = "`{{call}}` asks the client's model mid-call (sampling/createMessage), which throws on 2026-07-28 requests; the handler must return inputRequired() and read the answer on the retry. Sampling is also deprecated (SEP-2577): long term, call your model provider directly.";

export default createSiteRule({
  name: 'no-push-sampling',
  kind: 'sampling',
  description: 'Disallow server-initiated sampling requests awaited inside a handler (use inputRequired(), or call the model provider directly)',
  messages: {
    migratable: `${problem} mrtr-migrate can rewrite it to inputRequired.createMessage() (npx mrtr-migrate).`,
    migratableForReview: `${problem} mrtr-migrate can rewrite it to inputRequired.createMessage(), for review: {{notes}}.`,
    refused: `${problem} mrtr-migrate cannot rewrite it ({{reason}}): {{hint}}`,
  },
});
