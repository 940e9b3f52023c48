/**
 * What a gateway does instead of relaying an upstream server's questions (reason `relay`): its tool
 * calls the upstream with the v2 client in manual mode and returns the upstream's input-required
 * result as its own. The client answers this server; the retry carries the answers and the
 * upstream's own requestState, which the tool sends back upstream. The upstream verifies its state;
 * the gateway keeps none. test/report/relaySketch.test.ts runs this text against real SDK servers.
 */

/** The body of the gateway's tool handler `(args, ctx) => { ... }`, for the upstream tool `toolName`. */
export function relaySketch(toolName = 'the_upstream_tool'): string {
  return [
    '// upstream: new Client(info, { inputRequired: { autoFulfill: false }, ... }), connected on the 2026-07-28 era.',
    `const params = { name: ${JSON.stringify(toolName)}, arguments: args, inputResponses: ctx.mcpReq.inputResponses, requestState: ctx.mcpReq.requestState<string>() };`,
    '// The retry fields are not in the typed tools/call params yet: hence the cast.',
    "const result = await upstream.request({ method: 'tools/call', params } as never, withInputRequired(z.looseObject({})), { allowInputRequired: true });",
    'if (isInputRequiredResult(result)) return inputRequired({ inputRequests: result.inputRequests ?? {}, requestState: result.requestState });',
    'return result as CallToolResult;',
  ].join('\n');
}

/** The imports the sketch uses. */
export const RELAY_SKETCH_IMPORTS = [
  "import { isInputRequiredResult, withInputRequired } from '@modelcontextprotocol/client';",
  "import { inputRequired, type CallToolResult } from '@modelcontextprotocol/server';",
  "import * as z from 'zod/v4';",
].join('\n');
