import { ts } from 'ts-morph';
import { lineMapper } from '../../report/diff.js';
import { ownerManifest } from '../packageJson.js';
import { programWith } from '../programs.js';
import type { SiteReport } from '../../report/model.js';
import { isAsRead, markRolledBack, markUndone, type Entry, type LineMarker, type RunState } from '../runState.js';
import { literalRanges } from '../../../transforms/mrtr/text.js';
import { standardPath } from '../sourceFiles.js';
import { addedErrors, typeErrorsOf, type TypeError } from '../typeCheck.js';
import { importsZod } from '../zodUpgrade.js';
import { undoGroup } from './group.js';

/**
 * After the rewrites are checked: what the v1-to-v2 stage (the official transforms, the zod
 * upgrade) and the rewrites leave broken goes back as read, and with it what cannot go on without
 * it, until the project has no type error the run added (verify.ts runs it last).
 */
export function holdBack(run: RunState): void {
  const upgraded = run.v1.filter(e => !e.error && !isAsRead(e));
  settle(run, upgraded, checkUpgrade(run, upgraded));
}

/**
 * What is left of a v1 file's new errors came with the v1-to-v2 stage (an SDK package not installed
 * yet is not one: its types are borrowed, sdkTypes.ts): the whole file stays on v1 rather than be
 * written broken, in a handler (one that destructures `sendRequest` from its context, which the v2
 * context no longer has) or outside (transport setup the official stage maps loosely). Then what
 * stays as read holds back the files that cannot go on without it: a package's zod upgrade, the
 * files exchanging SDK objects with it.
 */
function checkUpgrade(run: RunState, upgraded: Entry[]): Entry[] {
  if (upgraded.length === 0 && !run.live.some(e => e.zodPackage !== undefined)) return [];
  const program = run.project.getProgram().compilerObject;
  const kept: Entry[] = [];
  for (const entry of upgraded) {
    const compiled = program.getSourceFile(entry.read.path);
    const after = compiled ? typeErrorsOf(program, compiled) : [];
    if (after.length === 0) continue;
    run.readBaselines();
    const added = onDisk(entry, compiled!.text, addedErrors(entry.readBaseline!, after));
    if (added.length === 0) continue;
    keepAsRead(run, entry, added, `the v1-to-v2 upgrade of this file added ${countOf(added)}, so the whole file stays on the v1 SDK as it was${zodAdvice(run, entry)}`,
      taskOptionCause(entry, added) ?? `the v1-to-v2 upgrade of this file added ${firstError(added)}, so it stays on the v1 SDK; the report lists them`, upgradeErrorMarkers(entry.read, added));
    kept.push(entry);
  }
  return [...kept, ...holdBackZod(run, kept)];
}

/**
 * What goes back as read holds back, in turn, the files that cannot go on without it (the files it
 * exchanges SDK objects with, its package's zod upgrade); once nothing more goes back, the files
 * importing a changed one are checked (holdBackImporters), and what they hold back goes round again.
 */
function settle(run: RunState, upgraded: Entry[], kept: Entry[]): void {
  for (let round = 0; round < 8; round++) {
    if (kept.length === 0) kept = holdBackImporters(run);
    if (kept.length === 0) return;
    const neighbours = holdBackNeighbours(run, upgraded, kept);
    kept = [...neighbours, ...holdBackZod(run, neighbours)];
  }
}

/**
 * The invariant: no file of the project gets a type error from the run. The changed files were
 * checked themselves; here each unchanged file read that imports one of them, directly or through
 * other unchanged files, is (one the run skipped joins the program for it), against the project as
 * read. A changed file whose importer would get an error goes back as read, with its group, and the
 * reason names the importer (and the file it imports it through) and its first error.
 */
