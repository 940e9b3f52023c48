import type * as ts from 'typescript';
import type { HandlerPlan } from '../../src/analysis/index.js';
import { memberValue, urlMembers } from '../../src/analysis/detect.js';
import { observableCall } from '../../src/analysis/purity.js';
import { resolveIdentifier } from '../../src/analysis/scope.js';
import { skipOuter } from '../../src/analysis/sdk.js';
import type { TS } from '../../src/analysis/types.js';
import type { Edit } from './text.js';
import { importEditsWithout } from './orphanedImports.js';

/**
 * What a pushed URL question leaves behind once it is `inputRequired.elicitUrl({ message, url })`
 * (the 2026 question has no id; urlPushProblem in analyze.ts allows only an id nothing uses again):
 * its `elicitationId` value, and the `const` that only held it when nothing sees its initializer run
 * (`const confirmationId = randomUUID();`), which goes too.
 */
export interface DroppedUrlIds {
  values: ts.Node[];
  declarations: ts.VariableStatement[];
}

export function droppedUrlIds(ts: TS, plans: readonly HandlerPlan[]): DroppedUrlIds {
  const dropped: DroppedUrlIds = { values: [], declarations: [] };
  for (const question of plans.flatMap(p => p.questions)) {
    const params = question.raw.kind === 'url-elicitation' && question.raw.params ? skipOuter(ts, question.raw.params) : undefined;
    const shape = params && ts.isObjectLiteralExpression(params) ? urlMembers(ts, params) : undefined;
    const member = shape && 'members' in shape ? shape.members.get('elicitationId') : undefined;
    if (!member) continue;
    const value = skipOuter(ts, memberValue(ts, member));
    dropped.values.push(value);
    const decl = ts.isIdentifier(value) ? resolveIdentifier(ts, value) : undefined;
    const declaration = decl?.kind === 'const' && ts.isVariableDeclaration(decl.declaration) ? decl.declaration : undefined;
    const list = declaration?.parent;
    const statement = list && ts.isVariableDeclarationList(list) && list.declarations.length === 1 ? list.parent : undefined;
    if (statement && ts.isVariableStatement(statement) && declaration!.initializer && !observableCall(ts, declaration!.initializer)) dropped.declarations.push(statement);
  }
  return dropped;
}

/**
 * Imports only the dropped ids used (`import { randomUUID } from 'node:crypto'`): left, they would be
 * unused imports (and fail noUnusedLocals). A specifier goes; an import left with none goes whole.
 */
export function unusedImportEdits(ts: TS, sourceFile: ts.SourceFile, dropped: DroppedUrlIds): Edit[] {
  const ranges = [...dropped.values, ...dropped.declarations];
  if (ranges.length === 0) return [];
  const inDropped = (n: ts.Node): boolean => ranges.some(r => n.getStart(sourceFile) >= r.getStart(sourceFile) && n.getEnd() <= r.getEnd());
  const uses = new Map<string, { dropped: number; kept: number }>();
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n)) return;
    if (ts.isIdentifier(n)) {
      const count = uses.get(n.text) ?? { dropped: 0, kept: 0 };
      if (inDropped(n)) count.dropped++;
      else count.kept++;
      uses.set(n.text, count);
    }
    n.forEachChild(visit);
  };
  visit(sourceFile);
  const unused = (name: ts.Identifier): boolean => {
    const count = uses.get(name.text);
    return count !== undefined && count.dropped > 0 && count.kept === 0;
  };
  return importEditsWithout(ts, sourceFile, unused);
}
