/**
 * `report --format inspect` (issue 27): the runs as Inspect eval logs that validate against the log schema Inspect
 * published (test/fixtures/inspect, inspect_ai 0.3.201), one log per condition as two tasks of one eval set, with every
 * sample (task × epoch), its score, the per-epoch results and the model usage; names the viewer lists.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";
import { buildReport, inspectExport, INSPECT_SCORER } from "../../../src/core/report/index.js";
import type { RunRecord } from "../../../src/core/runs/types.js";
import { runAblationScenario } from "../../support/ablation-run.js";
import { INSPECT_LOG_FILE, inspectTaskOfFileName, inspectValidator } from "../../support/inspect.js";
import { repoRoot, spawnCollect } from "../cli/harness.js";
import { header, rec } from "./fixtures.js";

interface Sample {
  id: string;
  epoch: number;
  input: string;
  messages: Array<{ role: string; content: string; tool_calls?: Array<{ function: string; arguments: Record<string, unknown>; parse_error: string | null }> | null; function?: string | null }>;
  output: { completion: string; error: string | null };
  scores: Record<string, { value: string; explanation: string; answer: string | null }>;
  metadata: { condition: string; pair: string | null; retrieved: string[]; task_id: string };
  model_usage: Record<string, { input_tokens: number; output_tokens: number; total_tokens: number }>;
}
interface Log {
  status: string;
  eval: { eval_set_id: string; eval_id: string; run_id: string; task: string; task_id: string; task_args: { condition: string }; model: string; config: { epochs: number }; dataset: { sample_ids: string[] }; metadata: { skill_following: { condition: string; other_condition_log: string | null; paired: { rae: { rescued: number; harmed: number; n: number } } | null } } };
  results: { total_samples: number; completed_samples: number; scores: Array<{ name: string; reducer: string; scored_samples: number; metrics: Record<string, { value: number }> }>; metadata: { per_epoch: Array<{ epoch: number; samples: number; accuracy: number | null }> } };
  stats: { model_usage: Record<string, { input_tokens: number; output_tokens: number }> };
  samples: Sample[];
  reductions: Array<{ scorer: string; samples: Array<{ sample_id: string; value: number }> }>;
}

const parse = (text: string) => JSON.parse(text) as Log;

/** Two tasks, two epochs, both conditions; task t3 has only its enabled runs (an incomplete pair). */
function fixture() {
  const ids = ["t1", "t2", "t3"];
  const h = header({ taskIds: ids, params: { samples: 2, maxTurns: 6, temperature: 0, seed: 7 } }, ["money"]);
  const withTranscript = (r: RunRecord, text: string): RunRecord => ({
    ...r,
    answer: `answer ${text}`,
    tokens: { prompt: 100 + text.length, completion: 10 + r.sample },
    transcript: [
      { role: "system", content: "You are helpful." },
      { role: "user", content: `prompt of ${r.taskId}` },
      ...(r.condition === "enabled"
        ? [
            { role: "assistant" as const, content: null, toolCalls: [{ id: "c1", name: "load_skill", arguments: '{"name":"money"}' }, { id: "c2", name: "load_skill", arguments: "{not json" }] },
            { role: "tool" as const, content: "skill text", toolCallId: "c1" },
            { role: "tool" as const, content: "error", toolCallId: "c2" },
          ]
        : []),
      { role: "assistant", content: `answer ${text}` },
    ],
  });
  const records: RunRecord[] = [
    // t1: epoch 1 rescued, epoch 2 both pass. t2: epoch 1 harmed, epoch 2 both fail. t3: enabled only.
    withTranscript(rec("t1", "enabled", true, ["money"], 0), "1e0"),
    withTranscript(rec("t1", "disabled", false, [], 0), "1d0"),
    withTranscript(rec("t1", "enabled", true, ["money"], 1), "1e1"),
    withTranscript(rec("t1", "disabled", true, [], 1), "1d1"),
    withTranscript(rec("t2", "enabled", false, ["money"], 0, "expected 5, got 6"), "2e0"),
    withTranscript(rec("t2", "disabled", true, [], 0), "2d0"),
    withTranscript(rec("t2", "enabled", false, ["money"], 1), "2e1"),
    withTranscript({ ...rec("t2", "disabled", false, [], 1), error: "turn limit reached" }, "2d1"),
    withTranscript(rec("t3", "enabled", true, ["money"], 0), "3e0"),
    withTranscript(rec("t3", "enabled", false, ["money"], 1), "3e1"),
  ];
  return { h, records };
}

