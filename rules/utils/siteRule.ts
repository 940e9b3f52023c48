import { isIgnored, type SiteKind } from '../../src/analysis/index.js';
import { ANALYSIS_FAILED_MESSAGE, getFileAnalysis, siteCallText, siteLoc } from './analysis.js';
import { createRule } from './createRule.js';

export type SiteMessageId = 'migratable' | 'migratableForReview' | 'refused' | 'analysisFailed';

export interface SiteRuleOptions {
  name: string;
  kind: SiteKind;
  description: string;
  /**
   * One message per verdict. Placeholders: `{{call}}` (the call as written), `{{notes}}` (why the
   * rewrite needs review), `{{reason}}` / `{{hint}}` (the refusal reason code and what to do).
   */
  messages: Record<Exclude<SiteMessageId, 'analysisFailed'>, string>;
}

/**
 * The push-style rules differ only in the site kind and the wording: each reports the analysis'
 * sites of its kind where they are, and says whether `mrtr-migrate` can rewrite them.
 */
export function createSiteRule({ name, kind, description, messages }: SiteRuleOptions) {
  return createRule<[], SiteMessageId>({
    name,
    meta: {
      type: 'problem',
      docs: { description, recommended: 'recommended', requiresTypeChecking: false },
      messages: { ...messages, analysisFailed: ANALYSIS_FAILED_MESSAGE },
      schema: [],
    },
    create(context) {
      return {
        Program() {
          const analysis = getFileAnalysis(context);
          if (!analysis) return;
          for (const site of analysis.sites) {
            // Under a `// mrtr-migrate-ignore <reason>` comment: left on purpose (valid-ignore-comments checks the comment).
            if (site.kind !== kind || isIgnored(site.verdict)) continue;
            const call = siteCallText(site);
            const loc = siteLoc(context, site);
            const verdict = site.verdict;
            if (verdict.kind === 'refuse') {
              context.report({ loc, messageId: 'refused', data: { call, reason: verdict.reason, hint: verdict.hint } });
            } else if (verdict.review) {
              context.report({ loc, messageId: 'migratableForReview', data: { call, notes: verdict.notes.join('; ') } });
            } else {
              context.report({ loc, messageId: 'migratable', data: { call } });
            }
          }
        },
      };
    },
  });
}
