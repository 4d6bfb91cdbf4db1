/**
 * Runs inside code-server's extension host beside a fixture extension that registers "scripted-lm", a VS Code
 * language model (vscode.lm) answering from the scripted server. It evaluates the fixture skill with
 * skillFollowing.modelProvider = vscode-lm, so the extension's vscode.lm client (messages, tools, tool calls, tool
 * results, cancellation tokens, token counts) runs against a real VS Code; lm.test.ts asserts.
 */
import * as vscode from "vscode";
import { readFileSync } from "node:fs";
import { hostConfig, reportFacts, serverCalls, setSetting, waitFor } from "./common.js";

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
  // The fixture extension registers the model as it activates, at startup: on a loaded machine that can take longer
  // than 100 tries 100 ms apart, so the wait is bounded by the module's budget instead (a hang is named).
  const models = await waitFor("the scripted-lm language model", async () => {
    const found = await vscode.lm.selectChatModels({ family: "scripted-lm" });
    return found.length > 0 ? found : undefined;
  });
  facts.models = models.map((m) => ({ id: m.id, vendor: m.vendor, family: m.family }));
  // The extension is active already (the workspace holds a SKILL.md); until it has seen the provider, an evaluation
  // would ask the OpenAI endpoint.
  const api = await vscode.extensions.getExtension<{ services: unknown }>("skill-following.skill-following")!.activate();
  await setSetting(api.services, "modelProvider", "vscode-lm");

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
  // A hang guard below the node test's 180 s: the waits have no deadlines of their own (see waitFor).
  return reportFacts(config.resultsFile, facts, body, steps, 160_000);
}
