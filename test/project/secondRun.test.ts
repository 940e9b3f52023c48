import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Project } from 'ts-morph';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { migrate } from '../../src/project/migrate.js';
import { REPO, tempProject } from './tempProject.js';
import { runPipeline } from '../transforms/pipeline.js';

const OPTIONS = { target: 99, module: 199, moduleResolution: 99, strict: true, skipLibCheck: true, noEmit: true, types: [] };

const SERVER = `import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

export const server = new McpServer({ name: 's', version: '1' });

server.registerTool('archive', { inputSchema: z.object({ project: z.string() }) }, async ({ project }, ctx) => {
  const answer = await ctx.mcpReq.elicitInput({
    mode: 'form',
    message: \`Archive \${project}?\`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  });
  if (answer.action !== 'accept') return { content: [{ type: 'text', text: 'Kept.' }] };
  return { content: [{ type: 'text', text: \`Archived \${project}.\` }] };
});
`;

function project(): string {
  const dir = tempProject('second-run');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: OPTIONS }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', dependencies: { '@modelcontextprotocol/server': '^2.4.0' } }));
  writeFileSync(join(dir, 'server.ts'), SERVER);
  return dir;
}

describe('a second run on migrated code', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('builds no program: it reports the handler as already migrated from the syntax alone', async () => {
    const dir = project();
    const first = await migrate({ cwd: dir, sdkUpgrade: false });
    expect(first.sites.map(s => s.status)).toEqual(['migrated']);
    const migrated = readFileSync(join(dir, 'server.ts'), 'utf8');
    expect(migrated).toContain('inputRequired(');

    const programs = vi.spyOn(Project.prototype, 'getProgram');
    const second = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
    expect(programs).not.toHaveBeenCalled();
    expect(second.sites).toEqual([]);
    expect(second.files.every(f => !f.changed)).toBe(true);
    expect(second.alreadyMigrated).toEqual([expect.objectContaining({ file: 'server.ts', method: 'tools/call', name: 'archive' })]);
  });

  it('builds the program when a file still names a push-style API, and reports the same', async () => {
    const dir = project();
    await migrate({ cwd: dir, sdkUpgrade: false });
    // A second tool asking push-style, added after the migration.
    writeFileSync(join(dir, 'late.ts'), SERVER.replace("'archive'", "'late'").replace("name: 's'", "name: 'late'"));
    const programs = vi.spyOn(Project.prototype, 'getProgram');
    const second = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
    expect(programs).toHaveBeenCalled();
    expect(second.sites.map(s => `${s.file} ${s.status}`)).toEqual(['late.ts migrated']);
    expect(second.alreadyMigrated.map(a => `${a.file} ${a.name}`)).toEqual(['server.ts archive']);
  });
});

/**
 * The rewrite of one file on its own, as the jscodeshift adapter (or a version before the support
 * module) writes it: the codec and its helpers in the server's own file.
 */
function perFileRun(dir: string, file: string): void {
  const path = join(dir, file);
  writeFileSync(path, runPipeline(path, readFileSync(path, 'utf8'), dir).text);
}

