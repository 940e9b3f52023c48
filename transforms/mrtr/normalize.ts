import type * as ts from 'typescript';
import type { FileAnalysis, HandlerPlan } from '../../src/analysis/index.js';
import { conditionalOf, isStableReference } from '../../src/analysis/rounds.js';
import { skipOuter } from '../../src/analysis/sdk.js';
import { fileTypeNames, printType } from '../../src/analysis/typeNames.js';
import type { TS } from '../../src/analysis/types.js';
import type { ListRound } from '../../src/analysis/flow.js';
import { isJavaScriptFile } from '../../src/analysis/typeSyntax.js';
import { answerTypeOf, LocalNames } from './rewriteHandler.js';
import { expressionBodyBlock, indentAt, literalRanges, quoteStyle, reindentProtected, requoteType, type Edit } from './text.js';

/**
 * Before a handler is printed, the shapes around its questions are lowered into plainer statements
 * the rounds can resume in, as TypeScript's generator transform lowers them before building its
 * state machine:
 *
 * - a for-of (or for-in) loop becomes a loop over the array's index, so a resumed round restarts
 *   it where it was (`for (let pageIndex = 0; pageIndex < pages.length; pageIndex++) { const page =
 *   pages[pageIndex]; ... }`), the iterable held in a const first when it is not a plain name;
 * - a question in a conditional expression gets its own statement: `if (force || (await ask()).ok)`
 *   becomes `let condition = force; if (!condition) { condition = (await ask()).ok; } if (condition)`;
 * - a question per item (`const answers = await Promise.all(items.map(item => ask(item)))`) is asked
 *   only when there are items, as Promise.all([]) asked nothing: `let answers: ElicitResult[] = [];
 *   if (items.length > 0) { answers = await Promise.all(...); }`;
 * - an arrow function's expression body becomes a block that returns it.
 *
 * The file is then analysed again and printed from the new plan; the analysis of the original
 * decided that these shapes can be rewritten (rounds.ts).
 */

export interface NormalizeOptions {
  ts: TS;
  sourceFile: ts.SourceFile;
  text: string;
  newline: string;
  unit: string;
  checker: ts.TypeChecker | undefined;
  /** `noUncheckedIndexedAccess`: an element read by index is typed `T | undefined` unless asserted. */
  uncheckedIndex: boolean;
}

export function normalizeEdits(options: NormalizeOptions, analysis: FileAnalysis): Edit[] {
  const edits: Edit[] = [];
  const answerTypes = new Set<string>();
  for (const plan of analysis.plans) edits.push(...blockBody(options, plan.handler.fn), ...handlerEdits(options, plan, answerTypes));
  return [...edits, ...typeImports(options, answerTypes)];
}

/** `async () => await confirm()` → `async () => {\n  return await confirm();\n}`: the rounds are statements. */
function blockBody(o: NormalizeOptions, fn: ts.FunctionLikeDeclaration): Edit[] {
  if (!fn.body || o.ts.isBlock(fn.body)) return [];
  return [expressionBodyBlock({ ...o, literals: literalRanges(o.ts, o.sourceFile) }, fn, [])];
}

function handlerEdits(o: NormalizeOptions, plan: HandlerPlan, answerTypes: Set<string>): Edit[] {
  const rounds = plan.rounds;
  if (!rounds) return [];
  const { ts } = o;
  const names = new LocalNames(ts, plan.handler.fn);
  const edits: Edit[] = [];
  for (const loop of rounds.indexLoops) edits.push(...indexLoop(o, loop as ts.ForOfStatement | ts.ForInStatement, names));
  for (const s of rounds.suspensions) {
    if (s.list) {
      const question = s.questions[0]!.question;
      edits.push(...listBranch(o, s.list, s.statement, names, answerTypeOf(ts, question), answerTypes));
      continue;
    }
    const conditional = conditionalOf(ts, s.awaited, s.statement);
    if (conditional) edits.push(...spill(o, conditional, s.statement, names, answerTypes));
  }
  return edits;
}

/**
 * `const answers = await Promise.all(items.map(...))` → `let answers: ElicitResult[] = []; if
 * (items.length > 0) { answers = await Promise.all(items.map(...)); }`. Promise.all of no promises
 * asked nothing and went on; a round with no inputRequests cannot be returned, so that case keeps
 * running in the first round. A list that is not a plain name is held in a const first (evaluated
 * once, where it was).
 */
