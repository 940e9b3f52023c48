import { getFileAnalysis, siteCallText, siteLoc } from './utils/analysis.js';
import { createRule } from './utils/createRule.js';

const perRequest = 'ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY]';

export default createRule<[], 'inRequest' | 'outsideRequest'>({
  name: 'no-initialize-scoped-capabilities',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow getClientCapabilities(): initialize-scoped capabilities do not exist on 2026-07-28 requests',
      recommended: 'recommended',
    },
    messages: {
      inRequest:
        `\`{{call}}\` returns what the client declared at initialize, which 2026-07-28 clients never send: there it is undefined (only createMcpHandler backfills it) and it is deprecated. Read this request's capabilities from ${perRequest} (SDK v2); mrtr-migrate does not rewrite capability guards.`,
      outsideRequest:
        `\`{{call}}\`: {{detail}}. It returns what the client declared at initialize, which 2026-07-28 clients never send; decide per request, inside the handler, from ${perRequest}.`,
    },
    schema: [],
  },
  create(context) {
    return {
      Program() {
        const analysis = getFileAnalysis(context);
        if (!analysis) return;
        for (const site of analysis.sites) {
          if (site.kind !== 'capability-guard') continue;
          const call = siteCallText(site);
          const loc = siteLoc(context, site);
          if (site.context.type === 'no-request') {
            context.report({ loc, messageId: 'outsideRequest', data: { call, detail: site.context.detail } });
          } else {
            context.report({ loc, messageId: 'inRequest', data: { call } });
          }
        }
      },
    };
  },
});
