import { ts } from 'ts-morph';
import { isMissingSdkModule } from './sdkTypes.js';

/**
 * Type errors of one file, keyed without positions, so the errors of the text before a rewrite and
 * after it can be compared although lines moved.
 */
export interface TypeError {
  /**
   * The code and the first name the message quotes (`TS2339 'sendRequest'`), not the whole message:
   * the same error is printed with other type names after the v1-to-v2 upgrade (the SDK's v2 types)
   * and after the rewrite (a value typed through the SDK's alias instead of its structure).
   */
  key: string;
  line: number;
  /** Where in the file it starts (undefined for an error without a position). */
  start: number | undefined;
  text: string;
}

/** TS6059 (not under rootDir), TS6307 (not listed in the project's files). */
const LAYOUT_ERRORS = new Set([6059, 6307]);

export function typeErrorsOf(program: ts.Program, sourceFile: ts.SourceFile): TypeError[] {
  const diagnostics = [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)];
  const errors: TypeError[] = [];
  for (const d of diagnostics) {
    if (d.category !== ts.DiagnosticCategory.Error) continue;
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    // An SDK package the project has not installed yet is the install's business, not the rewrite's.
    if (isMissingSdkModule(d.code, message)) continue;
    // Where a file sits in the project (outside `rootDir`, not in the tsconfig's file list) is the
    // project's layout: the run adds files to its program itself, and a rewrite moves no file.
    if (LAYOUT_ERRORS.has(d.code)) continue;
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    const quoted = /'([^']*)'/.exec(message)?.[1];
    errors.push({ key: `TS${d.code} '${quoted ?? ''}'`, line, start: d.start, text: `line ${line}: TS${d.code}: ${message}` });
  }
  return errors;
}

/** Errors of `after` that `before` did not have (as a multiset: one more of the same error counts). */
export function addedErrors(before: TypeError[], after: TypeError[]): TypeError[] {
  const remaining = new Map<string, number>();
  for (const e of before) remaining.set(e.key, (remaining.get(e.key) ?? 0) + 1);
  const added: TypeError[] = [];
  for (const e of after) {
    const left = remaining.get(e.key) ?? 0;
    if (left > 0) remaining.set(e.key, left - 1);
    else added.push(e);
  }
  return added;
}
