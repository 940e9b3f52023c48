import type * as ts from 'typescript';
import { skipOuter } from './sdk.js';
import { resolveIdentifier, type LocalDecl } from './scope.js';
import type { TS } from './types.js';

/**
 * Secret-looking values, shared by the codemod (a secret read before a question and used after it
 * must not be minted into the readable requestState) and the no-secrets-in-request-state rule.
 *
 * Names are split into words (`apiKey`, `api_key`, `API-KEY` → api key) so that `maxTokens` or
 * `tokenCount` do not match `token`.
 */

const SECRET_WORDS = new Set([
  'token', 'password', 'passwd', 'passphrase', 'secret', 'secrets', 'credential', 'credentials',
  'cookie', 'cookies', 'authorization', 'bearer', 'jwt', 'apikey', 'privatekey', 'sessionkey', 'sessionid', 'accesskey',
]);

const SECRET_PAIRS = new Set(['api key', 'private key', 'session key', 'session id', 'session secret', 'access key', 'signing key', 'encryption key']);

/** Words that turn a secret word into a fact about the secret (`tokenCount`, `hasPassword`, `cookieName`). */
const HARMLESS_WORDS = new Set([
  'count', 'counts', 'limit', 'limits', 'budget', 'usage', 'type', 'kind', 'length', 'max', 'min', 'estimate', 'used', 'remaining',
  'expiry', 'expires', 'exp', 'ttl', 'name', 'names', 'url', 'endpoint', 'policy', 'required', 'present', 'has', 'is', 'header',
]);

export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map(w => w.toLowerCase());
}

export function looksSecret(name: string): boolean {
  const words = nameWords(name);
  if (words.some(w => HARMLESS_WORDS.has(w))) return false;
  if (words.some(w => SECRET_WORDS.has(w))) return true;
  return words.some((w, i) => i + 1 < words.length && SECRET_PAIRS.has(`${w} ${words[i + 1]}`));
}

/** Receivers that hand out secrets when read: `vault.read()`, `secretsManager.getSecretValue()`. */
const SECRET_STORES = new Set(['vault', 'keychain', 'keyring', 'keystore', 'kms', 'secrets', 'secret', 'credentials', 'credential']);

/** The first word of a store method that returns what the store holds (`vault.beginAudit()` does not). */
const STORE_READS = new Set(['read', 'get', 'fetch', 'load', 'retrieve', 'lookup', 'decrypt', 'unseal', 'unwrap', 'reveal', 'access', 'value']);

/** A call that fetches a secret: named like one (`getSecret()`, `getApiKey()`) or a read of a secret store (`vault.read()`). */
export function isSecretSourceCall(callee: string | undefined, receiver: string | undefined): boolean {
  if (callee && looksSecret(callee)) return true;
  if (!receiver || !nameWords(receiver).some(w => SECRET_STORES.has(w))) return false;
  const verb = callee ? nameWords(callee)[0] : undefined;
  return verb === undefined || STORE_READS.has(verb);
}

export interface SecretValue {
  /** Where the secret comes from, for the refusal hint: `process.env.API_KEY`, `authInfo`, `vault.read()`, its name. */
  origin: string;
  /**
   * Whether reading it again gives it back without side effects: an environment variable, the
   * request's authInfo (every retry carries its own), a property of a parameter.
   */
  rereadable: boolean;
}

/**
 * Whether a local of the handler holds a secret, judged from its name and its initializer (through
 * other locals' initializers). A call other than a secret source transforms its input (a hash of a
 * token is not the token), so it ends the trace.
 */
export function secretValueOf(ts: TS, decl: LocalDecl, seen = new Set<LocalDecl>()): SecretValue | undefined {
  if (seen.has(decl)) return undefined;
  seen.add(decl);
  const declaration = decl.declaration;
  const init = ts.isVariableDeclaration(declaration) && ts.isIdentifier(declaration.name) ? declaration.initializer : undefined;
  const fromInit = init ? secretExpression(ts, init, seen) : undefined;
  if (fromInit) return fromInit;
  if (decl.kind !== 'parameter' && looksSecret(decl.name)) return { origin: `its name, \`${decl.name}\``, rereadable: false };
  return undefined;
}

