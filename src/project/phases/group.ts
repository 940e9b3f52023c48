import path from 'node:path';
import { ts, type SourceFile } from 'ts-morph';
import { isJavaScriptFile } from '../../analysis/typeSyntax.js';
import { sourcesMatching } from '../discover.js';
import { ownerManifest } from '../packageJson.js';
import { joinEntry, markRolledBack, markUndone, newEntry, sourceTextOf, type Entry, type RunState } from '../runState.js';
import { fileOfKey, moduleText, wiredText } from '../sharedCodec.js';
import { sharedModuleAdditions } from '../../../transforms/mrtr/moduleSupport.js';
import { readSource } from '../load.js';

/**
 * The files that stand or fall together: those of a shared codec (the generated module and the
 * server files wired to it join the run here), and those linked by an asking helper. A group that
 * cannot be completed is undone now.
 */
export function group(run: RunState): void {
  const plan = run.plan!;
  const shared = plan.shared;
  const sharedGroup = shared && shared.importers.size > 0 ? wireSharedCodec(run) : [];
  // A server file wired without handlers of its own is checked against its errors before, as the others.
  run.baselineFiles.push(...sharedGroup.filter(e => e.beforeWiring !== undefined));
  run.groups = linkedGroups(run, sharedGroup);
  // A split helper must have no user the analysis did not see: a source of its package that is not
  // in the program (outside the paths given, or not parsed), names it and imports from the program.
  for (const { file, name } of plan.sharedHelpers) {
    const group = run.groups.find(g => g.some(e => path.resolve(e.read.path) === path.resolve(file)));
    if (!group || group.length === 0) continue;
    const manifest = ownerManifest(file, run.git.root ?? path.parse(file).root);
    const root = manifest ? path.dirname(manifest) : run.ignoreRoot;
    const unseen = unseenUsers(name, root, run.project.getProgram().compilerObject, run.ignore, run.ignoreRoot);
    if (unseen.length > 0) {
      undoGroup(run, group, `${name}() is split, but ${unseen.slice(0, 3).map(f => run.rel(f)).join(', ')}${unseen.length > 3 ? ', ...' : ''}, which this run does not analyse, also names it and would lose it; run mrtr-migrate on a folder that holds every file using it`);
    }
  }
}

/**
 * Wire the shared codec into the server files that have no handlers of their own and add the
 * support module to the project. Returns the files that stand or fall together (the importers whose
 * servers span files, and the servers wired for them); empty when there are none or the group could
 * not be completed, and then its importers are back as they were. Files whose servers and handlers are
 * all their own (`shared.optional`) import the module too but stand alone.
 */
function wireSharedCodec(run: RunState): Entry[] {
  const shared = run.plan!.shared!;
  const { live } = run;
  const optional = new Set([...shared.optional ?? []].map(f => path.resolve(f)));
  const byPath = new Map(live.map(e => [path.resolve(e.read.path), e]));
  const required = [...shared.constructions].filter(key => !optional.has(path.resolve(fileOfKey(key))));
  // A server file with nothing to rewrite of its own was read for context only: it is rewritten now.
  for (const read of run.contextFiles) {
    const file = path.resolve(read.path);
    if (byPath.has(file) || !required.some(key => path.resolve(fileOfKey(key)) === file)) continue;
    const entry = joinEntry(run, read);
    if (entry) byPath.set(file, entry);
  }
  const importers = [...shared.importers].filter(file => !optional.has(path.resolve(file)));
  const free = [...shared.importers].filter(file => optional.has(path.resolve(file))).map(file => byPath.get(path.resolve(file))).filter((e): e is Entry => e !== undefined && !e.error);
  const group = importers.length > 0 ? requiredGroup(run, importers, required, byPath) : [];
  if (group.length === 0 && free.length === 0) return [];
  // The runtime package is imported, not written.
  if (shared.package) return group;
  const module = supportModule(run, byPath, group[0] ?? free[0]!);
  if (!module) {
    undoGroup(run, [...group, ...free], `its codec is in ${run.rel(shared.modulePath)}, which an earlier run wrote and this run cannot read`);
    return [];
  }
  run.supportModule = module;
  return group;
}

