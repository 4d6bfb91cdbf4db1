/**
 * The GitHub Action (action.yml): its shape (composite, Node 20 through setup-node, code scanning upload), and its lint
 * step's script run as the runner would run it (bash, GITHUB_ACTION_PATH = this repository, its inputs as env) against
 * the built CLI: the exit code output, the log's text findings and a schema-valid SARIF file.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { runAction } from "../../support/github-action.js";
import { sarifValidator } from "../../support/sarif.js";
import { repoRoot, spawnCollect } from "./harness.js";
import { writeLintLibrary } from "./lint-library.js";

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  if?: string;
  env?: Record<string, string>;
}
const action = parse(readFileSync(path.join(repoRoot, "action.yml"), "utf8")) as { runs: { using: string; steps: Step[] }; inputs: Record<string, { default: string }> };
const lintStep = action.runs.steps.find((s) => s.id === "lint")!;

async function runLintStep(cwd: string, paths: string) {
  const output = path.join(cwd, "github-output.txt");
  writeFileSync(output, "");
  const env = { PATH: process.env.PATH ?? "", HOME: cwd, GITHUB_ACTION_PATH: repoRoot, GITHUB_OUTPUT: output, INPUT_PATHS: paths, INPUT_SARIF: action.inputs.sarif!.default };
  const r = await spawnCollect("bash", ["-e", "-c", lintStep.run!], { cwd, env });
  return { ...r, outputs: readFileSync(output, "utf8"), sarif: path.join(cwd, action.inputs.sarif!.default) };
}

describe("action.yml", () => {
  it("is a composite action on Node 20 that runs the repository's own dist/cli.js and uploads SARIF", () => {
    assert.equal(action.runs.using, "composite");
    const node = action.runs.steps.find((s) => s.uses?.startsWith("actions/setup-node@"));
    assert.equal(node?.with?.["node-version"], "20");
    assert.match(lintStep.run!, /node "\$cli" lint "\$\{paths\[@\]\}" --format sarif --out "\$INPUT_SARIF"/);
    assert.match(lintStep.run!, /cli="\$GITHUB_ACTION_PATH\/dist\/cli\.js"/);
    assert.ok(!/npm (i|install) -g|npx skill-following/.test(readFileSync(path.join(repoRoot, "action.yml"), "utf8")), "no global install from the registry");
    const upload = action.runs.steps.find((s) => s.uses?.startsWith("github/codeql-action/upload-sarif@"));
    assert.equal(upload?.with?.sarif_file, "${{ inputs.sarif }}");
  });

  it("the github-token input reaches one step, the pull-request comment, and only through its env", () => {
    const withToken = action.runs.steps.filter((s) => JSON.stringify(s).includes("inputs.github-token"));
    assert.deepEqual(withToken.map((s) => s.name), ["Comment on the pull request"]);
    assert.deepEqual(Object.entries(withToken[0]!.env ?? {}).filter(([, v]) => v.includes("github-token")), [["INPUT_GITHUB_TOKEN", "${{ inputs.github-token }}"]]);
    assert.doesNotMatch(withToken[0]!.run!, /INPUT_GITHUB_TOKEN|echo .*token/i, "the script never names the token: dist/pr-comment.js reads it");
    assert.equal(action.inputs["github-token"]!.default, "${{ github.token }}");
  });

  it("the lint step: findings in the log, a valid SARIF file, exit-code=1 as an output (the step itself passes)", async () => {
    const lib = writeLintLibrary();
    const r = await runLintStep(lib.root, "skills empty");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.outputs, /^exit-code=1$/m);
    assert.match(r.stdout, /skills\/angle\/SKILL\.md:3:14: error description-angle-brackets/);
    const log = JSON.parse(readFileSync(r.sarif, "utf8")) as { runs: Array<{ results: unknown[] }> };
    assert.deepEqual(sarifValidator()(log), []);
    assert.ok(log.runs[0]!.results.length > 20);
  });

  it("default paths on a clean library give exit-code=0; a missing path fails the step with 2", async () => {
    const ws = mkdtempSync(path.join(os.tmpdir(), "sf-action-"));
    cpSync(path.join(repoRoot, "skills"), path.join(ws, "skills"), { recursive: true });
    const clean = await runLintStep(ws, "");
    assert.equal(clean.code, 0, clean.stderr);
    assert.match(clean.outputs, /^exit-code=0$/m);
    const bad = await runLintStep(ws, "skills no-such-folder");
    assert.equal(bad.code, 2);
    assert.match(bad.outputs, /^exit-code=2$/m);
  });

  it("command: an unknown command fails the action with 2; a merge of files that do not exist fails with the CLI's bad-input code and skips the artifact upload", async () => {
    const ws = mkdtempSync(path.join(os.tmpdir(), "sf-action-"));
    const env = { PATH: process.env.PATH ?? "", HOME: ws };
    const summary = path.join(ws, "summary.md");
    const unknown = await runAction(repoRoot, { command: "evaluate" }, { workspace: ws, env, summary });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stdout, /unknown command 'evaluate': use lint, run, merge or report/);
    const merge = await runAction(repoRoot, { command: "merge", runs: "runs/*.jsonl", out: "merged.jsonl" }, { workspace: ws, env, summary });
    assert.equal(merge.code, 2, merge.stderr);
    assert.equal(merge.outputs["exit-code"], "2");
    assert.deepEqual(merge.steps.filter((s) => s.status !== "skipped").map((s) => s.step), ["actions/setup-node@v4", "Build the CLI (only when this ref carries no dist/)", "cli"]);
    await assert.rejects(runAction(repoRoot, { comand: "run" }, { workspace: ws, env, summary }), /action.yml has no input comand/);
  });
});
