/**
 * The protocol between a host (the VS Code extension) and the engine process it starts (dist/engine-host.js,
 * src/core/runs/engine-host-entry.ts): one module both ends import, so a message either side sends is one the other
 * knows. The channel is Node's IPC with structured-clone serialization (`fork(…, { serialization: "advanced" })`):
 * task sets carry values JSON cannot (integers beyond 2^53, Infinity), and clone keeps them exactly.
 *
 * One engine process runs one evaluation: the host sends `start`, the engine answers with `progress` and `log`
 * while it runs and ends with exactly one `done` or `failed` (Find What Harms: `start-ablation`, then
 * `ablation-progress`, and `ablation-done` or `failed`). `cancel` stops it (finished runs are kept). A model
 * the engine cannot reach itself (the editor's language models, a local model loaded in the host) is a `host`
 * client: each request goes to the host as `chat` and comes back as `chat-result` or `chat-error`. Errors cross in
 * both directions as a `kind` (the class name) and the fields the class carries, never as text to be matched, and
 * are rebuilt as instances of that class on the other side.
 *
 * An API key travels only inside `start` (the IPC channel): never in argv, a file, or the engine's log lines.
 */
import { z } from "zod";
import {
  CancelledError,
  EndpointUnreachableError,
  InputError,
  JudgeError,
  ModelConfigError,
  ModelRequestError,
  NoModelError,
  ResumeMismatchError,
  SkillFollowingError,
  type ErrorOptions,
  type HintId,
} from "../errors.js";
import { HarnessError } from "../agents/types.js";
import { ModelDownloadError } from "../models/local/download.js";
import type { ChatRequest, ChatResponse, ModelWeights } from "../models/types.js";
import type { RunSettings } from "../settings.js";
import type { Skill } from "../skills/types.js";
import { DownloadError } from "../tasks/download.js";
import type { TaskSet } from "../tasks/schema.js";
import type { EvaluationProgress } from "./progress.js";
import type { CacheDirs } from "./factory.js";
import type { EvaluationResult } from "./evaluate.js";
import type { AblateOptions, AblationPlan, AblationResult } from "./ablate.js";
import type { PythonRuntime } from "../../shared/vocabulary/index.js";

/** How the engine gets the evaluated model: an OpenAI-compatible endpoint it calls itself, or the host's client. */
export type ClientSpec =
  | {
      kind: "openai";
      baseURL: string;
      /** The key (or the local servers' placeholder): from SecretStorage or the environment, sent over IPC only. */
      apiKey: string;
      model: string;
      timeoutMs: number;
      /** Batch mode's client (the provider's batch API). */
      batch: boolean;
    }
  /**
   * The host answers each request (`chat` messages); `id` is the host client's id (part of the cache key), `weights`
   * the file a model run in the host answers from (recorded in the run header).
   */
  | { kind: "host"; id: string; weights?: ModelWeights };

/** The skill-eval judge when it is not the evaluated model. */
export type JudgeSpec =
  | {
      kind: "endpoint";
      settings: Pick<RunSettings, "judgeModel" | "judgeBaseUrl" | "batch" | "timeoutSeconds" | "responseCache">;
      evaluated: { baseURL?: string; model: string };
      apiKey: string;
    }
  | { kind: "host"; id: string; model: string };

/** Everything `evaluate()` takes, as data. */
export interface StartEvaluation {
  type: "start";
  settings: RunSettings;
  skills: Skill[];
  taskSet: TaskSet;
  client: ClientSpec;
  /** The model name sent in requests. */
  model: string;
  baseUrl?: string;
  judge?: JudgeSpec;
  runFile: string;
  resume: boolean;
  dirs: CacheDirs;
  /** Where dist/sandbox-worker.js and dist/pyodide are (the engine's own folder). */
  distDir: string;
  harnessSearchFolders: string[];
}

