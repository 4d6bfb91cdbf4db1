import * as vscode from "vscode";
import { cpSync, existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { listModels } from "../core/models/list-models.js";
import { DEFAULT_BASE_URL } from "../core/models/openai-client.js";
import { readSkillFile } from "../core/skills/index.js";
import { COMMANDS } from "./command-ids.js";
import { CONFIG_SECTION } from "./config-schema.js";
import { needs } from "./errors-ui.js";
import { runEvaluation, requireTrust, type EvaluateOutcome } from "./evaluate-flow.js";
import { builtinTaskSet, lmModelItems, rememberModel } from "./pickers.js";
import type { Services } from "./services.js";
import { completeStep } from "./walkthrough.js";

/**
 * A first run that needs nothing: choose where model calls go (an OpenAI key, Ollama, LM Studio, any OpenAI-compatible
 * URL, or an editor language model), then Try the Example copies the shipped example skills into a folder, opens
 * the deliberately harmful one and evaluates it on a built-in task set. No download, no task file, no CLI.
 */

/** The example skill Try the Example evaluates: it harms answers with cents, so the first report shows harmed tasks. */
export const EXAMPLE_SKILL = "round-money-whole-units";

/** Writes a setting where it takes effect: the scope that already sets it, else the user's settings. */
export async function updateSetting(key: string, value: unknown): Promise<void> {
  const section = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const info = section.inspect(key);
  const target =
    info?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : info?.workspaceValue !== undefined
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
  await section.update(key, value, target);
}

/** True when the user has said where model calls go: an editor model, a base URL of their own, or an API key. */
export async function endpointConfigured(svc: Services): Promise<boolean> {
  const section = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const cfg = svc.config.get();
  if (cfg.modelProvider === "vscode-lm") return true;
  const base = section.inspect("baseUrl");
  const set = [base?.globalValue, base?.workspaceValue, base?.workspaceFolderValue].some((v) => typeof v === "string" && v.trim() !== "");
  return set || (await svc.secrets.getApiKey()) !== undefined;
}

/** The model the user's or the workspace's settings name (skillFollowing.model set in some scope), else undefined. */
export function configuredModel(svc: Services): string | undefined {
  const info = vscode.workspace.getConfiguration(CONFIG_SECTION).inspect<string>("model");
  const set = [info?.workspaceFolderValue, info?.workspaceValue, info?.globalValue].some((v) => typeof v === "string" && v.trim() !== "");
  return set ? svc.config.get().model : undefined;
}

/** One way to reach a model; `choose` sets it up and returns the model name (undefined: the user backed out). */
export interface EndpointChoice {
  id: string;
  label: string;
  description: string;
  detail: string;
  choose(svc: Services): Promise<string | undefined>;
}

/** An endpoint setup that stopped because the server wants an API key (HTTP 401/403); resumed once a key is set. */
interface PendingEndpoint {
  title: string;
  baseUrl: string;
  startHint: string;
}

const PENDING_ENDPOINT = "skillFollowing.pendingEndpoint.v1";

async function pickFromServer(svc: Services, title: string, baseUrl: string, startHint: string): Promise<string | undefined> {
  for (;;) {
    const key = (await svc.secrets.getApiKey())?.key;
    const listed = await listModels(baseUrl, key);
    svc.logger.info(`Model list of ${baseUrl}: ${listed.ok ? `${listed.models.length} models` : `none (${listed.detail})`}`);
    if (listed.ok && listed.models.length > 0) {
      const picked = await vscode.window.showQuickPick(
        listed.models.map((m) => ({ label: m })),
        { title: `${title}: model`, placeHolder: `Models ${baseUrl} serves`, ignoreFocusOut: true },
      );
      svc.logger.info(picked ? `Model picked: ${picked.label}` : "Model pick closed with no model: nothing saved");
      return picked?.label;
    }
    if (listed.ok || listed.reason === "not-a-list") {
      const typed = await vscode.window.showInputBox({ title: `${title}: model`, prompt: `${baseUrl} lists no models; type the model name it serves`, ignoreFocusOut: true });
      return typed?.trim() || undefined;
    }
    if (listed.reason === "http" && (listed.status === 401 || listed.status === 403)) {
      // Kept until the key is set: Set API Key from the palette (after this toast has gone) resumes here.
      await svc.ext.globalState.update(PENDING_ENDPOINT, { title, baseUrl, startHint } satisfies PendingEndpoint);
      const pick = await vscode.window.showWarningMessage(`${baseUrl} needs an API key (it answered HTTP ${listed.status}). Set it here or with ${COMMANDS.setApiKey.title}; this setup then continues.`, COMMANDS.setApiKey.title);
      if (pick !== COMMANDS.setApiKey.title) return undefined;
      // Set from the toast: this flow continues itself, so the key command must not resume it a second time.
      await svc.ext.globalState.update(PENDING_ENDPOINT, undefined);
      if (!(await vscode.commands.executeCommand<boolean>(COMMANDS.setApiKey.id))) return undefined;
      continue;
    }
    const retry = "Try Again";
    const pick = await vscode.window.showWarningMessage(`Nothing is listening at ${baseUrl} (${listed.detail}). ${startHint}`, retry);
    if (pick !== retry) return undefined;
  }
}

function serverChoice(id: string, label: string, url: string, startHint: string, detail: string): EndpointChoice {
  return {
    id,
    label,
    description: url,
    detail,
    async choose(svc) {
      const model = await pickFromServer(svc, label, url, startHint);
      if (!model) return undefined;
      await updateSetting("modelProvider", "openai-compatible");
      await updateSetting("baseUrl", url);
      return model;
    },
  };
}

const OPENAI_MODELS = ["gpt-4o-mini", "gpt-4.1-mini", "gpt-4o", "gpt-4.1"];

/**
 * The choices of Choose Model Endpoint…, in the order offered. Another way to reach a model (a local model file, say)
 * is one more entry here.
 */
export function endpointChoices(): EndpointChoice[] {
  return [
    {
      id: "openai",
      label: "$(key) OpenAI",
      description: DEFAULT_BASE_URL,
      detail: "Needs an API key (kept in VS Code's secret storage, never in settings or files).",
      async choose(svc) {
        if (!(await svc.secrets.getApiKey()) && !(await vscode.commands.executeCommand<boolean>(COMMANDS.setApiKey.id))) return undefined;
        if (!(await svc.secrets.getApiKey())) return undefined;
        const listed = await listModels(DEFAULT_BASE_URL, (await svc.secrets.getApiKey())?.key);
        const served = listed.ok ? listed.models.filter((m) => /^(gpt-|o\d)/.test(m)).sort() : [];
        const names = [...new Set([...OPENAI_MODELS.filter((m) => !listed.ok || served.includes(m)), ...served])];
        const picked = await vscode.window.showQuickPick(names.map((m) => ({ label: m })), { title: "OpenAI: model", ignoreFocusOut: true });
        if (!picked) return undefined;
        await updateSetting("modelProvider", "openai-compatible");
        await updateSetting("baseUrl", DEFAULT_BASE_URL);
        return picked.label;
      },
    },
    serverChoice("ollama", "$(server) Ollama", "http://127.0.0.1:11434/v1", "Start it with `ollama serve` and pull a model (`ollama pull llama3.2`).", "A local Ollama server; no key."),
    serverChoice("lmstudio", "$(server) LM Studio", "http://127.0.0.1:1234/v1", "Start LM Studio's local server (Developer tab) with a model loaded.", "LM Studio's local server; no key."),
    {
      id: "url",
      label: "$(globe) Another OpenAI-compatible server…",
      description: "vLLM, llama.cpp, OpenRouter, a gateway",
      detail: "Type its base URL (ending in /v1); its own model list is offered next.",
      async choose(svc) {
        const url = await vscode.window.showInputBox({
          title: "Base URL of the OpenAI-compatible server",
          prompt: "For example http://127.0.0.1:8000/v1",
          value: svc.config.get().baseUrl === DEFAULT_BASE_URL ? "http://127.0.0.1:8000/v1" : svc.config.get().baseUrl,
          ignoreFocusOut: true,
          validateInput: (v) => (/^https?:\/\/[^\s/]+/.test(v.trim()) ? undefined : "A URL that starts with http:// or https://"),
        });
        if (!url) return undefined;
        return serverChoice("url", "OpenAI-compatible server", url.trim().replace(/\/+$/, ""), "Check the server is running and the URL is right.", "").choose(svc);
      },
    },
    {
      id: "vscode-lm",
      label: "$(sparkle) A VS Code language model",
      description: "e.g. GitHub Copilot",
      detail: "Models an installed extension provides; no key. Their temperature cannot be set.",
      async choose() {
        const items = await lmModelItems();
        if (items.length === 0) {
          await needs("No VS Code language model is available: install and sign in to a provider such as GitHub Copilot, or choose another endpoint.", COMMANDS.chooseEndpoint.title, () =>
            vscode.commands.executeCommand(COMMANDS.chooseEndpoint.id),
          );
          return undefined;
        }
        const picked = await vscode.window.showQuickPick(items, { title: "VS Code language model", ignoreFocusOut: true });
        if (!picked) return undefined;
        await updateSetting("modelProvider", "vscode-lm");
        return picked.label;
      },
    },
  ];
}

/** Choose Model Endpoint…: where model calls go and which model; the model becomes the default. */
export async function chooseEndpoint(svc: Services, choiceId?: unknown): Promise<string | undefined> {
  const choices = endpointChoices();
  const choice =
    choices.find((c) => c.id === choiceId) ??
    (await vscode.window.showQuickPick(choices, { title: "Where should model calls go?", placeHolder: "Each task runs twice with this model: with your skills and without", ignoreFocusOut: true, matchOnDescription: true }));
  if (!choice) return undefined;
  // A new setup replaces one left waiting for a key.
  await svc.ext.globalState.update(PENDING_ENDPOINT, undefined);
  return finishEndpoint(svc, await choice.choose(svc));
}

/**
 * After Set API Key: the endpoint setup that stopped on HTTP 401/403 continues where it was (the server's model
 * list, then the settings are saved). Nothing pending: nothing happens.
 */
export async function resumePendingEndpoint(svc: Services): Promise<string | undefined> {
  const pending = svc.ext.globalState.get<PendingEndpoint>(PENDING_ENDPOINT);
  if (!pending) return undefined;
  await svc.ext.globalState.update(PENDING_ENDPOINT, undefined);
  svc.logger.info(`API key set: continuing the endpoint setup for ${pending.baseUrl}`);
  return finishEndpoint(svc, await serverChoice("resume", pending.title, pending.baseUrl, pending.startHint, "").choose(svc));
}

async function finishEndpoint(svc: Services, model: string | undefined): Promise<string | undefined> {
  if (!model) return undefined;
  await updateSetting("model", model);
  await rememberModel(svc, model);
  const cfg = svc.config.reload();
  const where = cfg.modelProvider === "vscode-lm" ? "a VS Code language model" : cfg.baseUrl;
  svc.logger.info(`Endpoint saved in the settings: ${where}, model ${model}`);
  await completeStep("endpoint");
  void vscode.window.showInformationMessage(`Model calls go to ${where}, model ${model}. Change it any time with ${COMMANDS.chooseEndpoint.title}`);
  return model;
}

/** Copies the example skills that are not there yet into `<folder>/skills`; returns the names copied and kept. */
export function copyExampleSkills(extensionPath: string, folder: string): { copied: string[]; kept: string[] } {
  const from = path.join(extensionPath, "skills");
  const to = path.join(folder, "skills");
  const copied: string[] = [];
  const kept: string[] = [];
  for (const name of readdirSync(from).sort()) {
    if (!existsSync(path.join(from, name, "SKILL.md"))) continue;
    if (existsSync(path.join(to, name))) {
      kept.push(name);
      continue;
    }
    cpSync(path.join(from, name), path.join(to, name), { recursive: true });
    copied.push(name);
  }
  return { copied, kept };
}

export interface TryExampleOptions {
  /** The folder to copy the example skills into (no folder picker). */
  folder?: string;
}

/**
 * Try the Example: endpoint first when none is configured (before any other picker), then the folder, then the copy;
 * opens the harmful example and evaluates it on the built-in math set with the configured model (asked for only
 * when the settings name none), ending on its report.
 */
export async function tryExample(svc: Services, opts: TryExampleOptions = {}): Promise<EvaluateOutcome | undefined> {
  if (!(await requireTrust())) return undefined;
  if (svc.runner.running) {
    await needs("An evaluation is already running.", "Cancel It", () => vscode.commands.executeCommand(COMMANDS.cancelEvaluation.id));
    return undefined;
  }
  // The model: the one the endpoint setup just chose, else the one the settings name (a setup that finished, or
  // resumed after Set API Key, saved it: asking again would be asking twice); only with neither is it asked for.
  let model: string | undefined;
  if (!(await endpointConfigured(svc))) {
    model = await chooseEndpoint(svc);
    if (!model) return undefined;
  } else model = configuredModel(svc);
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri;
  let folder = opts.folder;
  if (!folder) {
    const picked = await vscode.window.showOpenDialog({
      title: "Where should the example skills go? (a skills/ folder is created in it)",
      canSelectFolders: true,
      canSelectFiles: false,
      canSelectMany: false,
      openLabel: "Copy Example Skills Here",
      ...(workspace ? { defaultUri: workspace } : {}),
    });
    folder = picked?.[0]?.fsPath;
  }
  if (!folder) return undefined;
  const extensionPath = svc.ext.extensionUri.fsPath;
  const { copied } = copyExampleSkills(extensionPath, folder);
  const skillFile = path.join(folder, "skills", EXAMPLE_SKILL, "SKILL.md");
  svc.logger.info(`Try the Example: ${copied.length} example skills copied to ${path.join(folder, "skills")}; evaluating ${EXAMPLE_SKILL}`);
  await vscode.window.showTextDocument(vscode.Uri.file(skillFile), { preview: false });
  void vscode.window.showInformationMessage(
    `Copied ${copied.length} example skills to ${path.join(folder, "skills")}. Two of them, ${EXAMPLE_SKILL} and tidy-list-outputs, are harmful on purpose: the report shows how that looks.`,
  );
  const { skill, findings } = await readSkillFile(skillFile);
  if (!skill) throw new Error(`the example skill ${skillFile} does not parse: ${findings[0]?.message ?? "unknown"}`);
  const taskSet = builtinTaskSet(extensionPath, "math-word");
  if (!taskSet) throw new Error(`the built-in math task set is missing from ${path.join(extensionPath, "samples")}`);
  const outcome = await runEvaluation(svc, [skill], skill.name, { taskSet, ...(model ? { model } : {}) });
  if (outcome && !outcome.cancelled) await completeStep("example");
  return outcome;
}
