/**
 * Section ablation results (issue 13) attached to the report's skills. For every ablation file: the evaluation with
 * the same model id, task-set hash and mode, the skill with the same name and content hash, the full skill's
 * outcome per task from that evaluation's runs (enabled, sample 0, later records win as in buildReport), and the
 * ablated outcome per task and section (sample 0). Then per section the paired table full vs ablated, mid-p / exact
 * McNemar, the Tango interval (stats-spec §3–4) and Holm across the skill's sections (§6).
 */
import { analyzeTable, holm, type PairedCounts } from "../stats/index.js";
import { variantSections, type AblationHeader, type AblationRecord } from "../runs/ablation-types.js";
import type { RunSummary } from "../runs/types.js";
import type { RunInput } from "./build.js";
import type { Report, SkillResult } from "./schema.js";
import type { SectionPairResult, SectionResult, SectionTable, SectionVerdict, SkillAblation } from "./sections-schema.js";

export interface AblationInput {
  file: string;
  header: AblationHeader;
  records: AblationRecord[];
}

export const INTERACTIONS_NOTE =
  "Single-section ablation can miss interactions: two sections that matter only together show no effect alone. Ablating the pairs among the 3 most harmful sections as well tests for that.";

const groupKey = (modelId: string, taskSetHash: string, mode: string) => `${modelId}\u0000${taskSetHash}\u0000${mode}`;

function sectionTable(t: PairedCounts, alpha: number, exact: boolean): SectionTable {
  // The full skill plays "enabled": b = broken (full passed, ablated failed), c = repaired, θ = (b − c)/n.
  const an = analyzeTable(t, alpha, exact);
  return { n: an.n, repaired: t.c, broken: t.b, effect: an.effect, pMid: an.pMid, pExact: an.pExact, ci: an.tango, bothPass: t.a, bothFail: t.d, tooFewDiscordant: an.tooFewDiscordant };
}

interface Tally {
  counts: PairedCounts;
  repaired: string[];
  broken: string[];
  notLoaded: number;
  /** task → ablated pass, for the interaction of pairs. */
  outcomes: Map<string, boolean>;
}

function tally(variant: string, taskIds: readonly string[], full: ReadonlyMap<string, boolean>, ablated: ReadonlyMap<string, AblationRecord>, skill: string): Tally {
  const t: Tally = { counts: { a: 0, b: 0, c: 0, d: 0 }, repaired: [], broken: [], notLoaded: 0, outcomes: new Map() };
  for (const id of taskIds) {
    const f = full.get(id);
    const r = ablated.get(`${id}\u0000${variant}\u00000`);
    if (f === undefined || !r) continue;
    if (!r.retrieved.some((s) => s.name === skill)) {
      t.notLoaded++;
      continue;
    }
    const y = r.verdict.pass;
    t.outcomes.set(id, y);
    if (f && y) t.counts.a++;
    else if (f) {
      t.counts.b++;
      t.broken.push(id);
    } else if (y) {
      t.counts.c++;
      t.repaired.push(id);
    } else t.counts.d++;
  }
  return t;
}

function verdictOf(table: SectionTable, pHolm: number | null, alpha: number, exact: boolean): SectionVerdict {
  if (table.n === 0) return "not-evaluated";
  if (table.repaired + table.broken === 0) return "no-effect";
  const dir = table.repaired > table.broken ? "harms" : "helps";
  if (pHolm !== null && pHolm <= alpha) return dir;
  const p = exact ? table.pExact : table.pMid;
  if (p !== null && p <= alpha && table.repaired !== table.broken) return `${dir}-unadjusted`;
  return "inconclusive";
}

/** Sections for display: most harmful first (lowest effect), then document order; unevaluated last. */
export function sectionsByHarm(sections: readonly SectionResult[]): SectionResult[] {
  return [...sections].sort((x, y) => {
    const a = x.table.effect;
    const b = y.table.effect;
    if (a === null || b === null) return a === b ? x.startLine - y.startLine : a === null ? 1 : -1;
    return a - b || x.startLine - y.startLine;
  });
}

/** Full-skill outcome (enabled, sample 0) per task, where the enabled run(s) returned this skill version. */
function fullOutcomes(runs: readonly RunInput[], skill: { name: string; contentHash: string }): Map<string, boolean> {
  const byKey = new Map<string, RunSummary>();
  for (const run of runs) for (const r of run.records) if (r.condition === "enabled") byKey.set(r.key, r);
  const loaded = new Set<string>();
  const sample0 = new Map<string, boolean>();
  for (const r of byKey.values()) {
    if (r.retrieved.some((s) => s.name === skill.name && s.contentHash === skill.contentHash)) loaded.add(r.taskId);
    if (r.sample === 0) sample0.set(r.taskId, r.verdict.pass);
  }
  return new Map([...sample0].filter(([id]) => loaded.has(id)));
}

