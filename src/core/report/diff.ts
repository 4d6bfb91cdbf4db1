/**
 * What did an edit change (issue 28): two versions of one skill, compared paired. The same tasks ran with the old
 * text ("before") and the new text ("after"), so the comparison is the old skill's enabled outcome against the new
 * skill's enabled outcome, task by task and sample by sample, on the pairs where both versions were loaded — the
 * design section ablation uses for "full skill" against "skill without this section". Pairs where only one version
 * was loaded are trigger changes (the edit changed whether the skill is loaded, not how it is followed): they are
 * listed, never counted as improved or regressed.
 *
 * The table reuses the paired machinery of every other table: "after" plays the first arm, so b = improved (before
 * failed, after passed), c = regressed, effect = (improved − regressed)/n, mid-p and exact McNemar, Tango interval.
 */
import { z } from "zod";
import { InputError } from "../errors.js";
import { analyzeTable } from "../stats/index.js";
import type { RunSummary } from "../runs/types.js";
import type { RunInput } from "./build.js";
import { IntervalSchema } from "./schema.js";

export const DiffVerdictSchema = z.enum(["improved", "regressed", "inconclusive", "no-change", "not-evaluated"]);
export type DiffVerdict = z.infer<typeof DiffVerdictSchema>;

const DiffSideSchema = z.object({
  /** The skill's content hash in this version. */
  hash: z.string(),
  /** Where this version's runs came from (run files). */
  source: z.string(),
});

/** The JSON contract of `diff --format json`: `{ diff: SkillDiff }`. */
export const SkillDiffSchema = z.object({
  skill: z.string(),
  before: DiffSideSchema,
  after: DiffSideSchema,
  table: z.object({
    /** Pairs (task, sample) on which both versions were loaded. */
    n: z.number().int().nonnegative(),
    improved: z.number().int().nonnegative(),
    regressed: z.number().int().nonnegative(),
    bothPass: z.number().int().nonnegative(),
    bothFail: z.number().int().nonnegative(),
    /** (improved − regressed)/n; null when n = 0. */
    effect: z.number().min(-1).max(1).nullable(),
    pMid: z.number().min(0).max(1).nullable(),
    pExact: z.number().min(0).max(1).nullable(),
    /** Tango score interval for the effect at 1 − alpha. */
    ci: IntervalSchema.nullable(),
    tooFewDiscordant: z.boolean(),
  }),
  improvedTasks: z.array(z.string()),
  regressedTasks: z.array(z.string()),
  /** Tasks where the edit changed whether the skill was loaded at all (any sample). */
  triggerChanged: z.object({ gained: z.array(z.string()), lost: z.array(z.string()) }),
  verdict: DiffVerdictSchema,
  alpha: z.number(),
  decisionP: z.enum(["mid-p", "exact"]),
  model: z.string(),
  taskSet: z.string(),
  /** Set when pairs are (task, sample) with more than one sample per task: those pairs are not independent. */
  note: z.string().optional(),
});
export type SkillDiff = z.infer<typeof SkillDiffSchema>;

/** One version's runs: a run file (or the shards of one), as the report reads it. */
export interface DiffInput {
  source: string;
  runs: readonly RunInput[];
}

interface Outcome {
  pass: boolean;
  loaded: boolean;
}

/** Enabled outcomes by (task, sample); a later record with the same key replaces an earlier one, as in buildReport. */
function enabledOutcomes(side: DiffInput, skill: string): Map<string, Outcome & { taskId: string; sample: number }> {
  const byKey = new Map<string, RunSummary>();
  for (const run of side.runs) for (const r of run.records) if (r.condition === "enabled") byKey.set(r.key, r);
  const out = new Map<string, Outcome & { taskId: string; sample: number }>();
  for (const r of byKey.values()) {
    out.set(`${r.taskId}\u0000${r.sample}`, { taskId: r.taskId, sample: r.sample, pass: r.verdict.pass, loaded: r.retrieved.some((s) => s.name === skill) });
  }
  return out;
}

function sideInfo(side: DiffInput, skill: string, role: "before" | "after") {
  if (side.runs.length === 0) throw new InputError(`${role}: no run file given`);
  const h = side.runs[side.runs.length - 1]!.header;
  const ref = h.skills.find((s) => s.name === skill);
  if (!ref) {
    const names = h.skills.map((s) => s.name).join(", ") || "none";
    throw new InputError(`${side.source}: the ${role} run has no skill named '${skill}' (its skills: ${names})`, { file: side.source, hint: "Name a skill that both runs scanned." });
  }
  return { header: h, hash: ref.contentHash };
}

