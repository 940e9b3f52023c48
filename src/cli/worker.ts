import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { RunFlags, type WorkerInput } from './isolate.js';
import { runCli, type SignalSource } from './run.js';

// The CLI in the worker thread isolate.ts starts: its signals come as messages from the main thread,
// which reads the shared flags to know whether the run listens and which phase it is in.
const input = workerData as WorkerInput;
const flags = new RunFlags(input.flags);

let onSignal: ((name: NodeJS.Signals) => void) | undefined;
parentPort!.on('message', (message: { signal?: NodeJS.Signals }) => {
  if (message.signal) onSignal?.(message.signal);
});
parentPort!.unref();

const signals: SignalSource = handler => {
  onSignal = handler;
  flags.writing = true;
  return () => {
    onSignal = undefined;
    flags.writing = false;
  };
};

/**
 * Written to the process's own file descriptor, at once: a worker's process.stdout / stderr reach
 * the terminal only when its event loop turns, and the run holds it for seconds at a time (progress
 * would show up at the end). A pipe the reader has not emptied yet answers EAGAIN: wait and go on.
 * One the reader has closed (`mrtr-migrate --dry-run | head -5`) answers EPIPE: the reader has read
 * all it wanted, so the rest is dropped and the run goes on to its end and its own exit code (a run
 * that writes files still writes them all).
 */
function writer(fd: number): (text: string) => boolean {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let closed = false;
  return text => {
    let rest = Buffer.from(text);
    while (rest.length > 0 && !closed) {
      try {
        rest = rest.subarray(writeSync(fd, rest));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') closed = true;
        else if (code === 'EAGAIN') Atomics.wait(pause, 0, 0, 5);
        else throw error;
      }
    }
    return true;
  };
}

process.exitCode = await runCli(input.argv, {
  cwd: input.cwd,
  stdout: { write: writer(1) },
  // The terminal is the main thread's: its width and whether it is one come from there.
  stderr: { isTTY: input.stderrIsTTY, columns: input.columns, write: writer(2) },
  env: process.env,
  color: input.color,
  invokedAs: input.invokedAs,
  signals,
  onPhase: phase => {
    flags.phase = phase;
  },
});
