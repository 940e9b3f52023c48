import type { NoRequestWhy, RefusalReason, SiteContext } from './types.js';

/**
 * The refusal reasons, the most decisive first. Where several obstacles stand in a site's way (two
 * callers of a helper, a question that is both in an odd construct and followed by a live Map), the
 * reason reported is the one a user must deal with first: a server too old for the rewrite, a handler
 * kind that cannot answer input_required, a framework that owns the handler, a relay, a question
 * the client is to run as a task (it has no 2026-07-28 form wherever it is asked), a question
 * nobody awaits, no request at all, then state that cannot travel, then what the rewrite does not
 * handle yet. (Within one handler, code its registrar would run again in every round is named before
 * the state it carries: analyze.ts verdictFor.) "Cannot tell" (unknown-local-type) is last but one: types may show there is no obstacle.
 */
const RANK: Record<RefusalReason, number> = {
  'ignored': 0,
  'sdk-version': 1,
  'untyped-receiver': 2,
  'handler-kind': 3,
  'framework': 4,
  'relay': 5,
  'task-augmented': 6,
  'fire-and-forget': 7,
  'detached-task': 8,
  'no-live-request': 9,
  'non-json-local': 10,
  'shared-state-mutated': 11,
  'server-not-found': 12,
  'loop': 13,
  'parallel': 14,
  'nested-callback': 15,
  'caller-not-found': 16,
  'unsupported-construct': 17,
  'unknown-local-type': 18,
  'blocked-by-sibling': 19,
};

/** Every reason, in that order (a record above, so a new reason cannot be left without a rank). */
export const REASON_ORDER: readonly RefusalReason[] = (Object.keys(RANK) as RefusalReason[]).sort((a, b) => RANK[a] - RANK[b]);

/** The first of `items` whose reason comes first in REASON_ORDER (the earliest of equals). */
export function decisive<T>(items: readonly T[], reasonOf: (item: T) => RefusalReason): T | undefined {
  let best: T | undefined;
  let bestRank = Infinity;
  for (const item of items) {
    const rank = RANK[reasonOf(item)];
    if (rank < bestRank) [best, bestRank] = [item, rank];
  }
  return best;
}

/** The refusal for a question where no request is live (a site's own, or a split helper's other caller's). */
export function reasonOfNoRequest(why: NoRequestWhy): RefusalReason {
  switch (why) {
    case 'detached-task':
    case 'fire-and-forget':
      return why;
    case 'other-method':
      return 'handler-kind';
    case 'relay':
      return 'relay';
    case 'framework':
      return 'framework';
    case 'function-value':
      return 'unsupported-construct';
    case 'caller-not-found':
      return 'caller-not-found';
    default:
      return 'no-live-request';
  }
}

/** Of the places no request reaches, the one whose reason is decisive. */
export function decisiveNoRequest<T extends Extract<SiteContext, { type: 'no-request' }>>(contexts: readonly T[]): T | undefined {
  return decisive(contexts, c => reasonOfNoRequest(c.why));
}
