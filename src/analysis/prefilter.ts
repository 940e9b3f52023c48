/**
 * Cheap text check run before any parsing: a file that mentions none of these words cannot hold
 * a push-style site (the rules about MRTR code itself do not use it). An ignore comment is a
 * trigger too: one that suppresses nothing is reported. So is an import of an MCP framework, whose
 * API asks in words of its own (`extra.elicit()`, `this.samplingRequest()`).
 */
const TRIGGERS = /mrtr-migrate-ignore|elicitInput|createMessage|listRoots|requestSampling|sendRequest|elicitation\/create|sampling\/createMessage|roots\/list|UrlElicitationRequiredError|getClientCapabilities|ElicitResultSchema|CreateMessageResultSchema|ListRootsResultSchema|tasks\/(?:get|result|list|cancel)|experimental\.tasks|TaskResultSchema|TaskPayloadResultSchema|ListTasksResultSchema/;

/** The packages of the MCP frameworks frameworks.ts knows (listed here: no compiler import here, see project/prefilter.ts). */
export const FRAMEWORK_PACKAGES = ['fastmcp', 'mcp-framework', '@rekog/mcp-nest', 'xmcp'] as const;

/** An import of one of them, or of a module inside one (`xmcp/headers`). */
const FRAMEWORK_IMPORT = new RegExp(`(['"\`])(?:${FRAMEWORK_PACKAGES.join('|')})(?:/[^'"\`\\n]*)?\\1`);

export function mightContainSites(text: string): boolean {
  return TRIGGERS.test(text) || FRAMEWORK_IMPORT.test(text);
}
