/** The report view the webview, CodeLens and diagnostics show, built from run records; and the export renderers. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildReportView, skillResults, type LoadedRun } from "../../../src/extension/report-view-model.js";
import { ReportViewSchema } from "../../../src/shared/report-view.js";
import { HostMessageSchema, PROTOCOL_VERSION, WebviewMessageSchema } from "../../../src/shared/protocol.js";
import { interval, raeSummary, signed } from "../../../src/shared/format.js";
import type { RunHeader, RunRecord } from "../../../src/core/runs/types.js";

const XSS = `<img src=x onerror="alert(1)">`;

function header(skills: string[], design: "paired" | "rae-only" = "paired", modelId = "openai-compatible:m@http://x/v1"): RunHeader {
  return {
    type: "header", formatVersion: 1, toolVersion: "0", runId: "r", createdAt: "2026-01-01T00:00:00Z",
    model: { id: modelId, name: "m" }, params: { samples: 1, maxTurns: 6 },
    taskSet: { name: "ts", format: "native", file: "/t.jsonl", hash: "h", size: 6 }, taskIds: [],
    skills: skills.map((name) => ({ name, contentHash: `hash-${name}`, file: `/skills/${name}/SKILL.md`, description: "d" })),
    skillLibraryHash: "lib", mode: "catalog", design, promptVersion: "1", sandbox: { isolation: "none" }, stopWhen: "never",
  };
}

function rec(taskId: string, condition: "enabled" | "disabled", pass: boolean, skills: string[] = []): RunRecord {
  return {
    type: "run", key: `${taskId}\u0000${condition}\u00000`, taskId, condition, sample: 0,
    retrieved: skills.map((name) => ({ name, contentHash: `hash-${name}` })), toolCalls: [], answer: "a",
    verdict: { pass, reason: pass ? "ok" : `expected 1, got ${XSS}` }, tokens: { prompt: 1, completion: 1 },
    latencyMs: 1, modelCalls: 1, cachedCalls: 0, turns: 1, transcript: [], finishedAt: "2026-01-01T00:00:01Z",
  };
}

/** The fixture of the integration tier: b = 1, c = 2 where retrieved (n = 4), two unretrieved both-fail tasks. */
function fixtureRun(): LoadedRun {
  const rows: [string, boolean, boolean, string[]][] = [
    ["T1", false, true, ["s"]],
    ["T2", true, false, ["s"]],
    [XSS, true, false, ["s"]],
    ["T4", true, true, ["s"]],
    ["T5", false, false, []],
    ["T6", false, false, []],
  ];
  const records = rows.flatMap(([id, d, e, skills]) => [rec(id, "disabled", d), rec(id, "enabled", e, skills)]);
  return { file: "/runs/a.jsonl", header: header(["s"]), records, stops: [], warnings: [] };
}

