import path from "node:path";
import type { RunFileContents } from "../core/runs/store.js";
import { buildReport } from "../core/report/build.js";
import { SKILL_EVALS } from "../core/tasks/skill-evals.js";
import type { Evaluation, Report, Table } from "../core/report/schema.js";
import type { AblationInput } from "../core/report/sections.js";
import { evaluationFacts, explainerFor, familySize, skillMultiplicityNote, subsetRows, verdict } from "../core/report/format.js";
import type { Estimate, Headline, ReportView, SectionRow, SkillEvalsView, SkillRow, SubsetRow, TaskRef } from "../shared/report-view.js";

/**
 * Turns run files into the plain data the report webview, the CodeLens and the diagnostics show. No `vscode`
 * import: unit-testable under plain node. Every number comes from the core report model (src/core/report), so the
 * panel, the CodeLens, the CLI and the exports agree; this file only arranges them. One report may hold several
 * runs (Compare Models…): skills and points are then per model.
 */

export interface LoadedRun extends RunFileContents {
  file: string;
  /** Section ablation files written beside this run file (issue 13). */
  ablations?: AblationInput[];
}

const est = (t: Table | null, decision: "mid-p" | "exact"): Estimate =>
  t ? { value: t.effect, low: t.ci ? t.ci[0] : null, high: t.ci ? t.ci[1] : null, p: decision === "exact" ? t.pExact : t.pMid } : { value: null, low: null, high: null, p: null };

export function modelLabel(run: LoadedRun): string {
  return run.header.model.name;
}

/** The core report model of these runs (the same numbers the CLI and every export show) and the view of it. */
export function buildReportModel(runs: LoadedRun[], alpha: number, extraNotes: string[] = []): { report: Report; view: ReportView } {
  const report = buildReport(runs, { alpha, ablations: runs.flatMap((r) => r.ablations ?? []) });
  return { report, view: toView(report, runs, alpha, extraNotes) };
}

export function buildReportView(runs: LoadedRun[], alpha: number, extraNotes: string[] = []): ReportView {
  return buildReportModel(runs, alpha, extraNotes).view;
}

/** The run file holding a task's enabled record for this evaluation (the latest one wins, as in the core). */
function fileOf(ev: Evaluation, runs: LoadedRun[], taskId: string): string {
  const candidates = runs.filter((r) => ev.runIds.includes(r.header.runId));
  const withTask = candidates.filter((r) => r.records.some((x) => x.taskId === taskId && x.condition === "enabled" && x.sample === 0));
  return (withTask[withTask.length - 1] ?? candidates[candidates.length - 1] ?? runs[0])?.file ?? "";
}

