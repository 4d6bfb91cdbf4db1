// Reference statistics (moved out of src/core/stats: only tests use them). See index.ts.
import { mcnemarExactP } from "../../../src/core/stats/paired.js";

/** Single-run A/A: the disabled arm run twice. Flip rate = discordant share expected with no effect at all. */
export function aaSingleRun(
  run1: readonly (0 | 1 | boolean)[],
  run2: readonly (0 | 1 | boolean)[],
): { flips: number; flipRate: number | null; table: [number, number, number, number]; mcnemarExactP: number } {
  let a = 0, b = 0, c = 0, d = 0;
  for (let i = 0; i < run1.length; i++) {
    const y1 = Number(run1[i]), y2 = Number(run2[i]);
    // Orientation as §1: run 2 plays "enabled", run 1 "disabled".
    if (y1 && y2) a++;
    else if (!y1 && y2) b++;
    else if (y1 && !y2) c++;
    else d++;
  }
  const n = a + b + c + d;
  return { flips: b + c, flipRate: n === 0 ? null : (b + c) / n, table: [a, b, c, d], mcnemarExactP: mcnemarExactP(b, c) };
}