/**
 * The importers whose servers span files, with the server files wired for them; empty (and undone)
 * when one of them is not rewritten or cannot import the module.
 */
function requiredGroup(run: RunState, importers: string[], required: string[], byPath: Map<string, Entry>): Entry[] {
  const shared = run.plan!.shared!;
  const group = importers.map(file => byPath.get(path.resolve(file))).filter((e): e is Entry => e !== undefined && !e.error);
  const serverFiles = [...new Set(required.map(fileOfKey))].filter(file => !shared.importers.has(file));
  const missing = serverFiles.filter(file => !byPath.get(path.resolve(file)) || byPath.get(path.resolve(file))!.error);
  // The module is written in the language of the server: a TypeScript server's group must be all
  // TypeScript, a JavaScript one's all ES modules (the module is one; CommonJS is refused).
  // The runtime package serves ES modules of either language.
  const moduleIsJs = !shared.package && isJavaScriptFile(shared.modulePath);
  const files = [...importers, ...serverFiles];
  const misfits = shared.package
    ? files.filter(file => !isEsModule(byPath.get(path.resolve(file))?.sourceFile))
    : moduleIsJs
    ? files.filter(file => !isJavaScriptFile(file) || !isEsModule(byPath.get(path.resolve(file))?.sourceFile))
    : files.filter(isJavaScriptFile);
  const rel = (file: string) => run.rel(file);
  if (missing.length > 0 || group.length < importers.length || misfits.length > 0 || shared.wiredPlain) {
    const why = shared.wiredPlain
      ? `the server in ${rel(shared.wiredPlain)} reads requestState through the codec an earlier run wired into it, and a server sharing its codec module (${rel(shared.modulePath)}) keeps requestState of its own, which one module does not serve both ways; migrate by hand`
      : missing.length > 0
      ? `its server is constructed in ${missing.map(rel).join(', ')}, which this run does not rewrite (outside the paths given, or left untouched); run mrtr-migrate on a folder that holds both`
      : misfits.length > 0 && shared.package
      ? `${misfits.map(rel).join(', ')} ${misfits.length === 1 ? 'is' : 'are'} not an ES module, and ${shared.package} is an ES module its files import; migrate this server by hand or convert it`
      : misfits.length > 0
      ? moduleIsJs
        ? `${misfits.map(rel).join(', ')} ${misfits.length === 1 ? 'is' : 'are'} not a JavaScript ES module like the server's file, and the codec shared by its modules is generated as one (${rel(shared.modulePath)}); migrate this server by hand or convert it`
        : serverFiles.some(isJavaScriptFile)
        ? `its server is built in a CommonJS module (${serverFiles.filter(isJavaScriptFile).map(rel).join(', ')}), and a codec shared by several modules is generated as TypeScript or as an ES module only; migrate this server by hand or convert it`
        : `${misfits.map(rel).join(', ')} ${misfits.length === 1 ? 'is' : 'are'} JavaScript, and the codec shared by this TypeScript server's modules is generated as TypeScript; migrate this server by hand or convert it`
      : 'another file of its server was not rewritten';
    undoGroup(run, group, why);
    return [];
  }
  for (const file of serverFiles) {
    const entry = byPath.get(path.resolve(file))!;
    entry.beforeWiring = sourceTextOf(entry);
    entry.sourceFile!.replaceWithText(wiredText(ts as never, entry.sourceFile!.compilerNode as never, shared));
    if (!entry.changedBy.includes('mrtr')) entry.changedBy.push('mrtr');
    group.push(entry);
  }
  return group;
}

/**
 * The support module: generated (in the style of `styleOf`, its first importer), or the one an earlier
 * run wrote, added to where the handlers need a helper it was written without; undefined when that
 * one cannot be read.
 */
