/**
 * The parts of one evaluation, each from the paired outcomes (pairs.ts): per-skill results, the design's metrics,
 * the noise floor, costs, definitions, the repeated-samples block, the stopping block and the sandbox.
 */
import type { ControlSample, Isolation, SkillRef } from "../../shared/vocabulary/index.js";
import type { RunHeader, StopRecord } from "../runs/types.js";
import { aaNoiseFloor, emptyCounts, paradoxExplanation, raeOnlySavings, repeatedSamples, retrievalMetrics, SequentialMonitor } from "../stats/index.js";
import { skillKey, type Pairs, type PairedTask, type RepeatedRow } from "./pairs.js";
import type { Evaluation, Repeated, SkillResult, Table } from "./schema.js";
import { adjustSkills, perSkillLift, toTable } from "./tables.js";

/** Skills: the library of every header (latest description wins), then any returned skill not in a header. */
export function skillResults(headers: readonly RunHeader[], pairs: Pairs, alpha: number, exact: boolean): SkillResult[] {
  const last = headers[headers.length - 1]!;
  const library = new Map<string, { ref: SkillRef; description?: string; file?: string }>();
  for (const h of headers) for (const s of h.skills) library.set(skillKey(s), { ref: { name: s.name, contentHash: s.contentHash }, description: s.description, file: s.file });
  const { skillCounts } = pairs;
  const skillKeys = [...library.keys(), ...[...skillCounts.keys()].filter((k) => !library.has(k))];
  // The latest header's hash per skill name: entries with another hash measure an earlier version of the skill.
  const currentHash = new Map(last.skills.map((s) => [s.name, s.contentHash]));
  const skillTables = skillKeys.map((k) => toTable(skillCounts.get(k)?.counts ?? emptyCounts(), alpha, exact));
  const adjusted = adjustSkills(skillTables, alpha, exact);
  const skillLifts = perSkillLift(pairs.liftPopulation, skillKeys);
  return skillKeys.map((k, i) => {
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
      paradox: skillLifts[i] !== null && skillTables[i]!.effect !== null && skillLifts[i]! * skillTables[i]!.effect < 0,
      // Section ablation (issue 13) fills these afterwards (sections.ts).
      sections: [],
      sectionPairs: [],
      ablation: null,
      // Skill evals (skill-evals.ts) fill these afterwards.
      trigger: null,
      ownExpectations: null,
      ownEvals: null,
    };
  });
}

/**
 * What the design can estimate. Paired: OAE, RAE, NRAE, the lift and its decomposition. RAE-only: RAE, the lift
 * from enabled runs alone, OAE under A0 as r·RAE, and NRAE only from a control sample.
 */
export function designMetrics(pairs: Pairs, paired: boolean, control: ControlSample | undefined, alpha: number, exact: boolean) {
  const { enabledOnly } = pairs;
  const m = retrievalMetrics(pairs.retrieved, paired ? pairs.notRetrieved : emptyCounts());
  const notRetrievedTable = paired || control ? toTable(pairs.notRetrieved, alpha, exact) : null;
  const enabledLift =
    enabledOnly.retrieved.n > 0 && enabledOnly.notRetrieved.n > 0
      ? (enabledOnly.retrieved.pass * enabledOnly.notRetrieved.n - enabledOnly.notRetrieved.pass * enabledOnly.retrieved.n) /
        (enabledOnly.retrieved.n * enabledOnly.notRetrieved.n)
      : null;
  const lift = paired ? m.lift : enabledLift;
  const enabledTotal = enabledOnly.retrieved.n + enabledOnly.notRetrieved.n;
  const retrievalRate = paired ? m.retrievalRate : enabledTotal === 0 ? null : enabledOnly.retrieved.n / enabledTotal;
  const paradox = lift !== null && m.RAE !== null && lift * m.RAE < 0;
  const metrics: Evaluation["metrics"] = {
    OAE: paired ? m.OAE : null,
    RAE: m.RAE,
    NRAE: paired ? m.NRAE : control ? notRetrievedTable!.effect : null,
    retrievalRate,
    selectionTerm: paired ? m.selectionTerm : null,
    paradox,
    paradoxExplanation: paradox ? paradoxExplanation({ ...m, lift, paradox }) : null,
    oaeUnderA0: !paired && m.RAE !== null && retrievalRate !== null ? retrievalRate * m.RAE : null,
  };
  return { metrics, lift, retrievalRate, notRetrievedTable };
}

/** The run-to-run noise the effect is compared with: an A/A floor from repeated samples, else discordance under A0. */
export function noiseFloor(samples: number, repeated: Evaluation["repeated"], notRetrievedTable: Table | null, paired: boolean, retrievedTable: Table): Evaluation["noise"] {
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
  return { ...noise, observedDiscordanceRetrieved: retrievedTable.n === 0 ? null : (retrievedTable.rescued + retrievedTable.harmed) / retrievedTable.n };
}

export function costs(pairs: Pairs, samples: number, paired: boolean, retrievalRate: number | null, control: ControlSample | undefined): Evaluation["costs"] {
  const all = pairs.records;
  const fullDesignRuns = pairs.taskOrder.length * 2 * samples;
  return {
    runs: all.length,
    modelCalls: all.reduce((s, r) => s + r.modelCalls, 0),
    cachedCalls: all.reduce((s, r) => s + r.cachedCalls, 0),
    fullDesignRuns,
    // §8: a control sample q also runs the disabled arm on q of the non-retrieved tasks.
    raeOnlyExpectedSaving: retrievalRate === null ? null : raeOnlySavings(retrievalRate, samples, samples).savingFraction * (1 - (control?.q ?? 0)),
    actualSaving: paired || fullDesignRuns === 0 ? null : 1 - all.length / fullDesignRuns,
  };
}

/** How tables are formed and what "retrieved" means, one sentence each; every rendering states them. */
export function definitions(samples: number, paired: boolean, control: ControlSample | undefined, mode: RunHeader["mode"]): Evaluation["definitions"] {
  const modeWord = mode === "catalog" ? "a successful load_skill call" : "a search that returned at least one skill";
  return {
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
  };
}

export function repeatedBlock(rows: readonly RepeatedRow[], paired: boolean, alpha: number): { overall: Repeated | null; retrieved: Repeated; aaFloor: number | null } {
  const summarize = (rs: readonly RepeatedRow[]): Repeated => {
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

export function stoppingBlock(headers: readonly RunHeader[], stops: readonly StopRecord[], pairs: readonly PairedTask[], alpha: number): Evaluation["stopping"] {
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

/** Weakest first: a merged evaluation reports the weakest isolation of its runs. */
const ISOLATION_ORDER: readonly Isolation[] = ["none", "worker-fallback", "native-confined", "process-permission"];

export function weakestSandbox(headers: readonly RunHeader[]): RunHeader["sandbox"] {
  let worst = headers[0]!.sandbox;
  for (const h of headers) if (ISOLATION_ORDER.indexOf(h.sandbox.isolation) < ISOLATION_ORDER.indexOf(worst.isolation)) worst = h.sandbox;
  return worst;
}
