import { ModelConfigError } from "../../core/errors.js";
import { createOpenAIBatchClient } from "../../core/models/batch-client.js";
import { createCachedClient } from "../../core/models/cache.js";
import { createOpenAIClient, isLocalEndpoint, LOCAL_DUMMY_KEY } from "../../core/models/openai-client.js";
import type { ModelClient } from "../../core/models/types.js";
import type { RunSettings } from "../../core/settings.js";
import type { Services } from "../services.js";
import { createLmClient, selectLmModel } from "./lm-client.js";
import { isLocalModelName } from "../../core/models/local/catalog.js";
import { openLocalModelInEditor } from "./local.js";

export interface ResolvedClient {
  client: ModelClient;
  modelName: string;
  baseUrl?: string;
  /** Frees what the client holds (a local model's weights); call when the evaluation is over. */
  dispose?: () => Promise<void>;
}

/**
 * The model client of one evaluation, behind the response cache unless the settings turn it off (re-runs are free;
 * an edited skill re-issues only the calls after it was loaded). The key comes from SecretStorage (or the environment) and goes
 * only into the client's Authorization header: the cache key and the run header carry the endpoint, never the key.
 */
export async function resolveClient(svc: Services, modelName: string, settings: Pick<RunSettings, "responseCache" | "timeoutSeconds"> & { batch?: boolean }): Promise<ResolvedClient> {
  const cfg = svc.config.get();
  const cached = (inner: ModelClient) => (settings.responseCache ? createCachedClient(inner, { dir: svc.layout.responsesDir, logger: svc.logger }) : inner);
  // A local model runs in-process whatever the provider setting says.
  if (isLocalModelName(modelName)) {
    // Said before anything is downloaded: the engine would refuse it anyway.
    if (settings.batch) throw new ModelConfigError(`${modelName} runs in-process, so it has no batch API.`, { hint: "Turn batch mode off for this model.", hintIds: ["batch"] });
    const local = await openLocalModelInEditor(svc, modelName);
    return { client: cached(local), modelName: local.name, dispose: () => local.dispose() };
  }
  if (cfg.modelProvider === "vscode-lm") {
    const model = await selectLmModel(modelName);
    const inner = createLmClient(model, "Skill Following runs each task with and without your skills to measure their effect.");
    return { client: cached(inner), modelName: model.id };
  }
  const baseUrl = cfg.baseUrl;
  const key = await svc.secrets.getApiKey();
  if (!key && !isLocalEndpoint(baseUrl)) {
    throw new ModelConfigError(`Set an API key first: ${baseUrl} needs one`, {
      hint: "Set one (it is kept in VS Code's secret storage), or point the base URL at a local server.",
      hintIds: ["apiKey", "baseUrl"],
    });
  }
  const options = {
    baseURL: baseUrl,
    apiKey: key?.key ?? LOCAL_DUMMY_KEY,
    model: modelName,
    timeoutMs: settings.timeoutSeconds * 1000,
    logger: svc.logger,
    env: {},
  };
  // Batch mode (skillFollowing.batch): the evaluation refuses models without a batch API (vscode-lm) with the reason.
  const inner = settings.batch ? createOpenAIBatchClient({ ...options, ...(settings.responseCache ? { responsesDir: svc.layout.responsesDir } : {}) }) : createOpenAIClient(options);
  return { client: cached(inner), modelName, baseUrl };
}
