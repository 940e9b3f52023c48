import { existsSync } from 'node:fs';
import path from 'node:path';
import type * as ts from 'typescript';
import { analyzeFile, mightContainSites, type ProjectIndex } from '../analysis/index.js';
import { constructionKey, constructionOfKey } from '../analysis/servers.js';
import type { TS } from '../analysis/types.js';
import { moduleSpecifier } from '../../transforms/mrtr/index.js';
import { sharedModuleText, sharedWiringEdits } from '../../transforms/mrtr/moduleSupport.js';
import { applyEdits, importQuote, indentUnit, newlineOf } from '../../transforms/mrtr/text.js';
import type { SharedRequestState } from '../../transforms/types.js';

/**
 * Servers whose handlers are registered in other files than the one constructing them (tools.ts +
 * index.ts) need one codec for all their files: the plan of all files together, before any is
 * rewritten. A file with a handler on such a server joins, and so do all servers of that file, so
 * each file has one codec. Undefined when every server and its handlers share a file.
 */
export function planSharedCodec(tsApi: TS, program: ts.Program, index: ProjectIndex, files: string[]): SharedRequestState | undefined {
  // Per file with plans: the keys of its handlers' servers, and whether one is built in another file.
  const plans = new Map<string, { keys: string[]; elsewhere: boolean }>();
  for (const file of files) {
    const sourceFile = program.getSourceFile(file);
    if (!sourceFile || !mightContainSites(sourceFile.text)) continue;
    const analysis = analyzeFile({
      ts: tsApi, sourceFile, program, crossFileServers: true,
      externalCallSites: fn => index.callsOf(fn),
    });
    const constructions = analysis.plans.flatMap(p => p.constructions);
    if (constructions.length === 0) continue;
    plans.set(sourceFile.fileName, {
      keys: constructions.map(c => constructionKey(tsApi, c)),
      elsewhere: constructions.some(c => c.getSourceFile() !== sourceFile),
    });
  }
  const keys = new Set<string>();
  const joined = new Set<string>();
  for (let changed = true; changed;) {
    changed = false;
    for (const [file, plan] of plans) {
      if (joined.has(file) || !(plan.elsewhere || plan.keys.some(k => keys.has(k)))) continue;
      joined.add(file);
      for (const k of plan.keys) keys.add(k);
      changed = true;
    }
  }
  if (keys.size === 0) return undefined;
  const serverFiles = [...new Set([...keys].map(fileOfKey))].sort();
  return { modulePath: freeModulePath(path.dirname(serverFiles[0]!), program), constructions: keys, importers: new Set(), uses: new Set() };
}

/** `requestState.ts` next to the server, or `requestState2.ts`, ... when that name is taken. */
function freeModulePath(dir: string, program: ts.Program): string {
  for (let i = 1; ; i++) {
    const candidate = path.join(dir, `requestState${i === 1 ? '' : i}.ts`);
    const stem = candidate.slice(0, -3);
    const taken = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.d.ts'].some(ext => existsSync(stem + ext) || program.getSourceFile(stem + ext));
    if (!taken) return candidate;
  }
}

export function fileOfKey(key: string): string {
  return (JSON.parse(key) as [string])[0];
}

/** The wiring of the shared codec into a server file that has no handlers of its own, and the module's import. */
export function wiredText(tsApi: TS, sourceFile: ts.SourceFile, shared: SharedRequestState): string {
  const constructions = [...shared.constructions]
    .filter(key => fileOfKey(key) === sourceFile.fileName)
    .map(key => constructionOfKey(tsApi, sourceFile, key));
  if (constructions.some(c => c === undefined)) throw new Error(`a server construction of ${sourceFile.fileName} is no longer where the plan found it`);
  const edits = sharedWiringEdits(tsApi, sourceFile, constructions as ts.NewExpression[], moduleSpecifier(tsApi, sourceFile, shared.modulePath));
  return applyEdits(sourceFile.text, edits);
}

/** The generated module, written in the style (newlines, indentation, quotes) of the first file that imports it. */
export function moduleText(tsApi: TS, shared: SharedRequestState, styleOf: ts.SourceFile): string {
  const text = styleOf.text;
  return sharedModuleText({ uses: shared.uses, newline: newlineOf(text), unit: indentUnit(text), quote: importQuote(tsApi, styleOf) });
}