function same(field: string, a: string, b: string, before: DiffInput, after: DiffInput): void {
  if (a !== b) throw new InputError(`the two runs differ in ${field}: '${a}' in ${before.source}, '${b}' in ${after.source}; a diff pairs the same tasks run by the same model`, { file: after.source });
}

/** Where a pair is named in a task list: the task id, with its sample when there is more than one. */
const pairName = (taskId: string, sample: number, samples: number) => (samples > 1 ? `${taskId}#${sample}` : taskId);

export function diffSkill(skill: string, before: DiffInput, after: DiffInput, alpha = 0.05, exact = false): SkillDiff {
  const b = sideInfo(before, skill, "before");
  const a = sideInfo(after, skill, "after");
  same("model", b.header.model.id, a.header.model.id, before, after);
  same("task set", b.header.taskSet.hash, a.header.taskSet.hash, before, after);
  same("retrieval mode", b.header.mode, a.header.mode, before, after);
  const old = enabledOutcomes(before, skill);
  const now = enabledOutcomes(after, skill);
  const samples = Math.max(b.header.params.samples, a.header.params.samples);
  const counts = { a: 0, b: 0, c: 0, d: 0 };
  const improved: string[] = [];
  const regressed: string[] = [];
  const gained = new Set<string>();
  const lost = new Set<string>();
  // In the after run's task order, so lists read in the order the tasks ran.
  const order = new Map(a.header.taskIds.map((id, i) => [id, i]));
  const rank = (k: string) => {
    const o = now.get(k)!;
    return (order.get(o.taskId) ?? order.size) * 1000 + o.sample;
  };
  const keys = [...now.keys()].filter((k) => old.has(k)).sort((x, y) => rank(x) - rank(y));
  for (const k of keys) {
    const x = old.get(k)!;
    const y = now.get(k)!;
    if (!x.loaded || !y.loaded) {
      if (y.loaded) gained.add(y.taskId);
      else if (x.loaded) lost.add(y.taskId);
      continue;
    }
    const name = pairName(y.taskId, y.sample, samples);
    if (x.pass && y.pass) counts.a++;
    else if (y.pass) {
      counts.b++;
      improved.push(name);
    } else if (x.pass) {
      counts.c++;
      regressed.push(name);
    } else counts.d++;
  }
  // A task that both gained and lost across its samples is a trigger change either way: it stays in both lists.
  const t = analyzeTable(counts, alpha, exact);
  const p = exact ? t.pExact : t.pMid;
  const verdict: DiffVerdict =
    t.n === 0 ? "not-evaluated" : counts.b + counts.c === 0 ? "no-change" : p !== null && p <= alpha && counts.b !== counts.c ? (counts.b > counts.c ? "improved" : "regressed") : "inconclusive";
  return {
    skill,
    before: { hash: b.hash, source: before.source },
    after: { hash: a.hash, source: after.source },
    table: { n: t.n, improved: counts.b, regressed: counts.c, bothPass: counts.a, bothFail: counts.d, effect: t.effect, pMid: t.pMid, pExact: t.pExact, ci: t.tango, tooFewDiscordant: t.tooFewDiscordant },
    improvedTasks: improved,
    regressedTasks: regressed,
    triggerChanged: { gained: [...gained], lost: [...lost] },
    verdict,
    alpha,
    decisionP: exact ? "exact" : "mid-p",
    model: a.header.model.name,
    taskSet: a.header.taskSet.name,
    ...(samples > 1 ? { note: `pairs are (task, sample) over ${samples} samples per task; samples of one task are not independent, so read p and the interval as approximate` } : {}),
  };
}

/** `diff --fail-on regressed`: the edit made things significantly worse. */
export function diffRegressed(d: SkillDiff): boolean {
  return d.verdict === "regressed";
}

/**
 * A pull request's skill changes: every skill both runs scanned whose text differs (by content hash), diffed from
 * the base run to the current one. Skills with the same text in both runs are left out (nothing to compare).
 */
export function changedSkillDiffs(base: DiffInput, current: DiffInput, alpha = 0.05, exact = false): SkillDiff[] {
  if (base.runs.length === 0 || current.runs.length === 0) return [];
  const was = new Map(base.runs[base.runs.length - 1]!.header.skills.map((s) => [s.name, s.contentHash]));
  const now = current.runs[current.runs.length - 1]!.header.skills;
  return now.filter((s) => was.has(s.name) && was.get(s.name) !== s.contentHash).map((s) => diffSkill(s.name, base, current, alpha, exact));
}
