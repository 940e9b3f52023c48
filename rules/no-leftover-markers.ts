import type { TSESTree } from '@typescript-eslint/utils';
import { createRule } from './utils/createRule.js';

/**
 * The codemod writes `// mrtr-migrate: <reason> — <hint>` above each site it refused. Its explanatory
 * comments in migrated code also start with `mrtr-migrate:` but have no reason code and dash, and stay.
 */
const MARKER = /mrtr-migrate:\s*[a-z]+(?:-[a-z]+)*\s+[—–-]\s/;

export default createRule<[], 'leftoverMarker' | 'removeMarker'>({
  name: 'no-leftover-markers',
  meta: {
    type: 'problem',
    docs: {
      description: 'Disallow `mrtr-migrate: <reason> — <hint>` marker comments left by the codemod above sites it could not rewrite',
      recommended: 'recommended',
      requiresTypeChecking: false,
    },
    hasSuggestions: true,
    messages: {
      leftoverMarker: 'mrtr-migrate could not rewrite the code below and left this marker: "{{marker}}". Migrate it by hand, then delete the comment.',
      removeMarker: 'Delete the marker comment (only once the code below is migrated).',
    },
    schema: [],
  },
  create(context) {
    const sourceCode = context.sourceCode;
    return {
      Program() {
        for (const comment of sourceCode.getAllComments()) {
          if (!MARKER.test(comment.value)) continue;
          const marker = comment.value.replace(/^[\s*]+|\s+$/g, '').replace(/\s+/g, ' ');
          context.report({
            loc: comment.loc,
            messageId: 'leftoverMarker',
            data: { marker: marker.length > 120 ? `${marker.slice(0, 117)}...` : marker },
            suggest: [{ messageId: 'removeMarker', fix: fixer => fixer.removeRange(removalRange(sourceCode.text, comment)) }],
          });
        }
      },
    };
  },
});

/** The comment, plus its whole line when nothing else is on it (no blank line left behind). */
function removalRange(text: string, comment: TSESTree.Comment): [number, number] {
  const [start, end] = comment.range;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const newline = text.indexOf('\n', end);
  const lineEnd = newline === -1 ? text.length : newline + 1;
  const before = text.slice(lineStart, start);
  const after = text.slice(end, newline === -1 ? text.length : newline);
  if (before.trim() === '' && after.trim() === '') return [lineStart, lineEnd];
  // Trailing comment after code: drop it with the spaces before it.
  let from = start;
  while (from > lineStart && (text[from - 1] === ' ' || text[from - 1] === '\t')) from--;
  return [from, end];
}
