#!/usr/bin/env node
import { invocation } from './invocation.js';
import { runCli } from './run.js';

process.exitCode = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  invokedAs: invocation(process.argv[1], process.cwd()),
});
