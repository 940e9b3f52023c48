/**
 * A run that cannot be done as asked: bad arguments, nothing to read, a dirty work tree. The CLI
 * prints the message as one line and exits with 2; the message says what, where, and what to do.
 */
export class MigrateError extends Error {
  override readonly name = 'MigrateError';
}
