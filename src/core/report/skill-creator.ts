/**
 * `report --format skill-creator`: the runs of skill evals in skill-creator's iteration layout, so its viewer
 * (eval-viewer/generate_review.py) and aggregate_benchmark.py read them. Per skill:
 *   <skill>/benchmark.json
 *   <skill>/eval-<id>/eval_metadata.json                    (aggregate_benchmark.py reads the eval id here)
 *   <skill>/eval-<id>/{with_skill,without_skill}/eval_metadata.json   (generate_review.py looks only in a run's
 *                                                           folder and its parent for the prompt)
 *   <skill>/eval-<id>/{with_skill,without_skill}/run-<k>/{outputs/response.md, grading.json, timing.json}
 * with_skill is the enabled condition (the library offered; the agent decides whether to load the skill),
 * without_skill the disabled one; with_skill comes first wherever runs are listed, as skill-creator lists them.
 * Timing lives in timing.json only: aggregate_benchmark.py reads tokens from timing.json only when grading.json has
 * no timing (otherwise it counts output characters as tokens). Field names follow skill-creator's
 * references/schemas.md. Folder names are an injective function of the ids (`folderNames`). Pure: returns the files
 * and notes, the host writes and logs them.
 */
import { createHash } from "node:crypto";
import type { ExpectationResult } from "../../shared/vocabulary/index.js";
import type { RunHeader, RunRecord } from "../runs/types.js";
import { evalTaskInfo } from "./skill-evals.js";

/** Whole run files: the export writes outputs and transcript sizes, which summaries do not keep. */
interface RunInput {
  header: RunHeader;
  records: RunRecord[];
}
import type { Report } from "./schema.js";

export interface ExportFile {
  /** Relative to the export folder, with forward slashes. */
  path: string;
  text: string;
}

const CONFIG = { enabled: "with_skill", disabled: "without_skill" } as const;
/** with_skill first, as skill-creator lists and compares runs (its delta is the first configuration minus the second). */
const CONDITION_ORDER = { enabled: 0, disabled: 1 } as const;

const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

function stats(values: readonly number[]): { mean: number; stddev: number; min: number; max: number } {
  if (values.length === 0) return { mean: 0, stddev: 0, min: 0, max: 0 };
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const variance = values.length > 1 ? values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1) : 0;
  return { mean: round(mean), stddev: round(Math.sqrt(variance)), min: round(Math.min(...values)), max: round(Math.max(...values)) };
}

/**
 * `x` with a sign and `digits` decimals as Python's `f"{x:+.{digits}f}"` writes it (aggregate_benchmark.py's deltas):
 * an exact tie rounds to even (620.5 → "+620"), where `toFixed` rounds it up.
 */
export function signedText(x: number, digits: number): string {
  const up = Math.abs(x).toFixed(digits);
  // toFixed(100) is the exact decimal value of the double whenever a tie at `digits` is possible.
  const exact = Math.abs(x).toFixed(100);
  const fraction = exact.slice(exact.indexOf(".") + 1);
  let text = up;
  if (fraction[digits] === "5" && /^0*$/.test(fraction.slice(digits + 1))) {
    const down = exact.slice(0, exact.indexOf(".") + (digits > 0 ? digits + 1 : 0));
    text = Number(down.replace(".", "").slice(-1)) % 2 === 0 ? down : up;
  }
  return `${x < 0 ? "-" : "+"}${text}`;
}

/** A folder-safe id (may map several ids to one name: see folderNames). */
const slug = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^[-.]+|-+$/g, "") || "eval";

const shortHash = (s: string, length: number) => createHash("sha256").update(s).digest("hex").slice(0, length);

/**
 * Folder names for ids, injective even on case-insensitive file systems: an id that is already folder-safe keeps its
 * name; one that sanitising changed (`a b` → `a-b`), or that differs only in case from one already named, gets a
 * suffix from the sha256 of the id (`a-b-3f2c9e1a`), lengthened until no two names collide. Each renamed id gets a
 * note, so the change is visible, never silent.
 */
export function folderNames(ids: readonly string[], what: string): { names: Map<string, string>; notes: string[] } {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const notes: string[] = [];
  const unique = [...new Set(ids)];
  // Ids that are folder-safe as they are claim their names first, so a renamed id never takes one of theirs.
  const plain = unique.filter((id) => slug(id) === id);
  const renamed = unique.filter((id) => slug(id) !== id);
  for (const id of plain) {
    if (taken.has(id.toLowerCase())) {
      renamed.push(id);
      continue;
    }
    names.set(id, id);
    taken.add(id.toLowerCase());
  }
  for (const id of renamed) {
    let length = 8;
    let name = `${slug(id)}-${shortHash(id, length)}`;
    while (taken.has(name.toLowerCase()) && length < 64) name = `${slug(id)}-${shortHash(id, (length += 4))}`;
    names.set(id, name);
    taken.add(name.toLowerCase());
    notes.push(`${what} ${JSON.stringify(id)} is written as folder "${name}" (${slug(id) === id ? "its name differs from another's only in case" : "not folder-safe as it is"}; the suffix is from its sha256, so no two ${what}s share a folder)`);
  }
  return { names, notes };
}

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

