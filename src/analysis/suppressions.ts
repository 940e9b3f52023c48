import type * as ts from 'typescript';
import { statementOf } from './flow.js';
import type { Site, TS, Verdict } from './types.js';

/**
 * `// mrtr-migrate-ignore <reason>`: a reasoned opt-out for the sites of the statement below it.
 * A suppressed site gets the verdict `refuse:ignored` before siblings are considered, so the codemod
 * leaves its handler exactly as it is (handlers are rewritten whole), without a marker comment; the
 * lint rules do not report it; the report lists it as ignored, with the reason. A comment without a
 * reason still suppresses (the codemod never rewrites what it was told to leave), but it is reported,
 * as is one that suppresses nothing (trailing after code, or no site on the line below).
 */

export const IGNORE_DIRECTIVE = 'mrtr-migrate-ignore';

export interface Suppression {
  /** 1-based line of the comment. */
  line: number;
  column: number;
  /** Offsets of the comment (`//` to the end of its line). */
  start: number;
  end: number;
  /** The reason as written, or undefined when there is none. */
  reason: string | undefined;
  /** Whether the comment is alone on its line (a comment after code suppresses nothing). */
  ownLine: boolean;
  /** 1-based line whose statement it suppresses: the next line with code, if any. */
  targetLine: number | undefined;
  /** Ids of the sites it suppresses. */
  siteIds: string[];
}

export type SuppressionProblem = 'missing-reason' | 'unused' | 'trailing';

/** What is wrong with an ignore comment, most important first; undefined when it is in order. */
export function suppressionProblem(s: Suppression): SuppressionProblem | undefined {
  if (s.reason === undefined) return 'missing-reason';
  if (!s.ownLine) return 'trailing';
  if (s.siteIds.length === 0) return 'unused';
  return undefined;
}

/** One sentence per problem, shared by the lint rule and the codemod's report; `{{line}}` is the line below the comment. */
export const SUPPRESSION_MESSAGES: Readonly<Record<SuppressionProblem, string>> = {
  'missing-reason': `\`// ${IGNORE_DIRECTIVE}\` gives no reason; write why the code below stays push-style (\`// ${IGNORE_DIRECTIVE} <reason>\`), so the next reader knows it was left on purpose.`,
  trailing: `\`// ${IGNORE_DIRECTIVE}\` after code suppresses nothing; put it on its own line above the statement with the site.`,
  unused: `\`// ${IGNORE_DIRECTIVE}\` suppresses nothing: no push-style site is in the statement on line {{line}}; delete the comment or move it above the site.`,
};

export function suppressionMessage(s: Suppression, problem: SuppressionProblem): string {
  return SUPPRESSION_MESSAGES[problem].replace('{{line}}', String(s.targetLine ?? s.line));
}

const DIRECTIVE = /\/\/[ \t]*mrtr-migrate-ignore(?![\w-])([^\r\n]*)/g;

/** A reason is any word after the directive, past separators such as `:` or `--`. */
function reasonOf(rest: string): string | undefined {
  const reason = rest.replace(/^[\s:—–-]+/, '').trim();
  return /[\p{L}\p{N}]/u.test(reason) ? reason : undefined;
}

/** Every `// mrtr-migrate-ignore` line comment of the file (not inside strings, templates or regexes). */
export function findSuppressions(ts: TS, sourceFile: ts.SourceFile): Suppression[] {
  const text = sourceFile.text;
  if (!text.includes(IGNORE_DIRECTIVE)) return [];
  const lineStarts = sourceFile.getLineStarts();
  const found: Suppression[] = [];
  for (const match of text.matchAll(DIRECTIVE)) {
    const start = match.index;
    if (!isComment(ts, sourceFile, start)) continue;
    const { line, character } = sourceFile.getLineAndCharacterOfPosition(start);
    const ownLine = text.slice(lineStarts[line]!, start).trim() === '';
    found.push({
      line: line + 1,
      column: character + 1,
      start,
      end: start + match[0].length,
      reason: reasonOf(match[1] ?? ''),
      ownLine,
      targetLine: ownLine ? nextCodeLine(sourceFile, line + 1) : undefined,
      siteIds: [],
    });
  }
  return found;
}