function listBranch(o: NormalizeOptions, list: ListRound, statement: ts.Statement, names: LocalNames, answerType: string, answerTypes: Set<string>): Edit[] {
  const { ts, sourceFile, text } = o;
  const nl = o.newline;
  const indent = indentAt(text, statement.getStart(sourceFile));
  const inner = indent + o.unit;
  const literals = literalRanges(ts, sourceFile);
  const slice = (start: number, end: number): { text: string; protect: Array<[number, number]> } =>
    ({ text: text.slice(start, end), protect: literals.filter(([a, b]) => a >= start && b <= end).map(([a, b]) => [a - start, b - start] as [number, number]) });
  const before: string[] = [];
  let array = list.list.getText(sourceFile);
  let awaited = slice(list.awaited.getStart(sourceFile), list.awaited.getEnd());
  if (!isStableReference(ts, list.list)) {
    const callback = list.callback.parameters[0]?.name;
    const element = callback && ts.isIdentifier(callback) ? callback.text : 'item';
    // `tags.filter(...).map(tag => ...)`: `tags` is taken, `tagList` reads better than `tags2`.
    const held = names.take(names.has(pluralOf(element)) && !names.has(`${element}List`) ? `${element}List` : pluralOf(element));
    before.push(`const ${held} = ${reindentProtected(slice(list.list.getStart(sourceFile), list.list.getEnd()), indentAt(text, list.list.getStart(sourceFile)), indent).text};`);
    const at = list.list.getStart(sourceFile) - list.awaited.getStart(sourceFile);
    const cut = list.list.getEnd() - list.list.getStart(sourceFile);
    awaited = { text: awaited.text.slice(0, at) + held + awaited.text.slice(at + cut), protect: awaited.protect.filter(([a]) => a < at).concat(awaited.protect.filter(([a]) => a >= at + cut).map(([a, b]) => [a - cut + held.length, b - cut + held.length] as [number, number])) };
    array = held;
  }
  const asked = reindentProtected(awaited, indentAt(text, statement.getStart(sourceFile)), inner).text;
  const lines = (list: string[]): string => list.join(`${nl}${indent}`);
  const edit = (branch: string[]): Edit[] => {
    const all = [...before, ...branch];
    // A statement in a branch without braces becomes a block: several statements replace it.
    const bare = !ts.isBlock(statement.parent) && !ts.isSourceFile(statement.parent) && !ts.isCaseClause(statement.parent) && !ts.isDefaultClause(statement.parent);
    const body = bare ? ['{', ...all.map(l => `${o.unit}${l}`), '}'] : all;
    return [{ start: statement.getStart(sourceFile), end: statement.getEnd(), text: lines(body) }];
  };
  const condition = `if (${array}.length > 0) {`;
  if (ts.isExpressionStatement(statement)) {
    const e = skipOuter(ts, statement.expression);
    if (ts.isBinaryExpression(e)) {
      const target = e.left.getText(sourceFile);
      return edit([condition, `${o.unit}${target} = ${asked};`, '} else {', `${o.unit}${target} = [];`, '}']);
    }
    return edit([condition, `${o.unit}${asked};`, '}']);
  }
  const d = (statement as ts.VariableStatement).declarationList.declarations[0]!;
  const name = (d.name as ts.Identifier).text;
  let type = '';
  if (d.type) type = `: ${d.type.getText(sourceFile)}`;
  // JavaScript has no annotation; a script without imports gets none either (an import would make it a module).
  else if (!isJavaScriptFile(sourceFile.fileName) && sourceFile.statements.some(s => ts.isImportDeclaration(s))) {
    for (const t of answerType.split(' | ')) answerTypes.add(t);
    const element = answerType.includes('|') ? `(${answerType})` : answerType;
    type = list.combinator === 'allSettled' ? `: PromiseSettledResult<${answerType}>[]` : `: ${element}[]`;
  }
  return edit([`let ${name}${type} = [];`, condition, `${o.unit}${name} = ${asked};`, '}']);
}

/**
 * The SDK's answer types a lowered list round names, imported from the SDK where the file does not
 * have them yet (only files with imports are annotated, see listBranch).
 */
