import tsParser from '@typescript-eslint/parser';
import type { ESLint as ESLintType, Linter } from 'eslint';
import plugin from '../../rules/index.js';

/** Both supported majors: `eslint` is 9.x, `eslint-v10` is the npm alias of 10.x. */
export const ESLINT_PACKAGES = [
  { label: 'ESLint 9', module: 'eslint' },
  { label: 'ESLint 10', module: 'eslint-v10' },
] as const;

/** The push-style rules and the site kind each reports. */
export const RULE_OF_KIND: Record<string, string> = {
  elicitation: 'mrtr-migrate/no-push-elicitation',
  sampling: 'mrtr-migrate/no-push-sampling',
  roots: 'mrtr-migrate/no-push-roots',
  'url-elicitation': 'mrtr-migrate/no-url-elicitation-error',
  'capability-guard': 'mrtr-migrate/no-initialize-scoped-capabilities',
  'task-request': 'mrtr-migrate/no-push-task-requests',
};

export interface RunOptions {
  cwd: string;
  /** Directory of the tsconfig for typed linting (projectService); untyped when absent. */
  typedRoot?: string;
  config?: 'recommended' | 'strict';
  /** JavaScript files linted with types too (the TypeScript parser, allowJs in that tsconfig), as a JavaScript project with typed linting does. */
  typedJavaScript?: string[];
}

/** A real ESLint instance of the given major, configured the way a user's flat config would be. */
export async function createESLint(module: string, options: RunOptions): Promise<ESLintType> {
  const { ESLint } = (await import(module)) as typeof import('eslint');
  const overrideConfig: Linter.Config[] = [
    {
      files: ['**/*.{ts,tsx,mts,cts}'],
      languageOptions: {
        parser: tsParser,
        parserOptions: options.typedRoot ? { projectService: true, tsconfigRootDir: options.typedRoot } : {},
      },
    },
    ...(options.typedRoot && options.typedJavaScript ? [{
      files: options.typedJavaScript,
      languageOptions: { parser: tsParser, parserOptions: { projectService: true, tsconfigRootDir: options.typedRoot } },
    }] : []),
    plugin.configs[options.config ?? 'recommended'],
  ];
  return new ESLint({ cwd: options.cwd, overrideConfigFile: true, overrideConfig });
}

/** The verdict a push-style rule's message stands for, in the fixture notation (`migrate`, `review`, `refuse:<reason>`). */
export function verdictOfMessage(message: Linter.LintMessage): string | undefined {
  if (message.messageId === 'migratable') return 'migrate';
  if (message.messageId === 'migratableForReview') return 'review';
  if (message.messageId === 'refused') return `refuse:${/cannot rewrite it \(([a-z-]+)\)/.exec(message.message)?.[1] ?? '?'}`;
  return undefined;
}
