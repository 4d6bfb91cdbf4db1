import { ModelConfigError } from "../../core/errors.js";
import { isLocalEndpoint, LOCAL_DUMMY_KEY } from "../../core/models/openai-client.js";
import type { ModelClient } from "../../core/models/types.js";
import type { ClientSpec, JudgeSpec } from "../../core/runs/engine-protocol.js";
import type { RunSettings } from "../../core/settings.js";
import type { Services } from "../services.js";
import { createLmClient, selectLmModel } from "./lm-client.js";
import { isLocalModelName } from "../../core/models/local/catalog.js";
import { openLocalModelInEditor } from "./local.js";

/**
 * The evaluated model as the engine process gets it (engine-protocol.ts): an OpenAI-compatible endpoint the engine
 * calls itself (with the key, which travels over IPC only), or a client only this host can run (the editor's
 * language models, a local model loaded here), whose requests the engine sends back to be answered by `host`.
 */
export interface ResolvedModel {
  spec: ClientSpec;
  /** The client this host runs for a `host` spec, without the response cache (the engine caches). */
  host?: ModelClient;
  modelName: string;
  baseUrl?: string;
  /** Frees what the client holds (a local model's weights); call when the evaluation is over. */
  dispose?: () => Promise<void>;
}

/** The judge of skill evals as the engine process gets it; the host's client for a `host` spec. */
export interface ResolvedJudge {
  spec: JudgeSpec;
  host?: ModelClient;
}

/**
 * The model of one evaluation. The key comes from SecretStorage (or the environment) and goes only into the
 * client's Authorization header: the cache key and the run header carry the endpoint, never the key.
 */
export async function resolveModel(svc: Services, modelName: string, settings: Pick<RunSettings, "timeoutSeconds"> & { batch?: boolean }): Promise<ResolvedModel> {
  const cfg = svc.config.get();
  // A local model runs in this host whatever the provider setting says.
  if (isLocalModelName(modelName)) {
    // Said before anything is downloaded: the engine would refuse it anyway.
    if (settings.batch) throw new ModelConfigError(`${modelName} runs in-process, so it has no batch API.`, { hint: "Turn batch mode off for this model.", hintIds: ["batch"] });
    const local = await openLocalModelInEditor(svc, modelName);
    return { spec: { kind: "host", id: local.id, ...(local.weights ? { weights: local.weights } : {}) }, host: local, modelName: local.name, dispose: () => local.dispose() };
  }
  if (cfg.modelProvider === "vscode-lm") {
    const model = await selectLmModel(modelName);
    const inner = createLmClient(model, "Skill Following runs each task with and without your skills to measure their effect.");
    return { spec: { kind: "host", id: inner.id }, host: inner, modelName: model.id };
  }
  const baseUrl = cfg.baseUrl;
  const key = await svc.secrets.getApiKey();
  if (!key && !isLocalEndpoint(baseUrl)) {
    throw new ModelConfigError(`Set an API key first: ${baseUrl} needs one`, {
      hint: "Set one (it is kept in VS Code's secret storage), or point the base URL at a local server.",
      hintIds: ["apiKey", "baseUrl"],
    });
  }
  // Batch mode (skillFollowing.batch): the evaluation refuses models without a batch API (vscode-lm) with the reason.
  const spec: ClientSpec = { kind: "openai", baseURL: baseUrl, apiKey: key?.key ?? LOCAL_DUMMY_KEY, model: modelName, timeoutMs: settings.timeoutSeconds * 1000, batch: settings.batch === true };
  return { spec, modelName, baseUrl };
}

/**
 * The judge of skill evals when the settings name another model or endpoint; undefined: the evaluated model judges.
 * A judge on another endpoint gets its key from SKILL_FOLLOWING_JUDGE_API_KEY (or none, for a local server): the
 * stored key belongs to the configured endpoint and is never sent elsewhere.
 */
export async function resolveJudge(
  svc: Services,
  settings: Pick<RunSettings, "responseCache" | "timeoutSeconds" | "judgeModel" | "judgeBaseUrl">,
  evaluated: { modelName: string; baseUrl?: string },
): Promise<ResolvedJudge | undefined> {
  if (settings.judgeModel === undefined && settings.judgeBaseUrl === undefined) return undefined;
  const cfg = svc.config.get();
  if (cfg.modelProvider === "vscode-lm" && settings.judgeBaseUrl === undefined) {
    const model = await selectLmModel(settings.judgeModel ?? evaluated.modelName);
    const host = createLmClient(model, "Skill Following asks a judge model to grade each answer against the skill's own evals.");
    return { spec: { kind: "host", id: host.id, model: model.id }, host };
  }
  const baseUrl = settings.judgeBaseUrl ?? evaluated.baseUrl ?? cfg.baseUrl;
  const same = baseUrl === cfg.baseUrl && cfg.modelProvider !== "vscode-lm";
  const key = same ? (await svc.secrets.getApiKey())?.key : process.env.SKILL_FOLLOWING_JUDGE_API_KEY;
  if (!key && !isLocalEndpoint(baseUrl)) {
    throw new ModelConfigError(`The judge at ${baseUrl} needs an API key`, {
      hint: "Give the judge's key in the SKILL_FOLLOWING_JUDGE_API_KEY environment variable, or judge with the evaluated model's endpoint.",
      hintIds: ["judgeBaseUrl", "apiKey"],
    });
  }
  // Built by the core (runs/factory.ts judgeEndpoint, in the engine process); the editor's part is the key
  // (SecretStorage, or the judge's variable). The editor's judge is synchronous whatever the batch setting (as before).
  const { judgeModel, judgeBaseUrl, timeoutSeconds, responseCache } = settings;
  return {
    spec: {
      kind: "endpoint",
      settings: { ...(judgeModel !== undefined ? { judgeModel } : {}), ...(judgeBaseUrl !== undefined ? { judgeBaseUrl } : {}), timeoutSeconds, responseCache, batch: false },
      evaluated: { baseURL: evaluated.baseUrl ?? cfg.baseUrl, model: evaluated.modelName },
      apiKey: key ?? LOCAL_DUMMY_KEY,
    },
  };
}
