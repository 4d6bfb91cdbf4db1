/**
 * The skill-evals part of an evaluation (issue 12): trigger analysis per skill and the skill × owner matrix, the pair
 * table over each skill's own evals where it was loaded, expectation pass rates, and the judge's reliability when it
 * graded each output more than once. Built from the merged records and the headers' `evalTasks`.
 */
import type { ExpectationResult } from "../../shared/vocabulary/index.js";
import type { EvalTaskInfo, RunHeader, RunSummary as RunRecord } from "../runs/types.js";
import { addOutcome, emptyCounts, fleissKappa, lightKappa, selfAgreement, itemAgreement } from "../stats/index.js";
import type { Pairs, PairedTask } from "./pairs.js";
import type { Evaluation, SkillResult } from "./schema.js";
import type { ExpectationPassRates, JudgeBlock, SkillTrigger, TriggerMatrix } from "./skill-evals-schema.js";
import { toTable } from "./tables.js";

/** Eval task info from every header; a later header's entry for the same task wins. */
export function evalTaskInfo(headers: readonly RunHeader[]): Map<string, EvalTaskInfo> {
  const out = new Map<string, EvalTaskInfo>();
  for (const h of headers) for (const t of h.evalTasks ?? []) out.set(t.id, t);
  return out;
}

const loadedNames = (r: RunRecord): Set<string> => new Set(r.retrieved.map((s) => s.name));

function emptyTrigger(): SkillTrigger {
  return { ownEvals: { n: 0, loaded: 0 }, otherEvals: { n: 0, loaded: 0 }, nearMiss: { n: 0, loaded: 0 } };
}

/** Trigger counts per skill name, over every enabled run (all samples) of a skill-eval task. */
export function triggerCounts(skillNames: readonly string[], records: readonly RunRecord[], info: ReadonlyMap<string, EvalTaskInfo>): Map<string, SkillTrigger> {
  const out = new Map(skillNames.map((n) => [n, emptyTrigger()]));
  for (const r of records) {
    const t = info.get(r.taskId);
    if (!t || r.condition !== "enabled") continue;
    const loaded = loadedNames(r);
    for (const [name, c] of out) {
      const bucket = t.owner !== name ? c.otherEvals : t.shouldTrigger ? c.ownEvals : c.nearMiss;
      bucket.n++;
      if (loaded.has(name)) bucket.loaded++;
    }
  }
  return out;
}

/** Rows: the skills; columns: owners of evals that should trigger, in first-seen task order. */
export function triggerMatrix(skillNames: readonly string[], records: readonly RunRecord[], info: ReadonlyMap<string, EvalTaskInfo>): TriggerMatrix {
  const owners = [...new Set([...info.values()].filter((t) => t.shouldTrigger).map((t) => t.owner))];
  const col = new Map(owners.map((o, j) => [o, j]));
  const loaded = skillNames.map(() => owners.map(() => 0));
  const n = skillNames.map(() => owners.map(() => 0));
  for (const r of records) {
    const t = info.get(r.taskId);
    if (!t || !t.shouldTrigger || r.condition !== "enabled") continue;
    const j = col.get(t.owner)!;
    const names = loadedNames(r);
    skillNames.forEach((s, i) => {
      n[i]![j]!++;
      if (names.has(s)) loaded[i]![j]!++;
    });
  }
  return { skills: [...skillNames], owners, loaded, n };
}

/** Expectations passed over the runs whose task `keep` selects, per condition. */
export function expectationRates(records: readonly RunRecord[], keep: (taskId: string) => boolean): ExpectationPassRates {
  const tally = { enabled: { passed: 0, total: 0 }, disabled: { passed: 0, total: 0 } };
  for (const r of records) {
    if (!keep(r.taskId) || !r.verdict.expectations) continue;
    const t = tally[r.condition];
    t.total += r.verdict.expectations.length;
    t.passed += r.verdict.expectations.filter((e) => e.passed).length;
  }
  const rate = (t: { passed: number; total: number }) => ({ ...t, rate: t.total === 0 ? null : t.passed / t.total });
  return { enabled: rate(tally.enabled), disabled: rate(tally.disabled) };
}

/** The pair table over a skill's own evals (should trigger) on which it was loaded. */
export function ownEvalsTable(name: string, pairs: readonly PairedTask[], info: ReadonlyMap<string, EvalTaskInfo>, alpha: number, exact: boolean): SkillResult["ownEvals"] {
  const counts = emptyCounts();
  const rescuedTasks: string[] = [];
  const harmedTasks: string[] = [];
  for (const p of pairs) {
    const t = info.get(p.id);
    if (!t || t.owner !== name || !t.shouldTrigger || !p.refs.some((s) => s.name === name)) continue;
    addOutcome(counts, { yPlus: p.yPlus, yMinus: p.yMinus });
    if (p.kind === "rescued") rescuedTasks.push(p.id);
    if (p.kind === "harmed") harmedTasks.push(p.id);
  }
  return { ...toTable(counts, alpha, exact), rescuedTasks, harmedTasks };
}

