import path from "node:path";
import type { RunFileContents } from "../core/runs/store.js";
import type { RunRecord } from "../core/runs/types.js";
import { analyzeTable, countsOf, paradoxExplanation, retrievalMetrics, type TableAnalysis } from "../core/stats/metrics.js";
import { holm } from "../core/stats/multiplicity.js";
import type { Estimate, ReportView, SkillRow, TaskRef } from "../shared/report-view.js";

/**
 * Turns run files into the plain data the report webview, the CodeLens and the diagnostics show. No `vscode`
 * import: unit-testable under plain node. The statistics are the core's (src/core/stats); this file only pairs
 * records and arranges the numbers. One report may hold several runs (Compare Models…): skills and points are
 * then per model.
 */

export interface LoadedRun extends RunFileContents {
  file: string;
}

interface Pair {
  run: LoadedRun;
  taskId: string;
  sample: number;
  enabled: RunRecord;
  disabled: RunRecord;
  skills: string[];
}

function pairsOf(run: LoadedRun): Pair[] {
  const disabled = new Map<string, RunRecord>();
  for (const r of run.records) if (r.condition === "disabled") disabled.set(`${r.taskId}\u0000${r.sample}`, r);
  const out: Pair[] = [];
  for (const e of run.records) {
    if (e.condition !== "enabled") continue;
    const d = disabled.get(`${e.taskId}\u0000${e.sample}`);
    if (!d) continue;
    out.push({ run, taskId: e.taskId, sample: e.sample, enabled: e, disabled: d, skills: [...new Set(e.retrieved.map((s) => s.name))] });
  }
  return out;
}

const outcome = (p: Pair) => ({ yMinus: p.disabled.verdict.pass, yPlus: p.enabled.verdict.pass });

function estimate(a: TableAnalysis): Estimate {
  return { value: a.effect, low: a.tango ? a.tango[0] : null, high: a.tango ? a.tango[1] : null, p: a.pMid };
}

function taskRef(p: Pair, label: string | undefined): TaskRef {
  const failing = p.enabled.verdict.pass ? p.disabled : p.enabled;
  return {
    runFile: p.run.file,
    taskId: p.taskId,
    sample: p.sample,
    skills: p.skills,
    reason: failing.verdict.reason,
    ...(label ? { model: label } : {}),
  };
}

export function modelLabel(run: LoadedRun): string {
  return run.header.model.name;
}

