/** Turns stats' table analysis into the report's table shape, and per-skill multiplicity into badges. */
import { analyzeTable, benjaminiHochberg, holm, type PairedCounts } from "../stats/index.js";
import type { Badge } from "../../shared/vocabulary/index.js";
import type { Table } from "./schema.js";

export function toTable(t: PairedCounts, alpha: number, exact: boolean): Table {
  const an = analyzeTable(t, alpha, exact);
  return {
    n: an.n,
    bothPass: t.a,
    rescued: t.b,
    harmed: t.c,
    bothFail: t.d,
    effect: an.effect,
    pMid: an.pMid,
    pExact: an.pExact,
    ci: an.tango,
    newcombe: an.newcombe10,
    accEnabled: an.accEnabled,
    accDisabled: an.accDisabled,
    oneSided: an.oneSided,
    rescueShare: an.rescueShare,
    tooFewDiscordant: an.tooFewDiscordant,
  };
}

export const decisionP = (t: Table, exact: boolean): number | null => (exact ? t.pExact : t.pMid);

/**
 * Holm (flags) and BH (ranking) over the skills that can be tested at all: n > 0 and at least one discordant pair
 * (Tarone: the rest can never reject, and including them would only cost power). Others get null.
 */
export function adjustSkills(tables: readonly Table[], alpha: number, exact: boolean): Array<{ pHolm: number | null; pBH: number | null; badge: Badge }> {
  const family: number[] = [];
  const p: number[] = [];
  tables.forEach((t, i) => {
    const pv = decisionP(t, exact);
    if (t.n > 0 && t.rescued + t.harmed > 0 && pv !== null) {
      family.push(i);
      p.push(pv);
    }
  });
  const h = holm(p, alpha);
  const b = benjaminiHochberg(p, alpha);
  return tables.map((t, i) => {
    const j = family.indexOf(i);
    if (j < 0) return { pHolm: null, pBH: null, badge: t.n === 0 ? "not-retrieved" : "inconclusive" };
    const badge: Badge = h.reject[j] ? (t.rescued > t.harmed ? "helpful" : "harmful") : "inconclusive";
    return { pHolm: h.adjusted[j]!, pBH: b.adjusted[j]!, badge };
  });
}

/** One task of the lift population: did its enabled run pass, and which skills (keys) did it get back. */
export interface LiftUnit {
  pass: boolean;
  keys: ReadonlySet<string>;
}

/**
 * Per-skill aggregate retrieval lift: acc₊ where the skill was returned − acc₊ where it was not (Figure 1's x axis
 * per skill). Null when either group is empty. Like the overall lift it is not causal.
 */
export function perSkillLift(population: readonly LiftUnit[], keys: readonly string[]): Array<number | null> {
  return keys.map((k) => {
    let nIn = 0, passIn = 0, nOut = 0, passOut = 0;
    for (const u of population) {
      if (u.keys.has(k)) {
        nIn++;
        if (u.pass) passIn++;
      } else {
        nOut++;
        if (u.pass) passOut++;
      }
    }
    return nIn === 0 || nOut === 0 ? null : (passIn * nOut - passOut * nIn) / (nIn * nOut);
  });
}
