/**
 * "Did you mean …?": the closest candidate to a mistyped word by edit distance (insertions, deletions, substitutions
 * and swaps of two neighbours each cost 1), for mistyped CLI flags and commands and misspelled SKILL.md fields.
 */

/** Optimal-string-alignment distance between two strings. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `word`, if it is close enough to be a typo: at most 1 edit for words of up to 4
 * characters, 2 up to 8, else 3 (so `--concurrancy` finds `--concurrency`, `x` finds nothing). Case is ignored.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const limit = w.length <= 4 ? 1 : w.length <= 8 ? 2 : 3;
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    // Lengths further apart than the limit cannot be within it; skipping them also keeps a huge word linear.
    if (Math.abs(c.length - w.length) > limit) continue;
    const d = editDistance(w, c.toLowerCase());
    if (d <= limit && (!best || d < best.d)) best = { c, d };
  }
  return best?.c;
}
