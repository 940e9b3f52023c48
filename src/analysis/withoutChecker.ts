import type * as ts from 'typescript';
import { analyzeFile, type FileAnalysis } from './analyze.js';
import { callbackFunction } from './handlers.js';
import { mightContainSites } from './prefilter.js';
import { EXPERIMENTAL_TASK_METHODS, QUESTION_METHODS, SdkResolver, skipOuter, TASK_METHODS, TASK_RESULT_SCHEMAS, typeWrittenInPlace } from './sdk.js';
import { IGNORE_DIRECTIVE } from './suppressions.js';
import type { TS } from './types.js';

/** A handler whose code returns `inputRequired(...)` is reported as already migrated. */
export const RETURNS_INPUT_REQUIRED = /\binputRequired\s*[.(]/;

/** Names a site is always spelled with somewhere in its file (an import, a destructured member, a schema). */
const SITE_NAMES = new Set(['sendRequest', 'UrlElicitationRequiredError', 'ElicitResultSchema', 'CreateMessageResultSchema', 'ListRootsResultSchema', ...TASK_RESULT_SCHEMAS]);
/** Methods a site calls on a server or a request context (generated code calls some on `inputRequired`). */
const SITE_METHODS = new Set(['elicitInput', 'createMessage', 'listRoots', 'requestSampling', 'getClientCapabilities', ...Object.keys(EXPERIMENTAL_TASK_METHODS), 'requestStream']);
const REGISTRATIONS = new Set(['registerTool', 'tool', 'registerPrompt', 'prompt', 'registerResource', 'resource', 'setRequestHandler']);

/**
 * A file's analysis made without a checker, where it is the analysis the checker would make, so the
 * run need not build a program for it (a second run on migrated code builds none); otherwise
 * undefined. That is the case when
 * - the file has no push-style site: its code (not its comments) names none of the push-style APIs:
 *   no `elicitInput(...)`-like call except on an SDK export (`inputRequired.createMessage(...)`), no
 *   `sendRequest` or result schema, no question or tasks/* method as a
 *   request's `method`, no `.send(...)` / `.request(...)` of a request that only types can tell. This
 *   is the prefilter's premise (a site names one of these in its file), read in the code;
 * - it has no ignore comment (one that suppresses nothing is reported, which needs the sites);
 * - every registration whose callback returns `inputRequired(...)` is found by the syntax too, with
 *   its tool / prompt / resource name where it has one the checker could read (not one imported from
 *   another module): the handlers reported as already migrated are the same.
 */
export function analysisWithoutChecker(tsApi: TS, sourceFile: ts.SourceFile): FileAnalysis | undefined {
  const text = sourceFile.text;
  if (text.includes(IGNORE_DIRECTIVE)) return undefined;
  const resolver = new SdkResolver(tsApi, sourceFile, undefined);
  if (mightContainSites(text) && namesPushApi(tsApi, sourceFile, resolver)) return undefined;
  const analysis = analyzeFile({ ts: tsApi, sourceFile });
  if (analysis.sites.length > 0) return undefined;
  const found = new Set(analysis.handlers.map(h => h.registrationCall));
  if (!registrationsReturningInputRequired(tsApi, sourceFile).every(call => found.has(call))) return undefined;
  // A name imported from another module (`registerTool(PAUSE_TOOL, ...)`) is read by the checker only.
  return analysis.handlers.every(h => h.registration === 'setRequestHandler' || h.name !== undefined || h.nameExpression !== undefined) ? analysis : undefined;
}

function namesPushApi(tsApi: TS, sourceFile: ts.SourceFile, resolver: SdkResolver): boolean {
  let named = false;
  const visit = (node: ts.Node): void => {
    if (named) return;
    if ((tsApi.isIdentifier(node) || tsApi.isPrivateIdentifier(node) || tsApi.isStringLiteralLike(node)) && SITE_NAMES.has(node.text)) {
      // An import under its own name names nothing until it is used (the SDK stage may leave one unused).
      named = !(tsApi.isImportSpecifier(node.parent) && node.parent.propertyName === undefined);
    } else if (tsApi.isStringLiteralLike(node) && (QUESTION_METHODS[node.text] !== undefined || TASK_METHODS.has(node.text)) && isMethodOfRequest(tsApi, node)) {
      named = true;
    } else if (tsApi.isCallExpression(node)) {
      const callee = skipOuter(tsApi, node.expression);
      if (tsApi.isPropertyAccessExpression(callee)) {
        const method = callee.name.text;
        // A receiver typed in place (the generated clientCapabilitiesOf's `server: { getClientCapabilities(): ... }`)
        // is that structure to the checker, not the SDK's.
        if (SITE_METHODS.has(method) && !isSdkExport(tsApi, callee.expression, resolver) && !typeWrittenInPlace(tsApi, callee.expression)) named = true;
        if ((method === 'send' || method === 'request') && requestTypedOnly(tsApi, node.arguments[0])) named = true;
      }
    }
    if (!named) node.forEachChild(visit);
  };
  visit(sourceFile);
  return named;
}

/** `{ method: 'elicitation/create', ... }` */
function isMethodOfRequest(tsApi: TS, literal: ts.StringLiteralLike): boolean {
  const parent = literal.parent;
  return tsApi.isPropertyAssignment(parent) && parent.initializer === literal && parent.name.getText().replace(/['"`]/g, '') === 'method';
}

/** An SDK export (`inputRequired`) is never a server or a context. */
function isSdkExport(tsApi: TS, receiver: ts.Expression, resolver: SdkResolver): boolean {
  const e = skipOuter(tsApi, receiver);
  return tsApi.isIdentifier(e) && resolver.sdkExport(e) !== undefined;
}

/**
 * Whether a `send(request)` / `request(request)` call's question could only be told by the request's
 * type: a request that is not an object literal with a literal `method` (a string is an HTTP reply).
 */
function requestTypedOnly(tsApi: TS, request: ts.Expression | undefined): boolean {
  if (!request) return false;
  const e = skipOuter(tsApi, request);
  if (tsApi.isStringLiteralLike(e) || tsApi.isNumericLiteral(e) || tsApi.isTemplateExpression(e)) return false;
  if (!tsApi.isObjectLiteralExpression(e)) return true;
  return e.properties.some(p => tsApi.isSpreadAssignment(p) ||
    (p.name !== undefined && p.name.getText().replace(/['"`]/g, '') === 'method' && !(tsApi.isPropertyAssignment(p) && tsApi.isStringLiteralLike(p.initializer))));
}

/** Registration calls (by their shape alone) whose callback returns `inputRequired(...)`. */
function registrationsReturningInputRequired(tsApi: TS, sourceFile: ts.SourceFile): ts.CallExpression[] {
  const calls: ts.CallExpression[] = [];
  if (!RETURNS_INPUT_REQUIRED.test(sourceFile.text)) return calls;
  const visit = (node: ts.Node): void => {
    if (tsApi.isCallExpression(node) && tsApi.isPropertyAccessExpression(node.expression) && REGISTRATIONS.has(node.expression.name.text)) {
      const last = node.arguments[node.arguments.length - 1];
      const fn = last && callbackFunction(tsApi, last);
      if (fn && RETURNS_INPUT_REQUIRED.test(fn.getText(sourceFile))) calls.push(node);
    }
    node.forEachChild(visit);
  };
  visit(sourceFile);
  return calls;
}