function typeImports(o: NormalizeOptions, types: ReadonlySet<string>): Edit[] {
  const { ts, sourceFile } = o;
  const imported = new Set<string>();
  for (const s of sourceFile.statements) {
    const bindings = ts.isImportDeclaration(s) ? s.importClause?.namedBindings : undefined;
    if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) imported.add(e.name.text);
  }
  const missing = [...types].filter(t => !imported.has(t)).sort();
  if (missing.length === 0) return [];
  const sdk = sourceFile.statements.find((s): s is ts.ImportDeclaration => ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) &&
    s.moduleSpecifier.text === '@modelcontextprotocol/server' && !!s.importClause?.namedBindings && ts.isNamedImports(s.importClause.namedBindings));
  const named = sdk?.importClause!.namedBindings as ts.NamedImports | undefined;
  const lastName = named?.elements[named.elements.length - 1];
  if (sdk && lastName) {
    const typeOnly = sdk.importClause!.isTypeOnly;
    return [{ start: lastName.getEnd(), end: lastName.getEnd(), text: missing.map(t => `, ${typeOnly ? '' : 'type '}${t}`).join('') }];
  }
  const imports = sourceFile.statements.filter(s => ts.isImportDeclaration(s));
  const last = imports[imports.length - 1] as ts.ImportDeclaration;
  const quote = last.moduleSpecifier.getText(sourceFile)[0];
  return [{ start: last.getEnd(), end: last.getEnd(), text: `${o.newline}import type { ${missing.join(', ')} } from ${quote}@modelcontextprotocol/server${quote};` }];
}

/** A name for the array a loop walks, from its element's name: `page` → `pages`. */
function pluralOf(name: string): string {
  return name.endsWith('s') ? `${name}List` : `${name}s`;
}

function indexLoop(o: NormalizeOptions, loop: ts.ForOfStatement | ts.ForInStatement, names: LocalNames): Edit[] {
  const { ts, sourceFile, text } = o;
  const edits: Edit[] = [];
  const init = loop.initializer;
  const binding = ts.isVariableDeclarationList(init) ? init.declarations[0]!.name : undefined;
  const element = binding && ts.isIdentifier(binding) ? binding.text : undefined;
  const start = (ts.isLabeledStatement(loop.parent) ? loop.parent : loop).getStart(sourceFile);
  const indent = indentAt(text, start);
  const iterable = loop.expression;

  // The array the resumed loop comes back to: a name, or a const holding the iterable.
  let array = iterable.getText(sourceFile);
  if (ts.isForInStatement(loop) || !isStableReference(ts, iterable)) {
    const held = names.take(ts.isForInStatement(loop) ? 'keys' : element ? pluralOf(element) : 'items');
    const value = ts.isForInStatement(loop) ? `Object.keys(${array})` : array;
    edits.push({ start, end: start, text: `const ${held} = ${value};${o.newline}${indent}` });
    array = held;
  }
  const index = names.take(element ? `${element}Index` : 'index');
  const closeParen = text.indexOf(')', loop.expression.getEnd());
  edits.push({ start: loop.getStart(sourceFile), end: closeParen + 1, text: `for (let ${index} = 0; ${index} < ${array}.length; ${index}++)` });

  const item = `${array}[${index}]${o.uncheckedIndex ? '!' : ''}`;
  let bindText: string;
  if (ts.isVariableDeclarationList(init)) {
    const keyword = init.flags & ts.NodeFlags.Const ? 'const' : init.flags & ts.NodeFlags.Let ? 'let' : 'var';
    bindText = `${keyword} ${init.declarations[0]!.name.getText(sourceFile)} = ${item};`;
  } else {
    const target = init.getText(sourceFile);
    bindText = ts.isObjectLiteralExpression(skipOuter(ts, init as ts.Expression)) ? `(${target} = ${item});` : `${target} = ${item};`;
  }
  const body = loop.statement;
  if (ts.isBlock(body)) {
    const first = body.statements[0];
    const inner = first ? indentAt(text, first.getStart(sourceFile)) : indentAt(text, loop.getStart(sourceFile)) + o.unit;
    const open = body.getStart(sourceFile) + 1;
    edits.push({ start: open, end: open, text: `${o.newline}${inner}${bindText}` });
  } else {
    const inner = indentAt(text, loop.getStart(sourceFile)) + o.unit;
    const moved = reindentProtected({ text: body.getText(sourceFile), protect: [] }, indentAt(text, body.getStart(sourceFile)), inner).text;
    edits.push({ start: body.getStart(sourceFile), end: body.getEnd(), text: `{${o.newline}${inner}${bindText}${o.newline}${inner}${moved}${o.newline}${indentAt(text, loop.getStart(sourceFile))}}` });
  }
  return edits;
}

