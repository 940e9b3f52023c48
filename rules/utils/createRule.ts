import { ESLintUtils } from '@typescript-eslint/utils';

/** Which preset enables a rule; `strict` enables every rule. */
export interface MrtrRuleDocs {
  recommended: 'recommended' | 'strict';
}

export const DOCS_BASE_URL = 'https://github.com/mrtr-migrate/mrtr-migrate/blob/main/docs/rules/';

export function docsUrl(ruleName: string): string {
  return `${DOCS_BASE_URL}${ruleName}.md`;
}

export const createRule = ESLintUtils.RuleCreator<MrtrRuleDocs>(docsUrl);
