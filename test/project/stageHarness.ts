import { Project } from 'ts-morph';
import { runSdkUpgrade } from '../../src/project/sdkUpgrade.js';

/** Source lines joined as a file's text. */
export const lines = (...l: string[]): string => l.join('\n');

/** `text` as `src/server.ts` of an in-memory project, through the v1-to-v2 stage: the text after it, and what the stage says. */
export function upgradeText(text: string): { text: string } & ReturnType<typeof runSdkUpgrade> {
  const project = new Project({ useInMemoryFileSystem: true });
  const file = project.createSourceFile('/src/server.ts', text);
  const result = runSdkUpgrade(file, 'server', 'src/server.ts', new Set());
  return { text: file.getFullText(), ...result };
}