describe("buildReportView", () => {
  it("computes the headline, paradox, per-skill row and flip lists from paired records", () => {
    const v = buildReportView([fixtureRun()], 0.05);
    assert.ok(ReportViewSchema.safeParse(v).success);
    assert.equal(v.headline.n, 6);
    assert.equal(v.headline.nRetrieved, 4);
    assert.equal(v.headline.rae.value, -0.25);
    assert.ok(Math.abs(v.headline.oae.value! + 1 / 6) < 1e-12);
    assert.equal(v.headline.lift, 0.5);
    assert.equal(v.headline.paradox, true);
    assert.ok(v.headline.paradoxText && v.headline.paradoxText.length > 20);
    assert.deepEqual(v.harmed.map((t) => t.taskId).sort(), ["T2", XSS].sort());
    assert.deepEqual(v.rescued.map((t) => t.taskId), ["T1"]);
    assert.equal(v.harmed[0]!.reason.includes("expected 1"), true, "the failing side's reason is shown");
    assert.equal(v.skills.length, 1);
    assert.deepEqual({ n: v.skills[0]!.n, b: v.skills[0]!.rescued, c: v.skills[0]!.harmed, flag: v.skills[0]!.flag }, { n: 4, b: 1, c: 2, flag: "inconclusive" });
  });

  it("gives undefined quantities as null: no OAE in the RAE-only design (lift then comes from enabled runs)", () => {
    const run = fixtureRun();
    run.header = header(["s"], "rae-only");
    run.records = run.records.filter((r) => r.condition === "enabled" || !["T5", "T6"].includes(r.taskId));
    const v = buildReportView([run], 0.05);
    assert.equal(v.headline.oae.value, null);
    assert.equal(v.headline.oae.low, null);
    assert.equal(v.headline.lift, 0.5);
    assert.equal(v.headline.rae.value, -0.25);
    assert.ok(v.notes.some((n) => n.includes("RAE-only")));
  });

  it("notes that vscode.lm models cannot set a temperature", () => {
    const run = fixtureRun();
    run.header = header(["s"], "paired", "vscode-lm:copilot/gpt-4o");
    assert.ok(buildReportView([run], 0.05).notes.some((n) => /temperature cannot be set.*samples > 1/.test(n)));
  });

  it("compares models: one scatter point and one skill row per model", () => {
    const a = fixtureRun();
    const b = { ...fixtureRun(), file: "/runs/b.jsonl", header: { ...header(["s"]), model: { id: "x", name: "other" } } };
    const v = buildReportView([a, b], 0.05);
    assert.deepEqual(v.points.map((p) => [p.kind, p.label]), [["model", "m"], ["model", "other"]]);
    assert.deepEqual(v.skills.map((s) => s.model).sort(), ["m", "other"]);
    assert.equal(v.harmed.length, 4);
  });

  it("compares models: every model gets its own headline, in the order compared", () => {
    const a = fixtureRun();
    // The other model: T2 and the XSS task now pass when the skill is used (rescued 1 → 1, harmed 2 → 0).
    const b: LoadedRun = { ...fixtureRun(), file: "/runs/b.jsonl", header: { ...header(["s"]), runId: "r2", model: { id: "x", name: "other" } } };
    b.records = b.records.map((r) => (r.condition === "enabled" && (r.taskId === "T2" || r.taskId === XSS) ? { ...r, verdict: { pass: true, reason: "ok" } } : r));
    const v = buildReportView([a, b], 0.05);
    assert.ok(ReportViewSchema.safeParse(v).success);
    assert.deepEqual(
      v.models!.map((m) => ({ model: m.model, rae: m.rae.value, rescued: m.rescued, harmed: m.harmed, paradox: m.paradox })),
      [
        { model: "m", rae: -0.25, rescued: 1, harmed: 2, paradox: true },
        { model: "other", rae: 0.25, rescued: 1, harmed: 0, paradox: false },
      ],
    );
    assert.deepEqual(v.headline, (({ model: _m, ...rest }) => rest)(v.models![0]!), "the single headline is the first model's");
    assert.equal(v.notes.some((n) => n.includes("Headline cards show")), false);
    assert.equal(buildReportView([a], 0.05).models, undefined, "one model: no per-model headlines");
  });

  it("summarises each skill of the run for the CodeLens and diagnostics", () => {
    const run = fixtureRun();
    const [r] = skillResults(run, buildReportView([run], 0.05));
    assert.equal(r!.contentHash, "hash-s");
    assert.equal(r!.taskSetFile, "/t.jsonl");
    assert.equal(raeSummary(r!), `RAE \u22120.25 ${interval(r!.low, r!.high)} \u00b7 1 rescued \u00b7 2 harmed`);
  });
});

describe("format", () => {
  it("uses a real minus sign, n/a for undefined, and rounds half away consistently", () => {
    assert.equal(signed(-0.125), "\u22120.13");
    assert.equal(signed(0), "0.00");
    assert.equal(signed(-0.001), "0.00");
    assert.equal(signed(null), "n/a");
    assert.equal(signed(0.5), "+0.50", "a positive effect carries its sign");
    assert.equal(interval(-0.25, 0.01), "[\u22120.25, 0.01]");
    assert.equal(interval(null, 1), "n/a");
  });
});

describe("webview protocol", () => {
  it("accepts each direction's messages and rejects wrong versions and unknown types", () => {
    const report = buildReportView([fixtureRun()], 0.05);
    assert.ok(HostMessageSchema.safeParse({ v: PROTOCOL_VERSION, type: "report", report }).success);
    assert.ok(!HostMessageSchema.safeParse({ v: 99, type: "report", report }).success);
    assert.ok(WebviewMessageSchema.safeParse({ v: PROTOCOL_VERSION, type: "openTask", runFile: "/r", taskId: "t", sample: 0 }).success);
    assert.ok(!WebviewMessageSchema.safeParse({ v: PROTOCOL_VERSION, type: "runCommand", command: "rm" }).success);
    assert.ok(!WebviewMessageSchema.safeParse({ v: PROTOCOL_VERSION, type: "openTask", runFile: "/r", taskId: "t", sample: -1 }).success);
  });
});
