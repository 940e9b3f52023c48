import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as TS from 'typescript';
import { analysisWithoutChecker, analyzeFile, mightContainSites, ProjectIndex, type FileAnalysis, type Site } from '../../src/analysis/index.js';
import { frameworkPackages } from '../../src/project/packageJson.js';

// The compiler is loaded with require: imported from an ES module, Node first scans its 9 MB for
// named exports, about 0.4 s of every lint run (scripts/bench-lint.mjs).
const ts = createRequire(import.meta.url)('typescript') as typeof TS;

/**
 * The analysis the rules run. A property rather than the import itself so a test can make it fail
 * (test/rules/analysis-failure.test.ts) without replacing modules other test files share.
 */
export const analyzer = { analyzeFile };

/** In an MCP framework's own package, its questions are the framework's own code (as the CLI reads it). */
const frameworkPackageOf = frameworkPackages();

type AnyRuleContext = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

/** The message a rule that runs the analysis declares as `analysisFailed`. */
export const ANALYSIS_FAILED_MESSAGE =
  'mrtr-migrate could not analyse {{file}}: {{error}}. The push-style calls in this file are not checked until this is fixed; please report it with the file.';

interface CachedAnalysis {
  analysis: FileAnalysis | null;
  /** Why the analysis threw; reported once per file, by the first rule that asks. */
  error: string | undefined;
  reported: boolean;
}

/**
 * One analysis per linted file, shared by every rule that asks: ESLint hands all rules the same
 * SourceCode object for a file, so it is the cache key (and lets the entry go with the file).
 */
const cache = new WeakMap<object, CachedAnalysis>();

/** With typed linting, the same cross-file call index the codemod uses, once per program. */
const indexes = new WeakMap<TS.Program, ProjectIndex>();
function projectIndex(program: TS.Program): ProjectIndex {
  let index = indexes.get(program);
  if (!index) indexes.set(program, (index = new ProjectIndex(ts, program)));
  return index;
}

/**
 * The file's analysis, or null when it has nothing to analyse or the analysis failed. A failure
 * (half-typed code, a construct the analysis mishandles) must not crash the lint run, nor turn the
 * rules into silent no-ops: it is reported once, on line 1, through the rule that asked first,
 * which declares the `analysisFailed` message ({@link ANALYSIS_FAILED_MESSAGE}).
 */
export function getFileAnalysis(context: AnyRuleContext): FileAnalysis | null {
  const sourceCode = context.sourceCode;
  let entry = cache.get(sourceCode);
  if (!entry) {
    entry = { analysis: null, error: undefined, reported: false };
    try {
      entry.analysis = analyze(context);
    } catch (error) {
      entry.error = errorText(error);
    }
    cache.set(sourceCode, entry);
  }
  if (entry.error !== undefined && !entry.reported) {
    entry.reported = true;
    context.report({
      loc: { start: { line: 1, column: 0 }, end: { line: 1, column: 0 } },
      messageId: 'analysisFailed',
      data: { file: displayName(context), error: entry.error },
    });
  }
  return entry.analysis;
}

/** The first line of the error, with its type when that says more than the message. */
function errorText(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim() || 'unknown error';
  const name = error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
  return `${name}${message.length > 300 ? `${message.slice(0, 297)}...` : message}`;
}

