import path from "node:path";
import { createHash } from "node:crypto";
import { CancelledError, ModelRequestError } from "../../errors.js";
import { silentLogger, type Logger } from "../../logger.js";
import type { CallOptions, ChatRequest, ChatResponse, ModelClient, ModelWeights, ToolCall } from "../types.js";
import { checkGgufFile } from "./gguf-check.js";
import { toChatHistory, toFunctions } from "./history.js";
import { defaultThreads, loadNodeLlamaCpp, sharedLlama, type NodeLlamaCpp } from "./runtime.js";

/**
 * The in-process ModelClient: a GGUF model run by node-llama-cpp on the CPU, behind the same interface (and the same
 * response cache) as every HTTP endpoint.
 * - Tool calls go through node-llama-cpp's function calling (grammar-constrained names and JSON arguments); the
 *   functions have no handlers, so each call returns to the engine's agent loop like an OpenAI `tool_calls` answer.
 * - Greedy at temperature 0; otherwise temperature, top-p and the seed are node-llama-cpp's. A seed is offset by the
 *   sample index, so repeated samples of one request differ and each is reproducible.
 * - The model loads on the first call, not before: a re-run served by the cache loads nothing. Calls run one at a
 *   time on one context sequence (reproducible, and a small CPU gains nothing from interleaving); a conversation
 *   that no longer fits the context is an error, never silently cut.
 * - The id carries the file's sha256 and what else changes answers (context size, token cap, chat format), so the
 *   response cache keys on the weights.
 */
export interface LocalClientOptions {
  /** The request model name, e.g. `local:qwen2.5-coder-0.5b-instruct`. */
  name: string;
  file: string;
  sha256: string;
  bytes: number;
  /** "qwen": ChatML with <tool_call> tags; "auto": read from the file's template (ChatML with <tool_call> tags is "qwen"; else node-llama-cpp decides). */
  chatFormat: "qwen" | "auto";
  /** Tokens of context (default 8192). */
  contextSize?: number;
  /** Completion tokens when a request sets none (default 1024): a small model can ramble until the context is full. */
  defaultMaxTokens?: number;
  threads?: number;
  logger?: Logger;
  /** Streaming: each generated text piece as it comes. */
  onText?: (text: string) => void;
}

export interface LocalModelClient extends ModelClient {
  /** The model name requests carry (`local:…`). */
  readonly name: string;
  readonly weights: ModelWeights;
  /** True once the weights are in memory. */
  readonly loaded: boolean;
  /** Frees the model and its context (the next call loads it again). */
  dispose(): Promise<void>;
}

type Loaded = {
  lib: NodeLlamaCpp;
  model: Awaited<ReturnType<Awaited<ReturnType<typeof sharedLlama>>["loadModel"]>>;
  context: { dispose(): Promise<void> };
  sequence: { tokenMeter: { usedInputTokens: number; usedOutputTokens: number } };
  chat: InstanceType<NodeLlamaCpp["LlamaChat"]>;
};

export const DEFAULT_LOCAL_CONTEXT = 8192;
export const DEFAULT_LOCAL_MAX_TOKENS = 1024;

export function createLocalClient(options: LocalClientOptions): LocalModelClient {
  const contextSize = options.contextSize ?? DEFAULT_LOCAL_CONTEXT;
  const maxTokens = options.defaultMaxTokens ?? DEFAULT_LOCAL_MAX_TOKENS;
  const logger = options.logger ?? silentLogger;
  const id = `${options.name}@sha256:${options.sha256};ctx=${contextSize};max=${maxTokens};format=${options.chatFormat}`;
  let loading: Promise<Loaded> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const load = (): Promise<Loaded> => {
    loading ??= loadModel(options, contextSize, logger).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };

  const client: LocalModelClient = {
    id,
    name: options.name,
    weights: { file: options.file, sha256: options.sha256, bytes: options.bytes },
    get loaded() {
      return loading !== undefined;
    },
    complete(request, callOptions) {
      const run = queue.then(() => generate(load, request, callOptions, { maxTokens, contextSize, onText: options.onText }));
      queue = run.catch(() => undefined);
      return run;
    },
    async dispose() {
      const current = loading;
      loading = undefined;
      await queue;
      if (!current) return;
      const l = await current.catch(() => undefined);
      if (!l) return;
      l.chat.dispose();
      await l.context.dispose();
      await l.model.dispose();
      logger.info(`local model ${path.basename(options.file)} freed`);
    },
  };
  return client;
}