export function buildReportView(runs: LoadedRun[], alpha: number, extraNotes: string[] = []): ReportView {
  const compare = runs.length > 1;
  const allPairs = runs.flatMap(pairsOf);
  const retrievedPairs = allPairs.filter((p) => p.skills.length > 0);
  const notRetrieved = allPairs.filter((p) => p.skills.length === 0);
  const rTable = countsOf(retrievedPairs.map(outcome));
  const nTable = countsOf(notRetrieved.map(outcome));
  const metrics = retrievalMetrics(rTable, nTable);
  const rae = analyzeTable(rTable, alpha);
  const oae = analyzeTable(countsOf(allPairs.map(outcome)), alpha);

  // Per skill (and per model in a comparison): the tasks on which that skill was returned.
  const groups = new Map<string, { name: string; model?: string; pairs: Pair[]; runPairs: Pair[] }>();
  for (const run of runs) {
    const pairs = allPairs.filter((p) => p.run === run);
    const names = new Set([...run.header.skills.map((s) => s.name), ...pairs.flatMap((p) => p.skills)]);
    for (const name of names) {
      const key = compare ? `${name}\u0000${modelLabel(run)}` : name;
      const g = groups.get(key) ?? { name, ...(compare ? { model: modelLabel(run) } : {}), pairs: [], runPairs: [] };
      g.pairs.push(...pairs.filter((p) => p.skills.includes(name)));
      g.runPairs.push(...pairs);
      groups.set(key, g);
    }
  }
  const analysed = [...groups.values()].map((g) => {
    const table = countsOf(g.pairs.map(outcome));
    const rest = countsOf(g.runPairs.filter((p) => !p.skills.includes(g.name)).map(outcome));
    return { g, a: analyzeTable(table, alpha), lift: retrievalMetrics(table, rest).lift };
  });
  // Holm over the skills that have a test at all (n > 0); the others stay inconclusive with p = null.
  const tested = analysed.filter((x) => x.a.pMid !== null);
  const adjusted = holm(tested.map((x) => x.a.pMid as number), alpha);
  const skills: SkillRow[] = analysed.map((x) => {
    const i = tested.indexOf(x);
    const pHolm = i >= 0 ? (adjusted.adjusted[i] ?? null) : null;
    const significant = i >= 0 && adjusted.reject[i] === true;
    const flag = significant && x.a.effect !== null ? (x.a.effect < 0 ? "harmful" : x.a.effect > 0 ? "helpful" : "inconclusive") : "inconclusive";
    return {
      name: x.g.name,
      ...(x.g.model ? { model: x.g.model } : {}),
      n: x.a.n,
      rescued: x.a.b,
      harmed: x.a.c,
      rae: estimate(x.a),
      pHolm,
      flag,
      lift: x.lift,
    };
  });

  const points = compare
    ? runs.map((run) => {
        const pairs = allPairs.filter((p) => p.run === run);
        const r = countsOf(pairs.filter((p) => p.skills.length > 0).map(outcome));
        const n = countsOf(pairs.filter((p) => p.skills.length === 0).map(outcome));
        return { label: modelLabel(run), kind: "model" as const, lift: retrievalMetrics(r, n).lift, rae: estimate(analyzeTable(r, alpha)) };
      })
    : skills.map((s) => ({ label: s.name, kind: "skill" as const, lift: s.lift, rae: s.rae }));

  const flips = (want: "rescued" | "harmed") =>
    allPairs
      .filter((p) => (want === "rescued" ? !p.disabled.verdict.pass && p.enabled.verdict.pass : p.disabled.verdict.pass && !p.enabled.verdict.pass))
      .sort((a, b) => Number(b.skills.length > 0) - Number(a.skills.length > 0) || a.taskId.localeCompare(b.taskId) || a.sample - b.sample)
      .map((p) => taskRef(p, compare ? modelLabel(p.run) : undefined));

  const notes = [...extraNotes];
  for (const run of runs) {
    if (run.header.model.id.startsWith("vscode-lm:")) {
      notes.push(`${modelLabel(run)} is a VS Code language model: its temperature cannot be set, so outcomes vary between runs; use samples > 1.`);
    }
    for (const w of run.warnings) notes.push(w);
    const unpaired = run.records.filter((r) => r.condition === "enabled").length - pairsOf(run).length;
    if (run.header.design === "paired" && unpaired > 0) notes.push(`${unpaired} enabled runs have no disabled partner yet (run incomplete).`);
    if (run.header.design === "rae-only") notes.push("RAE-only design: the disabled condition ran only where the enabled run retrieved, so OAE and lift are not available.");
  }
  if (rae.tooFewDiscordant && rae.n > 0) notes.push("Too few discordant pairs where retrieved: no result could reach significance at this size.");

  const rae_only = runs.every((r) => r.header.design === "rae-only");
  const title = compare
    ? `Model comparison: ${runs.map(modelLabel).join(", ")}`
    : runs[0]
      ? `${runs[0].header.skills.length === 1 ? runs[0].header.skills[0]!.name : `${runs[0].header.skills.length} skills`} on ${runs[0].header.taskSet.name} · ${modelLabel(runs[0])}`
      : "Skill Following report";
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
    headline: {
      rae: estimate(rae),
      oae: rae_only ? { value: null, low: null, high: null, p: null } : estimate(oae),
      lift: rae_only ? null : metrics.lift,
      nRetrieved: metrics.nCond,
      n: metrics.nPairs,
      rescued: rTable.b,
      harmed: rTable.c,
      paradox: !rae_only && metrics.paradox,
      ...(!rae_only && metrics.paradox ? { paradoxText: paradoxExplanation(metrics) ?? undefined } : {}),
    },
    points,
    skills,
    rescued: flips("rescued"),
    harmed: flips("harmed"),
    alpha,
    notes,
  };
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
      taskSetFile: run.header.taskSet.file,
      n: row?.n ?? 0,
      rescued: row?.rescued ?? 0,
      harmed: row?.harmed ?? 0,
      rae: row?.rae.value ?? null,
      low: row?.rae.low ?? null,
      high: row?.rae.high ?? null,
      pHolm: row?.pHolm ?? null,
      flag: row?.flag ?? "inconclusive",
      evaluatedAt: run.header.createdAt,
    };
  });
}
