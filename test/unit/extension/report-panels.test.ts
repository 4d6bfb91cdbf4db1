/**
 * Issue 24: a report that is open already is revealed, not opened in a second tab; a new evaluation of the same
 * skill shows its run in the skill's open report.
 */
import assert from "node:assert/strict";
import { before, beforeEach, describe, it } from "node:test";
import type { LoadedRun } from "../../../src/extension/report-view-model.js";
import type { RunHeader, RunRecord } from "../../../src/core/runs/types.js";
import { editor, installFakeVscode, Uri } from "./fake-vscode.js";

type Panels = typeof import("../../../src/extension/report-panel.js");
type ViewModel = typeof import("../../../src/extension/report-view-model.js");
let panels: Panels;
let vm: ViewModel;

before(async () => {
  installFakeVscode();
  panels = await import("../../../src/extension/report-panel.js");
  vm = await import("../../../src/extension/report-view-model.js");
});

beforeEach(() => editor.reset());

function run(file: string): LoadedRun {
  const header: RunHeader = {
    type: "header", formatVersion: 1, toolVersion: "0", runId: file, createdAt: "2026-01-01T00:00:00Z",
    model: { id: "openai-compatible:m@http://x/v1", name: "m" }, params: { samples: 1, maxTurns: 6 },
    taskSet: { name: "ts", format: "native", file: "/t.jsonl", hash: "h", size: 2 }, taskIds: [],
    skills: [{ name: "s", contentHash: "hash-s", file: "/skills/s/SKILL.md", description: "d" }],
    skillLibraryHash: "lib", mode: "catalog", design: "paired", promptVersion: "1", sandbox: { isolation: "none" }, stopWhen: "never",
  } as RunHeader;
  const rec = (taskId: string, condition: "enabled" | "disabled", pass: boolean): RunRecord => ({
    type: "run", key: `${taskId}\u0000${condition}\u00000`, taskId, condition, sample: 0,
    retrieved: condition === "enabled" ? [{ name: "s", contentHash: "hash-s" }] : [], toolCalls: [], answer: "a",
    verdict: { pass, reason: pass ? "ok" : "expected 1, got 2" }, tokens: { prompt: 1, completion: 1 },
    latencyMs: 1, modelCalls: 1, cachedCalls: 0, turns: 1, transcript: [], finishedAt: "2026-01-01T00:00:01Z",
  }) as RunRecord;
  return { file, header, records: [rec("T1", "disabled", true), rec("T1", "enabled", false), rec("T2", "disabled", false), rec("T2", "enabled", true)], stops: [], warnings: [] };
}

function reportPanels() {
  const quiet = () => undefined;
  const host = {
    load: async (files: string[]) => vm.buildReportModel(files.map(run), 0.05),
    openTask: async () => {},
    exportReport: async () => {},
    evaluateAgain: async () => {},
  };
  return new panels.ReportPanels(Uri.file("/ext") as never, host, { info: quiet, warn: quiet, error: quiet, debug: quiet } as never);
}

describe("ReportPanels", () => {
  it("opening the same run twice gives one panel, revealed the second time (however the path is spelled)", async () => {
    const reports = reportPanels();
    const first = await reports.open(["/ws/.skill-following/runs/a.jsonl"]);
    const second = await reports.open(["/ws/.skill-following/runs/../runs/a.jsonl"]);
    assert.equal(first, second);
    assert.equal(editor.panels.length, 1);
    assert.equal(editor.panels[0]!.revealed, 1);
    await reports.open(["/ws/.skill-following/runs/b.jsonl"]);
    assert.equal(editor.panels.length, 2, "another run is another report");
  });

  it("a new evaluation of a skill shows its run in the skill's open report instead of a new tab", async () => {
    const reports = reportPanels();
    await reports.open(["/runs/first.jsonl"]);
    const rp = await reports.openEvaluation(["/skills/s/SKILL.md"], "/runs/second.jsonl");
    assert.equal(editor.panels.length, 1);
    assert.deepEqual(rp.runFiles, ["/runs/second.jsonl"]);
    assert.equal(editor.panels[0]!.revealed, 1);
    assert.equal(await reports.open(["/runs/second.jsonl"]), rp, "found under its new run");
  });

  it("a slow refresh of the run shown before a retarget never paints over the new run", async () => {
    const gates = new Map<string, () => void>();
    const quiet = () => undefined;
    const host = {
      // The first run's load waits until the test lets it finish; any other load finishes at once.
      load: async (files: string[]) => {
        if (files[0] === "/runs/first.jsonl" && gates.has("hold")) await new Promise<void>((r) => gates.set("first", r));
        return vm.buildReportModel(files.map(run), 0.05);
      },
      openTask: async () => {},
      exportReport: async () => {},
      evaluateAgain: async () => {},
    };
    const reports = new panels.ReportPanels(Uri.file("/ext") as never, host, { info: quiet, warn: quiet, error: quiet, debug: quiet } as never);
    const rp = await reports.open(["/runs/first.jsonl"]);
    gates.set("hold", () => undefined);
    const stale = rp.refresh(); // e.g. the save before a re-evaluation re-reads the old run for its stale banner
    await reports.openEvaluation(["/skills/s/SKILL.md"], "/runs/second.jsonl");
    gates.get("first")!();
    await stale;
    assert.deepEqual(rp.runFiles, ["/runs/second.jsonl"]);
    assert.deepEqual(rp.current?.runs.map((r) => r.runFile), ["/runs/second.jsonl"], "the panel shows the new run");
    const last = editor.panels[0]!.posted.at(-1) as { report?: { runs: { runFile: string }[] } };
    assert.deepEqual(last.report?.runs.map((r) => r.runFile), ["/runs/second.jsonl"], "and the page was last sent the new run");
  });

  it("a closed report opens again in a new panel", async () => {
    const reports = reportPanels();
    const rp = await reports.open(["/runs/a.jsonl"]);
    rp.panel.dispose();
    await reports.open(["/runs/a.jsonl"]);
    assert.equal(editor.panels.length, 2);
  });
});
