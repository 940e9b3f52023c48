import { ESLintUtils } from '@typescript-eslint/utils';

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

export const createRule = ESLintUtils.RuleCreator<MrtrRuleDocs>(docsUrl);