describe('a second run on a server a per-file run wired its codec into', () => {
  const SAMPLE = `server.registerTool('summarize', { inputSchema: z.object({ text: z.string() }) }, async ({ text }, ctx) => {
  const reply = await ctx.mcpReq.requestSampling({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 50 });
  return { content: [{ type: 'text', text: reply.content.type === 'text' ? reply.content.text : '' }] };
});
`;
  const ARCHIVE = SERVER.slice(SERVER.indexOf('server.registerTool'));
  const sampling = (): string => {
    const dir = project();
    writeFileSync(join(dir, 'server.ts'), SERVER.slice(0, SERVER.indexOf('server.registerTool')) + SAMPLE);
    return dir;
  };

  it('mints a tool added since with that codec: its State type joins the union, the helpers it lacks are added, the rest stays', async () => {
    const dir = sampling();
    perFileRun(dir, 'server.ts');
    const first = readFileSync(join(dir, 'server.ts'), 'utf8');
    expect(first).not.toContain('function elicitAnswerOf');
    // The user swaps in a store of their own, as the comment on requestStateReplays suggests.
    const edited = first.replace('claim(nonce, ttlMs) {', 'claim(nonce, ttlMs) { // our store: kept by a second run');
    writeFileSync(join(dir, 'server.ts'), edited + ARCHIVE);

    const second = await migrate({ cwd: dir, sdkUpgrade: false });
    expect(second.sites.map(s => `${s.handler?.name} ${s.status}`)).toEqual(['archive migrated']);
    const text = readFileSync(join(dir, 'server.ts'), 'utf8');
    expect(text.match(/createRequestStateSeal<\{ nonce/g)).toHaveLength(1);
    expect(text.match(/requestState: \{ verify: /g)).toHaveLength(1);
    expect(text).toContain('type RequestState = SummarizeState | ArchiveState;');
    expect(text).toContain('// our store: kept by a second run');
    expect(text.match(/^function elicitAnswerOf\(/gm)).toHaveLength(1);
    expect(text.slice(text.indexOf("registerTool('archive'"))).toContain("requestState: await requestStateCodec.mint({ step: 'answer', call }, ctx)");
    // Everything the first run wrote is still there, line for line (its SDK import and its union gain the new names).
    for (const line of edited.split('\n').filter(l => !l.startsWith('import {') && !l.startsWith('type RequestState = '))) expect(text.split('\n')).toContain(line);

    const third = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
    expect(third.files.every(f => !f.changed)).toBe(true);
    expect(third.alreadyMigrated.map(a => a.name).sort()).toEqual(['archive', 'summarize']);
  });

  it('refuses a handler in another file of that server, naming the codec and its file', async () => {
    const dir = sampling();
    perFileRun(dir, 'server.ts');
    writeFileSync(join(dir, 'late.ts'), `import type { McpServer } from '@modelcontextprotocol/server';\nimport * as z from 'zod/v4';\n\nexport function registerLate(server: McpServer): void {\n${ARCHIVE}}\n`);
    const server = readFileSync(join(dir, 'server.ts'), 'utf8');
    writeFileSync(join(dir, 'server.ts'), `import { registerLate } from './late.js';\n${server}\nregisterLate(server);\n`);
    const second = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
    expect(second.sites.map(s => `${s.file} ${s.status} ${s.reason}`)).toEqual(['late.ts refused unsupported-construct']);
    expect(second.sites[0]!.hint).toMatch(/^the server \(server\.ts:\d+\) verifies requestState with the requestStateCodec an earlier run wrote into its file, which a handler in another file cannot mint with yet/);
  });
});

describe('a later run beside requestState the server keeps of its own', () => {
  const RATE = `
export function registerRating(server: McpServer): void {
  server.registerTool('rate_stay', { inputSchema: z.object({ hotel: z.string() }) }, async ({ hotel }, ctx) => {
    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: \`Rate \${hotel}?\`, requestedSchema: { type: 'object', properties: { stars: { type: 'integer' } } } });
    return { content: [{ type: 'text', text: \`\${hotel}: \${answer.action}\` }] };
  });
}
`;

  it('the first run says which hook it kept, and how', async () => {
    const dir = project();
    for (const name of ['v2-own-codec', 'v2-own-state-unverified']) writeFileSync(join(dir, `${name}.ts`), readFileSync(join(REPO, 'fixtures', name, 'input.ts'), 'utf8'));
    const report = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
    expect(report.diagnostics.filter(d => d.code === 'mrtr/state-hook-kept').map(d => `${d.file}:${d.line} ${d.message}`)).toEqual([
      "v2-own-codec.ts:25 the server's own requestState hook (bookingCodec.verify) still verifies the states of its own handlers; the rewritten handlers' states are verified beside it (keepRequestStateHook) and reach only them.",
      "v2-own-state-unverified.ts:15 the server's own handlers read requestState unverified and still get it as it came; the rewritten handlers' states are verified beside it (keepRequestStateHook) and reach only them.",
    ]);
  });

  it('a handler added to a server whose hook the first run kept reads only the states its codec minted', async () => {
    const dir = project();
    const migrated = readFileSync(join(REPO, 'fixtures', 'v2-own-codec', 'output.ts'), 'utf8');
    const module = readFileSync(join(REPO, 'fixtures', 'v2-own-codec', 'requestState.ts'), 'utf8');
    writeFileSync(join(dir, 'requestState.ts'), module);
    writeFileSync(join(dir, 'server.ts'), migrated.replace('\n  return server;\n}', '\n  registerRating(server);\n  return server;\n}') + RATE);
    const report = await migrate({ cwd: dir, sdkUpgrade: false });
    expect(report.sites.map(s => `${s.handler?.name} ${s.status}`)).toEqual(['rate_stay migrated']);
    // Kept by the first run, which said so: nothing new to say.
    expect(report.diagnostics.filter(d => d.code === 'mrtr/state-hook-kept')).toEqual([]);
    const text = readFileSync(join(dir, 'server.ts'), 'utf8');
    expect(text).toContain('const state = migratedRequestState<RateStayState>(ctx);');
    expect(text).toContain('type RateStayState =');
    expect(text.match(/requestState: \{ verify: keepRequestStateHook\(bookingCodec\.verify\) \}/g)).toHaveLength(1);
    // The module the first run wrote serves it as it is.
    expect(readFileSync(join(dir, 'requestState.ts'), 'utf8')).toBe(module);
  });

  it('a state read unverified beside the codec a first run wired over nothing is refused: that hook rejects it', async () => {
    const dir = project();
    await migrate({ cwd: dir, sdkUpgrade: false });
    const pick = "\nserver.registerTool('pick', { inputSchema: z.object({}) }, async (_args, ctx) => ({ content: [{ type: 'text', text: ctx.mcpReq.requestState<string>() ?? '' }] }));\n";
    writeFileSync(join(dir, 'server.ts'), readFileSync(join(dir, 'server.ts'), 'utf8') + pick + SERVER.slice(SERVER.indexOf('server.registerTool')).replace("'archive'", "'restore'"));
    const second = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
    expect(second.sites.map(s => `${s.handler?.name} ${s.status} ${s.reason}`)).toEqual(['restore refused unsupported-construct']);
    expect(second.sites[0]!.hint).toMatch(/^tools\/call "pick" \(line \d+\) already keeps a requestState of its own, which the verify hook an earlier run wired into the server \(server\.ts:\d+\) rejects; /);
  });
});

describe('a second run on a file whose own names the SDK has too', () => {
  it('mints a tool added since under the aliases the first run imported, without importing them again', async () => {
    const dir = project();
    // As the per-file rewrite writes it, its codec in the file (the CLI's is fixtures/v2-name-conflicts/output.ts).
    writeFileSync(join(dir, 'server.ts'), readFileSync(join(REPO, 'fixtures', 'v2-name-conflicts', 'input.ts'), 'utf8'));
    perFileRun(dir, 'server.ts');
    const first = readFileSync(join(dir, 'server.ts'), 'utf8');
    expect(first.match(/createRequestStateSeal<\{ nonce/g)).toHaveLength(1);
    expect(first.split('\n')[0]).toContain('type ElicitResult as SdkElicitResult');
    const late = `  server.registerTool('retract_story', { inputSchema: z.object({ slug: z.string() }) }, async ({ slug }, ctx) => {
    const inputRequired = ['reason'];
    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: \`Retract \${slug}? Give: \${inputRequired.join(', ')}\`, requestedSchema: { type: 'object', properties: { reason: { type: 'string' } } } });
    const result: ElicitResult = { reviewer: 'desk', approved: answer.action === 'accept' };
    return { content: [{ type: 'text', text: stamp(result, context) }] };
  });

  return server;
}`;
    writeFileSync(join(dir, 'server.ts'), first.replace('\n  return server;\n}', `\n${late}`));

    const second = await migrate({ cwd: dir, sdkUpgrade: false });
    expect(second.sites.map(s => `${s.handler?.name} ${s.status}`)).toEqual(['retract_story migrated']);
    const text = readFileSync(join(dir, 'server.ts'), 'utf8');
    const sdkImport = text.split('\n')[0]!;
    for (const alias of ['inputRequired as sdkInputRequired', 'type ElicitResult as SdkElicitResult', 'type ServerContext as SdkServerContext']) {
      expect(sdkImport.split(alias)).toHaveLength(2);
    }
    expect(text.match(/createRequestStateSeal<\{ nonce/g)).toHaveLength(1);
    expect(text).toContain('type RequestState = PublishStoryState | RetractStoryState;');
    expect(text).toContain('    const result: ElicitResult = { reviewer: \'desk\', approved: answer.action === \'accept\' };');
    expect(text.slice(text.indexOf("'retract_story'"))).toContain('return sdkInputRequired({');

    const third = await migrate({ cwd: dir, dryRun: true, sdkUpgrade: false });
    expect(third.files.every(f => !f.changed)).toBe(true);
  });
});

describe('a server that keeps requestState of its own, its handlers over several files', () => {
  const FIXTURE = join(REPO, 'fixtures', 'v2-own-codec-across-files');
  const copy = (side: 'input' | 'output'): string => {
    const dir = project();
    rmSync(join(dir, 'server.ts'));
    for (const name of readdirSync(join(FIXTURE, side))) writeFileSync(join(dir, name), readFileSync(join(FIXTURE, side, name), 'utf8'));
    return dir;
  };

  it('the first run keeps the hook through the shared module and says so from the handler\'s file', async () => {
    const dir = copy('input');
    const report = await migrate({ cwd: dir, sdkUpgrade: false });
    expect(report.sites.map(s => `${s.file} ${s.status}`)).toEqual(['cancel.ts migrated-for-review']);
    for (const name of ['index.ts', 'cancel.ts', 'requestState.ts']) expect(readFileSync(join(dir, name), 'utf8')).toBe(readFileSync(join(FIXTURE, 'output', name), 'utf8'));
    expect(report.diagnostics.filter(d => d.code === 'mrtr/state-hook-kept').map(d => `${d.file} ${d.message}`)).toEqual([
      "cancel.ts the server's (index.ts:20) own requestState hook (bookingCodec.verify) still verifies the states of its own handlers; the rewritten handlers' states are verified beside it (keepRequestStateHook) and reach only them.",
    ]);
  });

  it('where the server\'s own file asks push-style too, it is wired through the hook and reads through the module like the others', async () => {
    const dir = copy('input');
    const index = readFileSync(join(dir, 'index.ts'), 'utf8');
    const ask = `  server.registerTool('rate_stay', { inputSchema: z.object({ hotel: z.string() }) }, async ({ hotel }, ctx) => {
    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: \`Rate \${hotel}?\`, requestedSchema: { type: 'object', properties: { stars: { type: 'integer' } } } });
    return { content: [{ type: 'text', text: \`\${hotel}: \${answer.action}\` }] };
  });

  registerCancellation(server);`;
    writeFileSync(join(dir, 'index.ts'), index.replace('  registerCancellation(server);', ask));
    const report = await migrate({ cwd: dir, sdkUpgrade: false });
    expect(report.sites.map(s => `${s.file} ${s.status}`).sort()).toEqual(['cancel.ts migrated-for-review', 'index.ts migrated']);
    const text = readFileSync(join(dir, 'index.ts'), 'utf8');
    expect(text).toContain('requestState: { verify: keepRequestStateHook(bookingCodec.verify) } });');
    expect(text).toMatch(/import \{ [^}]*\bkeepRequestStateHook\b[^}]*\bmigratedRequestState\b[^}]* \} from '\.\/requestState\.js';/);
    expect(text).toContain('const state = migratedRequestState<RateStayState>(ctx);');
    expect(text.match(/export function keepRequestStateHook/g)).toBeNull();
  });

  it('a later run mints a tool added since with the module\'s codec and reads its state through the module; the server stays wired as it was', async () => {
    const dir = copy('output');
    const index = readFileSync(join(dir, 'index.ts'), 'utf8');
    const module = readFileSync(join(dir, 'requestState.ts'), 'utf8');
    writeFileSync(join(dir, 'index.ts'), index.replace("import { registerCancellation } from './cancel.js';", "import { registerCancellation } from './cancel.js';\nimport { registerRating } from './rate.js';").replace('  registerCancellation(server);', '  registerCancellation(server);\n  registerRating(server);'));
    writeFileSync(join(dir, 'rate.ts'), `import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

export function registerRating(server: McpServer): void {
  server.registerTool('rate_stay', { inputSchema: z.object({ hotel: z.string() }) }, async ({ hotel }, ctx) => {
    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: \`Rate \${hotel}?\`, requestedSchema: { type: 'object', properties: { stars: { type: 'integer' } } } });
    return { content: [{ type: 'text', text: \`\${hotel}: \${answer.action}\` }] };
  });
}
`);
    const wired = readFileSync(join(dir, 'index.ts'), 'utf8');
    const report = await migrate({ cwd: dir, sdkUpgrade: false });
    expect(report.sites.map(s => `${s.file} ${s.handler?.name} ${s.status}`)).toEqual(['rate.ts rate_stay migrated']);
    expect(readFileSync(join(dir, 'index.ts'), 'utf8')).toBe(wired);
    expect(readFileSync(join(dir, 'requestState.ts'), 'utf8')).toBe(module);
    const rate = readFileSync(join(dir, 'rate.ts'), 'utf8');
    expect(rate).toContain("import { requestStateCodec, requestStateCall, assertStateFor, elicitAnswerOf, elicitResultOf, migratedRequestState } from './requestState.js';");
    expect(rate).toContain('const state = migratedRequestState<RateStayState>(ctx);');
    expect(existsSync(join(dir, 'requestState2.ts'))).toBe(false);
  });
});

describe('a codec module an earlier run wired without the keep hook, joined by a server that keeps requestState of its own', () => {
  it('undoes the group with that reason, where the new handlers would read their state one way and the old ones the other', async () => {
    const dir = project();
    rmSync(join(dir, 'server.ts'));
    const fixture = join(REPO, 'fixtures', 'v2-tools-across-files', 'output');
    for (const name of readdirSync(fixture)) writeFileSync(join(dir, name), readFileSync(join(fixture, name), 'utf8'));
    const ask = (name: string) => `  server.registerTool('${name}', { inputSchema: z.object({}) }, async (_args, ctx) => {
    const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Sure?', requestedSchema: { type: 'object', properties: {} } });
    return { content: [{ type: 'text', text: answer.action }] };
  });`;
    const register = (fn: string, name: string) => `import type { McpServer } from '@modelcontextprotocol/server';\nimport * as z from 'zod/v4';\n\nexport function ${fn}(server: McpServer): void {\n${ask(name)}\n}\n`;
    writeFileSync(join(dir, 'late.ts'), register('registerLate', 'late'));
    writeFileSync(join(dir, 'deskTools.ts'), register('registerDesk', 'desk_check'));
    writeFileSync(join(dir, 'desk.ts'), [
      "import { McpServer, createRequestStateCodec } from '@modelcontextprotocol/server';",
      "import { registerDesk } from './deskTools.js';",
      "const own = createRequestStateCodec<{ step: string }>({ key: 'travel-desk-demo-key-0123456789abcdef', ttlSeconds: 300 });",
      'export function createDesk(): McpServer {',
      "  const desk = new McpServer({ name: 'desk', version: '1' }, { requestState: { verify: own.verify } });",
      '  registerDesk(desk);',
      '  return desk;',
      '}',
      '',
    ].join('\n'));
    const index = readFileSync(join(dir, 'index.ts'), 'utf8');
    writeFileSync(join(dir, 'index.ts'), index.replace("import { registerNoteTools } from './notes.js';", "import { registerNoteTools } from './notes.js';\nimport { registerLate } from './late.js';").replace('  registerNoteTools(server);', '  registerNoteTools(server);\n  registerLate(server);'));
    const before = new Map(readdirSync(dir).filter(f => f.endsWith('.ts')).map(f => [f, readFileSync(join(dir, f), 'utf8')]));
    const report = await migrate({ cwd: dir, sdkUpgrade: false });
    expect(report.sites.map(s => `${s.file} ${s.status}`).sort()).toEqual(['deskTools.ts rolled-back', 'late.ts rolled-back']);
    expect(report.sites[0]!.hint).toContain("the server in index.ts reads requestState through the codec an earlier run wired into it, and a server sharing its codec module (requestState.ts) keeps requestState of its own");
    for (const [file, text] of before) expect(readFileSync(join(dir, file), 'utf8').replace(/^.*mrtr-migrate: .*\n/gm, '')).toBe(text);
  });
});
