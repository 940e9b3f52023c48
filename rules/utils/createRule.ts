import type { RuleModule, RuleWithMetaAndName } from '@typescript-eslint/utils/eslint-utils';

/** Which preset enables a rule; `strict` enables every rule. */
export interface MrtrRuleDocs {
  recommended: 'recommended' | 'strict';
  /**
   * Whether the rule fails without typed linting (typescript-eslint's flag). Every rule declares it:
   * none needs types, those that run the analysis resolve receivers and local types better with them.
   */
  requiresTypeChecking: boolean;
}

export const DOCS_BASE_URL = 'https://github.com/mrtr-migrate/mrtr-migrate/blob/main/docs/rules/';

export function docsUrl(ruleName: string): string {
  return `${DOCS_BASE_URL}${ruleName}.md`;
}

/**
 * A rule as typescript-eslint's `RuleCreator` builds it (docs URL, typed options merged over
 * `meta.defaultOptions`), without its cost on every file: `RuleCreator` deep-clones the defaults with
 * `structuredClone` each time ESLint creates a rule for a file, and its module loads about twenty
 * more (scripts/bench-lint.mjs). The defaults are frozen once here; a rule gets them as they are
 * when the user passes no options, and a fresh merge when they do.
 */
export function createRule<Options extends readonly unknown[], MessageIds extends string>(
  { meta, name, create }: Readonly<RuleWithMetaAndName<Options, MessageIds, MrtrRuleDocs>>,
): RuleModule<MessageIds, Options, MrtrRuleDocs> & { name: string } {
  const defaults = deepFreeze(meta.defaultOptions ?? ([] as unknown as Options));
  return {
    create(context) {
      const options = context.options.length === 0 ? defaults : (defaults.map((value, i) => merge(value, context.options[i])) as unknown as Options);
      return create(context, options);
    },
    defaultOptions: defaults,
    meta: { ...meta, docs: { ...meta.docs, url: docsUrl(name) } },
    name,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The user's option over the default, objects merged key by key (typescript-eslint's `applyDefault`). */
function merge(base: unknown, user: unknown): unknown {
  if (user === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(user)) return user;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(user)) merged[key] = key in base ? merge(base[key], value) : value;
  return merged;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