/**
 * Marks the sites below ignore comments `refuse:ignored` (in place) and returns the comments with
 * the sites each suppresses. Call it after the per-site verdicts and before siblings are blocked.
 */
export function applySuppressions(ts: TS, sourceFile: ts.SourceFile, sites: Site[]): Suppression[] {
  const suppressions = findSuppressions(ts, sourceFile);
  if (suppressions.length === 0) return suppressions;
  // Stacked comments above one statement all count as used; the first one's reason is the site's.
  const byTarget = new Map<number, Suppression[]>();
  for (const s of suppressions) if (s.targetLine !== undefined) byTarget.set(s.targetLine, [...(byTarget.get(s.targetLine) ?? []), s]);
  for (const site of sites) {
    const statement = statementOf(ts, site.node, sourceFile);
    const statementLine = statement ? sourceFile.getLineAndCharacterOfPosition(statement.getStart(sourceFile)).line + 1 : undefined;
    const covering = (statementLine !== undefined ? byTarget.get(statementLine) : undefined) ?? byTarget.get(site.line);
    if (!covering) continue;
    for (const s of covering) s.siteIds.push(site.id);
    site.verdict = ignoredVerdict(covering.find(s => s.reason !== undefined) ?? covering[0]!);
  }
  return suppressions;
}

function ignoredVerdict(s: Suppression): Verdict {
  const why = s.reason ?? 'no reason given';
  return { kind: 'refuse', reason: 'ignored', hint: `left as it is by the ${IGNORE_DIRECTIVE} comment on line ${s.line} (${why}).` };
}

/** Whether a verdict is that of a suppressed site. */
export function isIgnored(verdict: Verdict): boolean {
  return verdict.kind === 'refuse' && verdict.reason === 'ignored';
}

/** The first line from `from` (0-based) that holds code, skipping blank and comment-only lines. */
function nextCodeLine(sourceFile: ts.SourceFile, from: number): number | undefined {
  const text = sourceFile.text;
  const lineStarts = sourceFile.getLineStarts();
  let inBlock = false;
  for (let line = from; line < lineStarts.length; line++) {
    const end = line + 1 < lineStarts.length ? lineStarts[line + 1]! : text.length;
    let rest = text.slice(lineStarts[line]!, end).trim();
    if (inBlock) {
      const close = rest.indexOf('*/');
      if (close === -1) continue;
      rest = rest.slice(close + 2).trim();
      inBlock = false;
    }
    while (rest.startsWith('/*')) {
      const close = rest.indexOf('*/', 2);
      if (close === -1) {
        inBlock = true;
        rest = '';
        break;
      }
      rest = rest.slice(close + 2).trim();
    }
    if (rest === '' || rest.startsWith('//')) continue;
    return line + 1;
  }
  return undefined;
}

/**
 * Whether `//` at `pos` starts a comment: no string, template, regex or JSX text holds it. The
 * deepest node whose range covers `pos` either has it in its leading trivia or between its tokens
 * (comments both), or is one of those literals.
 */
function isComment(ts: TS, sourceFile: ts.SourceFile, pos: number): boolean {
  let node: ts.Node = sourceFile;
  for (;;) {
    let next: ts.Node | undefined;
    node.forEachChild(child => {
      if (!next && child.pos <= pos && pos < child.end) next = child;
    });
    if (!next) break;
    node = next;
  }
  if (node === sourceFile || pos < node.getStart(sourceFile)) return true;
  return !(
    ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node) || ts.isRegularExpressionLiteral(node) || ts.isJsxText(node)
  );
}
