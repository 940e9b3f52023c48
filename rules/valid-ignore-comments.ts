import { SUPPRESSION_MESSAGES, suppressionProblem, type SuppressionProblem } from '../src/analysis/index.js';
import { ANALYSIS_FAILED_MESSAGE, getFileAnalysis } from './utils/analysis.js';
import { createRule } from './utils/createRule.js';

type MessageIds = SuppressionProblem | 'removeComment' | 'analysisFailed';

/**
 * `// mrtr-migrate-ignore <reason>` keeps the codemod and the push-style rules away from the sites
 * of the statement below it. The opt-out must say why, and must still cover something: the same
 * checks the codemod's report makes (diagnostics `mrtr/ignore-*`), from the same analysis.
 */
export default createRule<[], MessageIds>({
  name: 'valid-ignore-comments',
  meta: {
    type: 'problem',
    docs: {
      description: 'Require `// mrtr-migrate-ignore` comments to give a reason and to suppress a push-style site',
      recommended: 'recommended',
      requiresTypeChecking: false,
    },
    hasSuggestions: true,
    messages: {
      ...SUPPRESSION_MESSAGES,
      removeComment: 'Delete the comment.',
      analysisFailed: ANALYSIS_FAILED_MESSAGE,
    },
    schema: [],
  },
  create(context) {
    const sourceCode = context.sourceCode;
    return {
      Program() {
        const analysis = getFileAnalysis(context);
        if (!analysis) return;
        for (const suppression of analysis.suppressions) {
          const problem = suppressionProblem(suppression);
          if (!problem) continue;
          const loc = { start: sourceCode.getLocFromIndex(suppression.start), end: sourceCode.getLocFromIndex(suppression.end) };
          context.report({
            loc,
            messageId: problem,
            data: { line: String(suppression.targetLine ?? suppression.line) },
            // A comment that suppresses nothing can go; one without a reason still keeps a site out of the migration.
            suggest: problem === 'missing-reason' ? null : [{ messageId: 'removeComment', fix: fixer => fixer.removeRange(removalRange(sourceCode.text, suppression.start, suppression.end)) }],
          });
        }
      },
    };
  },
});

/** The comment, plus its whole line when nothing else is on it. */
function removalRange(text: string, start: number, end: number): [number, number] {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const newline = text.indexOf('\n', end);
  if (text.slice(lineStart, start).trim() === '') return [lineStart, newline === -1 ? text.length : newline + 1];
  let from = start;
  while (from > lineStart && (text[from - 1] === ' ' || text[from - 1] === '\t')) from--;
  return [from, end];
}
