/**
 * From merged run records to the paired outcomes every part of an evaluation is built from: the 2×2 tables, the
 * per-skill counts, the lift population, the repeated-sample rows and the task rows. One pass, in task order.
 */
import type { ControlSample, Design, SkillRef } from "../../shared/vocabulary/index.js";
import { inControlSample } from "../runs/plan.js";
import type { RunHeader, RunSummary } from "../runs/types.js";
import { addOutcome, emptyCounts, type PairedCounts } from "../stats/index.js";
import type { TaskRow } from "./schema.js";
import type { LiftUnit } from "./tables.js";

export const skillKey = (s: SkillRef): string => `${s.name}\u0000${s.contentHash}`;

interface TaskData {
  id: string;
  enabled: Map<number, RunSummary>;
  disabled: Map<number, RunSummary>;
}

export interface RepeatedRow {
  sPlus: number;
  kPlus: number;
  sMinus: number;
  kMinus: number;
  retrieved: boolean;
}

export interface PairedTask {
  id: string;
  yPlus: boolean;
  yMinus: boolean;
  retrieved: boolean;
  kind: TaskRow["outcome"];
  /** Skills returned to the enabled runs. */
  refs: SkillRef[];
}

export interface SkillCounts {
  ref: SkillRef;
  counts: PairedCounts;
  rescued: string[];
  harmed: string[];
}

export interface Pairs {
  /** Every planned task, in run order. */
  taskOrder: string[];
  /** The merged records (later runs and later lines win per key). */
  records: RunSummary[];
  overall: PairedCounts;
  retrieved: PairedCounts;
  notRetrieved: PairedCounts;
  /** Enabled runs only (sample 0), by retrieval: the lift in the RAE-only design. */
  enabledOnly: { retrieved: { n: number; pass: number }; notRetrieved: { n: number; pass: number } };
  /** Population of the lift (and per-skill lift): complete pairs in the paired design, enabled runs in RAE-only. */
  liftPopulation: LiftUnit[];
  skillCounts: Map<string, SkillCounts>;
  incompleteIds: string[];
  complete: number;
  taskRows: TaskRow[];
  repeatedRows: RepeatedRow[];
  pairedInOrder: PairedTask[];
}

function mergeTasks(records: Iterable<RunSummary>, headers: readonly RunHeader[]): { taskOrder: string[]; tasks: Map<string, TaskData> } {
  const taskOrder: string[] = [];
  const tasks = new Map<string, TaskData>();
  const touch = (id: string): TaskData => {
    let t = tasks.get(id);
    if (!t) {
      tasks.set(id, (t = { id, enabled: new Map(), disabled: new Map() }));
      taskOrder.push(id);
    }
    return t;
  };
  for (const h of headers) for (const id of h.taskIds) touch(id);
  for (const r of records) (r.condition === "enabled" ? touch(r.taskId).enabled : touch(r.taskId).disabled).set(r.sample, r);
  return { taskOrder, tasks };
}

/** Skills returned to a task's enabled runs, deduplicated, in sample order. */
function retrievedOf(t: TaskData): SkillRef[] {
  const seen = new Map<string, SkillRef>();
  for (const r of [...t.enabled.values()].sort((x, y) => x.sample - y.sample)) {
    for (const s of r.retrieved) if (!seen.has(skillKey(s))) seen.set(skillKey(s), { name: s.name, contentHash: s.contentHash });
  }
  return [...seen.values()];
}

