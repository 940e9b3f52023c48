import { Node, SyntaxKind, type ParameterDeclaration, type SourceFile, type TypeReferenceNode } from 'ts-morph';
import { applyEdits, type Edit } from '../../transforms/mrtr/text.js';

/**
 * Repairs of the types the official stage leaves for a handler's context (v1's
 * `RequestHandlerExtra<ServerRequest, ServerNotification>`, v2's `ServerContext`) where a helper
 * names only some of its members: an indexed access (`['sendRequest']`) or a `Pick` of them.
 */

/** v1 context members and where v2's context has them, as the official stage maps them in expressions (`extra.sendRequest` is `ctx.mcpReq.send`). */
export const CONTEXT_MEMBERS: Readonly<Record<string, string>> = {
  sendRequest: 'mcpReq.send',
  sendNotification: 'mcpReq.notify',
  signal: 'mcpReq.signal',
  requestId: 'mcpReq.id',
  _meta: 'mcpReq._meta',
  sessionId: 'sessionId',
  authInfo: 'http?.authInfo',
  requestInfo: 'http?.req',
  closeSSEStream: 'http?.closeSSE',
  closeStandaloneSSEStream: 'http?.closeStandaloneSSE',
};

/** The members a type can name (`ServerContext['mcpReq']['send']`): an optional `http?.` one has no such path. */
const CONTEXT_MEMBER_PATHS: Record<string, string[]> = Object.fromEntries(
  Object.entries(CONTEXT_MEMBERS).filter(([, path]) => !path.includes('?')).map(([key, path]) => [key, path.split('.')]));

/**
 * `RequestHandlerExtra<ServerRequest, ServerNotification>['sendRequest']` comes out of the official
 * stage as `ServerContext['sendRequest']`, which v2 does not have (a type error): it is
 * `ServerContext['mcpReq']['send']`, as the stage maps `extra.sendRequest` to `ctx.mcpReq.send`.
 * Returns the type aliases remapped.
 */
export function remapContextMemberTypes(sourceFile: SourceFile): Set<string> {
  const aliases = new Set<string>();
  if (!importsServerContext(sourceFile)) return aliases;
  const edits: Edit[] = [];
  for (const node of sourceFile.getDescendantsOfKind(SyntaxKind.IndexedAccessType)) {
    const object = node.getObjectTypeNode();
    const index = node.getIndexTypeNode();
    if (!isServerContext(sourceFile, object)) continue;
    const literal = Node.isLiteralTypeNode(index) ? index.getLiteral() : undefined;
    const path = literal && Node.isStringLiteral(literal) ? CONTEXT_MEMBER_PATHS[literal.getLiteralValue()] : undefined;
    if (!path) continue;
    const quote = literal!.getText()[0]!;
    edits.push({ start: index.getStart(), end: node.getEnd(), text: `${path.map(p => `${quote}${p}${quote}`).join('][')}]` });
    const alias = node.getParent();
    if (Node.isTypeAliasDeclaration(alias)) aliases.add(alias.getName());
  }
  if (edits.length > 0) sourceFile.replaceWithText(applyEdits(sourceFile.getFullText(), edits));
  return aliases;
}

/**
 * `type Extra = Pick<RequestHandlerExtra<ServerRequest, ServerNotification>, 'sendNotification' | '_meta'>`
 * (public servers type their progress and cancellation helpers so) comes out of the official stage
 * as `Pick<ServerContext, 'sendNotification' | '_meta'>`, keys v2's context does not have, and the
 * helpers' bodies still read `extra.sendNotification`. Where every key has a v2 place and the type
 * (or its alias) only annotates parameters that are read as `extra.key` or handed on whole, the
 * type picks the same members where v2 keeps them (`{ mcpReq: Pick<ServerContext['mcpReq'], 'notify'
 * | '_meta'> }`, which every handler's context satisfies) and the reads follow
 * (`extra.mcpReq.notify(...)`); `Partial<Pick<...>>` stays partial. Returns the annotations remapped
 * (an alias's name, or the type as the stage wrote it) and the functions of the file that take a v2 context: those whose parameters were remapped, and those
 * typed with the whole context (which the stage maps itself).
 */
export function remapPickedContexts(sourceFile: SourceFile): { annotations: Set<string>; helpers: Set<string> } {
  const result = { annotations: new Set<string>(), helpers: new Set<string>() };
  if (!importsServerContext(sourceFile)) return result;
  const edits: Edit[] = [];
  for (const pick of sourceFile.getDescendantsOfKind(SyntaxKind.TypeReference)) {
    const picked = pickedMembers(sourceFile, pick);
    if (!picked) continue;
    const outer = pick.getParent();
    const partial = Node.isTypeReference(outer) && outer.getTypeName().getText() === 'Partial' && outer.getTypeArguments().length === 1 ? outer : undefined;
    const typeNode = partial ?? pick;
    const holder = typeNode.getParent();
    let params: ParameterDeclaration[];
    if (Node.isTypeAliasDeclaration(holder) && holder.getTypeParameters().length === 0) {
      const uses = sourceFile.getDescendantsOfKind(SyntaxKind.TypeReference).filter(r => r.getTypeName().getText() === holder.getName());
      if (uses.some(r => r.getTypeArguments().length > 0 || !Node.isParameterDeclaration(r.getParent()))) continue;
      params = uses.map(r => r.getParent() as ParameterDeclaration);
    } else if (Node.isParameterDeclaration(holder)) {
      params = [holder];
    } else {
      continue;
    }
    const reads = readEdits(params, picked.keys, partial !== undefined);
    if (!reads) continue;
    edits.push({ start: typeNode.getStart(), end: typeNode.getEnd(), text: v2Pick(picked, partial !== undefined) }, ...reads);
    result.annotations.add(Node.isTypeAliasDeclaration(holder) ? holder.getName() : typeNode.getText());
    for (const param of params) {
      const name = functionName(param.getParentOrThrow());
      if (name) result.helpers.add(name);
    }
  }
  if (edits.length > 0) sourceFile.replaceWithText(applyEdits(sourceFile.getFullText(), edits));
  // Helpers whose parameter is the whole context: the stage mapped their reads itself.
  for (const param of sourceFile.getDescendantsOfKind(SyntaxKind.Parameter)) {
    const type = param.getTypeNode();
    const name = type && isServerContext(sourceFile, type) ? functionName(param.getParentOrThrow()) : undefined;
    if (name) result.helpers.add(name);
  }
  return result;
}

