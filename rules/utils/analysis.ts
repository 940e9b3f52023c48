import type { TSESLint, TSESTree } from '@typescript-eslint/utils';
import ts from 'typescript';
import { analyzeFile, mightContainSites, ProjectIndex, type FileAnalysis, type Site } from '../../src/analysis/index.js';

type AnyRuleContext = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

/**
 * One analysis per linted file, shared by every rule that asks: ESLint hands all rules the same
 * SourceCode object for a file, so it is the cache key (and lets the entry go with the file).
 */
const cache = new WeakMap<object, FileAnalysis | null>();

/** With typed linting, the same cross-file call index the codemod uses, once per program. */
const indexes = new WeakMap<ts.Program, ProjectIndex>();
function projectIndex(program: ts.Program): ProjectIndex {
  let index = indexes.get(program);
  if (!index) indexes.set(program, (index = new ProjectIndex(ts, program)));
  return index;
}

export function getFileAnalysis(context: AnyRuleContext): FileAnalysis | null {
  const sourceCode = context.sourceCode;
  const cached = cache.get(sourceCode);
  if (cached !== undefined) return cached;
  let result: FileAnalysis | null = null;
  try {
    result = analyze(context);
  } catch {
    // A file the analysis cannot handle (half-typed code, odd syntax) must never crash a lint run.
    result = null;
  }
  cache.set(sourceCode, result);
  return result;
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
    const index = projectIndex(program);
    return analyzeFile({ ts, sourceFile: typedFile, program, externalCallSites: fn => index.callsOf(fn) });
  }
  const sourceFile = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, scriptKind);
  return analyzeFile({ ts, sourceFile });
}

const SCRIPT_KINDS: Record<string, ts.ScriptKind> = {
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
export function scriptKindOf(fileName: string): ts.ScriptKind | undefined {
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
