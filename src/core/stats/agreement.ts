/**
 * How far a judge agrees with itself when it grades the same outputs several times. Input: one row per graded
 * item (an expectation of one run's output), one binary vote per repeat; every row has the same number of votes k.
 * - self-agreement: the share of repeat pairs that agree, per item, averaged over items (1 = never changes its mind);
 * - Cohen's kappa between two repeats: agreement beyond what their pass rates give by chance; with k > 2, Light's
 *   kappa, the mean of Cohen's kappa over all pairs of repeats; Fleiss' kappa beside it.
 * Kappa is null when chance agreement is already 1 (every vote the same): it is undefined there, not 1.
 */

/** Share of the k(k-1)/2 repeat pairs that agree, for one item with `m` passes out of `k` votes. */
export function itemAgreement(votes: readonly boolean[]): number | null {
  const k = votes.length;
  if (k < 2) return null;
  const m = votes.filter(Boolean).length;
  return (m * (m - 1) + (k - m) * (k - m - 1)) / (k * (k - 1));
}

/** Mean self-agreement over items (null without items or with fewer than 2 votes each). */
export function selfAgreement(rows: readonly (readonly boolean[])[]): number | null {
  const values = rows.map(itemAgreement).filter((v): v is number => v !== null);
  return values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length;
}

/** Cohen's kappa between two raters' binary votes on the same items. */
export function cohenKappa(a: readonly boolean[], b: readonly boolean[]): number | null {
  const n = a.length;
  if (n === 0 || b.length !== n) return null;
  let agree = 0;
  let pa = 0;
  let pb = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) agree++;
    if (a[i]) pa++;
    if (b[i]) pb++;
  }
  const po = agree / n;
  const pe = (pa / n) * (pb / n) + (1 - pa / n) * (1 - pb / n);
  if (pe >= 1) return null;
  return (po - pe) / (1 - pe);
}

/** Light's kappa: Cohen's kappa averaged over every pair of repeats (pairs where it is undefined are left out). */
export function lightKappa(rows: readonly (readonly boolean[])[]): number | null {
  const k = rows[0]?.length ?? 0;
  if (k < 2) return null;
  const column = (j: number) => rows.map((r) => r[j]!);
  const values: number[] = [];
  for (let a = 0; a < k; a++) {
    for (let b = a + 1; b < k; b++) {
      const v = cohenKappa(column(a), column(b));
      if (v !== null) values.push(v);
    }
  }
  return values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length;
}

/** Fleiss' kappa for k repeats as exchangeable raters, two categories. */
export function fleissKappa(rows: readonly (readonly boolean[])[]): number | null {
  const k = rows[0]?.length ?? 0;
  const n = rows.length;
  if (k < 2 || n === 0) return null;
  let pass = 0;
  let pBar = 0;
  for (const r of rows) {
    const m = r.filter(Boolean).length;
    pass += m;
    pBar += (m * (m - 1) + (k - m) * (k - m - 1)) / (k * (k - 1));
  }
  pBar /= n;
  const p1 = pass / (n * k);
  const pe = p1 * p1 + (1 - p1) * (1 - p1);
  if (pe >= 1) return null;
  return (pBar - pe) / (1 - pe);
}
