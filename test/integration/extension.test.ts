/**
 * Integration tier: the extension inside a real VS Code (code-server's extension host), against the scripted
 * model server over real HTTP. The in-host module (host/suite.ts) drives the extension and records what it saw;
 * this file asserts it. Needs code-server (scripts/install-code-server.sh) and chromium (apt).
 */
import assert from "node:assert/strict";
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { bundleHostModule, EXTENSION_DIR, missingPrerequisite, REPO_ROOT, runInExtensionHost, startCodeServer, type CodeServer } from "./support/code-server.js";
import { API_KEY, createFixture, EXPECTED, SKILL_NAME, XSS_TASK_ID, type Fixture } from "./support/fixture.js";

// SF_VSCODE=electron runs the suite in VS Code desktop via @vscode/test-electron (needs internet to download it);
// the default, and CI, is code-server (installed by scripts/install-code-server.sh).
const skip = process.env.SF_VSCODE === "electron" ? undefined : missingPrerequisite();
// The public task-set copies (../shared/data) serve as a download mirror when present.
const sharedData = path.resolve(REPO_ROOT, "..", "shared", "data");
const haveSharedData = existsSync(path.join(sharedData, "gsm8k", "test.jsonl"));

/** A static 127.0.0.1 server over the shared data folder: `<url>/<name>/<file>`, as a task-set mirror. */
async function serveMirror(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname).replace(/^\/+/, "");
    const file = path.resolve(sharedData, rel);
    if (!file.startsWith(sharedData + path.sep) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const p = path.join(dir, name);
    const s = statSync(p);
    if (s.isDirectory()) out.push(...filesUnder(p));
    else if (s.isFile() && s.size < 50_000_000) out.push(p);
  }
  return out;
}

