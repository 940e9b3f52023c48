import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { invocation } from '../../src/cli/invocation.js';
import { decodeSource } from '../../src/project/load.js';

/** Pure functions behind the terminal's `Next:` lines and the file reader; the CLI runs are in the other files here. */

describe('invocation (the command the Next: lines print)', () => {
  const cwd = '/home/me/server';
  it('is npx mrtr-migrate for an installed package: npx, npm scripts and Windows shims start it from node_modules', () => {
    expect(invocation('/home/me/.npm/_npx/1a2b/node_modules/.bin/mrtr-migrate', cwd)).toBe('npx mrtr-migrate');
    expect(invocation('/home/me/server/node_modules/.bin/mrtr-migrate', cwd)).toBe('npx mrtr-migrate');
    expect(invocation('C:/proj/node_modules/mrtr-migrate/dist/src/cli/main.js', cwd)).toBe('npx mrtr-migrate');
  });

  it('is mrtr-migrate for a global install on the PATH', () => {
    expect(invocation('/usr/local/bin/mrtr-migrate', cwd)).toBe('mrtr-migrate');
  });

  it('is node <script> for a clone, relative to the working directory when shorter', () => {
    expect(invocation('/home/me/server/dist/src/cli/main.js', cwd)).toBe('node dist/src/cli/main.js');
    expect(invocation('/home/me/mrtr-migrate/dist/src/cli/main.js', cwd)).toBe('node ../mrtr-migrate/dist/src/cli/main.js');
    expect(invocation('/opt/tools/mrtr-migrate/dist/src/cli/main.js', cwd)).toBe('node /opt/tools/mrtr-migrate/dist/src/cli/main.js');
    expect(invocation(path.join('/home/me/my tools/main.js'), cwd)).toBe("node '../my tools/main.js'");
  });
});

describe('decodeSource', () => {
  const code = "import { McpServer } from '@modelcontextprotocol/server';\n// résumé\n";
  it('names UTF-16 without a byte order mark instead of calling it binary', () => {
    expect(() => decodeSource(Buffer.from(code, 'utf16le'))).toThrow('it is UTF-16LE encoded (without a byte order mark); convert it to UTF-8 to migrate it');
    expect(() => decodeSource(Buffer.from(code, 'utf16le').swap16())).toThrow('it is UTF-16BE encoded (without a byte order mark)');
  });

  it('still calls NUL bytes in other text binary, and reads UTF-8', () => {
    expect(() => decodeSource(Buffer.from('const a = 1;\0\0\0 binary\n'))).toThrow('it contains NUL bytes (a binary file?)');
    expect(decodeSource(Buffer.from(code, 'utf8'))).toBe(code);
  });
});
