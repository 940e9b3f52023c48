import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportFiles } from '../../src/cli/run.js';

/** Where each report goes: --report in the format its extension names, the markdown report and the other --formats beside it. */
const at = (report: string, formats: Parameters<typeof reportFiles>[2] = ['md']) =>
  Object.fromEntries(Object.entries(reportFiles('/p', report, formats)).map(([format, file]) => [format, path.relative('/p', file!)]));

describe('report paths', () => {
  it('--report r.sarif --format sarif writes SARIF to r.sarif and markdown beside it (not markdown to r.sarif and SARIF to r.sarif.sarif)', () => {
    expect(at('out/r.sarif', ['md', 'sarif'])).toEqual({ sarif: 'out/r.sarif', md: 'out/r.md' });
  });

  it('an extension that names a format is enough: --report r.json writes JSON there without --format', () => {
    expect(at('r.json')).toEqual({ json: 'r.json', md: 'r.md' });
    expect(at('R.HTM', ['md', 'json'])).toEqual({ html: 'R.HTM', md: 'R.md', json: 'R.json' });
  });

  it('markdown by default and for any other extension, the others beside it as before', () => {
    expect(at('mrtr-migrate-report.md', ['md', 'json', 'html'])).toEqual({ md: 'mrtr-migrate-report.md', json: 'mrtr-migrate-report.json', html: 'mrtr-migrate-report.html' });
    expect(at('notes.markdown', ['md', 'sarif'])).toEqual({ md: 'notes.markdown', sarif: 'notes.sarif' });
    expect(at('out/report', ['md', 'json'])).toEqual({ md: 'out/report', json: 'out/report.json' });
    expect(at('report.txt', ['md', 'json'])).toEqual({ md: 'report.txt', json: 'report.txt.json' });
  });
});
