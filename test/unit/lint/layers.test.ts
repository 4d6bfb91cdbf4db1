/**
 * The dependency picture is enforced by a lint rule (scripts/eslint/layers.mjs). These cases pin what it forbids:
 * the upward imports the vocabulary move removed (agent → runs, retrieval → runs, tasks → grading), src/shared
 * reaching into the core, and the core reaching into a host.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { ESLint } from "eslint";

const repoRoot = path.resolve(__dirname, "../../..");

async function lintAs(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: repoRoot,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ["**/*.ts"], languageOptions: { parser: (await import("typescript-eslint")).parser } },
      { files: ["src/**/*.ts"], plugins: { layers: (await import("../../../scripts/eslint/layers.mjs")).default }, rules: { "layers/no-upward-import": "error" } },
    ],
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(repoRoot, file) });
  return result!.messages.map((m) => m.message);
}

describe("layers/no-upward-import", () => {
  it("rejects the upward imports issue 11 found", async () => {
    for (const [file, source] of [
      ["src/core/agent/loop.ts", "../runs/types.js"],
      ["src/core/retrieval/library.ts", "../runs/types.js"],
      ["src/core/tasks/load.ts", "../grading/math.js"],
    ] as const) {
      const messages = await lintAs(file, `import type { X } from "${source}";\nexport type Y = X;\n`);
      assert.equal(messages.length, 1, `${file} → ${source}`);
      assert.match(messages[0]!, /upward import/);
    }
  });

  it("allows downward imports and the vocabulary", async () => {
    assert.deepEqual(await lintAs("src/core/runs/evaluate.ts", `import { a } from "../agent/loop.js";\nimport { b } from "../../shared/vocabulary/index.js";\nexport { a, b };\n`), []);
    assert.deepEqual(await lintAs("src/core/report/build.ts", `export { inControlSample } from "../runs/plan.js";\n`), []);
  });

  it("keeps two folders of one layer independent", async () => {
    const messages = await lintAs("src/core/models/cache.ts", `export * from "../sandbox/runner.js";\n`);
    assert.match(messages[0] ?? "", /share a layer/);
  });

  it("keeps src/shared free of the core and of node packages, and the core free of hosts", async () => {
    assert.match((await lintAs("src/shared/report-view.ts", `import { B } from "../core/report/schema.js";\nexport { B };\n`))[0] ?? "", /src\/shared must not import src\/core/);
    assert.match((await lintAs("src/shared/format.ts", `import { readFileSync } from "node:fs";\nexport { readFileSync };\n`))[0] ?? "", /may import only zod/);
    assert.match((await lintAs("src/core/runs/evaluate.ts", `import { x } from "../../cli/paths.js";\nexport { x };\n`))[0] ?? "", /src\/core must not import src\/cli/);
    assert.match((await lintAs("src/webview/main.ts", `import { x } from "../core/report/build.js";\nexport { x };\n`))[0] ?? "", /src\/webview must not import/);
  });

  it("asks for a new core folder to be placed in the table", async () => {
    assert.match((await lintAs("src/core/newthing/a.ts", `export * from "../errors.js";\n`))[0] ?? "", /not in the layer table/);
  });
});
