/**
 * Whether a property or variable name looks like it holds a secret. Names are split into words
 * (`apiKey`, `api_key`, `API-KEY` → api key) so that `maxTokens` or `tokenCount` do not match `token`.
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
