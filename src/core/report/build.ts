/**
 * buildReport: run files → the report model. Decisions recorded here (also written into each evaluation's
 * `definitions`, so every rendering states them):
 * - One evaluation per model id × task-set hash × retrieval mode; runs merge, and a later record with the same key
 *   (task, condition, sample) replaces an earlier one.
 * - 2×2 tables pair sample 0 of each condition. With k = 1 that is the only pair; with k > 1 it is still a valid
 *   single-run paired design, while the headline is the task-level paired t over all samples (`repeated`). McNemar
 *   is never run on the k·T run-level pairs (spec §5).
 * - Retrieved = the enabled run (k > 1: any enabled sample) got back at least one skill.
 * - A task missing sample 0 of a side it needs is "incomplete" and left out of every table.
 * - RAE-only design: disabled runs exist only for retrieved tasks, so `overall`, `notRetrieved`, NRAE and the
 *   selection term are null (not estimable), never a table of the paired subset that would pass for OAE. The lift
 *   needs enabled runs only and is still reported; OAE is shown as r·RAE under assumption A0.
 */
import {
  aaNoiseFloor, emptyCounts, addOutcome, paradoxExplanation, raeOnlySavings, repeatedSamples, retrievalMetrics,
  SequentialMonitor, type PairedCounts,
} from "../stats/index.js";
import { inControlSample } from "../runs/plan.js";
import type { RunHeader, RunRecord, SkillRef, StopRecord } from "../runs/types.js";
import { REPORT_VERSION, type Evaluation, type Report, type Repeated, type SkillResult, type TaskRow } from "./schema.js";
import { adjustSkills, perSkillLift, toTable, type LiftUnit } from "./tables.js";

export interface RunInput {
  header: RunHeader;
  records: RunRecord[];
  stops?: StopRecord[];
}

export interface BuildOptions {
  alpha?: number;
  /** Decide with the exact McNemar p instead of mid-p (Holm, badges, --fail-on). */
  exact?: boolean;
}

interface TaskData {
  id: string;
  enabled: Map<number, RunRecord>;
  disabled: Map<number, RunRecord>;
}

const ISOLATION_ORDER = ["none", "worker-fallback", "process-permission"] as const;
const skillKey = (s: SkillRef): string => `${s.name}\u0000${s.contentHash}`;

