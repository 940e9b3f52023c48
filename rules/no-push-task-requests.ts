import { createSiteRule } from './utils/siteRule.js';

const problem =
  "`{{call}}` sends a tasks/* request to the client about a task it runs (2025-11-25), which 2026-07-28 has no form for: the client runs no tasks there and takes no request from the server during a call.";

export default createSiteRule({
  name: 'no-push-task-requests',
  kind: 'task-request',
  description: 'Disallow server-to-client tasks/* requests (tasks/get, tasks/result, ...): 2026-07-28 clients run no tasks',
  messages: {
    // Never rewritten (the analysis always refuses a task request); the two kept for the rule's shape.
    migratable: `${problem} mrtr-migrate can rewrite it (npx mrtr-migrate).`,
    migratableForReview: `${problem} mrtr-migrate can rewrite it, for review: {{notes}}.`,
    refused: `${problem} mrtr-migrate cannot rewrite it ({{reason}}): {{hint}}`,
  },
});
