import path from "node:path";
import { z } from "zod";
import { InputError } from "../../errors.js";

/**
 * The local models the product can download by name, each pinned by repository revision, size and sha256, so a
 * download is the exact file that was chosen (a moved branch or a swapped file is refused, never run).
 *
 * The default is a small instruction-tuned code model that calls tools: Qwen2.5-Coder-0.5B-Instruct in Q4_K_M
 * (Apache-2.0). Its pin (size 491,400,064 bytes, sha256 1d96…ff32, revision ebb2015…) was taken from several
 * independent public references that agree; it could not be re-checked against Hugging Face from the machine this
 * was written on. Every download is verified against it, so a wrong pin fails loudly and runs nothing.
 */
export const LocalModelEntrySchema = z.object({
  /** What `local:<name>` names. */
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  title: z.string(),
  /** Hugging Face repository and the commit the pin was taken at. */
  repo: z.string(),
  revision: z.string().regex(/^[0-9a-f]{40}$/),
  fileName: z.string().regex(/\.gguf$/),
  bytes: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  license: z.string(),
  /** How prompts and tool calls are laid out: "qwen" is ChatML with <tool_call> tags (Qwen2.5, Hermes). */
  chatFormat: z.enum(["qwen", "auto"]),
});
export type LocalModelEntry = z.infer<typeof LocalModelEntrySchema>;

export const LOCAL_MODEL_CATALOG: readonly LocalModelEntry[] = [
  LocalModelEntrySchema.parse({
    name: "qwen2.5-coder-0.5b-instruct",
    title: "Qwen2.5-Coder-0.5B-Instruct (Q4_K_M)",
    repo: "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
    revision: "ebb2015119c907b064c512bf053e945850b5875f",
    fileName: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    bytes: 491_400_064,
    sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    license: "Apache-2.0",
    chatFormat: "qwen",
  }),
];

/** The model used when nothing else is configured. */
export const DEFAULT_LOCAL_MODEL = LOCAL_MODEL_CATALOG[0]!;

/** The `model` name a local model is known by in requests, run headers and file names. */
export const LOCAL_PREFIX = "local:";

export function isLocalModelName(model: string): boolean {
  return model.startsWith(LOCAL_PREFIX);
}

/** Where a pinned model is fetched from: Hugging Face at the pinned revision, or `<mirror>/<name>/<file>`. */
export function modelDownloadUrl(entry: LocalModelEntry, mirror?: string): string {
  if (mirror) return `${mirror.replace(/\/+$/, "")}/${entry.name}/${entry.fileName}`;
  return `https://huggingface.co/${entry.repo}/resolve/${entry.revision}/${entry.fileName}`;
}

/** What `local:<ref>` points at: a catalog model (downloaded once) or a GGUF file already on disk. */
export type LocalModelRef = { kind: "catalog"; entry: LocalModelEntry } | { kind: "file"; file: string };

/**
 * Reads `local:<name>`, `local:<file.gguf>` or a bare `local:` (the default). A relative file is taken from `cwd`.
 * An unknown name is an input error that lists the catalog.
 */
export function parseLocalModel(model: string, cwd = process.cwd()): LocalModelRef {
  if (!isLocalModelName(model)) throw new InputError(`"${model}" is not a local model (local:<name> or local:<file.gguf>)`, { hintIds: ["model"] });
  const ref = model.slice(LOCAL_PREFIX.length).trim();
  if (ref === "") return { kind: "catalog", entry: DEFAULT_LOCAL_MODEL };
  const entry = LOCAL_MODEL_CATALOG.find((e) => e.name === ref);
  if (entry) return { kind: "catalog", entry };
  if (ref.toLowerCase().endsWith(".gguf")) return { kind: "file", file: path.resolve(cwd, ref) };
  throw new InputError(`unknown local model "${ref}"`, {
    hint: `Name one of ${LOCAL_MODEL_CATALOG.map((e) => e.name).join(", ")}, or a .gguf file.`,
    hintIds: ["model"],
  });
}

/** The canonical request name of a ref: `local:<catalog name>`, or `local:<file name>` (the path is machine-specific). */
export function localModelName(ref: LocalModelRef): string {
  return ref.kind === "catalog" ? `${LOCAL_PREFIX}${ref.entry.name}` : `${LOCAL_PREFIX}${path.basename(ref.file)}`;
}

/** "491 MB": how big a download is, as the model picker and the announcement say it. */
export function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1_000_000)} MB`;
}

/** What a run header says about a local model (src/core/runs/types.ts), as far as reopening it needs. */
export interface RunModelRef {
  name: string;
  weights?: { file: string; sha256: string };
}

/** The `local:` name that reopens a run's model: a catalog model by name, a file model by the path the run recorded. */
export function runLocalModelName(model: RunModelRef): string {
  const ref = parseLocalModel(model.name);
  return ref.kind === "file" && model.weights ? `${LOCAL_PREFIX}${model.weights.file}` : model.name;
}

/** Re-running a run (ablation) with other weights would compare two models: refuse. */
export function assertRunWeights(model: RunModelRef, reopened: { file: string; sha256: string }): void {
  if (model.weights && reopened.sha256 !== model.weights.sha256) {
    throw new InputError(`the run was made with ${model.name} sha256 ${model.weights.sha256}, but ${reopened.file} now has sha256 ${reopened.sha256}`, {
      hint: "Restore the model file the run used; an ablation with other weights would compare two models.",
      hintIds: ["model"],
    });
  }
}
