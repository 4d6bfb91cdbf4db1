import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * Which V8 compiler tiers a sandbox process uses for Pyodide's 9.6 MB wasm module (measured in bench/README.md).
 *
 * By default V8 compiles each wasm function with its baseline compiler (Liftoff) and re-compiles a hot function with
 * TurboFan for its *next* call. That never helps CPython's interpreter loop, `_PyEval_EvalFrameDefault`: a Python
 * function calling Python functions stays inside one C call of it (CPython ≥ 3.11 does not recurse in C), so a whole
 * answer runs in baseline code, about 3x slower. So:
 * - answer processes compile that one function with TurboFan as soon as it is first called (eager tier-up restricted
 *   to it, in the background) and leave every other function to the baseline compiler: no start-up cost, and the
 *   interpreter loop at full speed from the first answer input on.
 * - reference processes live long and compute every expected output: everything is tiered up eagerly in the
 *   background once, so the canonical solutions run at full speed.
 * None of these flags changes what code may do; they only choose compilers.
 */
export type TierRole = "answer" | "reference" | "snapshot";

const EVAL_LOOP = "_PyEval_EvalFrameDefault";
const cache = new Map<string, number | null>();

/** The function index of `name` in a wasm binary's export section (imports counted first), or null. */
export function wasmExportIndex(bytes: Uint8Array, name: string): number | null {
  let o = 8;
  const leb = (): number => {
    let r = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[o++]!;
      r += (b & 127) * 2 ** shift;
      shift += 7;
    } while (b & 128 && o < bytes.length);
    return r;
  };
  const str = (): string => {
    const n = leb();
    const s = Buffer.from(bytes.buffer, bytes.byteOffset + o, n).toString("utf8");
    o += n;
    return s;
  };
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return null;
  while (o < bytes.length) {
    const id = bytes[o++]!;
    const size = leb();
    const end = o + size;
    if (id === 7) {
      const n = leb();
      for (let i = 0; i < n && o < end; i++) {
        const exported = str();
        const kind = bytes[o++]!;
        const index = leb();
        if (kind === 0 && exported === name) return index;
      }
      return null;
    }
    o = end;
  }
  return null;
}

/** The interpreter loop's function index in the shipped runtime (read once per file), or null if it is not exported. */
export function evalLoopIndex(pyodideDir: string): number | null {
  const file = path.join(pyodideDir, "pyodide.asm.wasm");
  let index = cache.get(file);
  if (index === undefined) {
    try {
      index = wasmExportIndex(readFileSync(file), EVAL_LOOP);
    } catch {
      index = null;
    }
    cache.set(file, index);
  }
  return index;
}

/** The V8 flags of a sandbox process in `role`. */
export function tierFlags(role: TierRole, pyodideDir: string): string[] {
  if (role === "reference") return ["--no-wasm-dynamic-tiering"];
  if (role === "answer") {
    const index = evalLoopIndex(pyodideDir);
    return index === null ? [] : ["--no-wasm-dynamic-tiering", `--wasm-tier-up-filter=${index}`];
  }
  return [];
}
