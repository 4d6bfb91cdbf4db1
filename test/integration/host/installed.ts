/**
 * Runs inside code-server's extension host next to an empty probe extension, in a session where Skill Following is
 * installed the way a user installs it (not under development). It records whether VS Code enabled the extension
 * and which of its commands exist, and tries to start an evaluation; untrusted.test.ts asserts.
 */
import * as vscode from "vscode";
import { hostConfig, reportFacts } from "./common.js";

const config = hostConfig<{ resultsFile: string; skillFile: string; taskSetFile: string }>();
const facts: Record<string, unknown> = {};

async function body(): Promise<void> {
  facts.isTrusted = vscode.workspace.isTrusted;
  const ext = vscode.extensions.getExtension("skill-following.skill-following");
  facts.listed = ext !== undefined;
  try {
    await ext?.activate();
  } catch (err) {
    facts.activateError = err instanceof Error ? err.message : String(err);
  }
  facts.active = ext?.isActive ?? false;
  facts.commands = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith("skillFollowing."));
  const uri = vscode.Uri.file(config.skillFile);
  await vscode.window.showTextDocument(uri);
  try {
    facts.evaluate = { returned: (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.taskSetFile, model: "scripted-model" })) ?? null };
  } catch (err) {
    facts.evaluate = { error: err instanceof Error ? err.message : String(err) };
  }
}

export function run(): Promise<void> {
  return reportFacts(config.resultsFile, facts, body);
}
