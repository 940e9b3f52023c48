import { readFileSync } from 'node:fs';

/**
 * Expectations written into fixture files, on the line where a site starts:
 *
 *   await server.server.elicitInput({...}); // expect-site: elicitation migrate
 *   await ctx.mcpReq.elicitInput(p);        // expect-site: elicitation refuse:loop
 *   await a.createMessage(x);               // expect-site: sampling review untyped=refuse:unknown-local-type
 *   await anthropic.messages.create(x);     // expect-none
 *
 * `migrate` | `review` | `refuse:<reason>`; `untyped=` gives the verdict when no checker is available
 * (otherwise the same verdict is expected in both modes). Several sites on one line: separate with `;`.
 */
export interface SiteExpectation {
  line: number;
  kind: string;
  typed: string;
  untyped: string;
}

export interface FileExpectations {
  sites: SiteExpectation[];
  /** Lines where nothing may be reported. */
  none: number[];
}

export function readExpectations(file: string): FileExpectations {
  const sites: SiteExpectation[] = [];
  const none: number[] = [];
  readFileSync(file, 'utf8').split(/\r?\n/).forEach((text, i) => {
    const line = i + 1;
    const site = /\/\/\s*expect-site:\s*(.+)$/.exec(text);
    if (site) {
      for (const part of site[1]!.split(';')) {
        const [kind, typed, ...rest] = part.trim().split(/\s+/);
        if (!kind || !typed) throw new Error(`${file}:${line}: malformed expect-site`);
        const untyped = rest.find(r => r.startsWith('untyped='))?.slice('untyped='.length) ?? typed;
        sites.push({ line, kind, typed, untyped });
      }
    }
    if (/\/\/\s*expect-none\b/.test(text)) none.push(line);
  });
  return { sites, none };
}

/** The verdict of a site in the notation above. */
export function verdictNotation(verdict: { kind: 'migrate'; review: boolean } | { kind: 'refuse'; reason: string }): string {
  if (verdict.kind === 'migrate') return verdict.review ? 'review' : 'migrate';
  return `refuse:${verdict.reason}`;
}

/**
 * The text without the run's marker lines (`// mrtr-migrate: ...`): a file the run only marks (held
 * back on v1, rolled back) must be, apart from them, byte for byte as it was.
 */
export function withoutMarkerLines(text: string): string {
  return text.split('\n').filter(line => !/^\s*\/\/ mrtr-migrate: /.test(line)).join('\n');
}