interface EvalEntry {
  owner: string;
  evalKey: string;
  evalId: number;
  evalName: string;
  records: RunRecord[];
}

const seconds = (r: RunRecord) => round(r.latencyMs / 1000, 1);

function grading(r: RunRecord, expectations: readonly ExpectationResult[]) {
  const passed = expectations.filter((e) => e.passed).length;
  const toolCounts: Record<string, number> = {};
  for (const c of r.toolCalls) toolCounts[c.name] = (toolCounts[c.name] ?? 0) + 1;
  const output = r.answer ?? "";
  return {
    expectations: expectations.map((e) => ({ text: e.text, passed: e.passed, evidence: e.evidence })),
    summary: { passed, failed: expectations.length - passed, total: expectations.length, pass_rate: expectations.length ? round(passed / expectations.length, 2) : 0 },
    execution_metrics: {
      tool_calls: toolCounts,
      total_tool_calls: r.toolCalls.length,
      total_steps: r.turns,
      errors_encountered: r.toolCalls.filter((c) => c.error).length + (r.error ? 1 : 0),
      output_chars: output.length,
      transcript_chars: r.transcript.reduce((s, m) => s + (m.content?.length ?? 0), 0),
    },
    claims: [],
    user_notes_summary: { uncertainties: [], needs_review: [], workarounds: [...(r.error ? [r.error] : []), ...(r.filesRead ?? []).map((f) => `read ${f.skill}/${f.path}`)] },
  };
}

export interface SkillCreatorExport {
  files: ExportFile[];
  /** Ids written under another folder name (sanitised or disambiguated): for the log and benchmark.json notes. */
  notes: string[];
}

