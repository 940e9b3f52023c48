// Writes src/runtime/index.ts, the `mrtr-migrate/runtime` entry, from the generator of the support
// module (transforms/mrtr/moduleSupport.ts), so the two cannot drift: test/runtime checks it is current.
import { writeFileSync } from 'node:fs';
import ts from 'typescript';
import { runtimeText } from '../transforms/mrtr/moduleSupport.js';

const target = new URL('../src/runtime/index.ts', import.meta.url);
writeFileSync(target, runtimeText(ts as never));
console.log(`wrote ${target.pathname}`);
