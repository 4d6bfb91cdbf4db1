/**
 * Writes GGUF files (v3) that llama.cpp loads, so tests and benches need no downloaded model (test code only).
 *
 * - `writeGguf(file, spec)`: any metadata and tensors; tensor bytes are produced per tensor and streamed, so a
 *   500 MB file of the real default model's shape (bench/local-model-speed.ts) never sits in memory.
 * - `tinyChatModel(options)`: a llama-architecture model of a few layers over a tiny sentencepiece vocabulary
 *   (256 byte tokens, ChatML and tool tags, a handful of pieces) with a ChatML-with-tools template. Either seeded
 *   random weights (`kind: "random"`) or a hand-built "chain" network (`kind: "chain"`) whose greedy output is
 *   known, so a test sees llama.cpp emit a real tool call through node-llama-cpp's function calling:
 *     - tools offered and no tool result yet: `<tool_call>` + `\n{"name": "` — from there node-llama-cpp's grammar
 *       forces the function name and the JSON keys, and the network fills the one free string with `toolArgument`;
 *     - otherwise (no tools, or after a tool result): `answerText`, then `<|im_end|>`.
 *   How: token embeddings are one-hot codes (plus a constant dimension), the output matrix maps each chain token's
 *   code to the next token (a bigram chain), and one attention head whose query and keys sit in the last RoPE pair
 *   (rotated by ~0 under a huge RoPE base, so position does not matter) looks for `<tools>` (value +1) and, with
 *   twice the score, `<tool_response>` (value -2). That sign decides the first token after the prompt.
 */
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { mulberry32 } from "../../src/core/stats/bootstrap.js";

