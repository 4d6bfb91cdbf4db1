/**
 * The agent picker (issue 25): Skill Following: Choose Agent… lists the built-in loop and every harness this version
 * has an adapter for, each with the version found (in the workspace's node_modules, beside the extension, or on
 * PATH) or why it cannot run; the choice is written to `skillFollowing.agent`. A status bar item beside the progress
 * shows the agent and opens the picker; the model picker's title names a harness agent too.
 */
import * as vscode from "vscode";
import { builtHarnesses, harnessAdapter } from "../core/agents/registry.js";
import { AgentIdSchema, type AgentId } from "../shared/vocabulary/index.js";
import { COMMANDS } from "./command-ids.js";
import { updateSetting } from "./first-run.js";
import type { Services } from "./services.js";

export interface AgentChoice {
  id: AgentId;
  /** The harness's version as installed; absent for builtin and for a harness not found. */
  version?: string;
  /** The file that runs (a harness found). */
  path?: string;
  /** Why a harness cannot run here (not installed), with the fix. */
  missing?: string;
}

const BUILTIN_DETAIL = "This product's loop: the skill catalog or search tools (the paper's setting).";

/** The folders a harness package is looked for in: the workspace's (then beside the extension, then PATH). */
export function searchFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
}

/** builtin, then each harness with an adapter, found or not (no hashing: a listing must be quick). */
export async function listAgents(from: readonly string[] = searchFolders()): Promise<AgentChoice[]> {
  const out: AgentChoice[] = [{ id: "builtin" }];
  for (const id of builtHarnesses()) {
    try {
      const binary = await harnessAdapter(id).locate({ from, hash: false });
      out.push({ id, version: binary.version, path: binary.path });
    } catch (err) {
      out.push({ id, missing: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

/** The status bar's and the model picker's name of an agent. */
export function agentLabel(id: AgentId): string {
  return id === "builtin" ? "built-in agent" : `agent ${id}`;
}

type AgentItem = vscode.QuickPickItem & { choice: AgentChoice };

/**
 * Choose Agent…: picks the agent and writes `skillFollowing.agent`. `choice` (an agent id) skips the list, for
 * links and tests. A harness that is not installed is not written: the warning says how to install it.
 */
export async function chooseAgent(svc: Services, choice?: unknown): Promise<AgentId | undefined> {
  const current = svc.config.get().agent;
  const agents = await listAgents();
  let picked: AgentChoice | undefined;
  if (choice !== undefined) {
    const id = AgentIdSchema.safeParse(choice);
    picked = id.success ? agents.find((a) => a.id === id.data) : undefined;
    if (!picked) {
      void vscode.window.showWarningMessage(`Unknown agent ${JSON.stringify(choice)}: choose one of ${agents.map((a) => a.id).join(", ")}.`);
      return undefined;
    }
  } else {
    const items: AgentItem[] = agents.map((a) => ({
      label: a.id,
      description: [a.id === "builtin" ? "built in" : (a.version ?? "not installed"), a.id === current ? "current" : ""].filter(Boolean).join(" · "),
      detail: a.id === "builtin" ? BUILTIN_DETAIL : (a.path ?? a.missing),
      choice: a,
    }));
    const item = await vscode.window.showQuickPick(items, { title: "Agent that runs the tasks", placeHolder: `Now: ${current}`, ignoreFocusOut: true });
    picked = item?.choice;
  }
  if (!picked) return undefined;
  if (picked.missing) {
    void vscode.window.showWarningMessage(picked.missing);
    return undefined;
  }
  await updateSetting("agent", picked.id);
  svc.config.reload();
  const what = picked.id === "builtin" ? "the built-in agent loop" : `${picked.id} ${picked.version ?? ""}`.trim();
  void vscode.window.showInformationMessage(`Evaluations now run with ${what}.`);
  return picked.id;
}

/** The status bar item that shows the agent and opens Choose Agent…; follows the setting. */
export function createAgentStatus(svc: Services): vscode.Disposable & { readonly item: vscode.StatusBarItem } {
  const item = vscode.window.createStatusBarItem("skillFollowing.agent", vscode.StatusBarAlignment.Left, 9);
  item.name = "Skill Following agent";
  item.command = COMMANDS.chooseAgent.id;
  const show = (agent: AgentId) => {
    item.text = `$(hubot) ${agent}`;
    item.tooltip = `Skill Following runs tasks with the ${agentLabel(agent)}. Click to choose another (${COMMANDS.chooseAgent.title}).`;
    item.show();
  };
  show(svc.config.get().agent);
  const sub = svc.config.onDidChange((cfg) => show(cfg.agent));
  return {
    item,
    dispose() {
      sub.dispose();
      item.dispose();
    },
  };
}