/**
 * Find What Harms (ablate.ts): the plan the host made and confirmed, and the options of `runAblation` as data; the
 * engine builds the client (the run's model), the grader (the run's sandbox runtime) and the judge (the run's model).
 */
export interface StartAblation {
  type: "start-ablation";
  plan: AblationPlan;
  options: Omit<AblateOptions, "client" | "grader" | "judge" | "logger" | "signal" | "onProgress" | "onRecord">;
  client: ClientSpec;
  python: PythonRuntime;
  responseCache: boolean;
  dirs: CacheDirs;
  distDir: string;
}

/** An error as it crosses the channel: its class by name, its text and the fields the class carries. */
export interface WireError {
  kind: ErrorKind;
  message: string;
  options?: { hint?: string; hintIds?: HintId[]; file?: string; line?: number };
  status?: number;
  endpoint?: string;
  stack?: string;
}

export type ChatTarget = "model" | "judge";

export type HostToEngine =
  | StartEvaluation
  | StartAblation
  | { type: "cancel" }
  | { type: "chat-result"; id: number; response: ChatResponse }
  | { type: "chat-error"; id: number; error: WireError };

export type EngineToHost =
  | { type: "progress"; progress: EvaluationProgress }
  | { type: "log"; level: LogLevel; message: string }
  | { type: "chat"; id: number; target: ChatTarget; request: ChatRequest; sampleIndex: number }
  | { type: "chat-cancel"; id: number }
  | { type: "done"; result: EvaluationResult; cancelled: boolean }
  | { type: "ablation-progress"; done: number; total: number }
  | { type: "ablation-done"; result: AblationResult }
  | { type: "failed"; error: WireError };

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The error classes that cross the channel. A class not listed crosses as "Error" (its name kept in the message);
 * hosts decide on these classes (`instanceof`), so every class a host or the engine tests for is here.
 */
const ERROR_CLASSES = {
  SkillFollowingError,
  InputError,
  ResumeMismatchError,
  ModelConfigError,
  NoModelError,
  ModelRequestError,
  EndpointUnreachableError,
  CancelledError,
  JudgeError,
  HarnessError,
  DownloadError,
  ModelDownloadError,
} as const;
export type ErrorKind = keyof typeof ERROR_CLASSES | "Error";
const ERROR_KINDS = ["Error", ...Object.keys(ERROR_CLASSES)] as [ErrorKind, ...ErrorKind[]];

export function errorToWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { kind: "Error", message: String(err) };
  const kind = (Object.keys(ERROR_CLASSES) as (keyof typeof ERROR_CLASSES)[]).find((k) => err.constructor === ERROR_CLASSES[k]);
  const wire: WireError = { kind: kind ?? "Error", message: kind || err.name === "Error" ? err.message : `${err.name}: ${err.message}`, ...(err.stack ? { stack: err.stack } : {}) };
  if (err instanceof SkillFollowingError) {
    const o = err.options;
    wire.options = {
      ...(o.hint !== undefined ? { hint: o.hint } : {}),
      ...(o.hintIds ? { hintIds: [...o.hintIds] } : {}),
      ...(o.file !== undefined ? { file: o.file } : {}),
      ...(o.line !== undefined ? { line: o.line } : {}),
    };
  }
  if (err instanceof ModelRequestError && err.status !== undefined) wire.status = err.status;
  if (err instanceof EndpointUnreachableError) wire.endpoint = err.endpoint;
  return wire;
}

/** The error `wire` describes, as an instance of its class (so `instanceof` decides on the other side too). */
export function errorFromWire(wire: WireError): Error {
  const options: ErrorOptions = { ...wire.options };
  let err: Error;
  switch (wire.kind) {
    case "Error":
      err = new Error(wire.message);
      break;
    case "CancelledError":
      err = new CancelledError(wire.message);
      break;
    case "ModelRequestError":
      err = new ModelRequestError(wire.message, wire.status, options);
      break;
    case "EndpointUnreachableError":
      err = new EndpointUnreachableError(wire.message, wire.endpoint ?? "", options);
      break;
    default:
      err = new ERROR_CLASSES[wire.kind](wire.message, options);
  }
  if (wire.stack) err.stack = wire.stack;
  return err;
}