function supportModule(run: RunState, byPath: Map<string, Entry>, styleOf: Entry): Entry | undefined {
  const shared = run.plan!.shared!;
  if (shared.existing) {
    const module = byPath.get(path.resolve(shared.modulePath)) ?? writtenModuleEntry(run, shared.modulePath);
    if (!module?.sourceFile) return undefined;
    const text = sharedModuleAdditions(ts as never, module.sourceFile.compilerNode as never, shared.uses, shared.keeps);
    if (text !== undefined) {
      module.beforeWiring = sourceTextOf(module);
      module.sourceFile.replaceWithText(text);
      if (!module.changedBy.includes('mrtr')) module.changedBy.push('mrtr');
    }
    return module;
  }
  const module = newEntry({ path: shared.modulePath, raw: '', text: '', role: 'rewrite' }, run.rel(shared.modulePath));
  module.created = true;
  module.changedBy = ['mrtr'];
  module.sourceFile = run.project.createSourceFile(shared.modulePath, moduleText(ts as never, shared, styleOf.sourceFile!.compilerNode as never), { overwrite: true });
  run.entries.push(module);
  run.live.push(module);
  return module;
}

/** The files that import the support module and still do (rolled back or undone ones do not). */
export function supportImporters(run: RunState): Entry[] {
  const importers = new Set([...run.plan?.shared?.importers ?? []].map(f => path.resolve(f)));
  return run.live.filter(e => importers.has(path.resolve(e.read.path)) && !e.error && e.changedBy.includes('mrtr'));
}

/** Undo the support module and every file that needs it (its importers, with their groups): the module cannot be written. */
export function undoSupport(run: RunState, why: string, cause: string | false = why): void {
  const module = run.supportModule;
  if (!module) return;
  const importers = supportImporters(run);
  const groups = run.groups.filter(g => g.some(e => importers.includes(e)));
  const all = [...new Set([...groups.flat(), ...importers, module])];
  for (const g of groups) g.length = 0;
  undoGroup(run, all, why, cause);
  run.supportModule = undefined;
}

/** A support module no file imports any more (each was rolled back) goes: undone, or not created at all. */
export function pruneSupport(run: RunState): void {
  const module = run.supportModule;
  if (!module || supportImporters(run).length > 0) return;
  run.supportModule = undefined;
  if (module.created) {
    run.project.removeSourceFile(module.sourceFile!);
    module.sourceFile = undefined;
    run.entries.splice(run.entries.indexOf(module), 1);
    run.live.splice(run.live.indexOf(module), 1);
    return;
  }
  if (module.beforeWiring !== undefined) module.sourceFile!.replaceWithText(module.beforeWiring);
  module.changedBy = module.changedBy.filter(id => id !== 'mrtr');
}

/** The shared module an earlier run wrote, joined to the run's files as it is on disk. */
function writtenModuleEntry(run: RunState, modulePath: string): Entry | undefined {
  const read = run.contextFiles.find(r => path.resolve(r.path) === path.resolve(modulePath));
  if (read) return joinEntry(run, read);
  let file;
  try {
    file = readSource(modulePath, false);
  } catch {
    return undefined;
  }
  const entry = newEntry(file, run.rel(modulePath));
  entry.sourceFile = run.project.getSourceFile(modulePath) ?? run.project.addSourceFileAtPath(modulePath);
  entry.asReadNode = entry.sourceFile.compilerNode;
  run.entries.push(entry);
  run.live.push(entry);
  return entry;
}

/**
 * The shared codec's group, and each set of files linked by an asking helper (merged where they
 * share a file). A linked group with a file this run does not rewrite (outside the paths given, not
 * parsed, stopped by an internal error) is undone.
 */
function linkedGroups(run: RunState, sharedGroup: Entry[]): Entry[][] {
  const plan = run.plan!;
  const byPath = new Map(run.live.map(e => [path.resolve(e.read.path), e]));
  const groups: Entry[][] = sharedGroup.length > 0 ? [sharedGroup] : [];
  for (const files of plan.linked) {
    const members = files.map(f => byPath.get(path.resolve(f)));
    let group = members.filter((e): e is Entry => e !== undefined);
    // Joined with every group it shares a file with.
    for (const other of groups.filter(g => g.some(e => group.includes(e)))) {
      group = [...new Set([...other, ...group])];
      groups.splice(groups.indexOf(other), 1);
    }
    groups.push(group);
    // Only a split helper needs its callers rewritten with it; a refused one leaves them as they are.
    const missing = files.filter((f, i) => members[i] === undefined || members[i]!.error !== undefined);
    if (missing.length > 0 && files.some(f => plan.helperFiles.has(f))) {
      undoGroup(run, group, `an asking helper links them to ${missing.map(f => run.rel(f)).join(', ')}, which this run does not rewrite (outside the paths given, or left untouched); run mrtr-migrate on a folder that holds them all`);
    }
  }
  return groups;
}

