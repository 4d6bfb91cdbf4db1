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
import type { RunHeader, RunSummary, StopRecord } from "../runs/types.js";
import { collectPairs } from "./pairs.js";
import { costs, definitions, designMetrics, noiseFloor, repeatedBlock, skillResults, stoppingBlock, weakestSandbox } from "./parts.js";
import { REPORT_VERSION, type Evaluation, type Report } from "./schema.js";
import { attachSections, type AblationInput } from "./sections.js";
import { attachSkillEvals } from "./skill-evals.js";
import { toTable } from "./tables.js";

export interface RunInput {
  header: RunHeader;
  records: RunSummary[];
  stops?: StopRecord[];
}

export interface BuildOptions {
  alpha?: number;
  /** Decide with the exact McNemar p instead of mid-p (Holm, badges, the fail-on gate). */
  exact?: boolean;
  /** Section ablation files (issue 13): their results fill the matching skills' `sections`. */
  ablations?: readonly AblationInput[];
}

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
  const report: Report = { reportVersion: REPORT_VERSION, evaluations: [...groups.values()].map((g) => buildEvaluation(g, alpha, exact)) };
  return attachSections(report, runs, options.ablations ?? [], alpha, exact);
}

function buildEvaluation(group: readonly RunInput[], alpha: number, exact: boolean): Evaluation {
  const headers = group.map((r) => r.header);
  const last = headers[headers.length - 1]!;
  const samples = Math.max(...headers.map((h) => h.params.samples));
  const design = headers.every((h) => h.design === "paired") ? "paired" : "rae-only";
  const paired = design === "paired";
  // RAE-only with a control sample (stats-spec §8): its non-retrieved pairs estimate NRAE and test A0.
  const control = design === "rae-only" ? last.control : undefined;
  const pairs = collectPairs(group, design, control, samples);
  const { metrics, lift, retrievalRate, notRetrievedTable } = designMetrics(pairs, paired, control, alpha, exact);
  const repeated = samples > 1 ? repeatedBlock(pairs.repeatedRows, paired, alpha) : null;
  const retrievedTable = toTable(pairs.retrieved, alpha, exact);
  const evaluation: Evaluation = {
    model: last.model.name,
    taskSet: last.taskSet.name,
    mode: last.mode,
    samples,
    overall: paired ? toTable(pairs.overall, alpha, exact) : null,
    retrieved: retrievedTable,
    notRetrieved: notRetrievedTable,
    lift,
    skills: skillResults(headers, pairs, alpha, exact),
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
    tasks: { planned: pairs.taskOrder.length, complete: pairs.complete, incomplete: pairs.incompleteIds.length, incompleteIds: pairs.incompleteIds },
    metrics,
    definitions: definitions(samples, paired, control, last.mode),
    repeated,
    noise: noiseFloor(samples, repeated, notRetrievedTable, paired, retrievedTable),
    costs: costs(pairs, samples, paired, retrievalRate, control),
    stopping: stoppingBlock(headers, group.flatMap((r) => r.stops ?? []), pairs.pairedInOrder, alpha),
    pairs: pairs.pairedInOrder.map((p) => ({ taskId: p.id, outcome: p.kind, retrieved: p.retrieved })),
    taskRows: pairs.taskRows,
    judge: null,
    triggerMatrix: null,
    expectations: null,
  };
  attachSkillEvals(evaluation, headers, pairs, alpha, exact);
  return evaluation;
}
