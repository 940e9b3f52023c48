#!/usr/bin/env node
import { invocation } from './invocation.js';
import { runIsolated } from './isolate.js';

// What the main thread itself prints (out of memory, an internal error) to a reader that has gone: dropped.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

process.exitCode = await runIsolated(process.argv.slice(2), invocation(process.argv[1], process.cwd()));