/**
 * Put every file of a group back as it was before the rewrite, say why once, and empty the group
 * (its files are then on their own: nothing else undoes them for the group). Each question a file
 * keeps gets a marker with `cause`, the reason in the few words a marker holds where `why` quotes
 * an error (default: `why`); none with `false`, where the files are not to be written at all.
 */
export function undoGroup(run: RunState, group: Entry[], why: string, cause: string | false = why): void {
  const files = group.filter(e => !e.created).map(e => e.rel);
  run.diagnostics.push({
    level: 'error', source: 'verify', code: 'verify/rolled-back', file: files[0], line: undefined,
    message: `the files whose handlers share one requestState codec or an asking helper (${files.join(', ')}) were rolled back together: ${why}; migrate them by hand or report the case.`,
  });
  for (const entry of group) {
    if (entry.created) {
      run.project.removeSourceFile(entry.sourceFile!);
      entry.sourceFile = undefined;
      entry.changedBy = [];
      entry.error = `not created: ${why}.`;
      continue;
    }
    const restored = entry.beforeWiring ?? entry.afterSdkUpgrade;
    // A member the rewrite left as it was (a caller of a refused helper, a test) has nothing undone.
    if (entry.sourceFile!.getFullText() !== restored) {
      entry.sourceFile!.replaceWithText(restored);
      entry.rolledBack = true;
    }
    if (entry.beforeWiring === undefined) entry.changedBy = entry.changedBy.filter(id => id === 'sdk-upgrade');
    else entry.changedBy = entry.changedBy.filter(id => id !== 'mrtr');
    const undone = entry.sites.filter(site => site.status === 'migrated' || site.status === 'migrated-for-review');
    for (const site of undone) markUndone(site, 'rolled-back', `the files sharing this server's requestState codec or an asking helper were rolled back together: ${why}.`);
    if (cause !== false) markRolledBack(entry, undone, `${cause}; the files sharing this server's requestState codec or an asking helper were rolled back together`);
  }
  group.length = 0;
}

/** Whether a file is an ES module (`.mjs`, or a `.js` file with an import or export statement). */
function isEsModule(sourceFile: SourceFile | undefined): boolean {
  if (!sourceFile) return false;
  const name = sourceFile.getFilePath();
  if (name.endsWith('.mjs')) return true;
  if (name.endsWith('.cjs')) return false;
  return sourceFile.compilerNode.statements.some(s => ts.isImportDeclaration(s) || ts.isExportDeclaration(s) ||
    (ts.canHaveModifiers(s) && ts.getModifiers(s)?.some(m => m.kind === ts.SyntaxKind.ExportKeyword)));
}

/**
 * Sources under `root` that `program` does not hold, whose text names `name` and that import a
 * source of the program (a module resolved with the program's options), or cannot be read.
 */
function unseenUsers(name: string, root: string, program: ts.Program, ignore: string[], ignoreRoot: string): string[] {
  const word = new RegExp(`\\b${name.replace(/[$]/g, '\\$&')}\\b`);
  const reachesProgram = (text: string, file: string): boolean => ts.preProcessFile(text, true, true).importedFiles.some(({ fileName }) => {
    const resolved = ts.resolveModuleName(fileName, file, program.getCompilerOptions(), ts.sys).resolvedModule;
    return resolved !== undefined && !resolved.isExternalLibraryImport && program.getSourceFile(resolved.resolvedFileName) !== undefined;
  });
  return sourcesMatching(root, file => !program.getSourceFile(file), (text, file) => word.test(text) && reachesProgram(text, file), ignore, ignoreRoot);
}