function attachToSkill(s: SkillResult, files: readonly AblationInput[], runs: readonly RunInput[], alpha: number, exact: boolean): void {
  const header = files[files.length - 1]!.header;
  const full = fullOutcomes(runs, s);
  const ablated = new Map<string, AblationRecord>();
  for (const f of files) for (const r of f.records) ablated.set(r.key, r);
  const taskIds = [...new Set(files.flatMap((f) => f.header.taskIds))];
  const defs = new Map(files.flatMap((f) => f.header.sections).map((d) => [d.id, d]));
  const singles = [...defs.values()].sort((a, b) => a.startLine - b.startLine);
  const tallies = singles.map((d) => tally(d.id, taskIds, full, ablated, s.name));
  const tables = tallies.map((t) => sectionTable(t.counts, alpha, exact));
  const family = tables.map((t, i) => ({ t, i, p: exact ? t.pExact : t.pMid })).filter((x) => x.t.n > 0 && x.t.repaired + x.t.broken > 0 && x.p !== null);
  const adjusted = holm(family.map((x) => x.p!), alpha).adjusted;
  const pHolmOf = new Map(family.map((x, j) => [x.i, adjusted[j]!]));
  s.sections = sectionsByHarm(
    singles.map((d, i): SectionResult => {
      const pHolm = pHolmOf.get(i) ?? null;
      return {
        id: d.id, heading: d.heading, startLine: d.startLine, endLine: d.endLine, table: tables[i]!, pHolm,
        repairedTasks: tallies[i]!.repaired, brokenTasks: tallies[i]!.broken,
        kind: d.kind, path: d.path, contentHash: d.contentHash, verdict: verdictOf(tables[i]!, pHolm, alpha, exact), notLoaded: tallies[i]!.notLoaded,
      };
    }),
  );

  const pairIds = [...new Set([...ablated.values()].map((r) => r.variant).filter((v) => variantSections(v).length === 2))];
  s.sectionPairs = pairIds.flatMap((id): SectionPairResult[] => {
    const [a, b] = variantSections(id) as [string, string];
    const da = defs.get(a);
    const db = defs.get(b);
    if (!da || !db) return [];
    const t = tally(id, taskIds, full, ablated, s.name);
    const ta = tallies[singles.indexOf(da)]!.outcomes;
    const tb = tallies[singles.indexOf(db)]!.outcomes;
    const common = [...t.outcomes.keys()].filter((k) => ta.has(k) && tb.has(k));
    // Effects are differences of pass counts against the same full outcomes, so on common tasks
    // effect(pair) − effect(A) − effect(B) = (pass(A) + pass(B) − pass(pair) − full)/n.
    const interaction =
      common.length === 0 ? null : common.reduce((acc, k) => acc + Number(ta.get(k)) + Number(tb.get(k)) - Number(t.outcomes.get(k)) - Number(full.get(k)), 0) / common.length;
    return [{ id, sections: [a, b], headings: [da.heading, db.heading], table: sectionTable(t.counts, alpha, exact), repairedTasks: t.repaired, brokenTasks: t.broken, interaction }];
  });

  const sel = header.selection;
  const notes = [
    `Each section row compares the full skill with the skill without that section on the same tasks: the skill's harmed (${sel.harmed.length}) and rescued (${sel.rescued.length}) tasks and a seeded ${Math.round(sel.q * 100)}% sample of its both-pass tasks (${sel.bothPassSampled.length} of ${sel.bothPassTotal}). Repaired = the full skill failed and the skill without the section passed; broken = the reverse; effect = (broken − repaired)/n, so a negative effect means the section harms. Holm across the ${family.length} sections with a discordant pair.`,
    ...(header.samples > 1 ? [`Tables pair sample 0 of the full and the ablated runs (${header.samples} samples were run).`] : []),
    ...(s.sections.some((x) => x.notLoaded > 0) ? ["Some ablated runs did not load the skill (a call before the load was not in the response cache and the model answered differently); they are left out."] : []),
    ...(files.some((f) => f.header.pairs) ? [] : [INTERACTIONS_NOTE]),
  ];
  const ablation: SkillAblation = {
    files: files.map((f) => f.file),
    contentHash: header.skill.contentHash,
    tasks: taskIds.length,
    samples: header.samples,
    control: { q: sel.q, sampled: sel.bothPassSampled.length, of: sel.bothPassTotal },
    notes,
  };
  s.ablation = ablation;
}

/** Fills `sections`, `sectionPairs` and `ablation` of the skills that ablation files measured (in place). */
export function attachSections(report: Report, runs: readonly RunInput[], ablations: readonly AblationInput[], alpha: number, exact: boolean): Report {
  if (ablations.length === 0) return report;
  for (const ev of report.evaluations) {
    const key = groupKey(ev.modelId, ev.taskSetHash, ev.mode);
    const groupRuns = runs.filter((r) => groupKey(r.header.model.id, r.header.taskSet.hash, r.header.mode) === key);
    for (const s of ev.skills) {
      const files = ablations.filter(
        (a) => groupKey(a.header.parent.modelId, a.header.parent.taskSetHash, a.header.parent.mode) === key && a.header.skill.name === s.name && a.header.skill.contentHash === s.contentHash,
      );
      if (files.length > 0) attachToSkill(s, files, groupRuns, alpha, exact);
    }
  }
  return report;
}
