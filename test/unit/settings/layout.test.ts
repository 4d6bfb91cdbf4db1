/** One layout for both hosts: run-file names, reports, caches, and the one task-set cache of the user. */
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { cliLayout } from "../../../src/cli/paths.js";
import { dataDirOf, ensureDataDir, freshRunFile, reportFile, runFileName, taskSetCacheDir, workspaceLayout } from "../../../src/core/layout.js";

describe("workspace layout", () => {
  it("names a run file by what ran, then when (UTC), with unsafe characters replaced", () => {
    const name = runFileName({ label: "my skill/v2", taskSet: "gsm8k", model: "openai/gpt-4o-mini" }, new Date("2025-03-04T05:06:07.089Z"));
    assert.equal(name, "my-skill-v2--gsm8k--openai-gpt-4o-mini--2025-03-04-050607089.jsonl");
  });

  it("never hands out an existing run file", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "sf-layout-"));
    const layout = workspaceLayout(root);
    const now = new Date("2025-03-04T05:06:07.089Z");
    const parts = { label: "a", taskSet: "b", model: "c" };
    const first = freshRunFile(layout, parts, now);
    mkdirSync(layout.runsDir, { recursive: true });
    writeFileSync(first, "");
    const second = freshRunFile(layout, parts, now);
    assert.notEqual(second, first);
    assert.match(path.basename(second), /-2\.jsonl$/);
  });

  it("the CLI's layout is the extension's under the same folder: runs, reports and caches by the same names", () => {
    const ws = mkdtempSync(path.join(os.tmpdir(), "sf-layout-"));
    const cli = cliLayout(undefined, { SKILL_FOLLOWING_DIR: dataDirOf(ws) });
    const editor = workspaceLayout(dataDirOf(ws));
    assert.deepEqual(cli, editor);
    assert.equal(editor.root, path.join(ws, ".skill-following"));
    assert.equal(editor.verdictsDir, path.join(ws, ".skill-following", "cache", "verdicts"));
    assert.equal(reportFile(editor, path.join(editor.runsDir, "x--y--z--1.jsonl"), "html"), path.join(editor.reportsDir, "x--y--z--1.html"));
    // --cache-dir moves only the caches.
    assert.equal(cliLayout("/elsewhere", { SKILL_FOLLOWING_DIR: dataDirOf(ws) }).responsesDir, path.resolve("/elsewhere/responses"));
  });

  it("keeps one task-set cache per user: the override, else the platform's cache folder", () => {
    assert.equal(taskSetCacheDir({ SKILL_FOLLOWING_TASKS_CACHE: "/tmp/sets", XDG_CACHE_HOME: "/x" }, "linux"), path.resolve("/tmp/sets"));
    assert.equal(taskSetCacheDir({ XDG_CACHE_HOME: "/x" }, "linux"), path.join("/x", "skill-following", "task-sets"));
    assert.equal(taskSetCacheDir({}, "linux"), path.join(os.homedir(), ".cache", "skill-following", "task-sets"));
    assert.equal(taskSetCacheDir({ LOCALAPPDATA: "/appdata" }, "win32"), path.join("/appdata", "skill-following", "task-sets"));
  });

  it("gives the data folder a .gitignore of `*` once, so git status lists nothing under it; an edited one is kept", () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), "sf-layout-git-"));
    const layout = workspaceLayout(dataDirOf(repo));
    ensureDataDir(layout);
    assert.match(readFileSync(path.join(layout.root, ".gitignore"), "utf8"), /^\*$/m);
    mkdirSync(layout.runsDir, { recursive: true });
    writeFileSync(path.join(layout.runsDir, "a.jsonl"), "{}\n");
    mkdirSync(layout.responsesDir, { recursive: true });
    writeFileSync(path.join(layout.responsesDir, "x.json"), "{}");
    const git = spawnSync("git", ["init", "-q"], { cwd: repo });
    if (git.status === 0) {
      const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: repo, encoding: "utf8" });
      assert.equal(status.stdout, "", "nothing under .skill-following/ is listed");
    }
    writeFileSync(path.join(layout.root, ".gitignore"), "runs/\n");
    ensureDataDir(layout);
    assert.equal(readFileSync(path.join(layout.root, ".gitignore"), "utf8"), "runs/\n");
  });
});