/**
 * The envelope of every message, checked on arrival: a message of an unknown type or without the fields its type
 * routes on is refused with its type named (the payloads are the engine's own types, made by the other end's build).
 */
const WireErrorSchema = z.object({ kind: z.enum(ERROR_KINDS), message: z.string() }).passthrough();
const HostToEngineSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("start"), settings: z.object({}).passthrough(), skills: z.array(z.object({ name: z.string(), file: z.string() }).passthrough()), taskSet: z.object({ name: z.string(), tasks: z.array(z.unknown()) }).passthrough(), client: z.object({ kind: z.enum(["openai", "host"]) }).passthrough(), model: z.string(), runFile: z.string(), resume: z.boolean(), dirs: z.object({ responsesDir: z.string(), expectedDir: z.string(), verdictsDir: z.string() }), distDir: z.string(), harnessSearchFolders: z.array(z.string()) }).passthrough(),
  z.object({ type: z.literal("start-ablation"), plan: z.object({ file: z.string(), header: z.object({}).passthrough(), existing: z.array(z.unknown()) }).passthrough(), options: z.object({ run: z.object({ file: z.string() }).passthrough(), skills: z.array(z.unknown()), skillName: z.string(), skillText: z.string(), taskSet: z.object({ tasks: z.array(z.unknown()) }).passthrough(), resume: z.boolean() }).passthrough(), client: z.object({ kind: z.enum(["openai", "host"]) }).passthrough(), python: z.string(), responseCache: z.boolean(), dirs: z.object({ responsesDir: z.string(), expectedDir: z.string(), verdictsDir: z.string() }), distDir: z.string() }),
  z.object({ type: z.literal("cancel") }),
  z.object({ type: z.literal("chat-result"), id: z.number().int(), response: z.object({ toolCalls: z.array(z.unknown()) }).passthrough() }),
  z.object({ type: z.literal("chat-error"), id: z.number().int(), error: WireErrorSchema }),
]);
const EngineToHostSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("progress"), progress: z.object({ done: z.number(), total: z.number() }).passthrough() }),
  z.object({ type: z.literal("log"), level: z.enum(LOG_LEVELS), message: z.string() }),
  z.object({ type: z.literal("chat"), id: z.number().int(), target: z.enum(["model", "judge"]), request: z.object({ messages: z.array(z.unknown()) }).passthrough(), sampleIndex: z.number().int() }),
  z.object({ type: z.literal("chat-cancel"), id: z.number().int() }),
  z.object({ type: z.literal("done"), result: z.object({ runFile: z.string(), records: z.array(z.unknown()) }).passthrough(), cancelled: z.boolean() }),
  z.object({ type: z.literal("failed"), error: WireErrorSchema }),
  z.object({ type: z.literal("ablation-progress"), done: z.number(), total: z.number() }),
  z.object({ type: z.literal("ablation-done"), result: z.object({ file: z.string(), records: z.array(z.unknown()), failedRuns: z.number() }).passthrough() }),
]);

function check<T>(schema: z.ZodTypeAny, side: string, message: unknown): T {
  const r = schema.safeParse(message);
  if (!r.success) {
    const type = message && typeof message === "object" && "type" in message ? JSON.stringify(message.type) : "(none)";
    throw new Error(`engine protocol: a message to the ${side} of type ${type} is malformed: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  }
  // The envelope is checked; the payloads (clones of the other end's own values) pass through unchanged.
  return message as T;
}

export const parseHostToEngine = (message: unknown): HostToEngine => check<HostToEngine>(HostToEngineSchema, "engine", message);
export const parseEngineToHost = (message: unknown): EngineToHost => check<EngineToHost>(EngineToHostSchema, "host", message);
