import type * as ts from 'typescript';
import { isScopeName, type SdkNameUse } from '../../src/analysis/index.js';
import { NameAllocator } from '../../src/analysis/names.js';
import type { TS } from '../../src/analysis/types.js';
import { applyEdits, type Edit } from './text.js';

/**
 * The SDK names the rewrite imports (`ElicitResult`, `inputRequired`, ...) in a file that has a name
 * of its own spelled alike, or that imports the SDK's under another name. The printers write SDK
 * names as they are; so while the rewrite runs, the file's own names are set aside under stand-ins
 * of the same length, which no text of the file contains; afterwards every SDK name the rewrite
 * wrote becomes its alias (`import { type ElicitResult as SdkElicitResult }`, or the file's own
 * alias), and the stand-ins become the file's names again, so its own lines come back byte for byte.
 */
export interface SdkAliasing {
  /** Stand-in → the file's own name it holds the place of. */
  standIns: Map<string, string>;
  /** SDK name → the name the rewritten file calls it by; `imported` where the file imports it so already. */
  aliases: Map<string, { name: string; imported: boolean }>;
}

export function sdkAliasing(ts: TS, file: ts.SourceFile, use: SdkNameUse): SdkAliasing | undefined {
  if (use.problem !== undefined || (use.declared.size === 0 && use.importedAs.size === 0)) return undefined;
  const names = new NameAllocator(ts, [file]);
  const standIns = new Map<string, string>();
  const aliases = new Map<string, { name: string; imported: boolean }>();
  for (const name of use.declared.keys()) standIns.set(standInFor(name, file.text, standIns), name);
  for (const [name, alias] of use.importedAs) aliases.set(name, { name: alias, imported: true });
  for (const name of use.declared.keys()) if (!aliases.has(name)) aliases.set(name, { name: names.take(aliasOf(name)), imported: false });
  return { standIns, aliases };
}

/** `ElicitResult` → `SdkElicitResult`, `inputRequired` → `sdkInputRequired`, `CLIENT_CAPABILITIES_META_KEY` → `SDK_CLIENT_...`. */
function aliasOf(name: string): string {
  if (/^[A-Z0-9_]+$/.test(name)) return `SDK_${name}`;
  if (/^[A-Z]/.test(name)) return `Sdk${name}`;
  return `sdk${name[0]!.toUpperCase()}${name.slice(1)}`;
}

/** `ElicitResult` → `ElicitResul$` (or `ElicitResu$$`, ...): as long as the name, found nowhere in the text. */
function standInFor(name: string, text: string, taken: ReadonlyMap<string, string>): string {
  for (let k = 1; k < name.length; k++) {
    const candidate = name.slice(0, name.length - k) + '$'.repeat(k);
    if (!text.includes(candidate) && !taken.has(candidate)) return candidate;
  }
  throw new Error(`no stand-in for ${name} is free in the file`);
}

/** The file's text with its own names that the rewrite would import from the SDK replaced by their stand-ins. */
export function setAside(ts: TS, file: ts.SourceFile, aliasing: SdkAliasing): string {
  const standInOf = new Map([...aliasing.standIns].map(([standIn, name]) => [name, standIn]));
  const edits: Edit[] = [];
  const visit = (node: ts.Node): void => {
    const standIn = ts.isIdentifier(node) ? standInOf.get(node.text) : undefined;
    if (standIn !== undefined && isScopeName(ts, node as ts.Identifier)) {
      const id = node as ts.Identifier;
      const parent = id.parent;
      const name = id.text;
      // Where one identifier is both a local name and a key or an export's name, the key stays.
      const text = ts.isImportSpecifier(parent) && !parent.propertyName ? `${name} as ${standIn}`
        : ts.isExportSpecifier(parent) && !parent.propertyName ? `${standIn} as ${name}`
          : ts.isShorthandPropertyAssignment(parent) && parent.name === id ? `${name}: ${standIn}`
            : ts.isBindingElement(parent) && !parent.propertyName && ts.isObjectBindingPattern(parent.parent) ? `${name}: ${standIn}`
              : standIn;
      edits.push({ start: id.getStart(file), end: id.getEnd(), text });
    }
    node.forEachChild(visit);
  };
  visit(file);
  return applyEdits(file.text, edits);
}

/**
 * The rewritten text with the SDK names the rewrite wrote under their aliases, and the file's own
 * names back in place of their stand-ins (the forms setAside expanded written as before).
 */
export function putBack(ts: TS, fileName: string, text: string, aliasing: SdkAliasing): string {
  const kind = /\.[cm]?tsx$/i.test(fileName) ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const edits: Edit[] = [];
  const replace = (from: ts.Node, to: ts.Node, by: string): void => void edits.push({ start: from.getStart(file), end: to.getEnd(), text: by });
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && isScopeName(ts, node)) {
      const alias = aliasing.aliases.get(node.text);
      const own = aliasing.standIns.get(node.text);
      if (alias) aliasEdit(ts, file, node, alias, edits);
      else if (own !== undefined) {
        const parent = node.parent;
        const is = (n: ts.Node | undefined): boolean => !!n && ts.isIdentifier(n) && n.text === own;
        if (ts.isImportSpecifier(parent) && is(parent.propertyName)) replace(parent.propertyName!, node, own);
        else if (ts.isExportSpecifier(parent) && is(parent.name)) replace(node, parent.name, own);
        else if (ts.isPropertyAssignment(parent) && parent.initializer === node && is(parent.name)) replace(parent.name, node, own);
        else if (ts.isBindingElement(parent) && is(parent.propertyName)) replace(parent.propertyName!, node, own);
      }
    }
    node.forEachChild(visit);
  };
  visit(file);
  let result = applyEdits(text, edits);
  for (const [standIn, name] of aliasing.standIns) result = result.split(standIn).join(name);
  return result;
}

/** An SDK name the rewrite wrote: its alias, and where it is imported, imported as that alias (or not again). */
function aliasEdit(ts: TS, file: ts.SourceFile, id: ts.Identifier, alias: { name: string; imported: boolean }, edits: Edit[]): void {
  const parent = id.parent;
  const at = { start: id.getStart(file), end: id.getEnd() };
  if (ts.isImportSpecifier(parent) && !parent.propertyName) {
    if (!alias.imported) return void edits.push({ ...at, text: `${id.text} as ${alias.name}` });
    const elements = parent.parent.elements;
    const index = elements.indexOf(parent);
    const declaration = parent.parent.parent.parent;
    if (elements.length === 1 && !declaration.importClause?.name) {
      const end = file.text.startsWith('\r\n', declaration.getEnd()) ? declaration.getEnd() + 2 : file.text.startsWith('\n', declaration.getEnd()) ? declaration.getEnd() + 1 : declaration.getEnd();
      return void edits.push({ start: declaration.getStart(file), end, text: '' });
    }
    return void edits.push(index > 0
      ? { start: elements[index - 1]!.getEnd(), end: parent.getEnd(), text: '' }
      : { start: parent.getStart(file), end: elements[1]!.getStart(file), text: '' });
  }
  // `const { inputRequired } = require('@modelcontextprotocol/server')`, `{ inputRequired }` in an object.
  if ((ts.isBindingElement(parent) && !parent.propertyName && ts.isObjectBindingPattern(parent.parent)) || (ts.isShorthandPropertyAssignment(parent) && parent.name === id)) {
    return void edits.push({ ...at, text: `${id.text}: ${alias.name}` });
  }
  edits.push({ ...at, text: alias.name });
}