describe("report --format inspect: Inspect eval logs", () => {
  const { h, records } = fixture();
  const report = buildReport([{ header: h, records }]);
  const { files, notes } = inspectExport([{ header: h, records }], report);
  const logs = new Map(files.map((f) => [parse(f.text).eval.task_args.condition, { path: f.path, log: parse(f.text) }]));
  const enabled = logs.get("enabled")!;
  const disabled = logs.get("disabled")!;

  it("inspect export: two logs (enabled, disabled) that validate against Inspect's published log schema", () => {
    assert.equal(files.length, 2);
    const validate = inspectValidator();
    for (const f of files) assert.deepEqual(validate(JSON.parse(f.text)), [], f.path);
    // The validator is not vacuous: a log without its scores' required fields, or a sample without an epoch, fails.
    const broken = parse(files[0]!.text) as unknown as { samples: Array<Record<string, unknown>>; results: { scores: Array<Record<string, unknown>> } };
    delete broken.samples[0]!.epoch;
    broken.results.scores[0]!.metrics = { accuracy: { value: "high" } };
    assert.ok(validate(broken).length >= 2, "a broken log must not validate");
  });

  it("inspect export: the conditions are two tasks of one eval set (same task, task argument condition, one eval set and run id)", () => {
    assert.equal(enabled.log.eval.task, "synthetic");
    assert.equal(disabled.log.eval.task, "synthetic");
    assert.equal(enabled.log.eval.eval_set_id, disabled.log.eval.eval_set_id);
    assert.equal(enabled.log.eval.run_id, disabled.log.eval.run_id);
    assert.notEqual(enabled.log.eval.eval_id, disabled.log.eval.eval_id);
    assert.notEqual(enabled.log.eval.task_id, disabled.log.eval.task_id);
    assert.equal(enabled.log.eval.metadata.skill_following.other_condition_log, disabled.path);
    assert.equal(disabled.log.eval.metadata.skill_following.other_condition_log, enabled.path);
    // Names Inspect's viewer lists (a .json log must start with an ISO timestamp) and parses the task from.
    for (const { path: p } of [enabled, disabled]) assert.match(p, INSPECT_LOG_FILE);
    assert.equal(inspectTaskOfFileName(enabled.path), "synthetic-enabled");
    assert.equal(inspectTaskOfFileName(disabled.path), "synthetic-disabled");
    // Deterministic: the same runs export to the same files.
    assert.deepEqual(inspectExport([{ header: h, records }], report).files, files);
  });

  it("inspect export: every run is a sample (task × epoch), none lost; our sample k is epoch k + 1; scores C/I with the grader's reason", () => {
    const key = (s: Sample) => `${s.id}#${s.epoch}`;
    assert.deepEqual(enabled.log.samples.map(key), ["t1#1", "t1#2", "t2#1", "t2#2", "t3#1", "t3#2"]);
    assert.deepEqual(disabled.log.samples.map(key), ["t1#1", "t1#2", "t2#1", "t2#2"]);
    assert.equal(enabled.log.samples.length + disabled.log.samples.length, records.length);
    for (const log of [enabled.log, disabled.log]) {
      for (const s of log.samples) {
        const r = records.find((x) => x.taskId === s.id && x.sample === s.epoch - 1 && x.condition === log.eval.task_args.condition)!;
        assert.equal(s.scores[INSPECT_SCORER]!.value, r.verdict.pass ? "C" : "I");
        assert.equal(s.scores[INSPECT_SCORER]!.explanation, r.verdict.reason);
        assert.equal(s.output.completion, r.answer);
        assert.equal(s.input, `prompt of ${s.id}`);
        assert.equal(s.metadata.condition, log.eval.task_args.condition);
      }
    }
    const t2d1 = disabled.log.samples.find((s) => s.id === "t2" && s.epoch === 2)!;
    assert.equal(t2d1.output.error, "turn limit reached");
    assert.equal(t2d1.scores[INSPECT_SCORER]!.value, "I", "a run that ended in an error is scored as the failure it is, as in our report");
    assert.deepEqual(enabled.log.samples.filter((s) => s.epoch === 1).map((s) => s.metadata.pair), ["rescued", "harmed", null]);
    assert.deepEqual(enabled.log.eval.dataset.sample_ids, ["t1", "t2", "t3"]);
    assert.equal(enabled.log.eval.config.epochs, 2);
  });

  it("inspect export: the transcript becomes messages, tool calls with parsed arguments (a parse error kept, not dropped)", () => {
    const s = enabled.log.samples[0]!;
    assert.deepEqual(s.messages.map((m) => m.role), ["system", "user", "assistant", "tool", "tool", "assistant"]);
    const calls = s.messages[2]!.tool_calls!;
    assert.deepEqual(calls[0]!.arguments, { name: "money" });
    assert.equal(calls[0]!.parse_error, null);
    assert.deepEqual(calls[1]!.arguments, {});
    assert.match(calls[1]!.parse_error!, /\{not json/);
    assert.equal(s.messages[3]!.function, "load_skill");
    assert.deepEqual(s.metadata.retrieved, ["money"]);
  });

  it("inspect export: accuracy and stderr over epoch means, per-epoch accuracy, reductions and model usage", () => {
    // enabled: t1 (1,1) → 1, t2 (0,0) → 0, t3 (1,0) → 0.5; disabled: t1 (0,1) → 0.5, t2 (1,0) → 0.5.
    const score = (l: Log) => l.results.scores[0]!;
    assert.equal(score(enabled.log).reducer, "mean");
    assert.equal(score(enabled.log).metrics.accuracy!.value, 0.5);
    assert.ok(Math.abs(score(enabled.log).metrics.stderr!.value - Math.sqrt(0.25 / 3)) < 1e-12);
    assert.equal(score(disabled.log).metrics.accuracy!.value, 0.5);
    assert.equal(score(disabled.log).metrics.stderr!.value, 0);
    assert.deepEqual(enabled.log.reductions[0]!.samples.map((x) => [x.sample_id, x.value]), [["t1", 1], ["t2", 0], ["t3", 0.5]]);
    assert.deepEqual(enabled.log.results.metadata.per_epoch, [{ epoch: 1, samples: 3, accuracy: 2 / 3 }, { epoch: 2, samples: 3, accuracy: 1 / 3 }]);
    assert.deepEqual(disabled.log.results.metadata.per_epoch, [{ epoch: 1, samples: 2, accuracy: 0.5 }, { epoch: 2, samples: 2, accuracy: 0.5 }]);
    const sum = (c: string, f: (r: RunRecord) => number) => records.filter((r) => r.condition === c).reduce((s, r) => s + f(r), 0);
    assert.deepEqual(enabled.log.stats.model_usage["model-one"], {
      input_tokens: sum("enabled", (r) => r.tokens.prompt), output_tokens: sum("enabled", (r) => r.tokens.completion), total_tokens: sum("enabled", (r) => r.tokens.prompt + r.tokens.completion),
      input_tokens_cache_write: null, input_tokens_cache_read: null, reasoning_tokens: null, total_cost: null,
    });
    assert.equal(enabled.log.samples[0]!.model_usage["model-one"]!.input_tokens, records[0]!.tokens.prompt);
    // The disabled side lacks t3's runs: 4 of 6 planned samples, said in the log's status and in a note.
    assert.equal(enabled.log.status, "success");
    assert.equal(disabled.log.status, "cancelled");
    assert.equal(disabled.log.results.completed_samples, 4);
    assert.equal(disabled.log.results.total_samples, 6);
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /4 of 6 planned samples/);
  });
});