/** A run's pass under repeat r of the judge: every check, and every judged expectation's r-th vote. */
function passUnderRepeat(expectations: readonly ExpectationResult[], r: number): boolean {
  return expectations.every((e) => (e.votes ? e.votes[r] === true : e.passed));
}

/** The judge's reliability over the merged records; null when no header names a judge. */
export function judgeBlock(headers: readonly RunHeader[], pairs: Pairs, info: ReadonlyMap<string, EvalTaskInfo>): JudgeBlock | null {
  const judged = [...headers].reverse().find((h) => h.judge);
  const judge = judged?.judge;
  if (!judged || !judge) return null;
  const rows: boolean[][] = [];
  const byExpectation = new Map<string, { taskId: string; text: string; values: number[] }>();
  for (const r of pairs.records) {
    if (!info.has(r.taskId)) continue;
    (r.verdict.expectations ?? []).forEach((e, i) => {
      if (!e.votes || e.votes.length < 2) return;
      rows.push(e.votes);
      const key = `${r.taskId}\u0000${i}`;
      let slot = byExpectation.get(key);
      if (!slot) byExpectation.set(key, (slot = { taskId: r.taskId, text: e.text, values: [] }));
      slot.values.push(itemAgreement(e.votes)!);
    });
  }
  const unstablePairs = unstable(pairs, judge.repeats);
  const unstableSet = new Set(unstablePairs);
  const raeOf = (ps: readonly PairedTask[]) => (ps.length === 0 ? null : (ps.filter((p) => p.kind === "rescued").length - ps.filter((p) => p.kind === "harmed").length) / ps.length);
  const retrieved = pairs.pairedInOrder.filter((p) => p.retrieved);
  const kept = retrieved.filter((p) => !unstableSet.has(p.id));
  return {
    model: judge.model,
    repeats: judge.repeats,
    agreement: selfAgreement(rows),
    kappa: lightKappa(rows),
    unstablePairs,
    id: judge.id,
    fleissKappa: fleissKappa(rows),
    items: rows.length,
    perExpectation: [...byExpectation.values()]
      .map((x) => ({ taskId: x.taskId, text: x.text, agreement: x.values.reduce((s, v) => s + v, 0) / x.values.length, runs: x.values.length }))
      .sort((a, b) => a.agreement - b.agreement || a.taskId.localeCompare(b.taskId)),
    rae: { all: raeOf(retrieved), withoutUnstable: raeOf(kept), nAll: retrieved.length, nWithoutUnstable: kept.length },
    sameModel: judge.model === judged.model.name,
  };
}

/** Complete pairs (sample 0 of each side) whose outcome is not the same under every repeat of the judge. */
function unstable(pairs: Pairs, repeats: number): string[] {
  if (repeats < 2) return [];
  const sample0 = new Map<string, RunRecord>();
  for (const r of pairs.records) if (r.sample === 0) sample0.set(`${r.taskId}\u0000${r.condition}`, r);
  const out: string[] = [];
  for (const p of pairs.pairedInOrder) {
    const e = sample0.get(`${p.id}\u0000enabled`)?.verdict.expectations;
    const d = sample0.get(`${p.id}\u0000disabled`)?.verdict.expectations;
    if (!e || !d || ![...e, ...d].some((x) => x.votes)) continue;
    const kinds = new Set<string>();
    for (let r = 0; r < repeats; r++) kinds.add(`${passUnderRepeat(e, r)}:${passUnderRepeat(d, r)}`);
    if (kinds.size > 1) out.push(p.id);
  }
  return out;
}

/** Fills the skill-evals fields of an evaluation and its skills (in place); leaves them null without skill evals. */
export function attachSkillEvals(e: Evaluation, headers: readonly RunHeader[], pairs: Pairs, alpha: number, exact: boolean): void {
  const info = evalTaskInfo(headers);
  if (info.size === 0) return;
  const names = [...new Set(e.skills.map((s) => s.name))];
  const counts = triggerCounts(names, pairs.records, info);
  for (const s of e.skills) {
    s.trigger = counts.get(s.name) ?? emptyTrigger();
    s.ownEvals = ownEvalsTable(s.name, pairs.pairedInOrder, info, alpha, exact);
    s.ownExpectations = expectationRates(pairs.records, (id) => info.get(id)?.owner === s.name);
  }
  e.triggerMatrix = triggerMatrix(names, pairs.records, info);
  e.expectations = expectationRates(pairs.records, (id) => info.has(id));
  e.judge = judgeBlock(headers, pairs, info);
}
