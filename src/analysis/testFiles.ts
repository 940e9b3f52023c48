/**
 * Test files: code that calls a project's functions outside any request, on purpose. A helper that
 * only tests call outside a handler is not "called outside requests" by the server, and a test's
 * call is not a reason to say no request reaches it.
 */

/** Whether a file belongs to the project's tests, by its path. */
export type TestFilePredicate = (fileName: string) => boolean;

/** `x.test.ts`, `x.spec.mjs`, `x.e2e-spec.ts`, `x_test.ts`: the test runners' default names. */
const TEST_NAME = /(?:[._-](?:test|spec|e2e-spec|e2e)|_test)\.[cm]?[jt]sx?$/i;
/** Folders that hold tests, mocks and fixtures in the usual layouts. */
const TEST_FOLDER = /(?:^|\/)(?:__tests__|__mocks__|tests?|specs?|e2e|__fixtures__)\//i;

/**
 * The usual test names anywhere, and the usual test folders inside `root` (the project's folder: a
 * project kept under `~/tests/` is not a test). Without a root, names only.
 */
export function commonTestFiles(root: string | undefined): TestFilePredicate {
  const base = root?.replace(/\\/g, '/').replace(/\/?$/, '/');
  return fileName => {
    const path = fileName.replace(/\\/g, '/');
    if (TEST_NAME.test(path)) return true;
    return base !== undefined && path.startsWith(base) && TEST_FOLDER.test(path.slice(base.length));
  };
}
