/**
 * The one place the engine's parts are built, for both hosts (src/cli, src/extension) and for every kind of run
 * (an evaluation, an ablation, a diff): the response-cached model client, the grader, the judge's endpoint and the
 * judge itself. A host brings what only it knows (an endpoint and its key, the editor's language models, where the
 * caches are) and calls these; `test/unit/runs/factory.test.ts` checks that nothing else in src/ builds them.
 */
import type { Logger } from "../logger.js";
import type { JudgeConfig } from "../grading/judge.js";
import { createGrader, type EngineGrader } from "../grading/index.js";
import { createCachedClient } from "../models/cache.js";
import { createOpenAIClient } from "../models/openai-client.js";
import type { ModelClient } from "../models/types.js";
import type { RunSettings } from "../settings.js";
import type { PythonRuntime } from "../../shared/vocabulary/index.js";

/** Where the caches are (a WorkspaceLayout has these). */
export interface CacheDirs {
  responsesDir: string;
  expectedDir: string;
  verdictsDir: string;
}

/** A model endpoint as the engine uses it: the client (cached or not) and the model name its requests carry. */
export interface ModelEndpoint {
  client: ModelClient;
  model: string;
}

/**
 * The client every run asks: `inner` behind the response cache (re-runs are free, an edited skill re-issues only the
 * calls after it was loaded), or `inner` itself when the cache is off.
 */
export function engineClient(inner: ModelClient, options: { responseCache: boolean; dirs: Pick<CacheDirs, "responsesDir">; logger?: Logger }): ModelClient {
  return options.responseCache ? createCachedClient(inner, { dir: options.dirs.responsesDir, ...(options.logger ? { logger: options.logger } : {}) }) : inner;
}

/**
 * The grader of a run: expected outputs always cached (they are the task's), verdicts cached only with the response
 * cache (without it every answer is checked again). `python` is the sandbox runtime: the run's own for work that
 * re-checks a run's answers (ablation, `pythonRuntimeOf(header.sandbox)`).
 */
export function engineGrader(options: { dirs: Pick<CacheDirs, "expectedDir" | "verdictsDir">; responseCache: boolean; python?: PythonRuntime; logger?: Logger; distDir?: string }): EngineGrader {
  return createGrader({
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.distDir ? { distDir: options.distDir } : {}),
    cacheDir: options.dirs.expectedDir,
    ...(options.python ? { python: options.python } : {}),
    ...(options.responseCache ? { verdictCacheDir: options.dirs.verdictsDir } : {}),
  });
}

/**
 * The judge of skill evals' free-text expectations: the given endpoint (else the evaluated model's), graded
 * `repeats` times, with the run's completion cap. An ablation passes its run header's values, so its judge
 * requests are the run's.
 */
export function judgeConfig(endpoint: ModelEndpoint, options: { repeats: number; maxTokens?: number | undefined }): JudgeConfig {
  return { client: endpoint.client, model: endpoint.model, repeats: options.repeats, ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}) };
}

/**
 * The judge's OpenAI-compatible endpoint when the settings name another model or URL, or batch mode needs a
 * synchronous one (the evaluated model's client answers in batch rounds that end with the agent turns; grading
 * comes after them); undefined means the evaluated model judges. `apiKey` is the host's choice: a key meant for
 * the evaluated endpoint is only passed when the judge is on that endpoint.
 */
export function judgeEndpoint(
  settings: Pick<RunSettings, "judgeModel" | "judgeBaseUrl" | "batch" | "timeoutSeconds" | "responseCache">,
  evaluated: { baseURL?: string | undefined; model: string },
  options: { apiKey: (sameEndpoint: boolean) => string | undefined; dirs: Pick<CacheDirs, "responsesDir">; logger?: Logger; env?: NodeJS.ProcessEnv },
): ModelEndpoint | undefined {
  if (settings.judgeModel === undefined && settings.judgeBaseUrl === undefined && !settings.batch) return undefined;
  const baseURL = settings.judgeBaseUrl ?? evaluated.baseURL;
  const apiKey = options.apiKey(settings.judgeBaseUrl === undefined || settings.judgeBaseUrl === evaluated.baseURL);
  const model = settings.judgeModel ?? evaluated.model;
  const inner = createOpenAIClient({
    ...(baseURL ? { baseURL } : {}),
    ...(apiKey ? { apiKey } : {}),
    model,
    timeoutMs: settings.timeoutSeconds * 1000,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  return { client: engineClient(inner, { responseCache: settings.responseCache, dirs: options.dirs, ...(options.logger ? { logger: options.logger } : {}) }), model };
}
