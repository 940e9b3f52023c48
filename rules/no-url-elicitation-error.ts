import { createSiteRule } from './utils/siteRule.js';

const problem = '`{{call}}` asks for URL-mode elicitation the 2025 way (the -32042 error or a pushed elicitation/create); on 2026-07-28 requests URL elicitation rides the multi round-trip flow: return inputRequired({ inputRequests: { key: inputRequired.elicitUrl({ message, url }) } }).';

export default createSiteRule({
  name: 'no-url-elicitation-error',
  kind: 'url-elicitation',
  description: 'Disallow UrlElicitationRequiredError and pushed URL-mode elicitation (use inputRequired.elicitUrl())',
  messages: {
    migratable: `${problem} mrtr-migrate can rewrite it (npx mrtr-migrate).`,
    migratableForReview: `${problem} mrtr-migrate can rewrite it, for review: {{notes}}.`,
    refused: `${problem} mrtr-migrate cannot rewrite it ({{reason}}): {{hint}}`,
  },
});
