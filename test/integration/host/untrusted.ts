/**
 * Runs inside code-server's extension host with workspace trust on and the workspace not trusted (restricted
 * mode). It records what the extension makes available there and whether an evaluation can start; the node test
 * (untrusted.test.ts) asserts. The workspace's own settings point the extension at the scripted server, as a
 * hostile repository's `.vscode/settings.json` could point it at any server: nothing may reach it.
 */
import * as vscode from "vscode";
import { existsSync } from "node:fs";
import { hostConfig, reportFacts, serverCalls, waitFor } from "./common.js";

interface HostConfig {
  resultsFile: string;
  skillFile: string;
  /** A SKILL.md whose name breaks the rules and differs from its folder: lint must still flag it. */
  brokenSkillFile: string;
  /** A finished run file written by the test: reading reports works without trust. */
  reportFile: string;
  taskSetFile: string;
  controlUrl: string;
  runsDir: string;
  exampleFolder: string;
  apiKey: string;
}

const config = hostConfig<HostConfig>();
const facts: Record<string, unknown> = {};

const calls = (): Promise<number> => serverCalls(config.controlUrl);

async function body(): Promise<void> {
  facts.isTrusted = vscode.workspace.isTrusted;
  const ext = vscode.extensions.getExtension("skill-following.skill-following");
  facts.extensionListed = ext !== undefined;
  facts.activeAtStart = ext?.isActive ?? false;
  const uri = vscode.Uri.file(config.skillFile);
  await vscode.window.showTextDocument(uri);
  // The folder holds a SKILL.md (activation event workspaceContains): Restricted Mode is limited, not off, so the
  // extension activates by itself. Waiting for that event (not a fixed time) means every command below meets an
  // active extension whose trust guard is in place, not the activation a command would trigger.
  facts.activeAfterOpen = await waitFor("the extension to activate in Restricted Mode", () => ext?.isActive);
  facts.commands = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith("skillFollowing."));
  // With a key stored, only the trust guard stands between these commands and the scripted server.
  facts.setKey = (await vscode.commands.executeCommand("skillFollowing.setApiKey", config.apiKey)) ?? null;
  // Every way to start an evaluation, with its arguments given so that no picker could be what stops it.
  const opts = { taskSet: config.taskSetFile, model: "scripted-model" };
  const attempts: Array<[string, unknown[]]> = [
    ["skillFollowing.evaluateSkill", [uri, opts]],
    ["skillFollowing.evaluateLibrary", [vscode.Uri.file(config.skillFile.replace(/\/[^/]+\/SKILL\.md$/, "")), opts]],
    ["skillFollowing.compareModels", [["scripted-model", "scripted-model-b"], config.taskSetFile]],
    ["skillFollowing.tryExample", [{ folder: config.exampleFolder }]],
    ["skillFollowing.findWhatHarms", [uri, {}]],
  ];
  const outcomes: Record<string, unknown> = {};
  for (const [command, args] of attempts) {
    try {
      outcomes[command] = { returned: (await vscode.commands.executeCommand(command, ...args)) ?? null };
    } catch (err) {
      outcomes[command] = { error: err instanceof Error ? err.message : String(err) };
    }
  }
  facts.outcomes = outcomes;
  facts.exampleCopied = existsSync(config.exampleFolder);

  // What works in Restricted Mode: format checks on SKILL.md, and reading a report that already exists.
  const broken = vscode.Uri.file(config.brokenSkillFile);
  await vscode.window.showTextDocument(broken);
  await waitFor("the lint's diagnostics on the broken SKILL.md", () => vscode.languages.getDiagnostics(broken).length > 0);
  facts.lintCodes = vscode.languages.getDiagnostics(broken).map((d) => String(typeof d.code === "object" ? d.code.value : d.code));
  const panel = (await vscode.commands.executeCommand("skillFollowing.openReport", [config.reportFile])) as
    | { lastRendered?: { harmed: number; rescued: number }; onDidRender(cb: (m: { harmed: number; rescued: number }) => void): { dispose(): void } }
    | undefined;
  facts.report = panel
    ? (panel.lastRendered ?? (await new Promise((resolve) => panel.onDidRender(resolve))))
    : null;
  // The round trip that shows the refused commands left nothing behind: every evaluation, Find What Harms included,
  // holds the window's one evaluation lock (EvaluationRunner) from its start to its end, and Cancel Evaluation, run
  // after them, answers whether anything holds it. false: none of them left an evaluation running.
  facts.cancelledAfter = (await vscode.commands.executeCommand("skillFollowing.cancelEvaluation")) ?? null;
  facts.calls = await calls();
  facts.runsDirExists = existsSync(config.runsDir);
}

export function run(): Promise<void> {
  // A hang guard below the node test's 120 s: waits have no deadlines of their own (see waitFor).
  return reportFacts(config.resultsFile, facts, body, undefined, 100_000);
}