export function buildReport(runs: readonly RunInput[], options: BuildOptions = {}): Report {
  const alpha = options.alpha ?? 0.05;
  const exact = options.exact ?? false;
  const groups = new Map<string, RunInput[]>();
  for (const run of runs) {
    const h = run.header;
    const key = `${h.model.id}\u0000${h.taskSet.hash}\u0000${h.mode}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(run);
  }
  return { reportVersion: REPORT_VERSION, evaluations: [...groups.values()].map((g) => buildEvaluation(g, alpha, exact)) };
}

function buildEvaluation(group: readonly RunInput[], alpha: number, exact: boolean): Evaluation {
  const headers = group.map((r) => r.header);
  const last = headers[headers.length - 1]!;
  const samples = Math.max(...headers.map((h) => h.params.samples));
  const design = headers.every((h) => h.design === "paired") ? "paired" : "rae-only";
  // RAE-only with a control sample (stats-spec §8): its non-retrieved pairs estimate NRAE and test A0.
  const control = design === "rae-only" ? last.control : undefined;

  // Merge records: later runs (and later lines) win per key.
  const byKey = new Map<string, RunRecord>();
  for (const run of group) for (const r of run.records) byKey.set(r.key, r);
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
  for (const r of byKey.values()) (r.condition === "enabled" ? touch(r.taskId).enabled : touch(r.taskId).disabled).set(r.sample, r);

  const retrievedOf = (t: TaskData): SkillRef[] => {
    const seen = new Map<string, SkillRef>();
    for (const r of [...t.enabled.values()].sort((x, y) => x.sample - y.sample)) for (const s of r.retrieved) if (!seen.has(skillKey(s))) seen.set(skillKey(s), { name: s.name, contentHash: s.contentHash });
    return [...seen.values()];
  };

  const overall = emptyCounts();
  const retrieved = emptyCounts();
  const notRetrieved = emptyCounts();
  const enabledOnly = { retrieved: { n: 0, pass: 0 }, notRetrieved: { n: 0, pass: 0 } };
  // Population of the lift (and per-skill lift): complete pairs in the paired design, enabled runs in RAE-only.
  const liftPopulation: LiftUnit[] = [];
  const skillCounts = new Map<string, { ref: SkillRef; counts: PairedCounts; rescued: string[]; harmed: string[] }>();
  const incompleteIds: string[] = [];
  const taskRows: TaskRow[] = [];
  const repeatedRows: Array<{ sPlus: number; kPlus: number; sMinus: number; kMinus: number; retrieved: boolean }> = [];
  const pairedInOrder: Array<{ id: string; yPlus: boolean; yMinus: boolean; retrieved: boolean; kind: TaskRow["outcome"] }> = [];
  let complete = 0;

  for (const id of taskOrder) {
    const t = tasks.get(id)!;
    const e0 = t.enabled.get(0);
    const d0 = t.disabled.get(0);
    const refs = retrievedOf(t);
    const isRetrieved = refs.length > 0;
    if (e0) {
      const bucket = isRetrieved ? enabledOnly.retrieved : enabledOnly.notRetrieved;
      bucket.n++;
      if (e0.verdict.pass) bucket.pass++;
      if (design === "rae-only") liftPopulation.push({ pass: e0.verdict.pass, keys: new Set(refs.map(skillKey)) });
    }
    const sampled = inControlSample(id, control);
    const needsDisabled = design === "paired" || isRetrieved || sampled;
    if (!e0 || (needsDisabled && !d0)) {
      incompleteIds.push(id);
      continue;
    }
    complete++;
    if (!d0) continue; // RAE-only, not retrieved: no disabled run by design.
    const outcome = { yPlus: e0.verdict.pass, yMinus: d0.verdict.pass };
    if (design === "paired") liftPopulation.push({ pass: e0.verdict.pass, keys: new Set(refs.map(skillKey)) });
    const kind: TaskRow["outcome"] = outcome.yPlus === outcome.yMinus ? (outcome.yPlus ? "both-pass" : "both-fail") : outcome.yPlus ? "rescued" : "harmed";
    pairedInOrder.push({ id, ...outcome, retrieved: isRetrieved, kind });
    if (design === "paired") {
      addOutcome(overall, outcome);
      addOutcome(isRetrieved ? retrieved : notRetrieved, outcome);
    } else if (isRetrieved) addOutcome(retrieved, outcome);
    else if (sampled) addOutcome(notRetrieved, outcome);
    if (isRetrieved) {
      for (const ref of refs) {
        let s = skillCounts.get(skillKey(ref));
        if (!s) skillCounts.set(skillKey(ref), (s = { ref, counts: emptyCounts(), rescued: [], harmed: [] }));
        addOutcome(s.counts, outcome);
        if (kind === "rescued") s.rescued.push(id);
        if (kind === "harmed") s.harmed.push(id);
      }
    }
    const sPlus = [...t.enabled.values()].filter((r) => r.verdict.pass).length;
    const sMinus = [...t.disabled.values()].filter((r) => r.verdict.pass).length;
    repeatedRows.push({ sPlus, kPlus: t.enabled.size, sMinus, kMinus: t.disabled.size, retrieved: isRetrieved });
    if (kind === "rescued" || kind === "harmed") {
      taskRows.push({
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

  // Skills: the library of every header (latest description wins), then any returned skill not in a header.
  const library = new Map<string, { ref: SkillRef; description?: string; file?: string }>();
  for (const h of headers) for (const s of h.skills) library.set(skillKey(s), { ref: { name: s.name, contentHash: s.contentHash }, description: s.description, file: s.file });
  const skillKeys = [...library.keys(), ...[...skillCounts.keys()].filter((k) => !library.has(k))];
  // The latest header's hash per skill name: entries with another hash measure an earlier version of the skill.
  const currentHash = new Map(last.skills.map((s) => [s.name, s.contentHash]));
  const skillTables = skillKeys.map((k) => toTable(skillCounts.get(k)?.counts ?? emptyCounts(), alpha, exact));
  const adjusted = adjustSkills(skillTables, alpha, exact);
  const skillLifts = perSkillLift(liftPopulation, skillKeys);
  const skills: SkillResult[] = skillKeys.map((k, i) => {
    const lib = library.get(k);
    const ref = lib?.ref ?? skillCounts.get(k)!.ref;
    return {
      name: ref.name,
      contentHash: ref.contentHash,
      table: skillTables[i]!,
      pHolm: adjusted[i]!.pHolm,
      rescuedTasks: skillCounts.get(k)?.rescued ?? [],
      harmedTasks: skillCounts.get(k)?.harmed ?? [],
      pBH: adjusted[i]!.pBH,
      badge: adjusted[i]!.badge,
      ...(lib?.description !== undefined ? { description: lib.description } : {}),
      ...(lib?.file !== undefined ? { file: lib.file } : {}),
      inLibrary: lib !== undefined,
      stale: currentHash.has(ref.name) && currentHash.get(ref.name) !== ref.contentHash,
      lift: skillLifts[i]!,
      paradox: skillLifts[i] !== null && skillTables[i]!.effect !== null && skillLifts[i]! * skillTables[i]!.effect! < 0,
    };
  });

  const paired = design === "paired";
  const m = retrievalMetrics(retrieved, paired ? notRetrieved : emptyCounts());
  const notRetrievedTable = paired || control ? toTable(notRetrieved, alpha, exact) : null;
  const enabledLift =
    enabledOnly.retrieved.n > 0 && enabledOnly.notRetrieved.n > 0
      ? (enabledOnly.retrieved.pass * enabledOnly.notRetrieved.n - enabledOnly.notRetrieved.pass * enabledOnly.retrieved.n) /
        (enabledOnly.retrieved.n * enabledOnly.notRetrieved.n)
      : null;
  const lift = paired ? m.lift : enabledLift;
  const enabledTotal = enabledOnly.retrieved.n + enabledOnly.notRetrieved.n;
  const retrievalRate = paired ? m.retrievalRate : enabledTotal === 0 ? null : enabledOnly.retrieved.n / enabledTotal;
  const paradox = lift !== null && m.RAE !== null && lift * m.RAE < 0;
  const metrics = {
    OAE: paired ? m.OAE : null,
    RAE: m.RAE,
    NRAE: paired ? m.NRAE : control ? notRetrievedTable!.effect : null,
    retrievalRate,
    selectionTerm: paired ? m.selectionTerm : null,
    paradox,
    paradoxExplanation: paradox ? paradoxExplanation({ ...m, lift, paradox }) : null,
    oaeUnderA0: !paired && m.RAE !== null && retrievalRate !== null ? retrievalRate * m.RAE : null,
  };

  const repeated = samples > 1 ? repeatedBlock(repeatedRows, paired, alpha) : null;
  const retrievedTable = toTable(retrieved, alpha, exact);
  const noise =
    samples > 1
      ? { floor: repeated?.aaFloor ?? null, floorSource: "probability that two disabled runs of a task disagree, from k ≥ 2 disabled samples" }
      : notRetrievedTable
        ? {
            floor: notRetrievedTable.n === 0 ? null : (notRetrievedTable.rescued + notRetrievedTable.harmed) / notRetrievedTable.n,
            floorSource: paired
              ? "discordance on non-retrieved tasks, assuming A0 (an enabled run that retrieves nothing behaves like a disabled run)"
              : "discordance on the control sample's non-retrieved tasks, assuming A0 (an enabled run that retrieves nothing behaves like a disabled run)",
          }
        : { floor: null, floorSource: "not estimable in the RAE-only design with one sample: no disabled runs on non-retrieved tasks" };

  const allRecords = [...byKey.values()];
  const n = taskOrder.length;
  const fullDesignRuns = n * 2 * samples;
  const stops = group.flatMap((r) => r.stops ?? []);
  const modeWord = last.mode === "catalog" ? "a successful load_skill call" : "a search that returned at least one skill";

  return {
    model: last.model.name,
    taskSet: last.taskSet.name,
    mode: last.mode,
    samples,
    overall: paired ? toTable(overall, alpha, exact) : null,
    retrieved: retrievedTable,
    notRetrieved: notRetrievedTable,
    lift,
    skills,
    modelId: last.model.id,
    taskSetHash: last.taskSet.hash,
    taskSetFile: last.taskSet.file,
    design,
    alpha,
    decisionP: exact ? "exact" : "mid-p",
    runIds: headers.map((h) => h.runId),
    createdAt: last.createdAt,
    toolVersion: last.toolVersion,
    promptVersion: last.promptVersion,
    sandbox: weakestSandbox(headers),
    tasks: { planned: n, complete, incomplete: incompleteIds.length, incompleteIds },
    metrics,
    definitions: {
      tables:
        (samples > 1
          ? `Tables pair sample 0 of each condition (a valid single-run paired design); with ${samples} samples the headline is the task-level paired t over all samples, never McNemar on run-level pairs.`
          : "Each task contributes one pair: its enabled run and its disabled run.") +
        (paired
          ? ""
          : control
            ? ` RAE-only design with a control sample: disabled runs exist for retrieved tasks and for a seeded random ${Math.round(control.q * 1000) / 10}% of all tasks; the not-retrieved table holds only that sample's non-retrieved tasks, so NRAE is estimable and A0 testable, while OAE and the lift's decomposition are not.`
            : " RAE-only design: disabled runs exist only for retrieved tasks, so only the retrieved table (RAE) is estimable."),
      retrieved:
        samples > 1
          ? `A task counts as retrieved when any of its enabled runs got back at least one skill (${modeWord}).`
          : `A task counts as retrieved when its enabled run got back at least one skill (${modeWord}).`,
    },
    repeated,
    noise: { ...noise, observedDiscordanceRetrieved: retrievedTable.n === 0 ? null : (retrievedTable.rescued + retrievedTable.harmed) / retrievedTable.n },
    costs: {
      runs: allRecords.length,
      modelCalls: allRecords.reduce((s, r) => s + r.modelCalls, 0),
      cachedCalls: allRecords.reduce((s, r) => s + r.cachedCalls, 0),
      fullDesignRuns,
      // §8: a control sample q also runs the disabled arm on q of the non-retrieved tasks.
      raeOnlyExpectedSaving: retrievalRate === null ? null : raeOnlySavings(retrievalRate, samples, samples).savingFraction * (1 - (control?.q ?? 0)),
      actualSaving: paired || fullDesignRuns === 0 ? null : 1 - allRecords.length / fullDesignRuns,
    },
    stopping: stoppingBlock(headers, stops, pairedInOrder, alpha),
    pairs: pairedInOrder.map((p) => ({ taskId: p.id, outcome: p.kind, retrieved: p.retrieved })),
    taskRows,
  };
}

function repeatedBlock(
  rows: ReadonlyArray<{ sPlus: number; kPlus: number; sMinus: number; kMinus: number; retrieved: boolean }>,
  paired: boolean,
  alpha: number,
): { overall: Repeated | null; retrieved: Repeated; aaFloor: number | null } {
  const summarize = (rs: typeof rows): Repeated => {
    const s = repeatedSamples(rs.map((r) => r.sPlus), rs.map((r) => r.kPlus), rs.map((r) => r.sMinus), rs.map((r) => r.kMinus), alpha);
    return { deltaHat: s.deltaHat, se: s.se, ci: s.ci, p: s.p, tasks: s.T, degenerate: s.degenerate };
  };
  const withAa = rows.filter((r) => r.kMinus >= 2);
  return {
    overall: paired ? summarize(rows) : null,
    retrieved: summarize(rows.filter((r) => r.retrieved)),
    aaFloor: aaNoiseFloor(withAa.map((r) => r.sMinus), withAa.map((r) => r.kMinus)).floor,
  };
}

function stoppingBlock(
  headers: readonly RunHeader[],
  stops: readonly StopRecord[],
  pairs: ReadonlyArray<{ id: string; yPlus: boolean; yMinus: boolean; retrieved: boolean }>,
  alpha: number,
): Evaluation["stopping"] {
  const rule = headers.some((h) => h.stopWhen === "decided") ? "decided" : "never";
  if (rule === "never" && stops.length === 0) return null;
  // Replay the monitor in the recorded (shuffled) task order: the same computation the scheduler ran.
  const mon = new SequentialMonitor({ alpha, scope: "retrieved" });
  for (const p of pairs) {
    mon.observe({ outcome: p.yPlus === p.yMinus ? "concordant" : p.yPlus ? "rescued" : "harmed", retrieved: p.retrieved });
  }
  const s = mon.state();
  return {
    rule,
    reason: stops.length > 0 ? stops[stops.length - 1]!.reason : null,
    decided: s.decided,
    eHelp: s.eHelp,
    eHarm: s.eHarm,
    threshold: s.threshold,
    cs: s.cs,
    tasksObserved: s.observed,
  };
}

function weakestSandbox(headers: readonly RunHeader[]): RunHeader["sandbox"] {
  let worst = headers[0]!.sandbox;
  for (const h of headers) if (ISOLATION_ORDER.indexOf(h.sandbox.isolation) < ISOLATION_ORDER.indexOf(worst.isolation)) worst = h.sandbox;
  return worst;
}
