/**
 * Runs inside code-server's extension host: evaluates a skill with a local GGUF model (the generated "chain" model,
 * which calls load_skill through node-llama-cpp's function calling), re-runs it from the cache, then asks for the
 * local default, which the test's mirror serves at the wrong size. local.test.ts asserts.
 */
import * as vscode from "vscode";
import { readFileSync } from "node:fs";
import { hostConfig, reportFacts } from "./common.js";

interface HostConfig {
  resultsFile: string;
  skillFile: string;
  taskSetFile: string;
  modelFile: string;
}

const config = hostConfig<HostConfig>();
const facts: Record<string, unknown> = {};
const steps: string[] = [];

type Outcome = { runFile: string; cancelled: boolean } | undefined;

function readRun(file: string) {
  const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  const records = lines.slice(1).filter((r) => r.type === "run") as Array<{ condition: string; modelCalls: number; cachedCalls: number; retrieved: { name: string }[]; verdict: { pass: boolean; reason: string } }>;
  return { header: lines[0] as { model: { id: string; name: string; weights?: { sha256: string; file: string } } }, records };
}

async function body(): Promise<void> {
  const uri = vscode.Uri.file(config.skillFile);
  await vscode.window.showTextDocument(uri);

  steps.push("evaluate");
  const model = `local:${config.modelFile}`;
  const first = (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.taskSetFile, model })) as Outcome;
  if (!first) throw new Error("evaluateSkill with the local model returned nothing (see the log)");
  const run = readRun(first.runFile);
  facts.evaluation = {
    cancelled: first.cancelled,
    model: run.header.model,
    records: run.records.map((r) => ({ condition: r.condition, modelCalls: r.modelCalls, retrieved: r.retrieved.map((s) => s.name), pass: r.verdict.pass, reason: r.verdict.reason })),
  };

  steps.push("re-run");
  const again = (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.taskSetFile, model })) as Outcome;
  if (!again) throw new Error("the re-run returned nothing");
  facts.rerun = readRun(again.runFile).records.map((r) => ({ modelCalls: r.modelCalls, cachedCalls: r.cachedCalls }));

  steps.push("default");
  // The mirror serves another file under the default's name: the download must be refused, and nothing evaluated.
  facts.defaultOutcome = (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.taskSetFile, model: "local:qwen2.5-coder-0.5b-instruct" })) ?? null;
}

export function run(): Promise<void> {
  return reportFacts(config.resultsFile, facts, body, steps);
}