/** Every file of the export. Evaluations with skill evals each get a folder when there are several. */
export function skillCreatorExport(runs: readonly RunInput[], report: Report): SkillCreatorExport {
  const groups = new Map<string, RunInput[]>();
  for (const run of runs) {
    const h = run.header;
    const key = `${h.model.id}\u0000${h.taskSet.hash}\u0000${h.mode}`;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  const withEvals = [...groups.values()].filter((g) => g.some((r) => (r.header.evalTasks ?? []).length > 0));
  const notes: string[] = [];
  const files = withEvals.flatMap((group, i) => {
    const prefix = withEvals.length > 1 ? `${slug(group[group.length - 1]!.header.model.name)}-${i + 1}/` : "";
    const evaluation = report.evaluations.find((e) => e.runIds.includes(group[0]!.header.runId));
    const out = exportGroup(group, evaluation);
    notes.push(...out.notes.map((n) => (prefix ? `${prefix}: ${n}` : n)));
    return out.files.map((f) => ({ ...f, path: prefix + f.path }));
  });
  return { files, notes };
}

function exportGroup(group: readonly RunInput[], evaluation: Report["evaluations"][number] | undefined): SkillCreatorExport {
  const headers = group.map((r) => r.header);
  const last = headers[headers.length - 1]!;
  const info = evalTaskInfo(headers);
  const byKey = new Map<string, RunRecord>();
  for (const run of group) for (const r of run.records) byKey.set(r.key, r);
  const entries = new Map<string, EvalEntry>();
  const perOwner = new Map<string, number>();
  for (const id of headers.flatMap((h) => h.taskIds)) {
    const t = info.get(id);
    if (!t || t.triggerOnly || entries.has(id)) continue;
    const local = id.startsWith(`${t.owner}/`) ? id.slice(t.owner.length + 1) : id;
    const index = (perOwner.get(t.owner) ?? 0) + 1;
    perOwner.set(t.owner, index);
    const numeric = /^\d+$/.test(local) ? Number(local) : index;
    entries.set(id, { owner: t.owner, evalKey: local, evalId: numeric, evalName: local, records: [] });
  }
  for (const r of byKey.values()) entries.get(r.taskId)?.records.push(r);
  const files: ExportFile[] = [];
  const byOwner = new Map<string, EvalEntry[]>();
  for (const e of entries.values()) byOwner.set(e.owner, [...(byOwner.get(e.owner) ?? []), e]);
  const skillFolders = folderNames([...byOwner.keys()], "skill");
  const notes = [...skillFolders.notes];
  for (const [owner, evals] of byOwner) {
    const ownerDir = skillFolders.names.get(owner)!;
    const evalFolders = folderNames(evals.map((e) => e.evalKey), `${owner} eval id`);
    notes.push(...evalFolders.notes);
    const runsOut: Array<Record<string, unknown> & { configuration: string; result: { pass_rate: number; time_seconds: number; tokens: number } & Record<string, number> }> = [];
    for (const e of evals) {
      const dir = `${ownerDir}/eval-${evalFolders.names.get(e.evalKey)!}`;
      const first = e.records[0];
      const prompt = first?.transcript.find((m) => m.role === "user")?.content ?? "";
      const texts = (first?.verdict.expectations ?? []).map((x) => x.text);
      const metadata = json({ eval_id: e.evalId, eval_name: e.evalName, prompt, assertions: texts });
      files.push({ path: `${dir}/eval_metadata.json`, text: metadata });
      for (const configuration of new Set(e.records.map((r) => CONFIG[r.condition]))) files.push({ path: `${dir}/${configuration}/eval_metadata.json`, text: metadata });
      for (const r of [...e.records].sort((a, b) => CONDITION_ORDER[a.condition] - CONDITION_ORDER[b.condition] || a.sample - b.sample)) {
        const configuration = CONFIG[r.condition];
        const runDir = `${dir}/${configuration}/run-${r.sample + 1}`;
        const expectations = r.verdict.expectations ?? [];
        const g = grading(r, expectations);
        const tokens = r.tokens.prompt + r.tokens.completion;
        files.push({ path: `${runDir}/outputs/response.md`, text: r.answer ?? "" });
        files.push({ path: `${runDir}/grading.json`, text: json(g) });
        files.push({ path: `${runDir}/timing.json`, text: json({ total_tokens: tokens, duration_ms: Math.round(r.latencyMs), total_duration_seconds: seconds(r) }) });
        runsOut.push({
          eval_id: e.evalId,
          eval_name: e.evalName,
          configuration,
          run_number: r.sample + 1,
          result: { pass_rate: g.summary.pass_rate, passed: g.summary.passed, failed: g.summary.failed, total: g.summary.total, time_seconds: seconds(r), tokens, tool_calls: r.toolCalls.length, errors: g.execution_metrics.errors_encountered },
          expectations: g.expectations,
          notes: g.user_notes_summary.workarounds,
        });
      }
    }
    const summary = (config: string) => {
      const rs = runsOut.filter((r) => r.configuration === config);
      return { pass_rate: stats(rs.map((r) => r.result.pass_rate)), time_seconds: stats(rs.map((r) => r.result.time_seconds)), tokens: stats(rs.map((r) => r.result.tokens)) };
    };
    const w = summary("with_skill");
    const wo = summary("without_skill");
    const skill = evaluation?.skills.find((s) => s.name === owner);
    const skillFile = last.skills.find((s) => s.name === owner)?.file;
    files.push({
      path: `${ownerDir}/benchmark.json`,
      text: json({
        metadata: {
          skill_name: owner,
          skill_path: skillFile ? skillFile.replace(/[\\/]SKILL\.md$/, "") : "",
          executor_model: last.model.name,
          analyzer_model: last.judge?.model ?? "",
          timestamp: last.createdAt,
          evals_run: evals.map((e) => e.evalId),
          runs_per_configuration: last.params.samples,
        },
        runs: runsOut,
        run_summary: {
          with_skill: w,
          without_skill: wo,
          delta: {
            pass_rate: signedText(w.pass_rate.mean - wo.pass_rate.mean, 2),
            time_seconds: signedText(w.time_seconds.mean - wo.time_seconds.mean, 1),
            tokens: signedText(w.tokens.mean - wo.tokens.mean, 0),
          },
        },
        notes: [...benchmarkNotes(skill), ...evalFolders.notes],
      }),
    });
  }
  return { files, notes };
}

/** What Skill Following adds to skill-creator's notes: the skill was offered, not forced, and what that did. */
function benchmarkNotes(skill: Report["evaluations"][number]["skills"][number] | undefined): string[] {
  const notes = ["with_skill offers the skill library and lets the agent decide whether to load this skill; without_skill offers none (Skill Following's paired design)."];
  if (!skill?.trigger) return notes;
  const t = skill.trigger;
  notes.push(`Trigger recall on its own evals: ${t.ownEvals.loaded}/${t.ownEvals.n} enabled runs loaded the skill; near misses loaded: ${t.nearMiss.loaded}/${t.nearMiss.n}; other skills' evals loaded: ${t.otherEvals.loaded}/${t.otherEvals.n}.`);
  const o = skill.ownEvals;
  if (o && o.n > 0) notes.push(`On its own evals where it was loaded (n = ${o.n}): rescued ${o.rescued}, harmed ${o.harmed}, RAE ${o.effect === null ? "n/a" : o.effect.toFixed(3)}${o.pMid === null ? "" : `, McNemar mid-p ${o.pMid.toFixed(4)}`}.`);
  return notes;
}
