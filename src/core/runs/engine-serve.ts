/**
 * The engine process's side of engine-protocol.ts: waits for `start`, runs that one evaluation with the same
 * factory parts a host builds in-process (engineClient, engineGrader, judgeEndpoint), streams progress and log lines,
 * answers `cancel`, asks the host for the requests of a `host` client, and ends with `done` or `failed`.
 */
import type { Logger } from "../logger.js";
import { createOpenAIBatchClient } from "../models/batch-client.js";
import { createOpenAIClient } from "../models/openai-client.js";
import type { ChatResponse, ModelClient, ModelWeights } from "../models/types.js";
import { evaluate } from "./evaluate.js";
import { engineClient, engineGrader, judgeEndpoint, type CacheDirs, type ModelEndpoint } from "./factory.js";
import {
  errorFromWire,
  errorToWire,
  parseHostToEngine,
  type ChatTarget,
  type ClientSpec,
  type EngineToHost,
  type HostToEngine,
  type JudgeSpec,
  type LogLevel,
  type StartAblation,
  type StartEvaluation,
} from "./engine-protocol.js";
import { runAblation } from "./ablate.js";
import { CancelledError } from "../errors.js";

/** The channel to the host: process.send / process.on("message") in the engine process, a pair of queues in tests. */
export interface EngineChannel {
  send(message: EngineToHost): void;
  onMessage(listener: (message: unknown) => void): void;
}

/** A ModelClient whose requests the host answers (`chat` → `chat-result` / `chat-error`). */
class HostChats {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (r: ChatResponse) => void; reject: (e: Error) => void }>();

  constructor(private readonly channel: EngineChannel) {}

  client(id: string, target: ChatTarget, weights?: ModelWeights): ModelClient {
    return {
      id,
      ...(weights ? { weights } : {}),
      complete: (request, options) =>
        new Promise<ChatResponse>((resolve, reject) => {
          if (options.signal?.aborted) return reject(new CancelledError());
          const callId = this.next++;
          const onAbort = () => {
            this.channel.send({ type: "chat-cancel", id: callId });
            this.settle(callId, undefined, new CancelledError());
          };
          options.signal?.addEventListener("abort", onAbort, { once: true });
          this.pending.set(callId, {
            resolve: (r) => {
              options.signal?.removeEventListener("abort", onAbort);
              resolve(r);
            },
            reject: (e) => {
              options.signal?.removeEventListener("abort", onAbort);
              reject(e);
            },
          });
          this.channel.send({ type: "chat", id: callId, target, request, sampleIndex: options.sampleIndex });
        }),
    };
  }

  settle(id: number, response: ChatResponse | undefined, error: Error | undefined): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (error) p.reject(error);
    else p.resolve(response!);
  }
}

