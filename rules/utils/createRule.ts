// The subpath, not the package root: the root also loads typescript-eslint's ESLint class wrappers
// (ESLint's legacy config loader with them), about 0.15 s on every ESLint run that loads the plugin.
import { RuleCreator } from '@typescript-eslint/utils/eslint-utils';

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

export const createRule = RuleCreator<MrtrRuleDocs>(docsUrl);
