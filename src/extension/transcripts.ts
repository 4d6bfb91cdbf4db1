import * as vscode from "vscode";
import type { RunRecord } from "../core/runs/types.js";
import type { Condition } from "../shared/vocabulary/index.js";
import { TRANSCRIPT_SCHEME } from "./command-ids.js";
import type { RunFiles } from "./run-files.js";

/**
 * Read-only virtual documents of one run's transcript, opened as a diff (disabled left, enabled right) so the author
 * sees exactly where the skill changed the answer: verdict and failing test first, then the skills returned (with the
 * text the agent received), then every message.
 */
export function transcriptUri(runFile: string, taskId: string, sample: number, condition: Condition): vscode.Uri {
  const query = new URLSearchParams({ run: runFile, task: taskId, sample: String(sample), condition }).toString();
  const label = taskId.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60) || "task";
  return vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: `/${label} (${condition}).md`, query });
}

export function renderTranscript(record: RunRecord | undefined, condition: string, taskId: string): string {
  if (!record) return `# ${taskId} — ${condition}\n\n(no ${condition} run recorded for this task)\n`;
  const lines: string[] = [];
  const v = record.verdict;
  lines.push(`# ${record.taskId} — ${condition}${record.sample > 0 ? ` (sample ${record.sample})` : ""}`, "");
  lines.push(`Verdict: ${v.pass ? "PASS" : "FAIL"} — ${v.reason}`);
  if (v.failure) {
    lines.push(`Failure kind: ${v.failure.kind}`);
    if (v.failure.input !== undefined) lines.push(`Input:    ${v.failure.input}`);
    if (v.failure.expected !== undefined) lines.push(`Expected: ${v.failure.expected}`);
    if (v.failure.actual !== undefined) lines.push(`Actual:   ${v.failure.actual}`);
    if (v.failure.error !== undefined) lines.push(`Error:    ${v.failure.error}`);
  }
  if (v.expectations && v.expectations.length > 0) {
    // Skill evals: every assertion and judged expectation with its evidence, so the two sides compare line by line.
    lines.push("", "## Expectations", "");
    for (const e of v.expectations) {
      const votes = e.votes && e.votes.length > 1 ? ` (judge votes ${e.votes.map((x) => (x ? "pass" : "fail")).join(", ")})` : "";
      lines.push(`- ${e.passed ? "PASS" : "FAIL"} ${e.text} [${e.check ?? "judge"}]${votes}`, `  evidence: ${e.evidence.replace(/\s+/g, " ")}`);
    }
    lines.push("");
  }
  if (record.error) lines.push(`Run error: ${record.error}`);
  lines.push(`Model calls: ${record.modelCalls} (${record.cachedCalls} cached) · turns ${record.turns} · tokens ${record.tokens.prompt}+${record.tokens.completion}`);
  lines.push("", "## Skills returned", "");
  if (record.retrieved.length === 0) lines.push("(none)");
  for (const s of record.retrieved) lines.push(`- ${s.name} (sha256 ${s.contentHash.slice(0, 12)})`);
  for (const call of record.toolCalls) {
    lines.push(`- tool ${call.name}(${call.arguments}) → ${call.retrieved.map((r) => r.name).join(", ") || "nothing"}${call.error ? ` · error: ${call.error}` : ""}`);
  }
  if (record.filesRead?.length) {
    lines.push("", "## Skill files read", "");
    for (const f of record.filesRead) lines.push(`- ${f.skill}/${f.path}`);
  }
  lines.push("", "## Final answer", "", record.answer ?? "(no answer extracted)", "", "## Transcript", "");
  for (const m of record.transcript) {
    lines.push(`### ${m.role}${m.toolCallId ? ` (result of ${m.toolCallId})` : ""}`, "");
    if (m.content !== null) lines.push(m.content);
    for (const c of m.toolCalls ?? []) lines.push(`→ call ${c.name}(${c.arguments}) [${c.id}]`);
    lines.push("");
  }
  return lines.join("\n");
}

export class TranscriptProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly runs: RunFiles) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const runFile = q.get("run") ?? "";
    const taskId = q.get("task") ?? "";
    const sample = Number(q.get("sample") ?? "0");
    const condition = q.get("condition") === "disabled" ? "disabled" : "enabled";
    try {
      const run = await this.runs.load(runFile);
      const record = run.records.find((r) => r.taskId === taskId && r.sample === sample && r.condition === condition);
      return renderTranscript(record, condition, taskId);
    } catch (err) {
      return `Could not read ${runFile}: ${err instanceof Error ? err.message : String(err)}\n`;
    }
  }
}

export async function openTaskComparison(runFile: string, taskId: string, sample = 0): Promise<void> {
  const left = transcriptUri(runFile, taskId, sample, "disabled");
  const right = transcriptUri(runFile, taskId, sample, "enabled");
  // Beside the report, so the report (and where the reader was in it) stays in view.
  await vscode.commands.executeCommand("vscode.diff", left, right, `${taskId}: skills disabled ↔ enabled`, { preview: false, viewColumn: vscode.ViewColumn.Beside });
}

export function registerTranscripts(runs: RunFiles): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, new TranscriptProvider(runs));
}
