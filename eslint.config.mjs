// Lint: mainly enforces the architecture (no `vscode` below src/core, no console in product code).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import layers from "./scripts/eslint/layers.mjs";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", ".vscode-test/**", "out/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Build and test-runner scripts run under plain node.
    files: ["**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly", setTimeout: "readonly" } },
  },
  {
    // The language-model fixture extension is plain CommonJS, loaded as is by VS Code's extension host.
    files: ["test/integration/lm-provider/**/*.js", "test/integration/probe/**/*.js"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { require: "readonly", exports: "writable", process: "readonly", fetch: "readonly", AbortController: "readonly" },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // Preloaded with --require into processes a test watches (e.g. the network blocker of the install test).
    files: ["test/fixtures/**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { require: "readonly", process: "readonly" } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // Typed lint for product code: a promise nobody awaits, or one handed where a void callback is expected, loses
    // its rejection. Tests, scripts and bench stay untyped: typing src alone takes `npm run lint` from ~18 s to
    // ~49 s of CPU on the 2-core machine, and test/ plus bench/ is as large again as src/.
    files: ["src/**/*.ts"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: ["./tsconfig.json", "./tsconfig.webview.json"], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      // Off: an `async` function without `await` is how a few functions meet a Promise-returning contract and turn a
      // throw into a rejection; dropping `async` to satisfy the rule would change that behaviour.
      "@typescript-eslint/require-await": "off",
      // A caught `unknown` is forwarded as it was (a batch waiter gets the transport's own error).
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
    },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/core/**/*.ts", "src/cli/**/*.ts", "src/shared/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { paths: [{ name: "vscode", message: "src/core, src/cli and src/shared must run under plain node: no vscode imports." }] }],
    },
  },
  {
    // The dependency picture (AGENTS.md): no upward import inside src/core, src/shared imports nothing of ours.
    files: ["src/**/*.ts"],
    plugins: { layers },
    rules: { "layers/no-upward-import": "error" },
  },
  {
    files: ["src/core/**/*.ts", "src/extension/**/*.ts", "src/webview/**/*.ts", "src/shared/**/*.ts"],
    rules: { "no-console": "error" },
  },
  {
    // House style: no function over 120 lines; a longer one is several functions.
    files: ["src/**/*.ts"],
    rules: { "max-lines-per-function": ["error", { max: 120, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
);
