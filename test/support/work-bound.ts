/**
 * Bounding host-side work per character without a clock on the wall.
 *
 * Work is the CPU time of this process (`process.cpuUsage`, user + system) while a function runs: a loaded machine
 * takes the CPU away between time slices, which stretches elapsed time, but it does not add CPU time to the work.
 * The bound is on work per character of input, at the largest input the product reads (its cap), where super-linear
 * code is at its worst per character. Best of a few runs: noise only ever adds time.
 *
 * Budgets are stated for this project's reference machine and scaled by `machineFactor()`: a machine that runs a
 * fixed linear scan more slowly gets proportionally more time, a faster one never less.
 */

/** CPU microseconds (user + system, all threads of this process) spent in `f`. */
export function cpuMicros(f: () => unknown): number {
  const before = process.cpuUsage();
  f();
  const d = process.cpuUsage(before);
  return d.user + d.system;
}

export async function cpuMicrosAsync(f: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await f();
  const d = process.cpuUsage(before);
  return d.user + d.system;
}

/** `unit` repeated and cut to exactly `chars` characters. */
export function fill(unit: string, chars: number): string {
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

/** A fixed linear scan: split 2 Mi characters into lines and words, as any reader of text does. */
function referenceScan(text: string): number {
  let words = 0;
  for (const line of text.split("\n")) words += line.trimEnd().split(" ").length;
  return words;
}

/** What `referenceScan` costs on the reference machine (2 cores of the project's CI box), in CPU ms. */
const REFERENCE_SCAN_MS = 60;
let factor: number | undefined;

/** How much slower than the reference machine this one scans (≥ 1). */
export function machineFactor(): number {
  if (factor === undefined) {
    const text = fill("lorem ipsum dolor sit amet\n", 2 * 1024 * 1024);
    referenceScan(text);
    let best = Infinity;
    for (let i = 0; i < 5; i++) best = Math.min(best, cpuMicros(() => referenceScan(text)));
    factor = Math.max(1, best / 1000 / REFERENCE_SCAN_MS);
  }
  return factor;
}

export interface Work {
  /** CPU microseconds per character of input (best of the runs). */
  perChar: number;
  cpuMs: number;
  chars: number;
}

/** The CPU work of `f(text)` per character: the best of `repeats` runs, after one run on a small prefix to compile. */
export function work(text: string, f: (text: string) => unknown, repeats = 2): Work {
  f(text.slice(0, 4096));
  let best = Infinity;
  for (let i = 0; i < repeats; i++) best = Math.min(best, cpuMicros(() => f(text)));
  return { perChar: best / text.length, cpuMs: best / 1000, chars: text.length };
}

export function describeWork(w: Work): string {
  return `${w.chars} chars: ${w.cpuMs.toFixed(1)} ms of CPU, ${(w.perChar * 1000).toFixed(0)} ns/char`;
}
