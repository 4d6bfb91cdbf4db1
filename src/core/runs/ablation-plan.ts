/**
 * Which runs a section ablation needs (issue 13), decided before any of them starts:
 * - tasks: the skill's harmed and rescued tasks in the paired run, plus a seeded sample (fraction q) of its
 *   both-pass tasks, so a section whose removal breaks things shows too. Both-fail tasks are left out: with the
 *   full skill failing and the disabled run failing, removing a section can only "repair", and those tasks say
 *   nothing about what the skill did (the skill did not change their outcome);
 * - variants: one per section (the description only on request); `--ablate-pairs` adds the pairs among the 3 most
 *   harmful sections once the single sections are in;
 * - every variant runs the enabled condition only, on every selected task × sample.
 * The cost estimate counts, from the paired run's own transcripts, the model turns before the skill was loaded
 * (served by the response cache) and after it (new calls).
 */
import { createHash } from "node:crypto";
import { DESCRIPTION_SECTION_ID } from "../skills/sections.js";
import { ablationKey, pairVariant, variantSections, type AblationHeader, type AblationRecord, type AblationSection } from "./ablation-types.js";
import type { SkillRef } from "../../shared/vocabulary/index.js";
import type { RunHeader, RunRecord } from "./types.js";

export const DEFAULT_ABLATE_CONTROL = 0.25;
/** How many of the most harmful sections `--ablate-pairs` combines. */
export const PAIR_TOP = 3;

export interface FullOutcome {
  taskId: string;
  /** The full skill's (enabled, sample 0) verdict. */
  full: boolean;
  disabled: boolean;
  kind: "rescued" | "harmed" | "both-pass" | "both-fail";
}

const hasSkill = (refs: readonly SkillRef[], skill: SkillRef) => refs.some((r) => r.name === skill.name && r.contentHash === skill.contentHash);

/**
 * The paired outcomes (sample 0, as the report's tables) of the tasks on which `skill` (this content hash) was
 * returned to an enabled run, in run order. Tasks missing sample 0 of either side are left out.
 */
export function fullOutcomes(header: RunHeader, records: readonly RunRecord[], skill: SkillRef): FullOutcome[] {
  const enabled = new Map<string, RunRecord[]>();
  const disabled0 = new Map<string, RunRecord>();
  for (const r of records) {
    if (r.condition === "enabled") enabled.set(r.taskId, [...(enabled.get(r.taskId) ?? []), r]);
    else if (r.sample === 0) disabled0.set(r.taskId, r);
  }
  const out: FullOutcome[] = [];
  for (const id of header.taskIds) {
    const e = enabled.get(id) ?? [];
    const e0 = e.find((r) => r.sample === 0);
    const d0 = disabled0.get(id);
    if (!e0 || !d0 || !e.some((r) => hasSkill(r.retrieved, skill))) continue;
    const full = e0.verdict.pass;
    const dis = d0.verdict.pass;
    out.push({ taskId: id, full, disabled: dis, kind: full === dis ? (full ? "both-pass" : "both-fail") : full ? "rescued" : "harmed" });
  }
  return out;
}

/** sha256(seed:ablate:id) as a uniform number in [0, 1): fixed before any run, independent of run order. */
export function inAblationSample(taskId: string, q: number, seed: number): boolean {
  const u = Number.parseInt(createHash("sha256").update(`${seed}:ablate:${taskId}`).digest("hex").slice(0, 12), 16) / 2 ** 48;
  return u < q;
}

export function selectTasks(outcomes: readonly FullOutcome[], q: number, seed: number): AblationHeader["selection"] & { taskIds: string[] } {
  const ids = (k: FullOutcome["kind"]) => outcomes.filter((o) => o.kind === k).map((o) => o.taskId);
  const bothPass = ids("both-pass");
  const sampled = bothPass.filter((id) => inAblationSample(id, q, seed));
  const chosen = new Set([...ids("rescued"), ...ids("harmed"), ...sampled]);
  return {
    rescued: ids("rescued"),
    harmed: ids("harmed"),
    bothPassSampled: sampled,
    bothPassTotal: bothPass.length,
    q,
    seed,
    taskIds: outcomes.filter((o) => chosen.has(o.taskId)).map((o) => o.taskId),
  };
}

export interface AblationJob {
  key: string;
  taskId: string;
  variant: string;
  sample: number;
}

export function jobsFor(variants: readonly string[], taskIds: readonly string[], samples: number, done: ReadonlySet<string>): AblationJob[] {
  const jobs: AblationJob[] = [];
  for (const variant of variants) {
    for (const taskId of taskIds) {
      for (let sample = 0; sample < samples; sample++) {
        const key = ablationKey(taskId, variant, sample);
        if (!done.has(key)) jobs.push({ key, taskId, variant, sample });
      }
    }
  }
  return jobs;
}