function toView(report: Report, runs: LoadedRun[], alpha: number, extraNotes: string[]): ReportView {
  const evs = report.evaluations;
  const compare = evs.length > 1;
  const first: Evaluation | undefined = evs[0];
  const label = (ev: Evaluation) => (compare ? { model: ev.model } : {});
  const skills: SkillRow[] = evs.flatMap((ev) =>
    ev.skills.map((s) => ({
      name: s.name,
      ...label(ev),
      n: s.table.n,
      rescued: s.table.rescued,
      harmed: s.table.harmed,
      bothPass: s.table.bothPass,
      bothFail: s.table.bothFail,
      rae: est(s.table, ev.decisionP),
      pHolm: s.pHolm,
      flag: s.badge,
      lift: s.lift,
      ...noteOf(ev, s),
    })),
  );
  const points = compare
    ? evs.map((ev) => ({ label: ev.model, kind: "model" as const, lift: ev.lift, rae: est(ev.retrieved, ev.decisionP) }))
    : skills.map((s) => ({ label: s.name, kind: "skill" as const, lift: s.lift, rae: s.rae }));
  const flips = (outcome: "rescued" | "harmed"): TaskRef[] =>
    evs.flatMap((ev) =>
      ev.taskRows
        .filter((t) => t.outcome === outcome)
        .sort((a, b) => Number(b.retrieved.length > 0) - Number(a.retrieved.length > 0))
        .map((t) => ({
          runFile: fileOf(ev, runs, t.taskId),
          taskId: t.taskId,
          sample: 0,
          skills: [...new Set(t.retrieved.map((r) => r.name))],
          reason: outcome === "harmed" ? t.enabledReason : t.disabledReason,
          ...label(ev),
        })),
    );

  const sections: SectionRow[] = evs.flatMap((ev) =>
    ev.skills.flatMap((s) =>
      s.sections.map((x) => ({
        skill: s.name,
        ...label(ev),
        id: x.id,
        heading: x.heading,
        startLine: x.startLine,
        endLine: x.endLine,
        n: x.table.n,
        repaired: x.table.repaired,
        broken: x.table.broken,
        effect: { value: x.table.effect, low: x.table.ci ? x.table.ci[0] : null, high: x.table.ci ? x.table.ci[1] : null, p: ev.decisionP === "exact" ? x.table.pExact : x.table.pMid },
        pHolm: x.pHolm,
        verdict: x.verdict,
        repairedTasks: x.repairedTasks,
        brokenTasks: x.brokenTasks,
      })),
    ),
  );
  const notes = notesOf(evs, runs, extraNotes);
  const title = compare
    ? `Model comparison: ${evs.map((e) => e.model).join(", ")}`
    : runs[0]
      ? `${runs[0].header.skills.length === 1 ? runs[0].header.skills[0]!.name : `${runs[0].header.skills.length} skills`} on ${runs[0].header.taskSet.name} · ${modelLabel(runs[0])}`
      : "Skill Following report";
  const headlineOf = (h: Evaluation | undefined): Headline => ({
    rae: est(h?.retrieved ?? null, h?.decisionP ?? "mid-p"),
    oae: est(h?.overall ?? null, h?.decisionP ?? "mid-p"),
    nrae: est(h?.notRetrieved ?? null, h?.decisionP ?? "mid-p"),
    lift: h?.lift ?? null,
    selectionTerm: h?.metrics.selectionTerm ?? null,
    bothPass: h?.retrieved.bothPass ?? 0,
    bothFail: h?.retrieved.bothFail ?? 0,
    nRetrieved: h?.retrieved.n ?? 0,
    n: h ? (h.overall?.n ?? h.tasks.complete) : 0,
    rescued: h?.retrieved.rescued ?? 0,
    harmed: h?.retrieved.harmed ?? 0,
    paradox: h?.metrics.paradox ?? false,
    ...(h?.metrics.paradoxExplanation ? { paradoxText: h.metrics.paradoxExplanation } : {}),
  });
  return {
    title,
    runs: runs.map((run) => ({
      runFile: run.file,
      model: modelLabel(run),
      taskSet: run.header.taskSet.name,
      mode: run.header.mode,
      design: run.header.design,
      createdAt: run.header.createdAt,
      samples: run.header.params.samples,
      tasks: run.header.taskIds.length,
      ...(run.stops.length ? { stopReason: run.stops[run.stops.length - 1]!.reason } : {}),
    })),
    headline: headlineOf(first),
    ...(compare ? { models: evs.map((ev) => ({ model: ev.model, ...headlineOf(ev) })) } : {}),
    points,
    skills,
    sections,
    rescued: flips("rescued"),
    harmed: flips("harmed"),
    alpha,
    notes,
    subsets: first ? subsetView(first) : [],
    facts: first ? evaluationFacts(first) : [],
    definitions: first ? [first.definitions.tables, first.definitions.retrieved] : [],
    family: first ? familySize(first) : 0,
    explainer: first ? explainerFor(first) : [],
    ...skillEvalsView(evs),
  };
}

/** The skill-evals part of the view: only evaluations that ran skills' own evals. */
function skillEvalsView(evs: readonly Evaluation[]): { skillEvals?: SkillEvalsView[] } {
  const out: SkillEvalsView[] = evs.flatMap((ev) =>
    ev.triggerMatrix && ev.expectations
      ? [
          {
            model: ev.model,
            triggerMatrix: ev.triggerMatrix,
            skills: ev.skills.flatMap((s) => (s.trigger ? [{ name: s.name, ...s.trigger, raeOwn: s.ownEvals?.effect ?? null, nOwn: s.ownEvals?.n ?? 0 }] : [])),
            expectations: { enabled: ev.expectations.enabled.rate, disabled: ev.expectations.disabled.rate },
            judge: ev.judge ? { model: ev.judge.model, repeats: ev.judge.repeats, agreement: ev.judge.agreement, kappa: ev.judge.kappa, unstablePairs: ev.judge.unstablePairs } : null,
          },
        ]
      : [],
  );
  return out.length ? { skillEvals: out } : {};
}

