import { collectPairs } from "../core/report/pairs.js";
import type { RunRecord } from "../core/runs/types.js";
import type { LoadedRun } from "./report-view-model.js";

/**
 * What the Testing view shows for one skill's tasks in one run (issue 24): each task's pair as rescued, harmed,
 * both-pass or both-fail, with the two answers and the grader's reasons. No `vscode` import: unit-testable under
 * plain node; testing.ts turns these into TestItem states and TestMessages.
 *
 * The outcome of a pair is the core's (src/core/report/pairs.ts, sample 0), so the Testing view, the report and the
 * CLI agree. A task counts for a skill where the skill was returned to the enabled run, as in the skill's own table.
 */
export type TaskOutcomeKind = "rescued" | "harmed" | "both-pass" | "both-fail" | "not-retrieved" | "incomplete";

export interface TaskOutcome {
  taskId: string;
  kind: TaskOutcomeKind;
  enabled?: RunRecord;
  disabled?: RunRecord;
}

/**
 * The test state of each outcome:
 * - harmed → failed: the task passes without the skill and fails with it, the skill's fault;
 * - rescued, both-pass → passed: with the skill the task passes;
 * - both-fail → skipped: the task fails with and without the skill, so the pair says nothing about the skill
 *   (McNemar and RAE use only the discordant pairs). Red would blame the skill for a task it did not break, green
 *   would hide that the task fails; the output says which it is.
 * - not-retrieved → skipped: the agent never loaded the skill there, so the task is not one of the skill's;
 * - incomplete → errored: a run of the pair is missing (cancelled, or a model error); evaluating again resumes.
 */
export const TEST_STATE: Record<TaskOutcomeKind, "passed" | "failed" | "skipped" | "errored"> = {
  rescued: "passed",
  "both-pass": "passed",
  harmed: "failed",
  "both-fail": "skipped",
  "not-retrieved": "skipped",
  incomplete: "errored",
};

/** Each planned task of `run` as `skillName` saw it (trigger-only skill-eval cases, which have no pair, left out). */
export function skillTaskOutcomes(run: Pick<LoadedRun, "header" | "records">, skillName: string): TaskOutcome[] {
  const h = run.header;
  const pairs = collectPairs([run], h.design, h.design === "rae-only" ? h.control : undefined, h.params.samples);
  const byId = new Map(pairs.pairedInOrder.map((p) => [p.id, p]));
  const incomplete = new Set(pairs.incompleteIds);
  const record = (taskId: string, condition: "enabled" | "disabled") => run.records.find((r) => r.taskId === taskId && r.condition === condition && r.sample === 0);
  return pairs.taskOrder.map((taskId) => {
    const enabled = record(taskId, "enabled");
    const disabled = record(taskId, "disabled");
    const sides = { ...(enabled ? { enabled } : {}), ...(disabled ? { disabled } : {}) };
    const pair = byId.get(taskId);
    if (incomplete.has(taskId) || !pair) {
      // RAE-only: a task without retrieval has no disabled run by design; it is complete but not the skill's.
      const retrievedHere = enabled?.retrieved.some((s) => s.name === skillName) ?? false;
      return { taskId, kind: incomplete.has(taskId) || retrievedHere ? "incomplete" : "not-retrieved", ...sides };
    }
    const retrieved = pair.refs.some((s) => s.name === skillName);
    return { taskId, kind: retrieved ? pair.kind : "not-retrieved", ...sides };
  });
}

/** A one-line description of the outcome, shown beside the task in the Testing view. */
export function outcomeLabel(o: TaskOutcome): string {
  switch (o.kind) {
    case "rescued":
      return "rescued: passes only with the skill";
    case "harmed":
      return "harmed: passes only without the skill";
    case "both-pass":
      return "both pass";
    case "both-fail":
      return "both fail: fails with and without the skill";
    case "not-retrieved":
      return "not retrieved: the agent did not load the skill";
    case "incomplete":
      return "incomplete: a run of the pair is missing";
  }
}

const side = (label: string, r: RunRecord | undefined): string[] => {
  if (!r) return [`${label}: no run recorded`];
  const lines = [`${label}: ${r.verdict.pass ? "PASS" : "FAIL"} (${r.verdict.reason})`];
  if (r.error) lines.push(`  run error: ${r.error}`);
  lines.push(`  answer: ${r.answer === null ? "(no answer extracted)" : r.answer}`);
  return lines;
};

/**
 * The failure message of a task: both sides' verdicts and the grader's reasons, and the two final answers. `expected`
 * is the answer of the side that passed and `actual` the one that failed (harmed: without vs with the skill), so
 * VS Code's diff shows what the skill changed; both-fail has no passing side, so it has no diff.
 */
export function outcomeMessage(o: TaskOutcome, skillName: string): { message: string; expected?: string; actual?: string } {
  const lines = [`${o.taskId}: ${outcomeLabel(o)} (${skillName})`, ...side("With skills", o.enabled), ...side("Without skills", o.disabled)];
  if (o.kind === "incomplete") lines.push("Evaluating again resumes the missing runs.");
  const message = lines.join("\n");
  const answer = (r: RunRecord | undefined) => r?.answer ?? "(no answer extracted)";
  if (o.kind === "harmed") return { message, expected: answer(o.disabled), actual: answer(o.enabled) };
  if (o.kind === "rescued") return { message, expected: answer(o.enabled), actual: answer(o.disabled) };
  return { message };
}

/** Model calls a set of runs made (`calls`), how many the response cache answered and how many went to the model. */
export function callsOf(records: readonly RunRecord[]): { calls: number; cached: number; sent: number } {
  // A record's modelCalls are the requests sent to the model; its cachedCalls those the cache answered instead.
  const sent = records.reduce((n, r) => n + r.modelCalls, 0);
  const cached = records.reduce((n, r) => n + r.cachedCalls, 0);
  return { calls: sent + cached, cached, sent };
}
