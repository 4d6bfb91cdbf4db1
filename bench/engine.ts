/** Drives the real engine (evaluate + OpenAI client + cache + grader) against a scripted server, for benchmarks. */
import path from "node:path";
import { createGrader } from "../src/core/grading/index.js";
import { createCachedClient } from "../src/core/models/cache.js";
import { createOpenAIClient } from "../src/core/models/openai-client.js";
import { evaluate, type EvaluationResult } from "../src/core/runs/evaluate.js";
import type { ChatRequest, ModelClient } from "../src/core/models/types.js";
import type { Design, RetrievalMode } from "../src/shared/vocabulary/index.js";
import { scanSkills } from "../src/core/skills/index.js";
import type { TaskSet } from "../src/core/tasks/schema.js";

export const BENCH_KEY = "sk-bench-not-a-real-key";

export interface EngineRun {
  baseUrl: string;
  skillsDir: string;
  taskSet: TaskSet;
  runFile: string;
  /** Response cache folder; absent = no cache (every call goes to the server). */
  cacheDir?: string;
  design?: Design;
  mode?: RetrievalMode;
  concurrency: number;
  /** Sees each request the engine sends to the client (the overhead benchmark replays them with a bare client). */
  observe?: (request: ChatRequest) => void;
}

export async function runEngine(options: EngineRun): Promise<EvaluationResult> {
  const scan = await scanSkills([options.skillsDir]);
  const problems = scan.findings.filter((f) => f.severity === "error");
  if (problems.length) throw new Error(`bench skills: ${problems.map((f) => f.message).join("; ")}`);
  const sdkClient = createOpenAIClient({ baseURL: options.baseUrl, apiKey: BENCH_KEY, model: "scripted-model", timeoutMs: 60_000 });
  const { observe } = options;
  const inner: ModelClient = observe
    ? {
        id: sdkClient.id,
        complete: (request, callOptions) => {
          observe(request);
          return sdkClient.complete(request, callOptions);
        },
      }
    : sdkClient;
  const client = options.cacheDir ? createCachedClient(inner, { dir: path.join(options.cacheDir, "responses") }) : inner;
  const grader = createGrader({});
  try {
    return await evaluate(
      { mode: options.mode ?? "catalog", design: options.design ?? "paired", concurrency: options.concurrency },
      { skills: scan.skills, taskSet: options.taskSet, client, model: "scripted-model", baseUrl: options.baseUrl, grader, runFile: options.runFile, resume: false },
    );
  } finally {
    await grader.dispose();
  }
}
