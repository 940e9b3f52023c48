import type * as ts from 'typescript';
import { membersImplemented } from './projectIndex.js';
import { isExported } from './scope.js';
import { skipOuter } from './sdk.js';
import type { TS } from './types.js';

/**
 * An asking method reached through the interface member it implements:
 *
 *   interface Confirmer { confirm(message: string): Promise<boolean>; }
 *   class ElicitingConfirmer implements Confirmer { async confirm(message: string) { ... elicitInput ... } }
 *   class DropTable { constructor(private confirmer: Confirmer) {} ... await this.confirmer.confirm(...) ... }
 *
 * When the split of `confirm` can stand in for the member (the interface is the method's class's
 * alone), the calls through the member are its calls, and the member is split with it: the interface
 * declares the two parts in its place (`confirmRequest(message: string): InputRequest;`, ...).
 */
export interface SplitMember {
  member: ts.MethodSignature;
  /** What the member's promise resolves to (`boolean` of `Promise<boolean>`): the result part's type. */
  resolved: ts.TypeNode;
}

/**
 * The interface member `fn` implements, where the interface is declared beside the class, not
 * exported, not merged or extended, implemented by that class alone in its file and cast to nowhere:
 * no other value of the file can stand for it, and any other value the program gives where it is
 * expected no longer type-checks once the member is split (the project's check rolls the rewrite
 * back). Or why it cannot be split with the method.
 */
export function splitMemberOf(ts: TS, checker: ts.TypeChecker, fn: ts.FunctionLikeDeclaration): SplitMember | { problem: string } | undefined {
  if (!ts.isMethodDeclaration(fn) || !ts.isClassDeclaration(fn.parent)) return undefined;
  const members = membersImplemented(ts, checker, fn);
  // A base class's method may run other code than this one: not an interface's to split.
  if (members.length === 0 || members.some(m => !ts.isInterfaceDeclaration(m.parent))) return undefined;
  const [member, ...more] = members;
  const owner = member!.parent as ts.InterfaceDeclaration;
  const name = owner.name.text;
  if (more.length > 0) return { problem: 'it implements members of several interfaces' };
  if (!ts.isMethodSignature(member!)) return { problem: `${name} declares it as a property, not a method` };
  const file = fn.getSourceFile();
  if (owner.getSourceFile() !== file) return { problem: `interface ${name} is declared in another file` };
  if (isExported(ts, file, name, owner)) return { problem: `interface ${name} is exported, so code outside the project may implement it` };
  if (owner.heritageClauses?.length || (checker.getSymbolAtLocation(owner.name)?.declarations?.length ?? 0) > 1) return { problem: `interface ${name} extends or merges with another declaration` };
  const resolved = promisedType(ts, member.type);
  if (!resolved) return { problem: `${name}.${member.name.getText()}() is not declared to return a Promise<T>` };
  if (owner.members.some(m => m !== member && m.name?.getText() === member.name.getText())) return { problem: `${name}.${member.name.getText()}() is overloaded` };
  const other = otherUse(ts, file, owner, fn.parent);
  if (other) return { problem: `interface ${name} ${other}` };
  return { member, resolved };
}

/** `T` of `Promise<T>`. */
function promisedType(ts: TS, type: ts.TypeNode | undefined): ts.TypeNode | undefined {
  return type && ts.isTypeReferenceNode(type) && type.typeName.getText() === 'Promise' && type.typeArguments?.length === 1 ? type.typeArguments[0] : undefined;
}

/** A use of the interface's name that lets another value stand for it: another class implements it, a cast, an interface extends it. */
function otherUse(ts: TS, file: ts.SourceFile, owner: ts.InterfaceDeclaration, cls: ts.ClassDeclaration): string | undefined {
  const name = owner.name.text;
  let found: string | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isExpressionWithTypeArguments(node) && ts.isIdentifier(skipOuter(ts, node.expression)) && (skipOuter(ts, node.expression) as ts.Identifier).text === name) {
      const clause = node.parent;
      const holder = clause.parent;
      if (!(holder === cls && ts.isHeritageClause(clause) && clause.token === ts.SyntaxKind.ImplementsKeyword)) {
        found = ts.isInterfaceDeclaration(holder) ? `is extended by ${holder.name.text}` : `is implemented by another class too (line ${line(file, node)})`;
      }
    }
    if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName) && node.typeName.text === name && (ts.isAsExpression(node.parent) || ts.isTypeAssertionExpression(node.parent))) {
      found = `is the type of a cast (line ${line(file, node)}), which may make any value one`;
    }
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

function line(file: ts.SourceFile, node: ts.Node): number {
  return file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
}
