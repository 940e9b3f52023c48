import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** mrtr-migrate's own version, from its package.json (found upwards from this module, in src or dist). */
export function toolVersion(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const json = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (json.name === 'mrtr-migrate' && json.version) return (cached = json.version);
    } catch {
      // not here; keep looking upwards
    }
    const parent = path.dirname(dir);
    if (parent === dir) return (cached = '0.0.0');
    dir = parent;
  }
}
