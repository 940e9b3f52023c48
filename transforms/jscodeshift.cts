import path = require('node:path');
import workerThreads = require('node:worker_threads');

/**
 * `mrtr-migrate/jscodeshift`: the per-file part of the migration as a jscodeshift transform, for
 * teams whose codemod runner expects one:
 *
 *   npx jscodeshift -t node_modules/mrtr-migrate/dist/transforms/jscodeshift.cjs \
 *     --extensions=ts,tsx,mts,cts,js,jsx,mjs,cjs src/
 *
 * Per file it runs the official v1-to-v2 stage (unless `--sdkUpgrade=false`), the MRTR rewrite and
 * the serving-entry rewrite, as the CLI does. What it cannot do, because it sees one file at a time:
 * - helpers in other files: a question asked inside a helper is traced only to handlers in the same
 *   file (the CLI indexes every file of the project);
 * - type information comes from this file's imports as they are on disk and the nearest tsconfig;
 *   files migrated in the same run are seen with their old types;
 * - no type check: a rewrite that adds a type error is not rolled back;
 * - no package.json update, no git guard, no report file: refusals and notes go to jscodeshift's
 *   report output.
 *
 * CommonJS on purpose, with the work in a worker thread: jscodeshift's default `--babel` mode
 * recompiles every module its process loads, which breaks ES modules and the TypeScript compiler.
 */

interface FileInfo {
  path: string;
  source: string;
}

interface FileOutcome {
  output: string;
  reports: string[];
}

interface Api {
  report?: (message: string) => void;
}

type Reply = { id: number; outcome: FileOutcome; error?: undefined } | { id: number; error: string; outcome?: undefined };

let worker: workerThreads.Worker | undefined;
let nextId = 0;
const pending = new Map<number, { resolve(outcome: FileOutcome): void; reject(error: Error): void }>();

function workerThread(): workerThreads.Worker {
  if (worker) return worker;
  const started = new workerThreads.Worker(path.join(__dirname, 'jscodeshiftWorker.js'));
  started.on('message', (reply: Reply) => {
    const waiting = pending.get(reply.id);
    pending.delete(reply.id);
    // Idle: do not keep jscodeshift's worker process alive.
    if (pending.size === 0) started.unref();
    if (!waiting) return;
    if (reply.error !== undefined) waiting.reject(new Error(reply.error));
    else waiting.resolve(reply.outcome);
  });
  started.on('error', error => {
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
    worker = undefined;
  });
  started.unref();
  worker = started;
  return started;
}

/** jscodeshift's options hold only strings, numbers and booleans worth sending. */
function plainOptions(options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v)));
}

async function transformer(file: FileInfo, api: Api, options: Record<string, unknown> = {}): Promise<string> {
  const thread = workerThread();
  const id = nextId++;
  const outcome = await new Promise<FileOutcome>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    thread.ref();
    thread.postMessage({ id, file: { path: file.path, source: file.source }, options: plainOptions(options) });
  });
  for (const message of outcome.reports) api.report?.(message);
  return outcome.output;
}

export = transformer;