/** Single-section variants: every body section, plus the description when asked for. */
export function singleVariants(sections: readonly AblationSection[]): string[] {
  return sections.map((s) => s.id);
}

/**
 * The pairs `--ablate-pairs` adds: among the sections with a result, the PAIR_TOP whose removal repaired the most
 * more than it broke (ties: document order), every pair of them. Deterministic given the single-section records,
 * so a resumed ablation plans the same pairs.
 */
export function pairVariants(header: AblationHeader, records: readonly AblationRecord[], full: ReadonlyMap<string, boolean>): string[] {
  const score = new Map<string, { n: number; net: number }>();
  for (const r of records) {
    if (r.sample !== 0 || variantSections(r.variant).length !== 1) continue;
    const f = full.get(r.taskId);
    if (f === undefined) continue;
    const s = score.get(r.variant) ?? { n: 0, net: 0 };
    s.n++;
    s.net += Number(!f && r.verdict.pass) - Number(f && !r.verdict.pass);
    score.set(r.variant, s);
  }
  const ranked = header.sections
    .filter((s) => s.id !== DESCRIPTION_SECTION_ID && (score.get(s.id)?.n ?? 0) > 0)
    .map((s, i) => ({ id: s.id, i, net: score.get(s.id)!.net }))
    .sort((a, b) => b.net - a.net || a.i - b.i)
    .slice(0, PAIR_TOP)
    .sort((a, b) => a.i - b.i);
  const out: string[] = [];
  for (let i = 0; i < ranked.length; i++) for (let j = i + 1; j < ranked.length; j++) out.push(pairVariant(ranked[i]!.id, ranked[j]!.id));
  return out;
}

export interface AblationEstimate {
  /** Variants known now (sections; pairs are added later). */
  variants: number;
  tasks: number;
  samples: number;
  /** Runs of the single-section phase: variants × tasks × samples. */
  runs: number;
  /** Runs `--ablate-pairs` adds (C(min(3, sections), 2) × tasks × samples). */
  pairRuns: number;
  /** Model turns up to and including the load, over all runs: identical requests, answered by the response cache. */
  cachedCalls: number;
  /** Model turns after the load in the paired run, over all runs: the new calls an ablation is expected to cost. */
  newCalls: number;
}

/** Turns of an enabled run up to and including the one whose tool call returned `skill` (all turns if none did). */
export function turnsThroughLoad(record: RunRecord, skill: SkillRef): number {
  let turn = 0;
  let call = 0;
  for (const m of record.transcript) {
    if (m.role !== "assistant") continue;
    turn++;
    for (const _ of m.toolCalls ?? []) {
      if (hasSkill(record.toolCalls[call]?.retrieved ?? [], skill)) return turn;
      call++;
    }
  }
  return record.turns;
}

export function estimateAblation(
  records: readonly RunRecord[],
  skill: SkillRef,
  taskIds: readonly string[],
  samples: number,
  variants: readonly string[],
  pairs: boolean,
): AblationEstimate {
  const enabled = new Map<string, RunRecord>();
  for (const r of records) if (r.condition === "enabled") enabled.set(`${r.taskId}\u0000${r.sample}`, r);
  let before = 0;
  let after = 0;
  let beforeDescription = 0;
  for (const id of taskIds) {
    for (let s = 0; s < samples; s++) {
      const r = enabled.get(`${id}\u0000${s}`) ?? enabled.get(`${id}\u00000`);
      if (!r) continue;
      const through = turnsThroughLoad(r, skill);
      before += through;
      after += Math.max(1, r.turns - through);
      beforeDescription += r.turns;
    }
  }
  const bodyVariants = variants.filter((v) => v !== DESCRIPTION_SECTION_ID).length;
  const withDescription = variants.length - bodyVariants;
  const top = Math.min(PAIR_TOP, bodyVariants);
  const pairCount = pairs ? (top * (top - 1)) / 2 : 0;
  const perVariantRuns = taskIds.length * samples;
  return {
    variants: variants.length,
    tasks: taskIds.length,
    samples,
    runs: variants.length * perVariantRuns,
    pairRuns: pairCount * perVariantRuns,
    // Removing the description changes the catalog in the system prompt, so every one of its calls is new.
    cachedCalls: (bodyVariants + pairCount) * before,
    newCalls: (bodyVariants + pairCount) * after + withDescription * beforeDescription,
  };
}

export function describeEstimate(e: AblationEstimate, skill: string): string {
  const pairs = e.pairRuns > 0 ? ` + ${e.pairRuns} runs for the section pairs` : "";
  return (
    `ablation of ${skill}: ${e.variants} sections × ${e.tasks} tasks × ${e.samples} sample${e.samples === 1 ? "" : "s"} = ${e.runs} runs${pairs}; ` +
    `about ${e.newCalls} new model calls (the turns after load_skill), ${e.cachedCalls} earlier calls served by the response cache`
  );
}
