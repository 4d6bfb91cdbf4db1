/**
 * `report --format inspect`: the runs as Inspect (inspect_ai, UK AISI) eval logs, log format version 2 (JSON), so
 * they open in Inspect's log viewer (`inspect view --log-dir <dir>`) and its VS Code extension.
 *
 * One log per evaluation (model × task set × mode) and condition. The enabled and disabled conditions are two tasks
 * of one eval set: the same task (the task set) with the task argument `condition`, sharing `eval_set_id` and
 * `run_id`, as an eval set that runs one task with two argument values writes them. Why not one log with a condition
 * field: Inspect keys a log's samples by (id, epoch) and computes every metric over all of a log's samples, so one log
 * would need made-up sample ids and its accuracy would mix both conditions; with two logs each log's accuracy is that
 * condition's accuracy, sample ids are the task ids in both logs (Inspect's tools pair them by id), and the viewer
 * lists the two logs side by side with `condition=...` in their task arguments.
 *
 * Per sample: our sample k is Inspect's epoch k + 1; the score (scorer `verdict`) is "C" or "I" (the values Inspect's
 * pass/fail scores use, which its viewer shows as correct/incorrect) with the grader's reason as explanation; the
 * messages are the stored transcript; the usage is the run's tokens. Per log: accuracy and stderr over the samples
 * after the epochs are reduced by their mean (Inspect's `accuracy()` and `stderr()`), the reduced scores
 * (`reductions`), accuracy per epoch, and the paired result of the evaluation (RAE with interval and p, the skills'
 * badges, rescued and harmed tasks) in `eval.metadata.skill_following`, with the other condition's log named there.
 *
 * File names follow Inspect's `{created}_{task}_{id}.json`: the viewer lists a `.json` log only when its name starts
 * with an ISO timestamp. Every field the log schema requires is written (null where we have no value). Ids are
 * derived from the run ids (sha256), so exporting the same runs twice writes the same files. Pure: returns the files.
 */
import { createHash } from "node:crypto";
import type { Condition } from "../../shared/vocabulary/index.js";
import type { RunHeader, RunRecord } from "../runs/types.js";
import type { Evaluation, Report, Table } from "./schema.js";
import type { ExportFile } from "./skill-creator.js";

interface RunInput {
  header: RunHeader;
  records: RunRecord[];
}

export interface InspectExport {
  files: ExportFile[];
  notes: string[];
}

/** The scorer's name: what the viewer shows as the score column and the metrics' group. */
export const INSPECT_SCORER = "verdict";

const id = (...parts: string[]) => createHash("sha256").update(parts.join("\u0000")).digest("base64url").replace(/[-_]/g, "").slice(0, 22);

/** Every GenerateConfig field of the log schema, null unless the run set it. */
function generateConfig(h: RunHeader): Record<string, unknown> {
  const keys = [
    "max_retries", "timeout", "attempt_timeout", "max_connections", "system_message", "max_tokens", "top_p", "temperature", "stop_seqs", "best_of",
    "frequency_penalty", "presence_penalty", "logit_bias", "seed", "top_k", "num_choices", "logprobs", "top_logprobs", "parallel_tool_calls",
    "internal_tools", "max_tool_output", "cache_prompt", "verbosity", "effort", "reasoning_effort", "reasoning_tokens", "reasoning_summary",
    "reasoning_history", "response_schema", "extra_headers", "extra_body", "modalities", "cache", "batch",
  ];
  const c: Record<string, unknown> = Object.fromEntries(keys.map((k) => [k, null]));
  if (h.params.temperature !== undefined) c.temperature = h.params.temperature;
  if (h.params.seed !== undefined) c.seed = h.params.seed;
  if (h.params.maxTokens !== undefined) c.max_tokens = h.params.maxTokens;
  if (h.pricing === "batch") c.batch = true;
  return c;
}

function evalConfig(epochs: number): Record<string, unknown> {
  const keys = [
    "limit", "sample_id", "sample_shuffle", "epochs", "epochs_reducer", "approval", "fail_on_error", "continue_on_fail", "retry_on_error", "message_limit",
    "token_limit", "time_limit", "working_limit", "cost_limit", "max_samples", "max_dataset_memory", "max_tasks", "max_subprocesses", "max_sandboxes",
    "sandbox_cleanup", "log_samples", "log_realtime", "log_images", "log_model_api", "log_buffer", "log_shared", "score_display",
  ];
  return { ...Object.fromEntries(keys.map((k) => [k, null])), epochs, epochs_reducer: ["mean"], log_samples: true };
}

interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_cache_write: null;
  input_tokens_cache_read: null;
  reasoning_tokens: null;
  total_cost: null;
}

