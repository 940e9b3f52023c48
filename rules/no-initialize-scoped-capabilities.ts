import { createSiteRule } from './utils/siteRule.js';

const problem =
  '`{{call}}` returns what the client declared at initialize, which 2026-07-28 clients never send: there it is undefined (only createMcpHandler backfills it) and it is deprecated; a guard on it takes its fallback for every 2026 client.';

export default createSiteRule({
  name: 'no-initialize-scoped-capabilities',
  kind: 'capability-guard',
  description: 'Disallow getClientCapabilities(): initialize-scoped capabilities do not exist on 2026-07-28 requests',
  messages: {
    migratable: `${problem} mrtr-migrate can rewrite it to read this request's capabilities (npx mrtr-migrate).`,
    migratableForReview: `${problem} mrtr-migrate can rewrite it, for review: {{notes}}.`,
    refused: `${problem} mrtr-migrate cannot rewrite it ({{reason}}): {{hint}}`,
  },
});