function channelLogger(channel: EngineChannel): Logger {
  const at = (level: LogLevel) => (m: string | Error) =>
    channel.send({ type: "log", level, message: m instanceof Error ? `${m.name}: ${m.message}${m.stack ? `\n${m.stack}` : ""}` : m });
  return { trace: at("trace"), debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/**
 * The evaluated model's client from its spec, behind the response cache unless the settings turn it off: an
 * OpenAI-compatible endpoint (batch mode's client when asked), or `host`, the client that answers a `host` spec's
 * requests (in the engine process: the host's, over the channel; in a host running work itself: its own client).
 */
export function engineModelClient(spec: ClientSpec, host: ModelClient | undefined, options: { responseCache: boolean; dirs: Pick<CacheDirs, "responsesDir">; logger: Logger }): ModelClient {
  const { responseCache, dirs, logger } = options;
  if (spec.kind === "host") {
    if (!host) throw new Error(`the model ${spec.id} runs in the host, and no host client was given`);
    return engineClient(host, { responseCache, dirs, logger });
  }
  const o = { baseURL: spec.baseURL, apiKey: spec.apiKey, model: spec.model, timeoutMs: spec.timeoutMs, logger, env: {} };
  const inner = spec.batch ? createOpenAIBatchClient({ ...o, ...(responseCache ? { responsesDir: dirs.responsesDir } : {}) }) : createOpenAIClient(o);
  return engineClient(inner, { responseCache, dirs, logger });
}

/** The skill-eval judge from its spec (undefined: the evaluated model judges). */
export function engineJudge(spec: JudgeSpec | undefined, host: ModelClient | undefined, options: { responseCache: boolean; dirs: Pick<CacheDirs, "responsesDir">; logger: Logger }): ModelEndpoint | undefined {
  if (!spec) return undefined;
  if (spec.kind === "host") {
    if (!host) throw new Error(`the judge ${spec.id} runs in the host, and no host client was given`);
    return { client: engineClient(host, options), model: spec.model };
  }
  return judgeEndpoint(spec.settings, spec.evaluated, { apiKey: () => spec.apiKey, dirs: options.dirs, logger: options.logger, env: {} });
}

/** Serves one evaluation over `channel`; resolves once `done` or `failed` is sent. */
export function serveEngine(channel: EngineChannel): Promise<void> {
  const chats = new HostChats(channel);
  const controller = new AbortController();
  let started: ((start: StartEvaluation | StartAblation) => void) | undefined;
  const start = new Promise<StartEvaluation | StartAblation>((resolve) => (started = resolve));
  channel.onMessage((raw) => {
    let message: HostToEngine;
    try {
      message = parseHostToEngine(raw);
    } catch (err) {
      channel.send({ type: "log", level: "error", message: err instanceof Error ? err.message : String(err) });
      return;
    }
    switch (message.type) {
      case "start":
      case "start-ablation":
        started?.(message);
        started = undefined;
        break;
      case "cancel":
        controller.abort();
        break;
      case "chat-result":
        chats.settle(message.id, message.response, undefined);
        break;
      case "chat-error":
        chats.settle(message.id, undefined, errorFromWire(message.error));
        break;
    }
  });
  return start.then(async (s) => {
    if (s.type === "start-ablation") return ablate(s, channel, chats, controller.signal);
    const logger = channelLogger(channel);
    const grader = engineGrader({ logger, distDir: s.distDir, dirs: s.dirs, python: s.settings.sandboxPython, responseCache: s.settings.responseCache });
    let last: EngineToHost;
    try {
      const parts = { responseCache: s.settings.responseCache, dirs: s.dirs, logger };
      const judge = engineJudge(s.judge, s.judge?.kind === "host" ? chats.client(s.judge.id, "judge") : undefined, parts);
      const result = await evaluate(s.settings, {
        skills: s.skills,
        taskSet: s.taskSet,
        client: engineModelClient(s.client, s.client.kind === "host" ? chats.client(s.client.id, "model", s.client.weights) : undefined, parts),
        model: s.model,
        ...(s.baseUrl ? { baseUrl: s.baseUrl } : {}),
        ...(judge ? { judge } : {}),
        grader,
        runFile: s.runFile,
        resume: s.resume,
        logger,
        harnessSearchFolders: s.harnessSearchFolders,
        signal: controller.signal,
        onProgress: (progress) => channel.send({ type: "progress", progress }),
      });
      last = { type: "done", result, cancelled: result.stopReason === "cancelled" || controller.signal.aborted };
    } catch (err) {
      last = { type: "failed", error: errorToWire(err) };
    }
    // The sandbox processes are gone before the host hears the end (it may then stop this process).
    await grader.dispose().catch((err: unknown) => logger.warn(`grader dispose: ${String(err)}`));
    channel.send(last);
  });
}

/** Find What Harms in the engine: `runAblation` with the plan the host confirmed. */
async function ablate(s: StartAblation, channel: EngineChannel, chats: HostChats, signal: AbortSignal): Promise<void> {
  const logger = channelLogger(channel);
  const grader = engineGrader({ logger, distDir: s.distDir, dirs: s.dirs, python: s.python, responseCache: s.responseCache });
  let last: EngineToHost;
  try {
    const host = s.client.kind === "host" ? chats.client(s.client.id, "model", s.client.weights) : undefined;
    const client = engineModelClient(s.client, host, { responseCache: s.responseCache, dirs: s.dirs, logger });
    const result = await runAblation(s.plan, {
      ...s.options,
      client,
      grader,
      logger,
      signal,
      onProgress: (p) => channel.send({ type: "ablation-progress", done: p.done, total: p.total }),
    });
    last = { type: "ablation-done", result };
  } catch (err) {
    last = { type: "failed", error: errorToWire(err) };
  }
  await grader.dispose().catch((err: unknown) => logger.warn(`grader dispose: ${String(err)}`));
  channel.send(last);
}
