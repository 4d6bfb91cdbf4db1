// Reference statistics (moved out of src/core/stats: only tests use them). See index.ts.
import { addOutcome, emptyCounts, type PairedOutcome } from "../../../src/core/stats/metrics.js";
import type { PairedCounts } from "../../../src/core/stats/paired.js";

/** One task of a log: its paired outcome and the skills its enabled run got back. */
export interface SkillTaskOutcome extends PairedOutcome {
  skills: readonly string[];
}

/** Per-skill 2×2 tables over {t : s ∈ Sₜ}; the subsets overlap, so RAE_s is "tasks where s was returned". */
export function perSkillCounts(tasks: Iterable<SkillTaskOutcome>): Map<string, PairedCounts> {
  const out = new Map<string, PairedCounts>();
  for (const t of tasks) {
    for (const s of new Set(t.skills)) {
      let c = out.get(s);
      if (!c) out.set(s, (c = emptyCounts()));
      addOutcome(c, t);
    }
  }
  return out;
}
