/**
 * Cheap text check run before any parsing: a file that mentions none of these words cannot hold
 * a push-style site (the rules about MRTR code itself do not use it).
 */
const TRIGGERS = /elicitInput|createMessage|listRoots|requestSampling|sendRequest|elicitation\/create|sampling\/createMessage|roots\/list|UrlElicitationRequiredError|getClientCapabilities|ElicitResultSchema|CreateMessageResultSchema|ListRootsResultSchema/;

export function mightContainSites(text: string): boolean {
  return TRIGGERS.test(text);
}