function secretExpression(ts: TS, expr: ts.Expression, seen: Set<LocalDecl>): SecretValue | undefined {
  const e = skipOuter(ts, expr);
  if (ts.isAwaitExpression(e)) return secretExpression(ts, e.expression, seen);
  if (ts.isIdentifier(e)) {
    const decl = resolveIdentifier(ts, e);
    if (!decl) return undefined;
    if (decl.kind === 'const' || decl.kind === 'let' || decl.kind === 'var') return secretValueOf(ts, decl, seen);
    return undefined;
  }
  if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) return secretRead(ts, e);
  if (ts.isCallExpression(e)) {
    const callee = skipOuter(ts, e.expression);
    const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : undefined;
    const receiver = ts.isPropertyAccessExpression(callee) ? lastName(ts, callee.expression) : undefined;
    if (isSecretSourceCall(name, receiver)) return { origin: `${receiver ? `${receiver}.` : ''}${name ?? 'call'}()`, rereadable: false };
    return undefined;
  }
  const parts: ts.Expression[] = [];
  if (ts.isTemplateExpression(e)) parts.push(...e.templateSpans.map(span => span.expression));
  else if (ts.isBinaryExpression(e)) parts.push(e.left, e.right);
  else if (ts.isConditionalExpression(e)) parts.push(e.whenTrue, e.whenFalse);
  else if (ts.isArrayLiteralExpression(e)) parts.push(...e.elements.map(x => (ts.isSpreadElement(x) ? x.expression : x)));
  else if (ts.isObjectLiteralExpression(e)) {
    for (const property of e.properties) {
      const key = property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)) ? property.name.text : undefined;
      if (key && looksSecret(key)) {
        const value = ts.isPropertyAssignment(property) ? property.initializer : ts.isShorthandPropertyAssignment(property) ? property.name : undefined;
        const inner = value ? secretExpression(ts, value, seen) : undefined;
        return { origin: `its \`${key}\` property`, rereadable: inner?.rereadable ?? isRereadable(ts, value) };
      }
      if (ts.isPropertyAssignment(property)) parts.push(property.initializer);
      else if (ts.isShorthandPropertyAssignment(property)) parts.push(property.name);
      else if (ts.isSpreadAssignment(property)) parts.push(property.expression);
    }
  }
  const found = parts.map(p => secretExpression(ts, p, seen));
  const first = found.find(x => x !== undefined);
  if (!first) return undefined;
  // Built from secrets: rereadable only when everything it is built from is.
  return { origin: first.origin, rereadable: found.every(x => x === undefined || x.rereadable) && parts.every(p => isRereadable(ts, p)) };
}

/** `process.env.API_KEY`, `ctx.http?.authInfo?.token`, `extra.authInfo`, `config.apiKey`. */
function secretRead(ts: TS, e: ts.PropertyAccessExpression | ts.ElementAccessExpression): SecretValue | undefined {
  const chain: string[] = [];
  let node: ts.Expression = e;
  for (;;) {
    node = skipOuter(ts, node);
    if (ts.isPropertyAccessExpression(node)) {
      chain.unshift(node.name.text);
      node = node.expression;
    } else if (ts.isElementAccessExpression(node)) {
      const key = skipOuter(ts, node.argumentExpression);
      chain.unshift(ts.isStringLiteralLike(key) ? key.text : '[]');
      node = node.expression;
    } else break;
  }
  const root = ts.isIdentifier(node) ? node.text : undefined;
  const rereadable = isRereadable(ts, e);
  if (root === 'process' && chain[0] === 'env') {
    const variable = chain[1];
    return variable && looksSecret(variable) ? { origin: `process.env.${variable}`, rereadable } : undefined;
  }
  const auth = chain.indexOf('authInfo');
  if (auth >= 0) return { origin: chain.slice(auth).join('.'), rereadable };
  const last = chain[chain.length - 1];
  return last && looksSecret(last) ? { origin: [root ?? '…', ...chain].join('.'), rereadable } : undefined;
}

/**
 * Reads again to the same value with no side effect: property reads rooted at `process.env`, at a
 * handler parameter (the retry brings its own request and context) or at a literal.
 */
function isRereadable(ts: TS, expr: ts.Expression | undefined): boolean {
  if (!expr) return false;
  const e = skipOuter(ts, expr);
  if (ts.isStringLiteralLike(e) || ts.isNumericLiteral(e)) return true;
  if (ts.isTemplateExpression(e)) return e.templateSpans.every(span => isRereadable(ts, span.expression));
  if (ts.isBinaryExpression(e)) return isRereadable(ts, e.left) && isRereadable(ts, e.right);
  if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) {
    if (ts.isElementAccessExpression(e) && !ts.isStringLiteralLike(skipOuter(ts, e.argumentExpression))) return false;
    const inner = skipOuter(ts, e.expression);
    if (ts.isIdentifier(inner) && inner.text === 'process' && ts.isPropertyAccessExpression(e) && e.name.text === 'env') return true;
    return isRereadable(ts, inner);
  }
  if (ts.isIdentifier(e)) {
    const decl = resolveIdentifier(ts, e);
    if (decl?.kind === 'parameter') return true;
    // A const initialised with a rereadable read is itself rebuilt from it.
    const declaration = decl?.kind === 'const' ? decl.declaration : undefined;
    return !!declaration && ts.isVariableDeclaration(declaration) && !!declaration.initializer && isRereadable(ts, declaration.initializer);
  }
  return false;
}

function lastName(ts: TS, expr: ts.Expression): string | undefined {
  const e = skipOuter(ts, expr);
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isCallExpression(e)) return lastName(ts, e.expression);
  return undefined;
}