export type MetaValue =
  | { type: "u32"; value: number }
  | { type: "i32"; value: number }
  | { type: "f32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "str"; value: string }
  | { type: "arr-str"; value: readonly string[] }
  | { type: "arr-f32"; value: readonly number[] }
  | { type: "arr-i32"; value: readonly number[] };

export type TensorType = "F32" | "F16" | "Q8_0" | "Q4_K" | "Q6_K";

export interface TensorSpec {
  name: string;
  /** ggml order: ne0 (the contiguous, input dimension) first. */
  dims: readonly number[];
  type: TensorType;
  /** The tensor's bytes, in pieces (each piece written as it comes). */
  bytes: () => Iterable<Uint8Array>;
}

export interface GgufSpec {
  metadata: Record<string, MetaValue>;
  tensors: readonly TensorSpec[];
}

const ALIGNMENT = 32;
const GGML_TYPE_ID: Record<TensorType, number> = { F32: 0, F16: 1, Q8_0: 8, Q4_K: 12, Q6_K: 14 };
/** [elements per block, bytes per block] of each ggml type. */
const BLOCK: Record<TensorType, [number, number]> = { F32: [1, 4], F16: [1, 2], Q8_0: [32, 34], Q4_K: [256, 144], Q6_K: [256, 210] };

export function tensorByteSize(type: TensorType, dims: readonly number[]): number {
  const [per, bytes] = BLOCK[type];
  if (dims[0]! % per !== 0) throw new Error(`${type}: ne0 ${dims[0]} is not a multiple of ${per}`);
  return (dims.reduce((a, b) => a * b, 1) / per) * bytes;
}

class ByteBuilder {
  private parts: Buffer[] = [];
  length = 0;
  push(b: Buffer): void {
    this.parts.push(b);
    this.length += b.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  str(s: string): void {
    const bytes = Buffer.from(s, "utf8");
    this.u64(bytes.length);
    this.push(bytes);
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

// gguf value types
const T_U32 = 4, T_I32 = 5, T_F32 = 6, T_BOOL = 7, T_STR = 8, T_ARR = 9;

function writeMeta(b: ByteBuilder, key: string, v: MetaValue): void {
  b.str(key);
  switch (v.type) {
    case "u32": b.u32(T_U32); b.u32(v.value); break;
    case "i32": b.u32(T_I32); b.i32(v.value); break;
    case "f32": b.u32(T_F32); b.f32(v.value); break;
    case "bool": b.u32(T_BOOL); b.push(Buffer.from([v.value ? 1 : 0])); break;
    case "str": b.u32(T_STR); b.str(v.value); break;
    case "arr-str": b.u32(T_ARR); b.u32(T_STR); b.u64(v.value.length); for (const s of v.value) b.str(s); break;
    case "arr-f32": b.u32(T_ARR); b.u32(T_F32); b.u64(v.value.length); for (const x of v.value) b.f32(x); break;
    case "arr-i32": b.u32(T_ARR); b.u32(T_I32); b.u64(v.value.length); for (const x of v.value) b.i32(x); break;
  }
}

const pad = (n: number): number => (ALIGNMENT - (n % ALIGNMENT)) % ALIGNMENT;

/** The header (magic, metadata, tensor infos, padding); tensor data follows at offsets aligned to 32. */
function header(spec: GgufSpec): Buffer {
  const b = new ByteBuilder();
  b.push(Buffer.from("GGUF", "ascii"));
  b.u32(3);
  b.u64(spec.tensors.length);
  b.u64(Object.keys(spec.metadata).length);
  for (const [k, v] of Object.entries(spec.metadata)) writeMeta(b, k, v);
  let offset = 0;
  for (const t of spec.tensors) {
    b.str(t.name);
    b.u32(t.dims.length);
    for (const d of t.dims) b.u64(d);
    b.u32(GGML_TYPE_ID[t.type]);
    b.u64(offset);
    const size = tensorByteSize(t.type, t.dims);
    offset += size + pad(size);
  }
  b.push(Buffer.alloc(pad(b.length)));
  return b.done();
}

/** Streams a GGUF file to disk; returns its size in bytes. */
export async function writeGguf(file: string, spec: GgufSpec): Promise<number> {
  const out = createWriteStream(file);
  const write = async (chunk: Uint8Array): Promise<void> => {
    if (!out.write(chunk)) await once(out, "drain");
  };
  let total = 0;
  const head = header(spec);
  await write(head);
  total += head.length;
  for (const t of spec.tensors) {
    const expected = tensorByteSize(t.type, t.dims);
    let written = 0;
    for (const piece of t.bytes()) {
      await write(piece);
      written += piece.length;
    }
    if (written !== expected) throw new Error(`tensor ${t.name}: wrote ${written} bytes, expected ${expected}`);
    const p = pad(written);
    if (p) await write(Buffer.alloc(p));
    total += written + p;
  }
  out.end();
  await once(out, "finish");
  return total;
}

/** A small seeded generator (the product's mulberry32): the same seed gives the same file. */
export const seededRandom = mulberry32;

export function f32Bytes(values: Float32Array): () => Iterable<Uint8Array> {
  return () => [new Uint8Array(values.buffer, values.byteOffset, values.byteLength)];
}

/** f16 bits of a small positive scale, so random quantized blocks hold finite weights. */
const F16_SCALE = 0x1c00; // 2^-8

/**
 * Seeded random bytes for a tensor of any type, in 1 MiB pieces. Quantized blocks get a fixed finite scale
 * (random scale bits could be NaN or huge); F16 values are small finite numbers; F32 values are uniform in ±0.05.
 */
export function randomTensorBytes(type: TensorType, dims: readonly number[], seed: number): () => Iterable<Uint8Array> {
  const size = tensorByteSize(type, dims);
  const [, blockBytes] = BLOCK[type];
  return function* () {
    const rand = seededRandom(seed);
    const chunkBlocks = Math.max(1, Math.floor((1 << 20) / blockBytes));
    for (let done = 0; done < size; ) {
      const n = Math.min(size - done, chunkBlocks * blockBytes);
      const buf = Buffer.alloc(n);
      if (type === "F32") {
        for (let i = 0; i < n; i += 4) buf.writeFloatLE((rand() - 0.5) * 0.1, i);
      } else {
        for (let i = 0; i + 4 <= n; i += 4) buf.writeUInt32LE((rand() * 4294967296) >>> 0, i);
        for (let blk = 0; blk < n; blk += blockBytes) {
          if (type === "F16") buf.writeUInt16LE(0x2000 | (buf.readUInt16LE(blk) & 0x83ff), blk);
          else if (type === "Q8_0" || type === "Q4_K") {
            buf.writeUInt16LE(F16_SCALE, blk);
            if (type === "Q4_K") buf.writeUInt16LE(F16_SCALE, blk + 2);
          } else buf.writeUInt16LE(F16_SCALE, blk + 208); // Q6_K: d is the last field
        }
      }
      yield buf;
      done += n;
    }
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The tiny chat model

/** ChatML with Hermes/Qwen-style tools: the format node-llama-cpp's Qwen chat wrapper speaks. */
export const CHATML_TOOLS_TEMPLATE = [
  "{%- if tools %}{{- '<|im_start|>system\\n' }}{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}",
  "{{- '# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}",
  "{%- for tool in tools %}{{- '\\n' }}{{- tool | tojson }}{%- endfor %}",
  "{{- '\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\\n</tool_call><|im_end|>\\n' }}",
  "{%- else %}{%- if messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}{%- endif %}{%- endif %}",
  "{%- for message in messages %}{%- if message.role == 'user' or (message.role == 'system' and not loop.first) or (message.role == 'assistant' and not message.tool_calls) %}",
  "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}",
  "{%- elif message.role == 'assistant' %}{{- '<|im_start|>' + message.role }}{%- if message.content %}{{- '\\n' + message.content }}{%- endif %}",
  "{%- for tool_call in message.tool_calls %}{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}",
  "{{- '\\n<tool_call>\\n{\"name\": \"' }}{{- tool_call.name }}{{- '\", \"arguments\": ' }}{{- tool_call.arguments | tojson }}{{- '}\\n</tool_call>' }}{%- endfor %}{{- '<|im_end|>\\n' }}",
  "{%- elif message.role == 'tool' %}{%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != 'tool') %}{{- '<|im_start|>user' }}{%- endif %}",
  "{{- '\\n<tool_response>\\n' }}{{- message.content }}{{- '\\n</tool_response>' }}{%- if loop.last or (messages[loop.index0 + 1].role != 'tool') %}{{- '<|im_end|>\\n' }}{%- endif %}",
  "{%- endif %}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
].join("");

export interface TinyModelOptions {
  kind: "chain" | "random";
  /** Transformer blocks (default 2); in the chain network only the first one does anything. */
  layers?: number;
  /** Seed of the random weights (kind "random"). */
  seed?: number;
  /** The string the chain network puts in a tool call's one string argument (default "tidy-list-outputs"). */
  toolArgument?: string;
  /** The chain network's answer text (default a Python block that fails every test). */
  answerText?: string;
  /** general.name (default "Tiny Test Chat"). */
  name?: string;
}

export const DEFAULT_TINY_ANSWER = "```python\ndef solution(*args):\n    return None\n```";

const SPECIAL = [
  ["<unk>", 2],
  ["<|endoftext|>", 3],
  ["<|im_start|>", 3],
  ["<|im_end|>", 3],
  ["<tool_call>", 4],
  ["</tool_call>", 4],
  ["<tools>", 4],
  ["</tools>", 4],
  ["<tool_response>", 4],
  ["</tool_response>", 4],
] as const;

const sp = (s: string): string => s.replace(/ /g, "\u2581");
const byteToken = (b: number): string => `<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`;

interface Vocab {
  tokens: string[];
  types: number[];
  scores: number[];
  id: (piece: string) => number;
}

function buildVocab(extraPieces: readonly string[]): Vocab {
  const tokens: string[] = [];
  const types: number[] = [];
  const scores: number[] = [];
  for (const [t, type] of SPECIAL) {
    tokens.push(t);
    types.push(type);
    scores.push(0);
  }
  for (let b = 0; b < 256; b++) {
    tokens.push(byteToken(b));
    types.push(6);
    scores.push(0);
  }
  for (const p of ["\u2581", ...extraPieces]) {
    if (tokens.includes(p)) continue;
    tokens.push(p);
    types.push(1);
    scores.push(-1);
  }
  const index = new Map(tokens.map((t, i) => [t, i]));
  return {
    tokens,
    types,
    scores,
    id: (piece) => {
      const i = index.get(piece);
      if (i === undefined) throw new Error(`no token ${JSON.stringify(piece)}`);
      return i;
    },
  };
}

const D = 32; // embedding width = head width (one head)
const FF = 32;
const DIM_CONST = 0;
const DIM_MODE = 28; // the attention writes the mode here
const DIM_QK = 30; // first dim of the last RoPE pair: rotated by ~0 under the huge RoPE base

/** The chain network's weights: embeddings, output matrix, and the first block's attention. */
function chainWeights(v: Vocab, toolArgument: string, answerText: string) {
  const V = v.tokens.length;
  const emb = new Float32Array(V * D);
  const out = new Float32Array(V * D);
  const wq = new Float32Array(D * D);
  const wk = new Float32Array(D * D);
  const wv = new Float32Array(D * D);
  const wo = new Float32Array(D * D);
  for (let t = 0; t < V; t++) emb[t * D + DIM_CONST] = 1;
  let nextDim = 1;
  const code = new Map<number, number>();
  const codeOf = (token: number): number => {
    let dim = code.get(token);
    if (dim === undefined) {
      dim = nextDim++;
      if (dim >= DIM_MODE) throw new Error("chain network: out of code dimensions");
      code.set(token, dim);
      emb[token * D + dim] = 1;
    }
    return dim;
  };
  const follow = (from: number, to: number, weight = 10): void => {
    out[to * D + codeOf(from)] = weight;
  };
  const nl = v.id(byteToken(10));
  const quote = v.id(byteToken(34));
  const toolCall = v.id("<tool_call>");
  const prefix = v.id(sp('\n{"name": "'));
  const arg = v.id(sp(toolArgument));
  const answer = v.id(sp(answerText));
  const imEnd = v.id("<|im_end|>");
  // The first token after "<|im_start|>assistant\n": <tool_call> when the mode is +1, else the answer.
  follow(nl, toolCall, 5);
  out[toolCall * D + DIM_MODE] = 5;
  follow(nl, answer, 6);
  follow(toolCall, prefix);
  // The function name and the JSON around the argument are grammar-forced; the free string after a quote is ours.
  follow(quote, arg);
  follow(arg, quote);
  follow(v.id("</tool_call>"), imEnd);
  follow(answer, imEnd);
  // Attention: a constant query (from the constant dimension) meets keys only on <tools> and <tool_response>.
  const tools = codeOf(v.id("<tools>"));
  const response = codeOf(v.id("<tool_response>"));
  wq[DIM_QK * D + DIM_CONST] = 1;
  wk[DIM_QK * D + tools] = 14;
  wk[DIM_QK * D + response] = 28;
  wv[DIM_MODE * D + tools] = 0.25;
  wv[DIM_MODE * D + response] = -0.5;
  wo[DIM_MODE * D + DIM_MODE] = 1;
  return { emb, out, wq, wk, wv, wo };
}

/** The tensors and metadata of a tiny chat model. */
export function tinyChatModelSpec(options: TinyModelOptions): GgufSpec {
  const layers = options.layers ?? 2;
  const toolArgument = options.toolArgument ?? "tidy-list-outputs";
  const answerText = options.answerText ?? DEFAULT_TINY_ANSWER;
  const v = buildVocab([sp('\n{"name": "'), sp(toolArgument), sp(answerText), "load_skill", "search_skills"]);
  const V = v.tokens.length;
  const ones = new Float32Array(D).fill(1);
  const zeros = (n: number) => new Float32Array(n);
  const rand = seededRandom(options.seed ?? 1);
  const random = (n: number, scale: number) => Float32Array.from({ length: n }, () => (rand() - 0.5) * 2 * scale);
  const chain = options.kind === "chain" ? chainWeights(v, toolArgument, answerText) : undefined;
  const f32 = (name: string, dims: number[], values: Float32Array): TensorSpec => ({ name, dims, type: "F32", bytes: f32Bytes(values) });
  const tensors: TensorSpec[] = [
    f32("token_embd.weight", [D, V], chain?.emb ?? random(V * D, 1)),
    f32("output_norm.weight", [D], ones),
    f32("output.weight", [D, V], chain?.out ?? random(V * D, 0.5)),
  ];
  for (let l = 0; l < layers; l++) {
    const first = l === 0 && chain !== undefined;
    const w = (values: Float32Array | undefined, n: number, scale: number): Float32Array => (chain ? (first && values ? values : zeros(n)) : random(n, scale));
    tensors.push(
      f32(`blk.${l}.attn_norm.weight`, [D], ones),
      f32(`blk.${l}.attn_q.weight`, [D, D], w(chain?.wq, D * D, 0.3)),
      f32(`blk.${l}.attn_k.weight`, [D, D], w(chain?.wk, D * D, 0.3)),
      f32(`blk.${l}.attn_v.weight`, [D, D], w(chain?.wv, D * D, 0.3)),
      f32(`blk.${l}.attn_output.weight`, [D, D], w(chain?.wo, D * D, 0.3)),
      f32(`blk.${l}.ffn_norm.weight`, [D], ones),
      f32(`blk.${l}.ffn_gate.weight`, [D, FF], w(undefined, D * FF, 0.3)),
      f32(`blk.${l}.ffn_up.weight`, [D, FF], w(undefined, D * FF, 0.3)),
      f32(`blk.${l}.ffn_down.weight`, [FF, D], w(undefined, D * FF, 0.3)),
    );
  }
  const metadata: Record<string, MetaValue> = {
    "general.architecture": { type: "str", value: "llama" },
    "general.name": { type: "str", value: options.name ?? "Tiny Test Chat" },
    "general.file_type": { type: "u32", value: 0 },
    "llama.context_length": { type: "u32", value: 8192 },
    "llama.embedding_length": { type: "u32", value: D },
    "llama.block_count": { type: "u32", value: layers },
    "llama.feed_forward_length": { type: "u32", value: FF },
    "llama.attention.head_count": { type: "u32", value: 1 },
    "llama.attention.head_count_kv": { type: "u32", value: 1 },
    "llama.attention.layer_norm_rms_epsilon": { type: "f32", value: 1e-6 },
    "llama.rope.dimension_count": { type: "u32", value: D },
    "llama.rope.freq_base": { type: "f32", value: 1e12 },
    "llama.vocab_size": { type: "u32", value: V },
    "tokenizer.ggml.model": { type: "str", value: "llama" },
    "tokenizer.ggml.tokens": { type: "arr-str", value: v.tokens },
    "tokenizer.ggml.scores": { type: "arr-f32", value: v.scores },
    "tokenizer.ggml.token_type": { type: "arr-i32", value: v.types },
    "tokenizer.ggml.bos_token_id": { type: "u32", value: v.id("<|endoftext|>") },
    "tokenizer.ggml.eos_token_id": { type: "u32", value: v.id("<|im_end|>") },
    "tokenizer.ggml.unknown_token_id": { type: "u32", value: v.id("<unk>") },
    "tokenizer.ggml.padding_token_id": { type: "u32", value: v.id("<|endoftext|>") },
    "tokenizer.ggml.add_bos_token": { type: "bool", value: false },
    "tokenizer.ggml.add_eos_token": { type: "bool", value: false },
    "tokenizer.ggml.add_space_prefix": { type: "bool", value: false },
    "tokenizer.chat_template": { type: "str", value: CHATML_TOOLS_TEMPLATE },
  };
  return { metadata, tensors };
}

/** Writes a tiny chat model to `file`; returns its size. */
export function writeTinyChatModel(file: string, options: TinyModelOptions): Promise<number> {
  return writeGguf(file, tinyChatModelSpec(options));
}