const usage = (input: number, output: number): Usage => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
  input_tokens_cache_write: null,
  input_tokens_cache_read: null,
  reasoning_tokens: null,
  total_cost: null,
});

/** An ISO time with an explicit offset, as Inspect writes `created` (`2026-11-29T12:00:00+00:00`). */
function isoTime(t: string): string {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? t : d.toISOString().replace(/\.\d{3}Z$/, "+00:00");
}

/** Inspect's clean_filename_component: no `_`, `/`, `:` or `+` in a part of a log's file name. */
const fileComponent = (s: string) => s.replace(/[_/:+]/g, "-").replace(/[^A-Za-z0-9.@=-]+/g, "-");

function parseArguments(text: string): { arguments: Record<string, unknown>; parse_error: string | null } {
  try {
    const v: unknown = JSON.parse(text);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return { arguments: v as Record<string, unknown>, parse_error: null };
    return { arguments: {}, parse_error: `arguments are not a JSON object: ${text}` };
  } catch (e) {
    return { arguments: {}, parse_error: `${(e as Error).message}: ${text}` };
  }
}

/** The stored transcript as Inspect chat messages (every field the schema requires). */
function messages(r: RunRecord, model: string): Array<Record<string, unknown>> {
  const names = new Map<string, string>();
  return r.transcript.map((m, i) => {
    const base = { id: `m${i}`, content: m.content ?? "", source: m.role === "assistant" ? "generate" : "input", metadata: null };
    if (m.role === "system") return { ...base, role: "system" };
    if (m.role === "user") return { ...base, role: "user", tool_call_id: null };
    if (m.role === "tool") return { ...base, role: "tool", tool_call_id: m.toolCallId ?? null, function: (m.toolCallId && names.get(m.toolCallId)) ?? null, error: null };
    const toolCalls = (m.toolCalls ?? []).map((c) => {
      names.set(c.id, c.name);
      return { id: c.id, function: c.name, ...parseArguments(c.arguments), view: null, type: "function" };
    });
    return { ...base, role: "assistant", tool_calls: toolCalls.length > 0 ? toolCalls : null, model };
  });
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Inspect's stderr(): the sample standard deviation (n − 1) over √n; undefined below two values. */
function stderr(xs: readonly number[]): number | undefined {
  if (xs.length < 2) return undefined;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1) / xs.length);
}

type Outcome = "rescued" | "harmed" | "both-pass" | "both-fail";

function outcome(enabled: RunRecord | undefined, disabled: RunRecord | undefined): Outcome | null {
  if (!enabled || !disabled) return null;
  const e = enabled.verdict.pass;
  const d = disabled.verdict.pass;
  return e && d ? "both-pass" : e ? "rescued" : d ? "harmed" : "both-fail";
}

function tableSummary(t: Table | null) {
  if (!t) return null;
  return { n: t.n, rescued: t.rescued, harmed: t.harmed, both_pass: t.bothPass, both_fail: t.bothFail, effect: t.effect, ci: t.ci, p_mid: t.pMid, p_exact: t.pExact, acc_enabled: t.accEnabled, acc_disabled: t.accDisabled };
}

function pairedSummary(e: Evaluation | undefined) {
  if (!e) return null;
  return {
    design: e.design,
    alpha: e.alpha,
    decision_p: e.decisionP,
    rae: tableSummary(e.retrieved),
    overall: tableSummary(e.overall),
    not_retrieved: tableSummary(e.notRetrieved),
    metrics: e.metrics,
    tasks: e.tasks,
    skills: e.skills.map((s) => ({ name: s.name, content_hash: s.contentHash, badge: s.badge, p_holm: s.pHolm, ...tableSummary(s.table), rescued_tasks: s.rescuedTasks, harmed_tasks: s.harmedTasks })),
  };
}

