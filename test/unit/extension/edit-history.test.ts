/**
 * "What did my edit change" in the editor (issue 28): the edit history of a skill, the CodeLens title, the diff view
 * of an edit (the two kept texts side by side, the tasks opening their before/after transcripts) and the committed
 * text through the git extension's API. The runs are real run files the CLI made against the scripted server, so the
 * recorded diff is the engine's, with the counts known from the script.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { DESC, editScript, skillText, taskLines } from "../../support/edit-scenario.js";
import { runCli } from "../cli/harness.js";
import { editor, installFakeVscode, MemoryMemento, Uri } from "./fake-vscode.js";

let server: ScriptedServer;
let ws: string;
let history: typeof import("../../../src/extension/edit-history.js");
let ui: typeof import("../../../src/extension/edit-diff.js");
let RunFiles: typeof import("../../../src/extension/run-files.js").RunFiles;
const quiet = () => {};
const logger = { info: quiet, warn: quiet, error: quiet, debug: quiet };

async function runWith(text: string, out: string): Promise<string> {
  writeFileSync(path.join(ws, "skills", "sums", "SKILL.md"), text);
  const r = await runCli(["run", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "scripted-model", "--out", out, "--quiet"], { cwd: ws, baseUrl: server.url });
  assert.equal(r.code, 0, r.stderr);
  return path.join(ws, out);
}

let oldRun: string;
let newRun: string;
let widerRun: string;

before(async () => {
  installFakeVscode();
  history = await import("../../../src/extension/edit-history.js");
  ui = await import("../../../src/extension/edit-diff.js");
  RunFiles = (await import("../../../src/extension/run-files.js")).RunFiles;
  server = await startScriptedServer({ script: editScript });
  ws = mkdtempSync(path.join(os.tmpdir(), "sf-edits-"));
  mkdirSync(path.join(ws, "skills", "sums"), { recursive: true });
  writeFileSync(path.join(ws, "tasks.jsonl"), `${taskLines().join("\n")}\n`);
  oldRun = await runWith(skillText(DESC, "OLD"), "old.jsonl");
  newRun = await runWith(skillText(DESC, "NEW"), "new.jsonl");
  widerRun = await runWith(skillText(`${DESC} Also for products.`, "NEW"), "wider.jsonl");
});
after(async () => {
  await server?.close();
  rmSync(ws, { recursive: true, force: true });
});
beforeEach(() => editor.reset());

const svcOf = () => ({ runs: new RunFiles(), config: { get: () => ({ alpha: 0.05 }) }, logger }) as never;
const SKILL = () => path.join(ws, "skills", "sums", "SKILL.md");

describe("extension: the edit history of a skill", () => {
  it("an evaluated edit is recorded with the engine's paired diff, and the CodeLens reads 'this edit: 5 improved · 1 regressed (p 0.125)'", async () => {
    const edits = new history.EditHistory(new MemoryMemento() as never);
    const changed: string[] = [];
    edits.onDidChange((f) => changed.push(f));
    const e = await history.recordEdit(svcOf(), edits, "sums", SKILL(), oldRun, newRun);
    assert.ok(e);
    assert.deepEqual([e.diff.improvedTasks, e.diff.regressedTasks, e.diff.table.n], [["t0", "t1", "t2", "t3", "t4"], ["t5"], 14]);
    assert.equal(history.editLensTitle(e.diff), "this edit: 5 improved \u00b7 1 regressed (p 0.125)");
    assert.deepEqual(changed, [path.resolve(SKILL())]);
    assert.deepEqual(edits.latestTo(SKILL(), e.diff.after.hash), e);
    assert.equal(edits.latestTo(SKILL(), e.diff.before.hash), undefined, "no edit led to the old text");
    // The same run again, or the same text: nothing to record.
    assert.equal(await history.recordEdit(svcOf(), edits, "sums", SKILL(), newRun, newRun), undefined);
    assert.equal(edits.of(SKILL()).length, 1);
  });

  it("a description edit that loads the skill on 3 more tasks is recorded as trigger changes, not improved or regressed; the lens says so", async () => {
    const edits = new history.EditHistory(new MemoryMemento() as never);
    const e = await history.recordEdit(svcOf(), edits, "sums", SKILL(), newRun, widerRun);
    assert.ok(e);
    assert.deepEqual(e.diff.triggerChanged, { gained: ["t14", "t15", "t16"], lost: [] });
    assert.deepEqual([e.diff.table.improved, e.diff.table.regressed], [0, 0]);
    assert.equal(history.editLensTitle(e.diff), "this edit: 0 improved \u00b7 0 regressed (p 1.000) \u00b7 loaded on 3 more, 0 fewer");
  });

  it("keeps the newest edits first, at most MAX_EDITS per skill", async () => {
    const edits = new history.EditHistory(new MemoryMemento() as never);
    const e = (await history.recordEdit(svcOf(), edits, "sums", SKILL(), oldRun, newRun))!;
    for (let i = 0; i < history.MAX_EDITS + 3; i++) await edits.add(SKILL(), { ...e, at: `2026-01-01T00:00:${String(i).padStart(2, "0")}Z` });
    const all = edits.of(SKILL());
    assert.equal(all.length, history.MAX_EDITS);
    assert.equal(all[0]!.at, `2026-01-01T00:00:${String(history.MAX_EDITS + 2).padStart(2, "0")}Z`);
  });

  it("Show What This Edit Changed opens the two kept texts side by side, then a picked task's transcripts before and after the edit", async () => {
    const edits = new history.EditHistory(new MemoryMemento() as never);
    const e = (await history.recordEdit(svcOf(), edits, "sums", SKILL(), oldRun, newRun))!;
    const layout = { root: path.join(ws, ".skill-following") };
    history.keepSkillVersion(layout, e.diff.before.hash, skillText(DESC, "OLD"));
    history.keepSkillVersion(layout, e.diff.after.hash, skillText(DESC, "NEW"));
    const diffs: unknown[][] = [];
    editor.commands.set("vscode.diff", (...args) => void diffs.push(args));
    editor.answers.pick.push("t5");
    await ui.openEditDiff(edits, Uri.file(SKILL()), 0);
    assert.equal(diffs.length, 2);
    const [left, right, title] = diffs[0] as [Uri, Uri, string];
    assert.equal(title, "sums: previous evaluation \u2194 this version \u2014 5 improved \u00b7 1 regressed (p 0.125)");
    assert.equal(left.scheme, ui.SKILL_VERSION_SCHEME);
    assert.match(left.path, /\/previous-evaluation\/SKILL\.md$/);
    assert.match(right.path, /\/this-version\/SKILL\.md$/);
    // The provider serves the kept texts by hash: the old on the left, the new on the right.
    assert.match(history.keptSkillVersion(layout, left.query), /VERSION-OLD/);
    assert.match(history.keptSkillVersion(layout, right.query), /VERSION-NEW/);
    const [tl, tr, ttitle] = diffs[1] as [Uri, Uri, string];
    assert.equal(ttitle, "t5: before \u2194 after the edit");
    assert.deepEqual([new URLSearchParams(tl.query).get("run"), new URLSearchParams(tr.query).get("run")], [oldRun, newRun]);
    assert.equal(new URLSearchParams(tr.query).get("task"), "t5");
    assert.equal(new URLSearchParams(tr.query).get("condition"), "enabled");
    // A text never kept says why instead of showing nothing.
    assert.match(history.keptSkillVersion(layout, "0".repeat(64)), /was not kept/);
  });

  it("the pick list groups improved, regressed and trigger-changed tasks; several samples name the pair task#sample", () => {
    const d = { improvedTasks: ["a#0", "b#1"], regressedTasks: ["c#2"], triggerChanged: { gained: ["g"], lost: [] }, note: "pairs are (task, sample)" };
    const items = ui.editTaskItems({ diff: d } as never).filter((i) => i.taskId !== undefined);
    assert.deepEqual(items.map((i) => [i.taskId, i.sample, i.description]), [["a", 0, "improved"], ["b", 1, "improved"], ["c", 2, "regressed"], ["g", 0, "loads the skill now"]]);
    assert.deepEqual(ui.pairOf("x#y#3", true), { taskId: "x#y", sample: 3 });
    assert.deepEqual(ui.pairOf("x#3", false), { taskId: "x#3", sample: 0 });
  });

  it("the committed text comes from the git extension's API, and each way it cannot says what to do", async () => {
    const uri = Uri.file(SKILL()) as never;
    const shown: [string, string][] = [];
    const api = { getRepository: () => ({ show: async (ref: string, p: string) => (shown.push([ref, p]), skillText(DESC, "OLD")) }) };
    assert.deepEqual(await ui.committedText(api, uri), { text: skillText(DESC, "OLD") });
    assert.deepEqual(shown, [["HEAD", SKILL()]]);
    assert.match(((await ui.committedText(undefined, uri)) as { problem: string }).problem, /Git extension is not available/);
    assert.match(((await ui.committedText({ getRepository: () => null }, uri)) as { problem: string }).problem, /is not in a git repository/);
    const missing = { getRepository: () => ({ show: async () => Promise.reject(new Error("fatal: path 'skills/sums/SKILL.md' exists on disk, but not in 'HEAD'")) }) };
    assert.match(((await ui.committedText(missing, uri)) as { problem: string }).problem, /has no committed version at HEAD \(fatal: path .* not in 'HEAD'\)\. Commit it first\./);
  });
});
