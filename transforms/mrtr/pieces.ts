/**
 * The printer's output model: handler code as a tree of pieces, rendered once at the end.
 *
 * A chunk is text written at some indentation `from` (original code at its original indentation,
 * generated code at ''); rendering moves it to the indentation of the place it lands, line by line,
 * except lines that start inside a multi-line string or template (`protect`), which would change the
 * string. A chunk moved to where it already was comes out byte for byte.
 *
 * A compound piece is a statement whose header lines are chunks and whose bodies are pieces, one
 * indentation step in (`if (...) {`, body, `} else {`, body, `}`).
 */

export interface Chunk {
  text: string;
  /** The indentation the text's lines are written at. */
  from: string;
  /** Offsets (in `text`) of multi-line literals whose lines must not move. */
  protect: Array<[number, number]>;
}

export type Piece =
  | { kind: 'chunk'; chunk: Chunk }
  | { kind: 'compound'; parts: Array<Chunk | Piece[]> }
  /** A dispatch `if` on the round's step: its condition is written at render time from what is still possible there. */
  /** `exits`: the `then` branch never completes normally (a guard clause that returns). */
  | { kind: 'test'; test: StepTest; then: Piece[]; else: Piece[] | undefined; exits?: boolean };

/**
 * `state` is one of `truth` (step names, or START for the first round). `possible` is what it can
 * be where the test runs; the rendering picks the shortest condition that says the same there.
 */
export interface StepTest {
  variable: string;
  truth: ReadonlySet<string>;
  possible: ReadonlySet<string>;
}

/** The first round: no state. */
export const START = '';

export function chunk(text: string, from = '', protect: Array<[number, number]> = []): Piece {
  return { kind: 'chunk', chunk: { text, from, protect } };
}

/** The text of a chunk that is one blank line. */
export const BLANK_LINE = '\n';

/** A generated line (a brace, a header) for a compound piece. */
export function line(text: string): Chunk {
  return { text, from: '', protect: [] };
}

/** Whether rendered pieces can run off their end (a guard clause ends in a return: a test without else whose body cannot). */
export interface RenderOptions {
  unit: string;
  newline: string;
}

/** A block's body: no blank line right after its opening brace or before its closing one. */
function body(pieces: readonly Piece[], indent: string, options: RenderOptions): string[] {
  const lines = render(pieces, indent, options);
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function render(pieces: readonly Piece[], indent: string, options: RenderOptions): string[] {
  const lines: string[] = [];
  for (const piece of pieces) {
    if (piece.kind === 'chunk') {
      if (piece.chunk.text === BLANK_LINE) lines.push('');
      else if (piece.chunk.text !== '') lines.push(...renderChunk(piece.chunk, indent));
    }
    else if (piece.kind === 'compound') {
      for (const part of piece.parts) {
        if (Array.isArray(part)) lines.push(...body(part, indent + options.unit, options));
        else lines.push(...renderChunk(part, indent));
      }
    } else {
      lines.push(`${indent}if (${condition(piece.test)}) {`);
      lines.push(...body(piece.then, indent + options.unit, options));
      if (piece.else) {
        lines.push(`${indent}} else {`);
        lines.push(...body(piece.else, indent + options.unit, options));
      }
      lines.push(`${indent}}`);
    }
  }
  return lines;
}

function renderChunk(c: Chunk, indent: string): string[] {
  const out: string[] = [];
  let offset = 0;
  for (const raw of c.text.split('\n')) {
    const start = offset;
    offset += raw.length + 1;
    // Lines are joined with the file's newline afterwards.
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const inLiteral = c.protect.some(([s, e]) => start > s && start < e);
    if (inLiteral) out.push(line);
    else if (line.trim() === '') out.push('');
    else if (line.startsWith(c.from)) out.push(indent + line.slice(c.from.length));
    else out.push(indent + line.replace(/^[ \t]+/, ''));
  }
  return out;
}

/** The condition of a step test, as short as what is possible there allows. */
export function condition(test: StepTest): string {
  const v = test.variable;
  const truth = [...test.truth].filter(s => test.possible.has(s));
  const falsy = [...test.possible].filter(s => !test.truth.has(s));
  const startPossible = test.possible.has(START);
  // `?.` always: it also reads well where the state is known to be there, and never fails to type-check.
  const steps = (names: string[], op: '===' | '!=='): string => names.map(n => `${v}?.step ${op} '${n}'`).join(op === '===' ? ' || ' : ' && ');
  if (truth.length === 0) return 'false';
  if (falsy.length === 0) return 'true';
  if (truth.length === 1 && truth[0] === START) return `${v} === undefined`;
  if (falsy.length === 1 && falsy[0] === START) return `${v} !== undefined`;
  const truthSteps = truth.filter(s => s !== START);
  const falsySteps = falsy.filter(s => s !== START);
  // `state?.step !== 'a'` is true for the first round too; `state?.step === 'a'` is false there.
  if (truth.includes(START)) return steps(falsySteps, '!==');
  if (!startPossible && falsySteps.length < truthSteps.length) return steps(falsySteps, '!==');
  return steps(truthSteps, '===');
}