export function inspectExport(runs: readonly RunInput[], report: Report): InspectExport {
  const groups = new Map<string, RunInput[]>();
  for (const run of runs) {
    const h = run.header;
    const key = `${h.model.id}\u0000${h.taskSet.hash}\u0000${h.mode}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(run);
  }
  const evalSetId = id("eval-set", ...runs.map((r) => r.header.runId));
  const files: ExportFile[] = [];
  const notes: string[] = [];
  for (const group of groups.values()) {
    const evaluation = report.evaluations.find((e) => e.runIds.includes(group[0]!.header.runId));
    const built = exportGroup(group, evaluation, evalSetId);
    files.push(...built.files);
    notes.push(...built.notes);
  }
  return { files, notes };
}

/** One run as an Inspect sample (EvalSample: every field the schema requires). */
function sampleOf(r: RunRecord, condition: Condition, pair: Outcome | null, model: string, runIds: readonly string[]) {
  const msgs = messages(r, model);
  const input = r.transcript.find((m) => m.role === "user")?.content ?? "";
  const lastAssistant = [...msgs].reverse().find((m) => m.role === "assistant");
  const u = usage(r.tokens.prompt, r.tokens.completion);
  const finished = new Date(r.finishedAt).getTime();
  return {
    id: r.taskId,
    epoch: r.sample + 1,
    input,
    choices: null,
    target: "",
    sandbox: null,
    files: null,
    setup: null,
    messages: msgs,
    output: {
      model,
      choices: lastAssistant ? [{ message: lastAssistant, stop_reason: r.error ? "unknown" : "stop", logprobs: null }] : [],
      completion: r.answer ?? "",
      usage: u,
      time: r.latencyMs / 1000,
      metadata: null,
      error: r.error ?? null,
    },
    scores: {
      [INSPECT_SCORER]: {
        value: r.verdict.pass ? "C" : "I",
        answer: r.answer,
        explanation: r.verdict.reason,
        metadata: { ...(r.verdict.failure ? { failure: r.verdict.failure } : {}), ...(r.verdict.expectations ? { expectations: r.verdict.expectations } : {}) },
        history: [],
      },
    },
    metadata: {
      task_id: r.taskId,
      condition,
      sample: r.sample,
      pair,
      retrieved: r.retrieved.map((s) => s.name),
      ...(r.filesRead ? { files_read: r.filesRead } : {}),
      tool_calls: r.toolCalls.length,
      model_calls: r.modelCalls,
      cached_calls: r.cachedCalls,
      turns: r.turns,
      ...(r.error ? { error: r.error } : {}),
    },
    store: {},
    events: [],
    timelines: null,
    model_usage: { [model]: u },
    role_usage: {},
    started_at: Number.isNaN(finished) ? null : isoTime(new Date(finished - r.latencyMs).toISOString()),
    completed_at: isoTime(r.finishedAt),
    total_time: r.latencyMs / 1000,
    working_time: r.latencyMs / 1000,
    uuid: id("sample", r.key, ...runIds),
    invalidation: null,
    error: null,
    error_retries: null,
    attachments: {},
    events_data: null,
    limit: null,
  };
}

/** Accuracy and stderr over the tasks after their epochs are reduced by the mean; accuracy per epoch. */
function scoresOf(records: readonly RunRecord[], epochs: number) {
  // Epochs reduced by their mean, then accuracy and stderr over the tasks (Inspect's accuracy() and stderr()).
  const perTask = new Map<string, number[]>();
  for (const r of records) {
    let xs = perTask.get(r.taskId);
    if (!xs) perTask.set(r.taskId, (xs = []));
    xs.push(r.verdict.pass ? 1 : 0);
  }
  const reduced = [...perTask].map(([taskId, xs]) => ({ taskId, value: mean(xs) }));
  const values = reduced.map((x) => x.value);
  const metrics: Record<string, unknown> = {};
  if (values.length > 0) metrics.accuracy = { name: "accuracy", value: mean(values), params: {}, metadata: null };
  const se = stderr(values);
  if (se !== undefined) metrics.stderr = { name: "stderr", value: se, params: {}, metadata: null };
  const perEpoch = Array.from({ length: epochs }, (_, k) => {
    const xs = records.filter((r) => r.sample === k).map((r) => (r.verdict.pass ? 1 : 0));
    return { epoch: k + 1, samples: xs.length, accuracy: xs.length > 0 ? mean(xs) : null };
  });
  return { reduced, metrics, perEpoch };
}

function exportGroup(group: readonly RunInput[], evaluation: Evaluation | undefined, evalSetId: string): InspectExport {
  const headers = group.map((r) => r.header);
  const first = headers[0]!;
  const last = headers[headers.length - 1]!;
  const runIds = headers.map((h) => h.runId);
  // Later records with the same key win, as in the report.
  const byKey = new Map<string, RunRecord>();
  for (const run of group) for (const r of run.records) byKey.set(r.key, r);
  const taskIds = [...new Set(headers.flatMap((h) => h.taskIds))];
  const epochs = Math.max(...headers.map((h) => h.params.samples));
  const paired = headers.every((h) => h.design === "paired");
  const conditions: Condition[] = paired ? ["enabled", "disabled"] : ["enabled"];
  if (!paired && [...byKey.values()].some((r) => r.condition === "disabled")) conditions.push("disabled");
  const model = last.model.name;
  const created = isoTime(first.createdAt);
  const runId = id("run", ...runIds);
  const evalIds = new Map(conditions.map((c) => [c, id("eval", c, ...runIds)]));
  const fileOf = (c: Condition) => `${fileComponent(created)}_${fileComponent(`${last.taskSet.name}-${c}`)}_${evalIds.get(c)}.json`;
  const order = new Map(taskIds.map((t, i) => [t, i]));
  const files: ExportFile[] = [];
  const notes: string[] = [];
  for (const condition of conditions) {
    const records = [...byKey.values()]
      .filter((r) => r.condition === condition)
      .sort((a, b) => (order.get(a.taskId) ?? Infinity) - (order.get(b.taskId) ?? Infinity) || a.taskId.localeCompare(b.taskId) || a.sample - b.sample);
    const samples = records.map((r) => {
      const other = byKey.get(`${r.taskId}\u0000${condition === "enabled" ? "disabled" : "enabled"}\u0000${r.sample}`);
      return sampleOf(r, condition, condition === "enabled" ? outcome(r, other) : outcome(other, r), model, runIds);
    });
    const { reduced, metrics, perEpoch } = scoresOf(records, epochs);
    const planned = taskIds.length * epochs;
    const complete = records.length >= planned;
    if (!complete) notes.push(`${fileOf(condition)}: ${records.length} of ${planned} planned samples (task × epoch) are in the run files; the log's status is "cancelled"`);
    const otherCondition = conditions.find((c) => c !== condition);
    const gc = generateConfig(last);
    const solverArgs = { mode: last.mode, design: last.design, max_turns: last.params.maxTurns, prompt_version: last.promptVersion, ...(last.search ? { search: last.search } : {}) };
    const spec = {
      eval_set_id: evalSetId,
      eval_id: evalIds.get(condition)!,
      run_id: runId,
      created,
      task: last.taskSet.name,
      task_id: id("task", last.taskSet.hash, condition),
      task_version: 0,
      task_file: last.taskSet.file,
      task_display_name: `${last.taskSet.name} (skills ${condition})`,
      task_registry_name: null,
      task_attribs: {},
      task_args: { condition },
      task_args_passed: { condition },
      solver: `skill_following/${condition}`,
      solver_args: solverArgs,
      solver_args_passed: solverArgs,
      tags: null,
      dataset: { name: last.taskSet.name, location: last.taskSet.file, samples: taskIds.length, sample_ids: taskIds, shuffled: last.shuffleSeed !== undefined },
      sandbox: null,
      model,
      model_generate_config: gc,
      model_base_url: last.model.baseUrl ?? null,
      model_args: {},
      model_roles: last.judge ? { grader: { model: last.judge.model, config: generateConfig(last), base_url: null, args: {} } } : null,
      config: evalConfig(epochs),
      revision: null,
      packages: { "skill-following": last.toolVersion },
      metadata: {
        skill_following: {
          condition,
          other_condition_log: otherCondition ? fileOf(otherCondition) : null,
          run_ids: runIds,
          model_id: last.model.id,
          task_set: last.taskSet,
          skill_library_hash: last.skillLibraryHash,
          skills: condition === "enabled" ? last.skills.map((s) => ({ name: s.name, content_hash: s.contentHash, file: s.file })) : [],
          sandbox: last.sandbox,
          ...(last.judge ? { judge: last.judge } : {}),
          paired: pairedSummary(evaluation),
        },
      },
      scorers: [{ name: INSPECT_SCORER, options: {}, metrics: [{ name: "accuracy", options: {} }, { name: "stderr", options: {} }], metadata: { task_set_format: last.taskSet.format } }],
      metrics: null,
    };
    const finishedTimes = records.map((r) => r.finishedAt).sort();
    const log = {
      version: 2,
      status: complete ? "success" : "cancelled",
      eval: spec,
      plan: { name: "plan", steps: [{ solver: spec.solver, params: solverArgs, params_passed: solverArgs }], finish: null, config: gc },
      results: {
        total_samples: planned,
        completed_samples: records.length,
        early_stopping: null,
        scores: [{ name: INSPECT_SCORER, scorer: INSPECT_SCORER, reducer: "mean", scored_samples: reduced.length, unscored_samples: 0, params: {}, metrics, metadata: null }],
        metadata: { per_epoch: perEpoch },
      },
      stats: {
        started_at: created,
        completed_at: finishedTimes.length > 0 ? isoTime(finishedTimes[finishedTimes.length - 1]!) : created,
        model_usage: { [model]: usage(records.reduce((s, r) => s + r.tokens.prompt, 0), records.reduce((s, r) => s + r.tokens.completion, 0)) },
        role_usage: {},
      },
      error: null,
      invalidated: false,
      log_updates: null,
      tags: [],
      metadata: {},
      samples,
      reductions: [{ scorer: INSPECT_SCORER, reducer: "mean", samples: reduced.map((x) => ({ value: x.value, answer: null, explanation: null, metadata: null, history: [], sample_id: x.taskId })) }],
      eval_set_info: null,
    };
    files.push({ path: fileOf(condition), text: `${JSON.stringify(log, null, 2)}\n` });
  }
  return { files, notes };
}