async function loadModel(options: LocalClientOptions, contextSize: number, logger: Logger): Promise<Loaded> {
  // node-llama-cpp's GGUF parser believes the counts a file declares: check them against the file first.
  checkGgufFile(options.file);
  const lib = await loadNodeLlamaCpp();
  const llama = await sharedLlama(logger);
  const started = performance.now();
  const model = await llama.loadModel({ modelPath: options.file, gpuLayers: 0 });
  const context = await model.createContext({ contextSize, sequences: 1, threads: options.threads ?? defaultThreads() });
  const sequence = context.getSequence();
  const rawTemplate = (model.fileInfo.metadata as { tokenizer?: { chat_template?: unknown } }).tokenizer?.chat_template;
  const template = typeof rawTemplate === "string" ? rawTemplate : "";
  // ChatML with <tool_call> tags is the Qwen2.5 / Hermes tool format, whatever the file is called; else node-llama-cpp decides.
  const qwen = options.chatFormat === "qwen" || (template.includes("<|im_start|>") && template.includes("<tool_call>"));
  const chatWrapper = qwen
    ? // Tool results as plain text, as the Qwen2.5 template writes them (node-llama-cpp's own choice for that template; the version is pinned).
      new lib.QwenChatWrapper({ _flatFunctionResultString: true } as ConstructorParameters<NodeLlamaCpp["QwenChatWrapper"]>[0])
    : lib.resolveChatWrapper(model);
  const chat = new lib.LlamaChat({ contextSequence: sequence, chatWrapper });
  logger.info(`local model ${path.basename(options.file)} loaded in ${((performance.now() - started) / 1000).toFixed(1)} s (${chatWrapper.wrapperName} format, ${contextSize} tokens of context)`);
  return { lib, model, context, sequence, chat };
}

async function generate(
  load: () => Promise<Loaded>,
  request: ChatRequest,
  callOptions: CallOptions,
  limits: { maxTokens: number; contextSize: number; onText: ((text: string) => void) | undefined },
): Promise<ChatResponse> {
  const signal = callOptions.signal;
  if (signal?.aborted) throw new CancelledError();
  const l = await load();
  if (signal?.aborted) throw new CancelledError();
  const before = { input: l.sequence.tokenMeter.usedInputTokens, output: l.sequence.tokenMeter.usedOutputTokens };
  const started = performance.now();
  const tools = request.tools && request.tools.length > 0 ? request.tools : undefined;
  // node-llama-cpp would make room by dropping old messages (and falls back to that if a strategy throws): stop instead.
  const overflow = new AbortController();
  const halt = signal ? AbortSignal.any([signal, overflow.signal]) : overflow.signal;
  let result;
  try {
    result = await l.chat.generateResponse(toChatHistory(request.messages), {
      ...(tools ? { functions: toFunctions(tools) as never } : {}),
      temperature: request.temperature ?? 0,
      ...(request.topP !== undefined ? { topP: request.topP } : {}),
      ...(request.seed !== undefined ? { seed: request.seed + callOptions.sampleIndex } : {}),
      maxTokens: request.maxTokens ?? limits.maxTokens,
      // Like an OpenAI-compatible server's defaults: no repetition penalty unless asked for.
      repeatPenalty: false,
      signal: halt,
      ...(limits.onText ? { onTextChunk: limits.onText } : {}),
      contextShift: {
        strategy: ({ chatHistory }) => {
          overflow.abort();
          return { chatHistory: [...chatHistory] };
        },
      },
    });
  } catch (error) {
    if (signal?.aborted) throw new CancelledError();
    if (overflow.signal.aborted) {
      throw new ModelRequestError(`the conversation no longer fits the local model's context of ${limits.contextSize} tokens`, undefined, {
        hint: "Use fewer turns or fewer completion tokens, or a model served with a larger context.",
        hintIds: ["maxTurns", "maxTokens"],
      });
    }
    throw new ModelRequestError(`the local model failed: ${error instanceof Error ? error.message : String(error)}`, undefined, { hintIds: ["log"], cause: error });
  }
  if (signal?.aborted) throw new CancelledError();
  const calls = (result.functionCalls ?? []) as unknown as Array<{ functionName: string; params: unknown }>;
  const turn = request.messages.filter((m) => m.role === "assistant").length;
  const toolCalls: ToolCall[] = calls.map((c, i) => ({ id: toolCallId(request, turn, i), name: c.functionName, arguments: JSON.stringify(c.params ?? {}) }));
  const stop = result.metadata.stopReason;
  return {
    content: result.response === "" && toolCalls.length > 0 ? null : result.response,
    toolCalls,
    finishReason: toolCalls.length > 0 ? "tool_calls" : stop === "maxTokens" ? "length" : "stop",
    usage: { promptTokens: l.sequence.tokenMeter.usedInputTokens - before.input, completionTokens: l.sequence.tokenMeter.usedOutputTokens - before.output },
    latencyMs: Math.round(performance.now() - started),
  };
}

/** Stable per request: equal requests get equal ids (the cache and the transcripts stay byte-identical). */
function toolCallId(request: ChatRequest, turn: number, index: number): string {
  const h = createHash("sha256").update(JSON.stringify(request.messages)).digest("hex").slice(0, 12);
  return `call_${turn}_${index}_${h}`;
}
