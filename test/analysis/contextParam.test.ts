import { describe, expect, it } from 'vitest';
import { contextRename } from '../../src/analysis/contextParam.js';
import { ts } from './harness.js';

/** The edits that name a destructured context, applied to the handler's text. */
function renamed(handler: string, prelude = ''): string {
  const text = `${prelude}\nconst h = ${handler};`;
  const sf = ts.createSourceFile('h.ts', text, ts.ScriptTarget.Latest, true);
  const declaration = (sf.statements[sf.statements.length - 1] as ts.VariableStatement).declarationList.declarations[0]!;
  const fn = declaration.initializer as ts.ArrowFunction;
  const rename = contextRename(ts, fn, fn.parameters[fn.parameters.length - 1]!);
  if ('problem' in rename) return `problem: ${rename.problem}`;
  let out = text;
  const edits = [{ start: rename.pattern.getStart(sf), end: rename.pattern.getEnd(), text: 'extra' }, ...rename.uses.map(u => ({ start: u.node.getStart(sf), end: u.node.getEnd(), text: u.text }))];
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out.slice(out.indexOf('const h = ') + 'const h = '.length, -1);
}

describe('naming a destructured context', () => {
  it('reads each binding as a member of the named parameter: aliases, shorthand properties, closures', () => {
    expect(renamed('async (args, { sendRequest, signal: abort }) => { await sendRequest(args); fetch("u", { signal: abort }); }'))
      .toBe('async (args, extra) => { await extra.sendRequest(args); fetch("u", { signal: extra.signal }); }');
    expect(renamed('async (args, { signal }) => { fetch("u", { signal }); setTimeout(() => signal.aborted); }'))
      .toBe('async (args, extra) => { fetch("u", { signal: extra.signal }); setTimeout(() => extra.signal.aborted); }');
    // A nested function's own `sendRequest` is not the context's.
    expect(renamed('async (args, { sendRequest }) => { const f = (sendRequest: unknown) => sendRequest; return sendRequest(f); }'))
      .toBe('async (args, extra) => { const f = (sendRequest: unknown) => sendRequest; return extra.sendRequest(f); }');
  });

  it('refuses what a member read would not keep: defaults, rest, nested patterns, assigned bindings, a taken name', () => {
    expect(renamed('async (args, { sendRequest = undefined }) => sendRequest')).toMatch(/^problem: .*default, a rest element or a nested pattern/);
    expect(renamed('async (args, { sendRequest, ...rest }) => rest')).toMatch(/^problem: .*rest element/);
    expect(renamed('async (args, { authInfo: { clientId } }) => clientId')).toMatch(/^problem: .*nested pattern/);
    expect(renamed('async (args, { signal }) => { signal = undefined; }')).toMatch(/^problem: `signal`, destructured from the context, is assigned/);
    expect(renamed('async (args, { signal }) => { const extra = 1; return signal; }')).toMatch(/^problem: `extra` is already a name/);
    expect(renamed('async (args, { signal }) => signal', 'const extra = 2;')).toMatch(/^problem: `extra` is already a name/);
  });
});