type Facts = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("extension in code-server's extension host", { skip: skip ?? false, timeout: 420_000 }, () => {
  let root: string;
  let fixture: Fixture;
  let server: CodeServer | undefined;
  let facts: Facts;
  let mirror: { url: string; close(): Promise<void> } | undefined;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "sf-integration-"));
    const workspace = path.join(root, "ws");
    // Some latency, so the cancel test finds the evaluation still running.
    fixture = await createFixture(workspace, { latencyMs: 300 });
    if (haveSharedData) mirror = await serveMirror();
    const resultsFile = path.join(root, "results.json");
    const testsModule = path.join(root, "host", "suite.js");
    await bundleHostModule(path.join(__dirname, "host", "suite.ts"), testsModule, {
      resultsFile,
      skillFile: fixture.skillFile,
      taskSetFile: fixture.taskSetFile,
      pythonTaskSetFile: fixture.pythonTaskSetFile,
      controlUrl: fixture.controlUrl,
      apiKey: API_KEY,
      exportDir: path.join(workspace, "exports"),
      ...(mirror ? { mirror: mirror.url } : {}),
    });
    if (process.env.SF_VSCODE === "electron") {
      // For contributors with internet: the same in-host suite in a downloaded VS Code desktop (@vscode/test-electron).
      const { runTests } = await import("@vscode/test-electron");
      await runTests({
        extensionDevelopmentPath: EXTENSION_DIR,
        extensionTestsPath: testsModule,
        launchArgs: [workspace, "--disable-workspace-trust", "--disable-extensions", "--user-data-dir", path.join(root, "session", "user-data")],
      });
      facts = JSON.parse(readFileSync(resultsFile, "utf8")) as Facts;
      return;
    }
    // Saves are the suite's to make: code-server (a web VS Code) would save an edited SKILL.md by itself after 1 s,
    // and on a loaded machine that came before the suite turned evaluate-on-save on, so its own save was a no-op.
    server = await startCodeServer({ sessionDir: path.join(root, "session"), logFile: path.join(REPO_ROOT, "test-results", "integration-code-server.log"), settings: { "files.autoSave": "off" } });
    facts = (await runInExtensionHost({ server, workspace, testsModule, resultsFile, timeoutMs: 360_000 })) as Facts;
  });

  after(async () => {
    await server?.close();
    await fixture?.close();
    await mirror?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("ran the in-host suite to the end", () => {
    assert.equal(facts.error, null, `in-host failure after steps ${JSON.stringify(facts.steps)}: ${facts.error}`);
  });

  it("activates and registers every contributed command", () => {
    assert.equal(facts.activated, true);
    const registered = new Set<string>(facts.registeredCommands);
    const missing = (facts.manifestCommands as string[]).filter((c) => !registered.has(c));
    assert.deepEqual(missing, []);
    assert.ok(facts.manifestCommands.length >= 8);
  });

  it("sets format diagnostics while typing and clears them when the skill is fixed", () => {
    assert.deepEqual(facts.diagnosticsValid, []);
    const codes = (facts.diagnosticsBroken as { code: string; source: string }[]).map((d) => d.code);
    assert.ok(codes.length > 0);
    assert.ok(facts.diagnosticsBroken.every((d: { source: string }) => d.source === "Skill Following"));
    assert.ok(codes.some((c) => c.startsWith("name")), `codes: ${codes.join(", ")}`);
    assert.deepEqual(facts.diagnosticsFixed, []);
    assert.deepEqual(facts.lensBefore, ["$(beaker) Evaluate this skill"]);
  });

  it("refuses to run without the API key the endpoint requires", () => {
    assert.equal(facts.withoutKey.returned, null);
    assert.equal(facts.setKey, true);
  });

  it("evaluates the fixture skill against the scripted server with the expected numbers", () => {
    const e = facts.evaluation;
    assert.equal(e.cancelled, false);
    assert.equal(e.calls, EXPECTED.firstRunCalls, "first evaluation = exactly the required calls");
    assert.equal(e.headline.n, EXPECTED.n);
    assert.equal(e.headline.nRetrieved, EXPECTED.nRetrieved);
    assert.equal(e.headline.rae.value, EXPECTED.rae);
    assert.ok(Math.abs(e.headline.oae.value - EXPECTED.oae) < 1e-12);
    assert.equal(e.headline.lift, EXPECTED.lift);
    assert.equal(e.headline.paradox, true);
    assert.ok(e.headline.rae.low < EXPECTED.rae && e.headline.rae.high > EXPECTED.rae);
    assert.deepEqual([...e.harmed].sort(), [...EXPECTED.harmed].sort());
    assert.deepEqual(e.rescued, EXPECTED.rescued);
    assert.equal(e.skills.length, 1);
    assert.equal(e.skills[0].name, SKILL_NAME);
  });

  it("renders the report in the webview", () => {
    assert.equal(facts.rendered.error, undefined, String(facts.rendered.error));
    assert.equal(facts.rendered.harmed, 2);
    assert.equal(facts.rendered.rescued, 1);
    assert.equal(facts.rendered.skills, 1);
  });

  it("puts the verdict on the name: line with a quick fix, and the numbers in the CodeLens", () => {
    const verdict = (facts.diagnosticsAfterRun as { code: string; severity: string; line: number; message: string }[]).find((d) => d.code.startsWith("evaluation-"));
    assert.ok(verdict);
    assert.equal(verdict.severity, "Warning");
    assert.equal(verdict.line, 1, "on the `name:` line (line 2 of the file), not across the frontmatter");
    assert.match(verdict.message, /harmed 2 tasks and rescued 1/);
    assert.match(verdict.message, /RAE \u22120\.25 \[/);
    assert.ok(facts.codeActions.some((a: { command: string }) => a.command === "skillFollowing.showHarmedTasks"));
    const rae = facts.lensAfterRun.find((t: string) => t.startsWith("RAE"));
    assert.match(rae, /^RAE \u22120\.25 \[\u2212?\d\.\d\d, \u2212?\d\.\d\d\] \u00b7 1 rescued \u00b7 2 harmed \u00b7 scripted-model on fixture-math$/, "the lens names the model and task set it reports");
    assert.ok(!rae.includes("stale"));
    assert.ok(facts.lensAfterRun.includes("$(search) Find what harms"), "a skill that harmed is offered Find What Harms");
  });

  it("grades python tasks in the sandbox started from the extension host", () => {
    const p = facts.python;
    assert.deepEqual(p.rescued, ["P1-add-one"]);
    assert.deepEqual(p.harmed, ["P2-double"]);
    // The default runtime, auto: native CPython under bubblewrap and seccomp where its probe passes, else a Pyodide child
    // process under the permission model; the header says which and why.
    const chosen = /^auto: (cpython|pyodide) \(/.exec(p.sandboxDetail ?? "")?.[1];
    assert.ok(chosen, `the header names the runtime auto chose: ${p.sandboxDetail}`);
    assert.equal(p.isolation, chosen === "cpython" ? "native-confined" : "process-permission", "generated code ran in a confined child process");
    assert.equal(p.p1DisabledVerdict.failure.kind, "wrong-answer");
    assert.match(p.p1DisabledVerdict.reason, /expected 2.*got 3|3.*2/);
    assert.match(p.harmedReason, /expected/);
  });

  it("makes significant harm an error and help an information", () => {
    assert.equal(facts.verdictHarmful.severity, "Error");
    assert.match(facts.verdictHarmful.message, /^Significantly harmful after Holm correction: this skill harmed 9 tasks and rescued 1/);
    assert.equal(facts.verdictHelps.severity, "Information");
    assert.match(facts.verdictHelps.message, /rescued 6 tasks and harmed 1/);
  });

  it("opens a harmed task as a side-by-side of read-only transcripts", () => {
    const s = facts.sideBySide;
    assert.equal(s.scheme, "skill-following-transcript");
    assert.match(s.left, /— disabled/);
    assert.match(s.right, /— enabled/);
    assert.match(s.right, /Verdict: FAIL/);
    assert.match(s.left, /Verdict: PASS/);
    assert.match(s.right, new RegExp(`${SKILL_NAME} \\(sha256`));
    assert.match(s.right, /# Units helper/, "the returned skill text is shown");
  });

  it("exports HTML, CSV, JSON and Markdown with hostile text escaped", () => {
    const x = facts.exports;
    assert.ok(x.html.includes("&lt;img src=x onerror="));
    assert.ok(!x.html.includes("<script"), "no script element in the HTML export");
    assert.ok(!/<img[^>]*onerror/i.test(x.html));
    assert.match(x.csv.split(/\r?\n/)[1], new RegExp(`"${SKILL_NAME}"`));
    const json = JSON.parse(x.json);
    const harmed = json.evaluations[0].skills[0].harmedTasks as string[];
    assert.deepEqual([...harmed].sort(), [...EXPECTED.harmed].sort());
    assert.ok(harmed.includes(XSS_TASK_ID));
    assert.ok(x.markdown.replace(/\\/g, "").includes(SKILL_NAME), "markdown escapes punctuation with backslashes");
    assert.ok(!x.markdown.includes("<img"));
  });

  it("marks the CodeLens stale after an edit", () => {
    const rae = facts.lensStale.find((t: string) => t.startsWith("RAE"));
    assert.ok(rae.endsWith(" \u00b7 stale"), rae);
  });

  it("re-evaluates on save, re-issuing only the calls whose input changed", () => {
    const s = facts.evaluateOnSave;
    assert.equal(s.calls, EXPECTED.callsAfterBodyEdit);
    assert.equal(s.issuedByCondition.disabled, 0, "the disabled baseline is never recomputed");
    assert.equal(s.cachedByCondition.disabled, EXPECTED.n);
    assert.equal(s.issuedByCondition.enabled, EXPECTED.callsAfterBodyEdit);
    // Every enabled conversation's first call (skill catalog unchanged) came from the cache.
    assert.equal(s.cachedByCondition.enabled, EXPECTED.n);
    assert.notEqual(s.newRunFile, facts.evaluation.runFile);
    assert.ok(!facts.lensAfterSave.find((t: string) => t.startsWith("RAE")).includes("stale"));
  });

  it("cancels an evaluation keeping finished runs, then resumes it with nothing lost or duplicated", () => {
    const c = facts.cancelResume;
    assert.equal(facts.cancelCommand, true);
    assert.equal(c.cancelled, true);
    assert.ok(c.recordsAtCancel >= 2 && c.recordsAtCancel < 12, `records at cancel: ${c.recordsAtCancel}`);
    assert.equal(c.sameFile, true, "the second evaluation resumed the cancelled run file");
    assert.equal(c.resumedCancelled, false);
    assert.equal(c.records, 12);
    assert.equal(c.uniqueKeys, 12);
    // At most the one call in flight when cancelling is repeated (concurrency 1); nothing finished is redone.
    assert.ok(c.calls >= EXPECTED.firstRunCalls && c.calls <= EXPECTED.firstRunCalls + 1, `calls: ${c.calls}`);
    assert.equal(c.rae, EXPECTED.rae);
  });

  it("evaluates the library and compares two models in one report", () => {
    assert.deepEqual(facts.library.skills, [SKILL_NAME]);
    assert.equal(facts.library.rae, EXPECTED.rae);
    assert.equal(facts.comparison.runFiles, 2);
    assert.equal(facts.comparison.panelRuns, 2);
    assert.deepEqual([...facts.comparison.skillModels].sort(), ["scripted-model", "scripted-model-b"]);
    assert.deepEqual([...facts.comparison.points].sort(), ["model:scripted-model", "model:scripted-model-b"]);
  });

  it("downloads a public task set from a mirror, checksummed and cached", { skip: haveSharedData ? false : "no ../shared/data copies to serve" }, () => {
    const d = facts.download;
    assert.ok(d.first, "download returned a file");
    assert.ok(d.first.includes("task-sets") && d.first.endsWith(path.join("gsm8k", "test.jsonl")), d.first);
    assert.equal(d.second, d.first, "the second request is served from the cache");
    assert.equal(d.lines, 1319);
  });

  it("never writes the API key to settings, logs, run files or the cache", () => {
    assert.ok(!facts.settingsKeys.includes("apiKey"));
    const places = [path.join(root, "ws"), path.join(root, "session", "user-data")];
    const leaks = places.flatMap(filesUnder).filter((f) => readFileSync(f).includes(API_KEY));
    assert.deepEqual(leaks, []);
    // The places searched really hold the run files, the cache and the logs.
    const all = places.flatMap(filesUnder);
    assert.ok(all.some((f) => f.includes(`${path.sep}runs${path.sep}`) && f.endsWith(".jsonl")));
    assert.ok(all.some((f) => f.includes(`${path.sep}cache${path.sep}`)));
    assert.ok(all.some((f) => /Skill Following\.log$/.test(f) || f.includes("exthost")), "extension host logs were searched");
  });
});
