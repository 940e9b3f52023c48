import tsParser from '@typescript-eslint/parser';
import type { ESLint, Linter } from 'eslint';
import noInitializeScopedCapabilities from './no-initialize-scoped-capabilities.js';
import noLeftoverMarkers from './no-leftover-markers.js';
import noPushElicitation from './no-push-elicitation.js';
import noPushRoots from './no-push-roots.js';
import noPushSampling from './no-push-sampling.js';
import noPushTaskRequests from './no-push-task-requests.js';
import noSecretsInRequestState from './no-secrets-in-request-state.js';
import noUnvalidatedInputResponses from './no-unvalidated-input-responses.js';
import noUrlElicitationError from './no-url-elicitation-error.js';
import requireRequestStateIntegrity from './require-request-state-integrity.js';
import validIgnoreComments from './valid-ignore-comments.js';
import { packageVersion } from './utils/packageInfo.js';

const PLUGIN_NAME = 'mrtr-migrate';

const ruleModules = {
  'no-push-elicitation': noPushElicitation,
  'no-push-sampling': noPushSampling,
  'no-push-roots': noPushRoots,
  'no-push-task-requests': noPushTaskRequests,
  'no-url-elicitation-error': noUrlElicitationError,
  'no-initialize-scoped-capabilities': noInitializeScopedCapabilities,
  'require-request-state-integrity': requireRequestStateIntegrity,
  'no-unvalidated-input-responses': noUnvalidatedInputResponses,
  'no-secrets-in-request-state': noSecretsInRequestState,
  'no-leftover-markers': noLeftoverMarkers,
  'valid-ignore-comments': validIgnoreComments,
};

export type RuleName = keyof typeof ruleModules;

/** The plugin as ESLint's own types describe it, so `eslint.config.ts` files type-check against any ESLint 9 or 10. */
export interface MrtrMigratePlugin extends ESLint.Plugin {
  meta: { name: string; version: string; namespace: string };
  rules: Record<RuleName, NonNullable<ESLint.Plugin['rules']>[string]>;
  configs: { recommended: Linter.Config; strict: Linter.Config };
}

// typescript-eslint's rule type is stricter than ESLint's about context and listener shapes; at run time they are the same object.
const rules = ruleModules as unknown as MrtrMigratePlugin['rules'];

/** Rule levels for a preset: `recommended` is the migration gate, `strict` adds the MRTR hygiene rules. */
function presetRules(preset: 'recommended' | 'strict'): Linter.RulesRecord {
  const entries = Object.entries(ruleModules)
    .filter(([, rule]) => preset === 'strict' || rule.meta.docs?.recommended === 'recommended')
    .map(([name]) => [`${PLUGIN_NAME}/${name}`, 'error'] as const);
  return Object.fromEntries(entries);
}

/**
 * Every extension the codemod reads (`.d.ts` included by the globs, as typescript-eslint's configs do):
 * the analysis runs on JavaScript as well as TypeScript.
 */
export const LINTED_FILES = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts', '**/*.js', '**/*.jsx', '**/*.mjs', '**/*.cjs'];

/**
 * A preset is a complete flat config, so `export default [mrtr.configs.recommended]` lints a project
 * on its own: its files, the TypeScript parser (it reads JavaScript too) and the rules. Typed linting
 * is the user's choice (`parserOptions.projectService`): no rule requires it, every rule uses it when there.
 */
function preset(preset: 'recommended' | 'strict'): Linter.Config {
  return {
    name: `${PLUGIN_NAME}/${preset}`,
    files: [...LINTED_FILES],
    languageOptions: { parser: tsParser as Linter.Parser },
    plugins: { [PLUGIN_NAME]: plugin },
    rules: presetRules(preset),
  };
}

const plugin: MrtrMigratePlugin = {
  meta: { name: PLUGIN_NAME, version: packageVersion(), namespace: PLUGIN_NAME },
  rules,
  configs: {} as MrtrMigratePlugin['configs'],
};

// Flat configs refer to the plugin object itself, so they are filled in once it exists.
plugin.configs.recommended = preset('recommended');
plugin.configs.strict = preset('strict');

export { ruleModules as rules };
export default plugin;