function displayName(context: AnyRuleContext): string {
  const file = context.filename;
  const rel = path.relative(context.cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

function analyze(context: AnyRuleContext): FileAnalysis | null {
  const text = context.sourceCode.text;
  if (!mightContainSites(text)) return null;
  const fileName = context.filename;
  const scriptKind = scriptKindOf(fileName);
  if (scriptKind === undefined) return null;

  // Typed linting: the program's own source file, so the checker resolves receivers and local types.
  const program = context.sourceCode.parserServices?.program ?? undefined;
  const typedFile = program?.getSourceFile(fileName);
  // Offsets are reported against ESLint's text; a program copy that differs (BOM, stale) cannot be used.
  if (program && typedFile && typedFile.text === text) {
    // A file the checker could tell nothing more about (migrated code) is analysed without it, as the codemod does.
    const plain = analysisWithoutChecker(ts, typedFile);
    if (plain) return plain;
    const index = projectIndex(program);
    // Files are planned together as the CLI plans them: a server built in another file can be wired.
    return analyzer.analyzeFile({ ts, sourceFile: typedFile, program, externalCallSites: fn => index.callsOf(fn), indirectCallSites: fn => index.indirectCallsOf(fn), externalConstructions: ctor => index.constructionsOf(ctor), crossFile: true, frameworkPackageOf });
  }
  const sourceFile = parserSourceFile(context, text, scriptKind) ?? ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, scriptKind);
  return analyzer.analyzeFile({ ts, sourceFile, frameworkPackageOf });
}

/** Files parsed by this copy of TypeScript share its SourceFile prototype. */
const SOURCE_FILE_PROTOTYPE = Object.getPrototypeOf(ts.createSourceFile('prototype.ts', '', ts.ScriptTarget.Latest)) as object;

/**
 * Untyped linting with typescript-eslint's parser: its own parse of the file (parents set, the same
 * text), so the file is not parsed twice. Only when that parse comes from the TypeScript this plugin
 * loads (another version's syntax kinds would not match) and in the script kind it would use.
 */
function parserSourceFile(context: AnyRuleContext, text: string, scriptKind: TS.ScriptKind): TS.SourceFile | undefined {
  const services = context.sourceCode.parserServices as { esTreeNodeToTSNodeMap?: { get(node: unknown): unknown } } | undefined;
  const node = services?.esTreeNodeToTSNodeMap?.get(context.sourceCode.ast) as (TS.SourceFile & { scriptKind?: TS.ScriptKind }) | undefined;
  if (!node || Object.getPrototypeOf(node) !== SOURCE_FILE_PROTOTYPE || node.kind !== ts.SyntaxKind.SourceFile) return undefined;
  return node.text === text && node.scriptKind === scriptKind ? node : undefined;
}

const SCRIPT_KINDS: Record<string, TS.ScriptKind> = {
  ts: ts.ScriptKind.TS,
  mts: ts.ScriptKind.TS,
  cts: ts.ScriptKind.TS,
  tsx: ts.ScriptKind.TSX,
  js: ts.ScriptKind.JS,
  mjs: ts.ScriptKind.JS,
  cjs: ts.ScriptKind.JS,
  jsx: ts.ScriptKind.JSX,
};

/** Script kind by extension; `undefined` for files that are not JavaScript or TypeScript (.vue, .md, ...). */
export function scriptKindOf(fileName: string): TS.ScriptKind | undefined {
  const base = fileName.replaceAll('\\', '/').split('/').pop() ?? fileName;
  const dot = base.lastIndexOf('.');
  // ESLint names text without a path `<text>` / `<input>`: TypeScript parses JavaScript too.
  if (dot <= 0) return ts.ScriptKind.TS;
  return SCRIPT_KINDS[base.slice(dot + 1).toLowerCase()];
}

/** Where a site is, in ESLint's terms. */
export function siteLoc(context: AnyRuleContext, site: Site): TSESTree.SourceLocation {
  return {
    start: context.sourceCode.getLocFromIndex(site.start),
    end: context.sourceCode.getLocFromIndex(site.end),
  };
}

/** How the site is spelled in the source (`server.server.elicitInput`, `new UrlElicitationRequiredError`), for messages. */
export function siteCallText(site: Site): string {
  const node = site.node;
  let callee: string;
  if (ts.isCallExpression(node)) callee = node.expression.getText();
  else if (ts.isNewExpression(node)) callee = `new ${node.expression.getText()}`;
  else return node.getText().replace(/\s+/g, ' ').slice(0, 60);
  // A chain split over lines (`ctx.mcpReq\n  .elicitInput`) reads as one expression.
  callee = callee.replace(/\s+/g, ' ').replace(/\s*(\??\.)\s*/g, '$1');
  return `${callee.length > 57 ? `${callee.slice(0, 54)}...` : callee}()`;
}
