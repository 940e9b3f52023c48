export { analyzeFile, analyzeGroup, MRTR_METHODS, type AnalyzeOptions, type FileAnalysis, type HandlerPlan, type QuestionPlan } from './analyze.js';
export { ProjectIndex } from './projectIndex.js';
export { mightContainSites } from './prefilter.js';
export { analysisWithoutChecker, RETURNS_INPUT_REQUIRED } from './withoutChecker.js';
export type * from './types.js';
export { IGNORE_DIRECTIVE, isIgnored, SUPPRESSION_MESSAGES, suppressionMessage, suppressionProblem, type Suppression, type SuppressionProblem } from './suppressions.js';
export { SDK_NAMES_IMPORTED, sdkNameUse, isScopeName, type SdkNameUse } from './sdkNames.js';