interface PickedMembers {
  /** The context type as written (`ServerContext`, or an alias of it). */
  context: string;
  keys: string[];
  quote: string;
}

/** `Pick<ServerContext, 'a' | 'b'>` whose keys all have a place in v2's context. */
function pickedMembers(sourceFile: SourceFile, pick: TypeReferenceNode): PickedMembers | undefined {
  const [context, union, ...more] = pick.getTypeArguments();
  if (pick.getTypeName().getText() !== 'Pick' || !context || !union || more.length > 0 || !isServerContext(sourceFile, context)) return undefined;
  const members = Node.isUnionTypeNode(union) ? union.getTypeNodes() : [union];
  const keys: string[] = [];
  let quote = "'";
  for (const member of members) {
    const literal = Node.isLiteralTypeNode(member) ? member.getLiteral() : undefined;
    if (!Node.isStringLiteral(literal) || !CONTEXT_MEMBER_PATHS[literal.getLiteralValue()]) return undefined;
    keys.push(literal.getLiteralValue());
    quote = literal.getText()[0]!;
  }
  return { context: context.getText(), keys, quote };
}

/** The v2 type that picks the same members: `{ mcpReq: Pick<C['mcpReq'], 'notify'> } & Pick<C, 'sessionId'>`. */
function v2Pick({ context, keys, quote }: PickedMembers, partial: boolean): string {
  const q = (name: string) => `${quote}${name}${quote}`;
  const nested = keys.map(k => CONTEXT_MEMBER_PATHS[k]!).filter(path => path.length === 2).map(path => q(path[1]!));
  const top = keys.map(k => CONTEXT_MEMBER_PATHS[k]!).filter(path => path.length === 1).map(path => q(path[0]!));
  const wrap = (type: string) => (partial ? `Partial<${type}>` : type);
  const parts: string[] = [];
  if (nested.length > 0) parts.push(`{ mcpReq${partial ? '?' : ''}: ${wrap(`Pick<${context}[${q('mcpReq')}], ${nested.join(' | ')}>`)} }`);
  if (top.length > 0) parts.push(wrap(`Pick<${context}, ${top.join(' | ')}>`));
  return parts.join(' & ');
}

/**
 * `extra.sendNotification` → `extra.mcpReq.notify` in the functions of `params` (`extra.mcpReq?.notify`
 * where the type is partial); undefined where a parameter is used otherwise than read as
 * `extra.key` or handed whole to a call.
 */
function readEdits(params: ParameterDeclaration[], keys: string[], partial: boolean): Edit[] | undefined {
  const edits: Edit[] = [];
  for (const param of params) {
    const name = param.getNameNode();
    if (!Node.isIdentifier(name)) return undefined;
    const symbol = name.getSymbol();
    for (const id of param.getParentOrThrow().getDescendantsOfKind(SyntaxKind.Identifier)) {
      if (id === name || id.getText() !== name.getText() || id.getSymbol() !== symbol) continue;
      const parent = id.getParentOrThrow();
      if (Node.isCallExpression(parent) && parent.getArguments().includes(id)) continue;
      if (!Node.isPropertyAccessExpression(parent) || parent.getExpression() !== id || !keys.includes(parent.getName())) return undefined;
      const path = CONTEXT_MEMBER_PATHS[parent.getName()]!;
      const member = parent.getNameNode();
      edits.push({ start: member.getStart(), end: member.getEnd(), text: path.join(partial ? '?.' : '.') });
    }
  }
  return edits;
}

/** The name a function is called by: its own, or the variable or property it is assigned to. */
function functionName(fn: Node): string | undefined {
  if (Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn)) return fn.getName();
  const holder = fn.getParent();
  return Node.isVariableDeclaration(holder) || Node.isPropertyAssignment(holder) || Node.isPropertyDeclaration(holder) ? holder.getName() : undefined;
}

function importsServerContext(sourceFile: SourceFile): boolean {
  return sourceFile.getImportDeclarations().some(d => d.getModuleSpecifierValue() === '@modelcontextprotocol/server' &&
    d.getNamedImports().some(n => n.getName() === 'ServerContext' && !n.getAliasNode()));
}

/** `ServerContext`, or a type alias of the file for it (`type Extra = ServerContext`, as the stage leaves `RequestHandlerExtra<...>`). */
function isServerContext(sourceFile: SourceFile, type: Node, seen = new Set<string>()): boolean {
  if (!Node.isTypeReference(type) || type.getTypeArguments().length > 0) return false;
  const name = type.getTypeName().getText();
  if (name === 'ServerContext') return true;
  if (seen.has(name)) return false;
  seen.add(name);
  const alias = sourceFile.getTypeAlias(name);
  const aliased = alias && alias.getTypeParameters().length === 0 ? alias.getTypeNode() : undefined;
  return !!aliased && isServerContext(sourceFile, aliased, seen);
}
