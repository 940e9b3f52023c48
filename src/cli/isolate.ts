import { getHeapStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import pc from 'picocolors';
import type { ProgressEvent } from '../project/migrate.js';
import { EXIT } from './exitCodes.js';
import { PHASES } from './progress.js';

/** What the main thread hands the worker (worker.ts). */
export interface WorkerInput {
  argv: string[];
  cwd: string;
  invokedAs: string;
  stderrIsTTY: boolean;
  columns: number | undefined;
  /** Whether to colour the output, decided here (TTY, NO_COLOR, FORCE_COLOR, --no-color): a worker's stdout is no TTY. */
  color: boolean;
  /** The memory of its RunFlags. */
  flags: SharedArrayBuffer;
}

type Phase = ProgressEvent['phase'];
const PHASE_ORDER = Object.keys(PHASES) as Phase[];

/**
 * What the worker tells the main thread in shared memory rather than by message: the worker may be
 * busy for seconds when a signal comes, or gone (out of memory) before a message is read.
 */
export class RunFlags {
  private readonly slots: Int32Array;

  constructor(readonly buffer = new SharedArrayBuffer(8)) {
    this.slots = new Int32Array(buffer);
  }

  /** Whether the run listens for SIGINT / SIGTERM: it is writing. */
  get writing(): boolean {
    return Atomics.load(this.slots, 0) === 1;
  }

  set writing(on: boolean) {
    Atomics.store(this.slots, 0, on ? 1 : 0);
  }

  /** The phase the run is in. */
  get phase(): Phase | undefined {
    return PHASE_ORDER[Atomics.load(this.slots, 1) - 1];
  }

  set phase(phase: Phase) {
    Atomics.store(this.slots, 1, PHASE_ORDER.indexOf(phase) + 1);
  }
}

/**
 * The CLI runs in a worker thread. Some projects' types need more memory than the JavaScript heap
 * allows (tsc --noEmit runs out on them too): out of memory, V8 ends the whole process with its own
 * stack trace and no word of what happened. In a worker it ends the worker only, and this thread
 * says what ran out, in which phase, whether anything was written, and what to do.
 *
 * Signals reach the main thread only: while the run writes it listens, and SIGINT / SIGTERM are
 * passed on (the run stops before the next file, run.ts); before that the signal ends the process
 * at once, as it would without the worker.
 */
export function runIsolated(argv: string[], invokedAs: string): Promise<number> {
  const flags = new RunFlags();
  const input: WorkerInput = {
    argv, cwd: process.cwd(), invokedAs, stderrIsTTY: process.stderr.isTTY === true, columns: process.stderr.columns, color: pc.isColorSupported, flags: flags.buffer,
  };
  // argv too: what reads process.argv in the worker (picocolors' --no-color) sees the user's arguments.
  const worker = new Worker(new URL('./worker.js', import.meta.url), { argv, workerData: input });
  const onSignal = (name: NodeJS.Signals): void => {
    if (flags.writing) {
      worker.postMessage({ signal: name });
      return;
    }
    stopListening();
    process.kill(process.pid, name);
  };
  const stopListening = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  return new Promise(resolve => {
    let failure: (Error & { code?: string }) | undefined;
    worker.on('error', error => {
      failure = error;
    });
    worker.on('exit', code => {
      stopListening();
      if (failure?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        process.stderr.write(outOfMemory(flags.phase, flags.writing));
        resolve(EXIT.failed);
      } else if (failure) {
        process.stderr.write(`mrtr-migrate: internal error: ${failure.message.split('\n')[0]} (please report this with the command you ran)\n`);
        resolve(EXIT.failed);
      } else {
        resolve(code);
      }
    });
  });
}

/** What the main thread prints when the worker ran out of memory. */
export function outOfMemory(phase: Phase | undefined, writing: boolean): string {
  const limit = Math.round(getHeapStatistics().heap_size_limit / 1024 / 1024);
  const more = Math.max(8192, Math.ceil((limit * 2) / 1024) * 1024);
  const where = phase ? ` while ${PHASES[phase]}` : '';
  const written = writing
    ? 'It had started writing: files written before it stopped are complete (each is written whole), the others unchanged; the report was not written, so check `git status`.'
    : 'Nothing was written.';
  return [
    `mrtr-migrate: the run ran out of memory${where} (the JavaScript heap limit is ${limit} MB) and was stopped. ${written}`,
    'The compiler holds the types of every file the run parses and of what they import; for some projects that is more than the limit (tsc --noEmit on them runs out too).',
    `Run it on part of the project at a time (one package or folder: mrtr-migrate packages/one), or give Node more memory: NODE_OPTIONS=--max-old-space-size=${more}.`,
    // The plan was made: only the check of the rewritten files was left (rekog-labs/MCP-Nest: 4 GB
    // were not enough for it, the run with --no-verify took 14 s and 0.6 GB).
    ...(phase === 'verify' ? ['It was the type check of the rewritten files that ran out: --no-verify skips it (the rewrites are then not checked; run tsc on them once the new packages are installed).'] : []),
    '',
  ].join('\n');
}