function holdBackImporters(run: RunState): Entry[] {
  const changed = new Map(run.live.filter(e => !e.error && !e.created && !isAsRead(e)).map(e => [standardPath(e.read.path), e]));
  const importers = importersOfChanged(run, changed);
  if (importers.size === 0) return [];
  for (const file of importers.keys()) if (!run.project.getSourceFile(file)) run.project.addSourceFileAtPath(file);
  const program = run.project.getProgram().compilerObject;
  let asRead: ts.Program | undefined;
  const held: Entry[] = [];
  for (const [file, imported] of importers) {
    const compiled = program.getSourceFile(file);
    const after = compiled ? typeErrorsOf(program, compiled) : [];
    if (after.length === 0) continue;
    asRead ??= programWith(program, run.host!, new Map([...changed.values()].map(e => [e.sourceFile!.getFilePath() as string, e.asReadNode!])), run.asReadOptions(program));
    const before = asRead.getSourceFile(file);
    // An importer held back itself may carry markers: its errors are named at its lines as read.
    const added = atLinesOf(run.texts.get(file), compiled!.text, addedErrors(before ? typeErrorsOf(asRead, before) : [], after));
    if (added.length === 0) continue;
    // An importer kept on v1 itself is named by what keeps it there.
    const kept = run.v1.find(e => standardPath(e.read.path) === file && e.rolledBack && e.newTypeErrors.length > 0);
    for (const [entry, via] of imported) {
      if (isAsRead(entry)) continue;
      const imports = via ? `imports this file through ${run.rel(via)}` : 'imports this file';
      const cause = kept ? `${kept.rel}${heldAt(kept)} stays on the v1 SDK, and this file exchanges SDK objects with it, so it stays on v1 too`
        : `${run.rel(file)}:${added[0]?.line ?? 1}, which ${imports}, would get a type error from its change, so it stays as it was`;
      keepAsRead(run, entry, added, `${run.rel(file)}, which ${imports}, would get ${countOf(added)} from its change, so it stays as it was`, cause);
      held.push(entry);
    }
  }
  return held;
}

/**
 * The unchanged files that import a changed one, directly or through other unchanged files (a type
 * passed on by a module that only re-exports or holds it breaks a file two imports away): each with
 * the changed files it reaches, each with the file it reaches it through (`via`, the first of the
 * chain), or undefined where it imports that one itself.
 */
function importersOfChanged(run: RunState, changed: Map<string, Entry>): Map<string, Map<Entry, string | undefined>> {
  const importers = new Map<string, Map<Entry, string | undefined>>();
  for (const [file, entry] of changed) {
    const seen = new Set([file]);
    // Breadth first: each importer is found by its shortest chain, whose first hop names it.
    const queue: { at: string; via: string | undefined }[] = [{ at: file, via: undefined }];
    for (let next = queue.shift(); next; next = queue.shift()) {
      for (const importer of run.stubs.importersOf(next.at)) {
        // A changed importer is checked itself, and its own importers from it.
        if (seen.has(importer) || changed.has(importer)) continue;
        seen.add(importer);
        const via = next.at === file ? undefined : next.via ?? next.at;
        const reached = importers.get(importer) ?? importers.set(importer, new Map()).get(importer)!;
        reached.set(entry, via);
        queue.push({ at: importer, via });
      }
    }
  }
  return importers;
}

/**
 * zod moves in a package together with its v1 files or not at all: when a file of it that imports
 * zod has a type error it did not have as read (on the package's own zod), or, in a zod 3 package,
 * one of its files stays on v1 (`kept`), its files that import zod stay as read (the v2 SDK's
 * registerTool takes no zod 3 schema, zod 3 code may not build on zod 4) and its range as it was.
 */
