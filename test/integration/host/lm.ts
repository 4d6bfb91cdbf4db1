/**
 * Runs inside code-server's extension host beside a fixture extension that registers "scripted-lm", a VS Code
 * language model (vscode.lm) answering from the scripted server. It evaluates the fixture skill with
 * skillFollowing.modelProvider = vscode-lm, so the extension's vscode.lm client (messages, tools, tool calls, tool
 * results, cancellation tokens, token counts) runs against a real VS Code; lm.test.ts asserts.
 */
import * as vscode from "vscode";
import { readFileSync } from "node:fs";
import { hostConfig, reportFacts, serverCalls } from "./common.js";

interface HostConfig {
  resultsFile: string;
  skillFile: string;
  taskSetFile: string;
  controlUrl: string;
}

const config = hostConfig<HostConfig>();
const facts: Record<string, unknown> = {};
const steps: string[] = [];

const calls = (): Promise<number> => serverCalls(config.controlUrl);

async function body(): Promise<void> {
  steps.push("models");
  let models: vscode.LanguageModelChat[] = [];
  for (let i = 0; i < 100 && models.length === 0; i++) {
    models = await vscode.lm.selectChatModels({ family: "scripted-lm" });
    if (models.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  facts.models = models.map((m) => ({ id: m.id, vendor: m.vendor, family: m.family }));
  await vscode.workspace.getConfiguration("skillFollowing").update("modelProvider", "vscode-lm", vscode.ConfigurationTarget.Workspace);

  steps.push("evaluate");
  const uri = vscode.Uri.file(config.skillFile);
  await vscode.window.showTextDocument(uri);
  const before = await calls();
  const outcome = (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.taskSetFile, model: "scripted-lm" })) as
    | { runFile: string; cancelled: boolean; view?: { headline: unknown; harmed: { taskId: string }[]; rescued: { taskId: string }[]; notes: string[] } }
    | undefined;
  if (!outcome) throw new Error("evaluateSkill returned nothing (see the log)");
  const header = JSON.parse(readFileSync(outcome.runFile, "utf8").split("\n")[0]!) as { model: unknown };
  facts.evaluation = {
    calls: (await calls()) - before,
    cancelled: outcome.cancelled,
    headline: outcome.view?.headline,
    harmed: outcome.view?.harmed.map((t) => t.taskId),
    rescued: outcome.view?.rescued.map((t) => t.taskId),
    notes: outcome.view?.notes,
    model: header.model,
  };

  steps.push("re-run");
  const again = await calls();
  await vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.taskSetFile, model: "scripted-lm" });
  facts.rerunCalls = (await calls()) - again;
}

export function run(): Promise<void> {
  return reportFacts(config.resultsFile, facts, body, steps);
}
