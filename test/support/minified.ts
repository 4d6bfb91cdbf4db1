/**
 * A log or message line that starts with a minified identifier where a class name belongs ("Fr: download …",
 * "ft: Model request …"): what a minified bundle without esbuild's keepNames prints. Used by the tests of the packaged
 * .vsix (test/unit/extension/vsix.test.ts, test/e2e/first-run.test.ts).
 */
export const MINIFIED_NAME = /(^|\s)(?:error: )?[A-Za-z_$][A-Za-z0-9_$]{0,2}: (?=[a-z"'A-Z])/;
