// zod-v3-to-v4 ships JavaScript only; this is the one function of it the run calls.
declare module 'zod-v3-to-v4/dist/migrate.js' {
  import type { SourceFile } from 'ts-morph';
  /** Rewrites the file's zod 3 code to zod 4, in place; returns the new text. */
  export function migrateZodV3ToV4(sourceFile: SourceFile, options?: { migrateImportDeclarations?: boolean }): string;
}