function notesOf(evs: Evaluation[], runs: LoadedRun[], extraNotes: string[]): string[] {
  const notes = [...extraNotes];
  for (const ev of evs) for (const s of ev.skills) for (const n of s.ablation?.notes ?? []) notes.push(`${s.name}: ${n}`);
  for (const run of runs) {
    for (const w of run.warnings) notes.push(w);
    if (run.header.model.id.startsWith("vscode-lm:")) {
      notes.push(`${modelLabel(run)} is a VS Code language model: its temperature cannot be set, so outcomes vary between runs; use samples > 1.`);
    }
  }
  for (const ev of evs) {
    if (ev.tasks.incomplete > 0) notes.push(`${ev.model}: ${ev.tasks.incomplete} of ${ev.tasks.planned} tasks are incomplete (run cancelled or failed) and left out; evaluate again to resume.`);
    if (ev.design === "rae-only") notes.push("RAE-only design: the disabled condition ran only where the enabled run retrieved, so OAE is not estimable.");
    if (ev.samples > 1) notes.push(ev.definitions.retrieved);
    // Said of the model it is about (in a comparison, another model's rows may well be significant), and never above
    // a significant row of its own.
    const significant = ev.skills.some((s) => s.badge === "harmful" || s.badge === "helpful");
    if (ev.retrieved.tooFewDiscordant && ev.retrieved.n > 0 && !significant) {
      notes.push(evs.length > 1 ? `${ev.model}: too few discordant pairs where retrieved: none of its results could reach significance at this size.` : "Too few discordant pairs where retrieved: no result could reach significance at this size.");
    }
  }

  return notes;
}

const noteOf = (ev: Evaluation, s: Evaluation["skills"][number]): { note?: string } => {
  const note = skillMultiplicityNote(ev, s);
  return note ? { note } : {};
};

function subsetView(e: Evaluation): SubsetRow[] {
  return subsetRows(e).map((r) => ({
    label: r.label,
    table: r.table
      ? { n: r.table.n, bothPass: r.table.bothPass, rescued: r.table.rescued, harmed: r.table.harmed, bothFail: r.table.bothFail, effect: est(r.table, e.decisionP), verdict: verdict(r.table, e.alpha, e.decisionP === "exact") }
      : null,
    ...(r.note ? { note: r.note } : {}),
  }));
}

/** The result of one skill in one run, as the CodeLens and the diagnostics need it. */
export interface SkillResult {
  name: string;
  file: string;
  contentHash: string;
  runFile: string;
  model: string;
  taskSet: string;
  /** The task-set file, so a re-evaluation (on save, or from the CodeLens) needs no picker. */
  taskSetFile: string;
  n: number;
  rescued: number;
  harmed: number;
  rae: number | null;
  low: number | null;
  high: number | null;
  pHolm: number | null;
  flag: SkillRow["flag"];
  evaluatedAt: string;
  /** The skill's own p-value (what a single-skill evaluation decides by). */
  p?: number | null;
  /** The verdict depends on the multiplicity family: the report's note ("harmful alone (p 0.012); inconclusive among 12 skills (Holm p 0.082)"). */
  note?: string;
  /** How many skills the run evaluated together (1: the skill alone) and their library hash: part of the configuration. */
  librarySize?: number;
  libraryHash?: string;
  /** The retrieval mode of the run. */
  mode?: string;
}

export function skillResults(run: LoadedRun, view: ReportView): SkillResult[] {
  return run.header.skills.map((s) => {
    const row = view.skills.find((r) => r.name === s.name && (r.model === undefined || r.model === modelLabel(run)));
    return {
      name: s.name,
      file: path.resolve(s.file),
      contentHash: s.contentHash,
      runFile: run.file,
      model: modelLabel(run),
      taskSet: run.header.taskSet.name,
      // A run on skills' own evals re-runs on them (the keyword the task pickers understand), not on a folder.
      taskSetFile: run.header.taskSet.format === "skill-evals" ? SKILL_EVALS : run.header.taskSet.file,
      n: row?.n ?? 0,
      rescued: row?.rescued ?? 0,
      harmed: row?.harmed ?? 0,
      rae: row?.rae.value ?? null,
      low: row?.rae.low ?? null,
      high: row?.rae.high ?? null,
      pHolm: row?.pHolm ?? null,
      flag: row?.flag ?? "inconclusive",
      evaluatedAt: run.header.createdAt,
      p: row?.rae.p ?? null,
      ...(row?.note ? { note: row.note } : {}),
      librarySize: run.header.skills.length,
      libraryHash: run.header.skillLibraryHash,
      mode: String(run.header.mode),
    };
  });
}
