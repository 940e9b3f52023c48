/**
 * Cheap text check run before any parsing: a file that mentions none of these words cannot hold
 * a push-style site (the rules about MRTR code itself do not use it). An ignore comment is a
 * trigger too: one that suppresses nothing is reported.
 */
const TRIGGERS = /mrtr-migrate-ignore|elicitInput|createMessage|listRoots|requestSampling|sendRequest|elicitation\/create|sampling\/createMessage|roots\/list|UrlElicitationRequiredError|getClientCapabilities|ElicitResultSchema|CreateMessageResultSchema|ListRootsResultSchema/;

export function mightContainSites(text: string): boolean {
  return TRIGGERS.test(text);
}
