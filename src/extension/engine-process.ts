import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { Logger } from "../core/logger.js";
import type { ModelClient } from "../core/models/types.js";
import type { EvaluationProgress, EvaluationResult } from "../core/runs/evaluate.js";
import type { AblationResult } from "../core/runs/ablate.js";
import {
  errorFromWire,
  errorToWire,
  parseEngineToHost,
  type ChatTarget,
  type EngineToHost,
  type HostToEngine,
  type StartAblation,
  type StartEvaluation,
} from "../core/runs/engine-protocol.js";

/**
 * Runs one evaluation in an engine process (dist/engine-host.js, src/core/runs/engine-protocol.ts) so the model
 * calls, the sandbox and the graders never block the extension host's event loop. No `vscode` here: the host's
 * part is the clients only it can run (`hosts`), the log and the progress callback.
 */
export interface EngineRun {
  start: Omit<StartEvaluation, "type">;
  /** The clients that answer a `host` spec's requests: the evaluated model's and the judge's. */
  hosts: Partial<Record<ChatTarget, ModelClient>>;
  logger: Logger;
  signal: AbortSignal;
  onProgress: (progress: EvaluationProgress) => void;
  /** The engine bundle (default: engine-host.js in `start.distDir`). */
  script?: string;
}

export interface EngineOutcome {
  result: EvaluationResult;
  cancelled: boolean;
}

/**
 * Starts the engine, sends `start` and serves it until it sends `done` (resolves) or `failed` (rejects with the
 * error rebuilt as its class). Cancelling `signal` asks the engine to stop; it still ends with `done`, keeping the
 * finished runs. An engine that exits without either rejects with its exit code and the end of its stderr.
 */
export function runInEngineProcess(run: EngineRun): Promise<EngineOutcome> {
  return engineProcess<EngineOutcome>({ type: "start", ...run.start }, run, (message, resolve) => {
    if (message.type === "progress") run.onProgress(message.progress);
    else if (message.type === "done") resolve({ result: message.result, cancelled: message.cancelled });
  });
}

/** Find What Harms in an engine process: as runInEngineProcess, with the ablation's messages. */
export interface EngineAblation extends Omit<EngineRun, "start" | "onProgress"> {
  start: Omit<StartAblation, "type">;
  onProgress: (progress: { done: number; total: number }) => void;
}

export function runAblationInEngineProcess(run: EngineAblation): Promise<AblationResult> {
  return engineProcess<AblationResult>({ type: "start-ablation", ...run.start }, run, (message, resolve) => {
    if (message.type === "ablation-progress") run.onProgress({ done: message.done, total: message.total });
    else if (message.type === "ablation-done") resolve(message.result);
  });
}

/** The engine process of one job: serves its log, chat and failure messages; `handle` the job's own. */
function engineProcess<T>(
  start: StartEvaluation | StartAblation,
  run: Pick<EngineRun, "hosts" | "logger" | "signal" | "script">,
  handle: (message: EngineToHost, resolve: (value: T) => void) => void,
): Promise<T> {
  const script = run.script ?? path.join(start.distDir, "engine-host.js");
  const child: ChildProcess = fork(script, [], {
    // The extension host's own flags (an inspector port) are not the engine's.
    execArgv: [],
    // In VS Code desktop the extension host's executable is Electron's: run it as plain Node.
    env: { ...process.env, ELECTRON_RUN_AS_NODE: "1" },
    serialization: "advanced",
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const calls = new Map<number, AbortController>();
  // A message to an engine that has just ended is dropped (its end is reported by "close").
  const send = (message: HostToEngine) => {
    if (child.connected) child.send(message, (err: Error | null) => err && run.logger.debug(`engine process: ${message.type} not delivered (${err.message})`));
  };
  const cancel = () => send({ type: "cancel" });
  run.signal.addEventListener("abort", cancel, { once: true });

  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      run.signal.removeEventListener("abort", cancel);
      for (const c of calls.values()) c.abort();
      f();
    };
    child.on("message", (raw) => {
      let message;
      try {
        message = parseEngineToHost(raw);
      } catch (err) {
        run.logger.error(err instanceof Error ? err : String(err));
        return;
      }
      switch (message.type) {
        case "log":
          run.logger[message.level](message.message);
          break;
        case "chat": {
          const client = run.hosts[message.target];
          const { id } = message;
          if (!client) {
            send({ type: "chat-error", id, error: errorToWire(new Error(`the engine asked the host for a ${message.target} request, and the host has no such client`)) });
            break;
          }
          const controller = new AbortController();
          calls.set(id, controller);
          client
            .complete(message.request, { signal: controller.signal, sampleIndex: message.sampleIndex })
            .then(
              (response) => send({ type: "chat-result", id, response }),
              (err: unknown) => send({ type: "chat-error", id, error: errorToWire(err) }),
            )
            .finally(() => calls.delete(id));
          break;
        }
        case "chat-cancel":
          calls.get(message.id)?.abort();
          break;
        case "failed":
          finish(() => reject(errorFromWire(message.error)));
          break;
        default:
          handle(message, (value) => finish(() => resolve(value)));
      }
    });
    child.on("error", (err) => finish(() => reject(err)));
    // "close", not "exit": by then every message the engine sent has been read.
    child.on("close", (code, signal) =>
      finish(() => reject(new Error(`the evaluation's engine process (${script}) ended without a result (${signal ?? `exit code ${code}`})${stderr.trim() ? `: ${stderr.trim()}` : ""}`))),
    );
    send(start);
  });
}
