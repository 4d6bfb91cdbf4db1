/**
 * Runs inside code-server's extension host next to an empty probe extension, in a session where Skill Following is
 * installed the way a user installs it (not under development). It records whether VS Code enabled the extension
 * and which of its commands exist, and tries to start an evaluation; untrusted.test.ts asserts.
 */
import * as vscode from "vscode";
import { renameSync, writeFileSync } from "node:fs";

declare const __SF_HOST_CONFIG__: string;

const config = JSON.parse(__SF_HOST_CONFIG__) as { resultsFile: string; skillFile: string; taskSetFile: string };
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

export async function run(): Promise<void> {
  try {
    await body();
    facts.error = null;
  } catch (err) {
    facts.error = err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err);
  }
  const tmp = `${config.resultsFile}.tmp`;
  writeFileSync(tmp, JSON.stringify(facts, null, 2));
  renameSync(tmp, config.resultsFile);
}
