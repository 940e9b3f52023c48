#!/usr/bin/env node
import { invocation } from './invocation.js';
import { runIsolated } from './isolate.js';

process.exitCode = await runIsolated(process.argv.slice(2), invocation(process.argv[1], process.cwd()));
