/**
 * How long the first run with the local default model takes, estimated without downloading it (this machine cannot
 * reach Hugging Face): a random-weight GGUF of the default's exact shape and tensor types (Qwen2.5-Coder-0.5B-Instruct
 * Q4_K_M: qwen2, 24 layers, width 896, FFN 4864, 14 query and 2 KV heads, 151,936 tokens, tied embeddings), so
 * llama.cpp does the same arithmetic per token as with the real weights. Measured: load time, prompt evaluation and
 * generation speed on this CPU. Then the first run's model time, from the real prompts of the first-run subset
 * (rendered by node-llama-cpp's Qwen format with the skill tools) and stated assumptions about what the real model
 * writes. The result is an estimate, and says so.
 *
 *   node --import tsx bench/local-model-speed.ts [--threads n] [--keep]
 *
 * Speeds are per CPU-second of this process (one thread by default): on a shared machine the wall clock measures the
 * neighbours, CPU time measures the work. Two idle cores run at most twice that speed (less: generation is bound by
 * memory bandwidth), so the model minutes printed are an upper estimate for a two-core laptop.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { firstRequest } from "../src/core/agent/loop.js";
import { DEFAULT_LOCAL_MODEL } from "../src/core/models/local/catalog.js";
import { toChatHistory, toFunctions } from "../src/core/models/local/history.js";
import { loadNodeLlamaCpp, sharedLlama } from "../src/core/models/local/runtime.js";
import { SkillLibrary } from "../src/core/retrieval/library.js";
import { scanSkills } from "../src/core/skills/index.js";
import { loadTaskSet } from "../src/core/tasks/index.js";
import { LOCAL_DEFAULT_TASKS } from "../src/cli/run-command.js";
import { randomTensorBytes, seededRandom, writeGguf, type MetaValue, type TensorSpec, type TensorType } from "../test/support/gguf-writer.js";

const { values } = parseArgs({ options: { threads: { type: "string" }, keep: { type: "boolean" } } });
const threads = values.threads ? Number(values.threads) : 1;
const root = path.resolve(__dirname, "..");

// The default's shape (from its config and GGUF metadata) and tensor types. Width 896 is no multiple of 256, so
// llama.cpp stores those matrices as Q8_0; ffn_down alternates Q6_K / Q4_K; the tied embedding is Q8_0. That layout
// gives 491.0 MB against the published 491.4 MB (the rest is the real tokenizer's merges).
const VOCAB = 151_936, D = 896, FF = 4864, LAYERS = 24, HEADS = 14, KV_HEADS = 2, HEAD = D / HEADS;

function spec(): { metadata: Record<string, MetaValue>; tensors: TensorSpec[] } {
  let seed = 1;
  const t = (name: string, dims: number[], type: TensorType): TensorSpec => ({ name, dims, type, bytes: type === "F32" && name.includes("norm") ? ones(dims[0]!) : randomTensorBytes(type, dims, seed++) });
  const ones = (n: number) => () => [new Uint8Array(new Float32Array(n).fill(1).buffer)];
  const tensors: TensorSpec[] = [t("token_embd.weight", [D, VOCAB], "Q8_0"), t("output_norm.weight", [D], "F32")];
  for (let l = 0; l < LAYERS; l++) {
    const more = l % 2 === 0; // Q4_K_M gives every other layer's attn_v and ffn_down more bits
    tensors.push(
      t(`blk.${l}.attn_norm.weight`, [D], "F32"),
      t(`blk.${l}.attn_q.weight`, [D, D], "Q8_0"),
      t(`blk.${l}.attn_q.bias`, [D], "F32"),
      t(`blk.${l}.attn_k.weight`, [D, KV_HEADS * HEAD], "Q8_0"),
      t(`blk.${l}.attn_k.bias`, [KV_HEADS * HEAD], "F32"),
      t(`blk.${l}.attn_v.weight`, [D, KV_HEADS * HEAD], "Q8_0"),
      t(`blk.${l}.attn_v.bias`, [KV_HEADS * HEAD], "F32"),
      t(`blk.${l}.attn_output.weight`, [D, D], "Q8_0"),
      t(`blk.${l}.ffn_norm.weight`, [D], "F32"),
      t(`blk.${l}.ffn_gate.weight`, [D, FF], "Q8_0"),
      t(`blk.${l}.ffn_up.weight`, [D, FF], "Q8_0"),
      t(`blk.${l}.ffn_down.weight`, [FF, D], more ? "Q6_K" : "Q4_K"),
    );
  }
  // A sentencepiece vocabulary of the real size (the tokenizer does not change the arithmetic per token).
  const tokens = ["<unk>", "<|endoftext|>", "<|im_start|>", "<|im_end|>", ...Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`)];
  const types = [2, 3, 3, 3, ...new Array<number>(256).fill(6)];
  while (tokens.length < VOCAB) {
    tokens.push(`\u2581t${tokens.length}`);
    types.push(1);
  }
  const u32 = (value: number): MetaValue => ({ type: "u32", value });
  const metadata: Record<string, MetaValue> = {
    "general.architecture": { type: "str", value: "qwen2" },
    "general.name": { type: "str", value: "random weights, Qwen2.5-Coder-0.5B-Instruct shape" },
    "qwen2.context_length": u32(32768),
    "qwen2.embedding_length": u32(D),
    "qwen2.block_count": u32(LAYERS),
    "qwen2.feed_forward_length": u32(FF),
    "qwen2.attention.head_count": u32(HEADS),
    "qwen2.attention.head_count_kv": u32(KV_HEADS),
    "qwen2.rope.freq_base": { type: "f32", value: 1_000_000 },
    "qwen2.attention.layer_norm_rms_epsilon": { type: "f32", value: 1e-6 },
    "tokenizer.ggml.model": { type: "str", value: "llama" },
    "tokenizer.ggml.tokens": { type: "arr-str", value: tokens },
    "tokenizer.ggml.scores": { type: "arr-f32", value: new Array<number>(VOCAB).fill(0) },
    "tokenizer.ggml.token_type": { type: "arr-i32", value: types },
    "tokenizer.ggml.bos_token_id": u32(1),
    "tokenizer.ggml.eos_token_id": u32(3),
    "tokenizer.ggml.unknown_token_id": u32(0),
    "tokenizer.ggml.add_bos_token": { type: "bool", value: false },
    "tokenizer.ggml.add_space_prefix": { type: "bool", value: false },
  };
  return { metadata, tensors };
}

/** Characters per token of Qwen2.5's BPE tokenizer on English prose and code: an assumption (no tokenizer here). */
const CHARS_PER_TOKEN = 3.5;
/** What the real model is assumed to write per call: a short answer with its code block, or one tool call. */
const ANSWER_TOKENS = 250;
const TOOL_CALL_TOKENS = 30;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-local-bench-"));
  const file = path.join(dir, "random-qwen2.5-coder-0.5b-shape.gguf");
  const load0 = os.loadavg()[0]!;
  try {
    let t = performance.now();
    await writeGguf(file, spec());
    const writeS = (performance.now() - t) / 1000;
    const bytes = statSync(file).size;

    const lib = await loadNodeLlamaCpp();
    const llama = await sharedLlama();
    t = performance.now();
    const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
    const context = await model.createContext({ contextSize: 4096, threads });
    const loadS = (performance.now() - t) / 1000;
    const sequence = context.getSequence();
    const rand = seededRandom(9);
    const randomTokens = (n: number) => Array.from({ length: n }, () => 300 + Math.floor(rand() * (VOCAB - 300))) as never[];

    // Prompt evaluation: 1,500 tokens, about one enabled first request (warm-up of 64 first).
    await sequence.evaluateWithoutGeneratingNewTokens(randomTokens(64));
    await sequence.clearHistory();
    const promptTokens = 1500;
    t = performance.now();
    let cpu = process.cpuUsage();
    await sequence.evaluateWithoutGeneratingNewTokens(randomTokens(promptTokens));
    const ppS = (performance.now() - t) / 1000;
    const ppCpu = cpuSeconds(process.cpuUsage(cpu));
    // Generation: 96 tokens after that prompt, greedy.
    const generate = 96;
    let n = 0;
    t = performance.now();
    cpu = process.cpuUsage();
    for await (const _token of sequence.evaluate(randomTokens(1), { temperature: 0 })) {
      if (++n >= generate) break;
    }
    const tgS = (performance.now() - t) / 1000;
    const tgCpu = cpuSeconds(process.cpuUsage(cpu));
    // On a shared, loaded machine wall time measures the neighbours. CPU time per token does not (with one thread
    // nothing spins): tokens per CPU-second is what one idle core does; the estimate uses it, so two idle cores only do better.
    const pp = promptTokens / ppCpu;
    const tg = generate / tgCpu;
    await context.dispose();
    await model.dispose();

    // The first run's prompts: the first LOCAL_DEFAULT_TASKS sample tasks, both conditions, as node-llama-cpp renders them.
    const skills = (await scanSkills([path.join(root, "skills")])).skills;
    const tasks = (await loadTaskSet(path.join(root, "samples/python-basics.jsonl"))).tasks.slice(0, LOCAL_DEFAULT_TASKS);
    const library = new SkillLibrary(skills, "catalog", { topK: 3, threshold: 0 });
    const wrapper = new lib.QwenChatWrapper();
    const render = (condition: "enabled" | "disabled", task: (typeof tasks)[number]): number => {
      const req = firstRequest({ task, condition, library, model: "local", params: {} });
      const state = wrapper.generateContextState({
        chatHistory: toChatHistory(req.messages) as never,
        ...(req.tools ? { availableFunctions: toFunctions(req.tools) as never } : {}),
      });
      return state.contextText.toString().length;
    };
    const meanSkill = skills.reduce((a, s) => a + s.body.length, 0) / skills.length;
    let promptTok = 0;
    let genTok = 0;
    for (const task of tasks) {
      const disabled = render("disabled", task) / CHARS_PER_TOKEN;
      const enabled = render("enabled", task) / CHARS_PER_TOKEN;
      // Disabled: one call. Enabled, assumed the slow way: a load_skill call, then the answer with the skill body.
      promptTok += disabled + enabled + (enabled + TOOL_CALL_TOKENS + meanSkill / CHARS_PER_TOKEN);
      genTok += ANSWER_TOKENS + TOOL_CALL_TOKENS + ANSWER_TOKENS;
    }
    const modelSeconds = promptTok / pp + genTok / tg + loadS;
    const out = {
      estimate: true,
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, threads, loadAverage: [load0, os.loadavg()[0]] },
      file: { bytes, pinnedBytes: DEFAULT_LOCAL_MODEL.bytes, writeSeconds: round(writeS) },
      loadSeconds: round(loadS),
      wall: { promptTokensPerSecond: round(promptTokens / ppS), generatedTokensPerSecond: round(generate / tgS) },
      perCpuSecond: { promptTokens: round(pp), generatedTokens: round(tg) },
      firstRun: {
        tasks: tasks.length,
        modelCalls: tasks.length * 3,
        assumptions: { charsPerToken: CHARS_PER_TOKEN, answerTokens: ANSWER_TOKENS, toolCallTokens: TOOL_CALL_TOKENS, everyEnabledRunLoadsOneSkill: true, noPromptReuse: true },
        promptTokens: Math.round(promptTok),
        generatedTokens: genTok,
        modelMinutes: round(modelSeconds / 60),
      },
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } finally {
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
    else if (existsSync(file)) process.stderr.write(`kept ${file}\n`);
  }
}

const round = (x: number): number => Math.round(x * 100) / 100;
const cpuSeconds = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1e6;

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