/** The question's conditional expression spilled into statements with the same evaluation order. */
function spill(o: NormalizeOptions, conditional: ts.Expression, statement: ts.Statement, names: LocalNames, answerTypes: Set<string>): Edit[] {
  const { ts, sourceFile, text, checker } = o;
  const nl = o.newline;
  const indent = indentAt(text, statement.getStart(sourceFile));
  const inner = indent + o.unit;
  const src = (n: ts.Node): string => reindentProtected({ text: n.getText(sourceFile), protect: [] }, indentAt(text, n.getStart(sourceFile)), inner).text;
  const typeText = (n: ts.Node): string => {
    if (!checker) return 'unknown';
    const printed = printType(ts, checker, checker.getTypeAtLocation(n), sourceFile, fileTypeNames(ts, checker, sourceFile));
    for (const name of printed.sdkImports) answerTypes.add(name);
    return requoteType(ts, printed.text, quoteStyle(ts, sourceFile));
  };
  const e = skipOuter(ts, conditional);
  /** The statements that give `target` the conditional's value. */
  const assign = (target: string): string[] => {
    if (ts.isConditionalExpression(e)) {
      return [`if (${e.condition.getText(sourceFile)}) {`, `${o.unit}${target} = ${src(e.whenTrue)};`, '} else {', `${o.unit}${target} = ${src(e.whenFalse)};`, '}'];
    }
    const b = e as ts.BinaryExpression;
    const test = testFor(ts, b.operatorToken.kind, target);
    return [`${target} = ${b.left.getText(sourceFile)};`, `if (${test}) {`, `${o.unit}${target} = ${src(b.right)};`, '}'];
  };
  const lines = (list: string[]): string => list.join(`${nl}${indent}`);

  if (ts.isExpressionStatement(statement)) {
    const x = skipOuter(ts, statement.expression);
    if (x === e && ts.isBinaryExpression(e) && e.operatorToken.kind >= ts.SyntaxKind.FirstAssignment) {
      // `v ||= await ask()`: assigned only when the test passes.
      const target = e.left.getText(sourceFile);
      return [{ start: statement.getStart(sourceFile), end: statement.getEnd(), text: lines([`if (${testFor(ts, e.operatorToken.kind, target)}) {`, `${o.unit}${target} = ${src(e.right)};`, '}']) }];
    }
    if (x === e) {
      // The value is dropped: only the condition decides whether the question is asked.
      if (ts.isConditionalExpression(e)) {
        return [{ start: statement.getStart(sourceFile), end: statement.getEnd(), text: lines([`if (${e.condition.getText(sourceFile)}) {`, `${o.unit}${src(e.whenTrue)};`, '} else {', `${o.unit}${src(e.whenFalse)};`, '}']) }];
      }
      const b = e as ts.BinaryExpression;
      // A plain name is tested as it is; anything else is evaluated once, into a const.
      const plain = isStableReference(ts, b.left);
      const left = plain ? b.left.getText(sourceFile) : names.take('value');
      const test = `if (${testFor(ts, b.operatorToken.kind, left)}) {`;
      const body = [test, `${o.unit}${src(b.right)};`, '}'];
      return [{ start: statement.getStart(sourceFile), end: statement.getEnd(), text: lines(plain ? body : [`const ${left} = ${b.left.getText(sourceFile)};`, ...body]) }];
    }
    // `v = a || await ask()`
    const assignment = x as ts.BinaryExpression;
    const target = assignment.left.getText(sourceFile);
    return [{ start: statement.getStart(sourceFile), end: statement.getEnd(), text: lines(assign(target)) }];
  }
  if (ts.isVariableStatement(statement)) {
    const d = statement.declarationList.declarations[0]!;
    const name = (d.name as ts.Identifier).text;
    const type = d.type ? d.type.getText(sourceFile) : typeText(d.name);
    return [{ start: statement.getStart(sourceFile), end: statement.getEnd(), text: lines([`let ${name}: ${type};`, ...assign(name)]) }];
  }
  if (ts.isIfStatement(statement) || ts.isReturnStatement(statement)) {
    const temp = names.take(ts.isIfStatement(statement) ? 'condition' : 'result');
    const before = lines([`let ${temp}: ${typeText(conditional)};`, ...assign(temp)]);
    return [
      { start: statement.getStart(sourceFile), end: statement.getStart(sourceFile), text: `${before}${nl}${indent}` },
      { start: conditional.getStart(sourceFile), end: conditional.getEnd(), text: temp },
    ];
  }
  return [];
}

/** The test under which the right-hand side runs: `!v` for ||, `v` for &&, `v === undefined || v === null` for ??. */
function testFor(ts: TS, op: ts.SyntaxKind, v: string): string {
  switch (op) {
    case ts.SyntaxKind.BarBarToken:
    case ts.SyntaxKind.BarBarEqualsToken:
      return `!${v}`;
    case ts.SyntaxKind.AmpersandAmpersandToken:
    case ts.SyntaxKind.AmpersandAmpersandEqualsToken:
      return v;
    default:
      return `${v} === undefined || ${v} === null`;
  }
}