function holdBackZod(run: RunState, kept: Entry[]): Entry[] {
  const files = run.live.filter(e => e.zodPackage !== undefined && !e.error && !run.zodHeldBack.has(e.zodPackage));
  if (files.length === 0) return [];
  const program = run.project.getProgram().compilerObject;
  const broken = new Map<string, string>();
  // A file back as read holds back a package whose zod 3 code moves to zod 4 (its own zod 3 code would
  // not build on it); on zod 4.0 or 4.1 the code stays, and the v1 SDK takes zod 4.2 as well.
  for (const entry of kept) {
    const manifest = entry.zodPackage ?? ownerManifest(entry.read.path, run.manifestStop);
    const moves = manifest !== undefined && run.zodPackages.get(manifest)?.migrateCode === true && files.some(e => e.zodPackage === manifest);
    if (moves && !broken.has(manifest)) broken.set(manifest, `${entry.rel} stays as it was`);
  }
  for (const entry of files) {
    if (broken.has(entry.zodPackage!) || run.v1.includes(entry)) continue;
    const compiled = program.getSourceFile(entry.read.path);
    const after = compiled ? typeErrorsOf(program, compiled) : [];
    if (after.length === 0) continue;
    run.readBaselines();
    const added = onDisk(entry, compiled!.text, addedErrors(entry.readBaseline!, after));
    if (added.length > 0) broken.set(entry.zodPackage!, `zod 4 gives ${entry.rel} ${countOf(added)}`);
  }
  const held: Entry[] = [];
  for (const [manifest, cause] of broken) {
    run.zodHeldBack.add(manifest);
    const status = run.zodPackages.get(manifest)!;
    for (const entry of files.filter(e => e.zodPackage === manifest && !isAsRead(e))) {
      keepAsRead(run, entry, [], `the package ${run.rel(manifest)} stays on zod ${status.version} (${cause}), so this file, which imports zod, stays as it was with it`,
        `the package ${run.rel(manifest)} stays on zod ${status.version} (${cause}), so this file stays as it was`);
      held.push(entry);
    }
  }
  return held;
}

/**
 * SDK objects never cross between a v1 file and a v2 one: files that stay on v1 hold back, with
 * them, each upgraded file that then gains type errors from the difference (`registerTools(server)`
 * handing a v2 McpServer to a v1 function, directly or through a module between them), and so on.
 * The reason names the file kept that it imports or that imports it, else the first one kept.
 */
function holdBackNeighbours(run: RunState, upgraded: Entry[], kept: Entry[]): Entry[] {
  const all: Entry[] = [];
  let reverted = kept;
  for (let round = 0; round < 10 && reverted.length > 0; round++) {
    const program = run.project.getProgram().compilerObject;
    const next: Entry[] = [];
    for (const entry of upgraded) {
      if (isAsRead(entry)) continue;
      const compiled = program.getSourceFile(entry.read.path);
      if (!compiled) continue;
      run.readBaselines();
      const added = onDisk(entry, compiled.text, addedErrors(entry.readBaseline!, typeErrorsOf(program, compiled)));
      if (added.length === 0) continue;
      const holder = reverted.find(k => importsBetween(program, compiled, k.read.path)) ?? reverted[0]!;
      keepAsRead(run, entry, added, `${holder.rel} stays on the v1 SDK, and this file, which exchanges SDK objects with it, would get ${countOf(added, 'on v2')}, so it stays on v1 with it`,
        `${holder.rel}${heldAt(holder)} stays on the v1 SDK, and this file exchanges SDK objects with it, so it stays on v1 too`);
      next.push(entry);
    }
    all.push(...next);
    reverted = next;
  }
  return all;
}