export function collectPairs(group: ReadonlyArray<{ header: RunHeader; records: readonly RunSummary[] }>, design: Design, control: ControlSample | undefined, samples: number): Pairs {
  const byKey = new Map<string, RunSummary>();
  for (const run of group) for (const r of run.records) byKey.set(r.key, r);
  const merged = mergeTasks(byKey.values(), group.map((r) => r.header));
  // Trigger cases of skill evals have enabled runs only, by design: they feed the trigger analysis, never a pair.
  const enabledOnly = new Set(group.flatMap((r) => (r.header.evalTasks ?? []).filter((t) => t.triggerOnly).map((t) => t.id)));
  const taskOrder = merged.taskOrder.filter((id) => !enabledOnly.has(id));
  const { tasks } = merged;
  const out: Pairs = {
    taskOrder,
    records: [...byKey.values()],
    overall: emptyCounts(),
    retrieved: emptyCounts(),
    notRetrieved: emptyCounts(),
    enabledOnly: { retrieved: { n: 0, pass: 0 }, notRetrieved: { n: 0, pass: 0 } },
    liftPopulation: [],
    skillCounts: new Map(),
    incompleteIds: [],
    complete: 0,
    taskRows: [],
    repeatedRows: [],
    pairedInOrder: [],
  };
  for (const id of taskOrder) addTask(out, tasks.get(id)!, design, control, samples);
  return out;
}

function addTask(out: Pairs, t: TaskData, design: Design, control: ControlSample | undefined, samples: number): void {
  const { id } = t;
  const e0 = t.enabled.get(0);
  const d0 = t.disabled.get(0);
  const refs = retrievedOf(t);
  const isRetrieved = refs.length > 0;
  if (e0) {
    const bucket = isRetrieved ? out.enabledOnly.retrieved : out.enabledOnly.notRetrieved;
    bucket.n++;
    if (e0.verdict.pass) bucket.pass++;
    if (design === "rae-only") out.liftPopulation.push({ pass: e0.verdict.pass, keys: new Set(refs.map(skillKey)) });
  }
  const sampled = inControlSample(id, control);
  const needsDisabled = design === "paired" || isRetrieved || sampled;
  if (!e0 || (needsDisabled && !d0)) {
    out.incompleteIds.push(id);
    return;
  }
  out.complete++;
  if (!d0) return; // RAE-only, not retrieved: no disabled run by design.
  const outcome = { yPlus: e0.verdict.pass, yMinus: d0.verdict.pass };
  if (design === "paired") out.liftPopulation.push({ pass: e0.verdict.pass, keys: new Set(refs.map(skillKey)) });
  const kind: TaskRow["outcome"] = outcome.yPlus === outcome.yMinus ? (outcome.yPlus ? "both-pass" : "both-fail") : outcome.yPlus ? "rescued" : "harmed";
  out.pairedInOrder.push({ id, ...outcome, retrieved: isRetrieved, kind, refs });
  if (design === "paired") {
    addOutcome(out.overall, outcome);
    addOutcome(isRetrieved ? out.retrieved : out.notRetrieved, outcome);
  } else if (isRetrieved) addOutcome(out.retrieved, outcome);
  else if (sampled) addOutcome(out.notRetrieved, outcome);
  if (isRetrieved) {
    for (const ref of refs) {
      let s = out.skillCounts.get(skillKey(ref));
      if (!s) out.skillCounts.set(skillKey(ref), (s = { ref, counts: emptyCounts(), rescued: [], harmed: [] }));
      addOutcome(s.counts, outcome);
      if (kind === "rescued") s.rescued.push(id);
      if (kind === "harmed") s.harmed.push(id);
    }
  }
  const sPlus = [...t.enabled.values()].filter((r) => r.verdict.pass).length;
  const sMinus = [...t.disabled.values()].filter((r) => r.verdict.pass).length;
  out.repeatedRows.push({ sPlus, kPlus: t.enabled.size, sMinus, kMinus: t.disabled.size, retrieved: isRetrieved });
  if (kind === "rescued" || kind === "harmed") {
    out.taskRows.push({
      taskId: id,
      outcome: kind,
      yEnabled: outcome.yPlus,
      yDisabled: outcome.yMinus,
      retrieved: refs,
      enabledReason: e0.verdict.reason,
      disabledReason: d0.verdict.reason,
      ...(samples > 1 ? { passRateEnabled: sPlus / t.enabled.size, passRateDisabled: sMinus / t.disabled.size } : {}),
    });
  }
}
