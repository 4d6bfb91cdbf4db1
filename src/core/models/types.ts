import type { BatchProgress } from "../../shared/progress.js";
import type { Logger } from "../logger.js";

/**
 * The model seam. The engine only talks to `ModelClient`; implementations: the OpenAI-compatible client
 * (package `openai`), a local GGUF model in-process (local/, node-llama-cpp), the response cache wrapper, and VS
 * Code's language model API in the extension.
 * Messages use the OpenAI chat shape because every supported endpoint speaks it.
 */

export interface ToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model produced; may be invalid JSON (the agent loop reports that to the model). */
  arguments: string;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; content: string };

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface SamplingParams {
  temperature?: number;
  topP?: number;
  seed?: number;
  maxTokens?: number;
}

export interface ChatRequest extends SamplingParams {
  model: string;
  messages: ChatMessage[];
  /** Absent (not empty) in the disabled condition: the request then carries no `tools` at all. */
  tools?: ToolDefinition[];
  /** Structured output (the skill-eval judge): the answer must be JSON of this schema. */
  responseFormat?: { type: "json_schema"; json_schema: { name: string; strict?: boolean; schema: Record<string, unknown> } };
}

export interface ChatResponse {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage: { promptTokens: number; completionTokens: number };
  /** Wall time of the (last, successful) HTTP exchange; 0 for a cache hit. */
  latencyMs: number;
  /** True when served from the response cache. */
  cached?: boolean;
  /** HTTP attempts this answer took (1 = no retry); absent when not applicable (cache hit, other clients). */
  attempts?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Distinguishes repeated samples of the same request (part of the cache key). */
  sampleIndex: number;
  /**
   * Extra cache-key material (a harness and its version, src/core/agents): the same request asked by another
   * harness is another cache entry. Never sent to the endpoint. Absent: the key is exactly as before.
   */
  cacheScope?: string;
  /**
   * The request the response cache keys on, when it differs from the one sent: a harness's request with its
   * day-dependent text (today's date) in a fixed form, so an unchanged run on another day is still a cache hit.
   * Never sent. Absent: the key is the request sent.
   */
  cacheKeyRequest?: ChatRequest;
  /** Whether an answer is usable (the judge: a valid grading); a cache keeps only usable answers. */
  accept?: (response: ChatResponse) => boolean;
}

/** The weights an in-process model runs (local GGUF models); recorded in the run header. */
export interface ModelWeights {
  file: string;
  sha256: string;
  bytes: number;
}

export interface ModelClient {
  /** A stable description for run headers, e.g. `openai-compatible:gpt-4o-mini@http://…/v1`. Never contains a key. */
  readonly id: string;
  /** Set by clients that run a model file themselves: which file, by hash. */
  readonly weights?: ModelWeights;
  complete(request: ChatRequest, options: CallOptions): Promise<ChatResponse>;
  /** Present when calls go through a provider's batch API (batch mode): the engine tells it when runs start and end. */
  readonly batch?: BatchGate;
}

/** One batch job as the provider last reported it: for progress (the shared progress line shows it). */
export type BatchStatus = BatchProgress;

export interface BatchSessionOptions {
  /** Where the batch ids of this evaluation are recorded, so a restart re-attaches to batches still in flight. */
  journalFile: string;
  logger?: Logger;
  /** Stops polling (batches stay at the provider; the journal keeps them). */
  signal?: AbortSignal;
  onStatus?: (batches: readonly BatchStatus[]) => void;
}

/**
 * Batch mode's side of the engine. A batch holds one request of every run that is waiting for the model, so the
 * client must know how many runs are between their first request and their answer: when every such run is waiting,
 * the round goes out (no timer decides it). A run is started before its first request and ended after its last.
 */
export interface BatchGate {
  begin(options: BatchSessionOptions): Promise<void>;
  runStarted(): void;
  runEnded(): void;
  /** Stops polling and closes the journal; batches in flight stay at the provider for the next session. */
  end(): Promise<void>;
}