/** Whether `file` imports the module at `other`, or that module imports `file`. */
function importsBetween(program: ts.Program, file: ts.SourceFile, other: string): boolean {
  const target = program.getSourceFile(other);
  const imports = (from: ts.SourceFile, to: ts.SourceFile): boolean => from.statements.some(s =>
    (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier !== undefined &&
    program.getTypeChecker().getSymbolAtLocation(s.moduleSpecifier)?.valueDeclaration === to);
  return !!target && (imports(file, target) || imports(target, file));
}

/**
 * Put a file the v1-to-v2 stage changed back as it was read, with its group (the files of a group
 * back on v1 would leave the others half rewritten); `why` says what held it back, `cause` the same
 * in the few words of a marker. Each push call the file keeps gets a marker, the only edit to it:
 * the undone ones with `cause`, the refused ones with their reason, at the lines of the text as read.
 */
function keepAsRead(run: RunState, entry: Entry, added: TypeError[], why: string, cause: string, errorMarkers: LineMarker[] = []): void {
  const group = run.groupOf(entry);
  if (group) undoGroup(run, group, `${entry.rel} stays as it was before the v1-to-v2 upgrade`);
  // The sites name lines of the upgraded text the rewrite read.
  const toRead = entry.afterSdkUpgrade === entry.read.text ? (line: number) => line : lineMapper(entry.read.text, entry.afterSdkUpgrade);
  entry.sourceFile!.replaceWithText(entry.read.text);
  entry.afterSdkUpgrade = entry.read.text;
  entry.rolledBack = true;
  entry.changedBy = [];
  entry.newTypeErrors = added.map(e => e.text);
  run.diagnostics.push({ level: 'error', source: 'sdk-upgrade', code: 'sdk-upgrade/rolled-back', file: entry.rel, line: undefined, message: `${why}; upgrade it by hand, or report the case.` });
  for (const site of entry.sites) {
    if (site.status === 'migrated' || site.status === 'migrated-for-review') markUndone(site, 'rolled-back', `${why}.`);
    if (site.markerLine !== undefined) site.markerLine = toRead(site.markerLine);
    if (run.v1.includes(entry)) spelledAsRead(site);
  }
  markRolledBack(entry, entry.sites.filter(s => s.status === 'rolled-back' || s.status === 'not-written'), cause, errorMarkers);
}

/**
 * A site of a v1 file back as read was analysed in the upgraded text, where the stage had spelled
 * `extra.sendRequest(...)` as `ctx.mcpReq.send(...)`: it is named as the file has it.
 */
function spelledAsRead(site: SiteReport): void {
  site.sdk = 'v1';
  if (site.api === 'ctx.mcpReq.send') site.api = 'extra.sendRequest';
  if (site.api !== 'extra.sendRequest') return;
  const asRead = (text: string): string => text.replace(/\bctx\.mcpReq\.send\(\)/g, 'extra.sendRequest()');
  site.hint = site.hint && asRead(site.hint);
  site.todo = site.todo.map(asRead);
}

/**
 * For a file the v1-to-v2 upgrade gave type errors (`added`, at lines of the text as read): a marker
 * above the statement (or class member) each error is in, with the error, so the user sees there
 * what to fix by hand before running again; one per statement, none where its line starts inside a
 * multi-line literal.
 */
function upgradeErrorMarkers(read: { path: string; text: string }, added: TypeError[]): LineMarker[] {
  const file = ts.createSourceFile(read.path, read.text, ts.ScriptTarget.Latest, true);
  const literals = literalRanges(ts as never, file as never);
  const markers = new Map<number, LineMarker>();
  for (const error of added) {
    const start = statementStart(file, error.line);
    if (start === undefined) continue;
    const lineStart = read.text.lastIndexOf('\n', start - 1) + 1;
    if (literals.some(([from, to]) => lineStart > from && lineStart < to)) continue;
    const line = file.getLineAndCharacterOfPosition(start).line + 1;
    // A type of a module the file does not import is printed with its path (`import("/…/node_modules/…").McpServer`): the name is enough here.
    const message = error.text.replace(/^line \d+: (TS\d+): /, '$1 on v2: ').replace(/import\("[^"]*"(?:, \{ with: \{[^}]*\} \})?\)\./g, '');
    if (!markers.has(line)) markers.set(line, { line, reason: 'upgrade-error', text: message });
  }
  return [...markers.values()];
}

/** Where the innermost statement or class member holding the first code of `line` (1-based) starts. */
function statementStart(file: ts.SourceFile, line: number): number | undefined {
  const starts = file.getLineStarts();
  if (line < 1 || line > starts.length) return undefined;
  let at = starts[line - 1]!;
  while (at < file.text.length && (file.text[at] === ' ' || file.text[at] === '\t')) at++;
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (at < node.getStart(file) || at >= node.getEnd()) return;
    const parent = node.parent;
    if (ts.isClassElement(node) || (parent && (ts.isBlock(parent) || ts.isSourceFile(parent) || ts.isModuleBlock(parent) || ts.isCaseOrDefaultClause(parent)))) found = node;
    node.forEachChild(visit);
  };
  file.forEachChild(visit);
  return found?.getStart(file);
}

/** `: line 6` (the first error that keeps a file on v1), or nothing when none is known. */
function heldAt(holder: Entry): string {
  const line = /^line (\d+):/.exec(holder.newTypeErrors[0] ?? '')?.[1];
  return line ? `:${line}` : '';
}

/**
 * Where every error the upgrade gave a file is the `task` call option of a question asked as a task
 * (v2's request options have none, and dropping it would change the question): that question is
 * what keeps the file on v1, and the plain questions beside it are told so.
 */
function taskOptionCause(entry: Entry, added: TypeError[]): string | undefined {
  const taskOption = (e: TypeError): boolean => /^line \d+: TS2353: .*'task' does not exist in type/.test(e.text);
  if (added.length === 0 || !added.every(taskOption)) return undefined;
  if (!entry.sites.some(site => site.reason === 'task-augmented')) return undefined;
  return `the \`task\` call option at line ${added[0]!.line} (a question asked as a task) has no v2 form, so this file stays on the v1 SDK`;
}

/** `2 type error(s) (TS2339 first, line 16)`: a count for a marker. */
function firstError(added: TypeError[]): string {
  const first = added[0];
  const code = first && /\bTS\d+/.exec(first.text)?.[0];
  return `${added.length} type error(s)${first ? ` (${code ? `${code} first, ` : ''}line ${first.line})` : ''}`;
}

/** Where zod was left old (`--no-zod-upgrade`) in the file's package: why the v2 SDK rejects its schemas. */
function zodAdvice(run: RunState, entry: Entry): string {
  if (run.zodUpgrade || !importsZod(entry.read.text)) return '';
  const manifest = ownerManifest(entry.read.path, run.manifestStop);
  const status = manifest ? run.zodPackages.get(manifest) : undefined;
  return status ? ` (the v2 SDK takes zod 4.2 or later and ${run.rel(manifest!)} is on zod ${status.version}: run without --no-zod-upgrade)` : '';
}

/** Type errors found in `checked` (the file's text when it was checked), at the lines of the file on disk. */
export function onDisk(entry: Entry, checked: string, errors: TypeError[]): TypeError[] {
  return atLinesOf(entry.read.text, checked, errors);
}

/** Type errors found in `checked`, at the lines of `read` (the file as read, which the run may have marked since). */
function atLinesOf(read: string | undefined, checked: string, errors: TypeError[]): TypeError[] {
  if (read === undefined || checked === read || errors.length === 0) return errors;
  const toDisk = lineMapper(read, checked);
  return errors.map(e => ({ ...e, line: toDisk(e.line), text: e.text.replace(/^line \d+:/, `line ${toDisk(e.line)}:`) }));
}

/**
 * `3 type error(s) on v2 (line 4: TS2769 ...; ...)`: how a reason counts the errors it found, the
 * first one clipped (the report lists them all, whole).
 */
export function countOf(added: Array<TypeError | string>, where = ''): string {
  const first = added[0] === undefined ? '' : typeof added[0] === 'string' ? added[0] : added[0].text;
  return `${added.length} type error(s)${where ? ` ${where}` : ''} (${clip(first)}${added.length > 1 ? '; ...' : ''})`;
}

/** A compiler message cut to about 200 characters: the checker prints whole types into some. */
export function clip(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 199)}…`;
}