describe("report --format inspect through the CLI (a real run against the scripted model)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-inspect-"));
  let runFile = "";
  before(async () => {
    runFile = (await runAblationScenario(dir)).runFile;
  });

  it("node dist/cli.js report <run> --format inspect --out <dir>: valid logs whose accuracies and paired counts are the report's", async () => {
    const out = path.join(dir, "logs");
    const r = await spawnCollect(process.execPath, [path.join(repoRoot, "dist", "cli.js"), "report", runFile, "--format", "inspect", "--out", out], { cwd: dir, env: process.env });
    assert.equal(r.code, 0, r.stderr);
    const names = readdirSync(out).sort();
    assert.equal(names.length, 2);
    const json = await spawnCollect(process.execPath, [path.join(repoRoot, "dist", "cli.js"), "report", runFile, "--format", "json"], { cwd: dir, env: process.env });
    const e = (JSON.parse(json.stdout) as { evaluations: Array<{ overall: { accEnabled: number; accDisabled: number; n: number }; retrieved: { rescued: number; harmed: number; n: number } }> }).evaluations[0]!;
    const validate = inspectValidator();
    for (const name of names) {
      assert.match(name, INSPECT_LOG_FILE);
      const log = parse(readFileSync(path.join(out, name), "utf8"));
      assert.deepEqual(validate(log), [], name);
      const enabledLog = log.eval.task_args.condition === "enabled";
      assert.equal(log.samples.length, 20, "every task of the scenario is a sample");
      assert.equal(log.results.scores[0]!.metrics.accuracy!.value, enabledLog ? e.overall.accEnabled : e.overall.accDisabled);
      assert.deepEqual(log.eval.metadata.skill_following.paired!.rae, { ...log.eval.metadata.skill_following.paired!.rae, rescued: e.retrieved.rescued, harmed: e.retrieved.harmed, n: e.retrieved.n });
      const loads = log.samples.filter((s) => s.messages.some((m) => (m.tool_calls ?? []).length > 0)).length;
      assert.equal(loads, enabledLog ? 19 : 0, "the enabled runs' skill loads are in their messages; the disabled runs have no tools");
    }
  });

  it("report --format inspect without a folder is bad input (exit 2) that says to give --out <dir>", async () => {
    const r = await spawnCollect(process.execPath, [path.join(repoRoot, "dist", "cli.js"), "report", runFile, "--format", "inspect"], { cwd: dir, env: process.env });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--format inspect writes a folder: give it with --out <dir>/);
  });
});
