/**
 * Which V8 compiler tiers a sandbox process uses for Pyodide's 9.6 MB wasm module: V8's own dynamic tiering, the same
 * for every role. Each function starts in the baseline compiler (Liftoff) and a hot one gets TurboFan code from its
 * next call on.
 *
 * Answers run under the same compilers as the reference process whose timing sets their limits (EvalPlus: 4 × the
 * canonical solution's time), so a limit measures like against like.
 *
 * Measured on MBPP+ (bench/README.md, "compiler tiers"). The alternative tried was TurboFan for CPython's interpreter
 * loop alone, eagerly, and baseline code for everything else. It was:
 * - 2.2× faster on one long pure-Python call, which stays inside one call of the interpreter loop;
 * - 36% slower in CPU on the heavy canonical solutions (C code: `sum`, big integers, `json`, hashing never left
 *   Liftoff);
 * - within noise on the light ones.
 * Both sides call each input through C (harness-py.ts `_sf_call`), so every input enters the interpreter loop afresh
 * and picks up its optimised code once it is hot. None of these flags changes what code may do; they only choose
 * compilers.
 */
export type TierRole = "answer" | "reference" | "snapshot";

/** The V8 flags of a sandbox process in `role` (none: V8's defaults, for every role). */
export function tierFlags(_role: TierRole): string[] {
  return [];
}
