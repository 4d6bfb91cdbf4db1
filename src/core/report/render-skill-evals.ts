/** The skill-evals part of the text and Markdown reports: pass rates, the judge, triggering and the trigger matrix. */
import { escapeMarkdown as md, fmt, pct, signed } from "./format.js";
import type { Evaluation } from "./schema.js";
import type { ExpectationPassRates } from "./skill-evals-schema.js";

const rates = (r: ExpectationPassRates): string =>
  `enabled ${pct(r.enabled.rate)} (${r.enabled.passed}/${r.enabled.total}), disabled ${pct(r.disabled.rate)} (${r.disabled.passed}/${r.disabled.total})`;

const share = (c: { n: number; loaded: number }): string => (c.n === 0 ? "n/a" : `${pct(c.loaded / c.n)} (${c.loaded}/${c.n})`);

/** Lines a reader needs about a judge: its reliability, and how much of RAE rests on pairs it cannot decide. */
function judgeLines(e: Evaluation, safe: (s: string) => string = (s) => s): string[] {
  const j = e.judge;
  if (!j) return [];
  const head = `judge: ${safe(j.model)}, ${j.repeats} grading${j.repeats === 1 ? "" : "s"} per output`;
  const notes = [
    ...(j.sameModel ? ["  note: the judge is the evaluated model, so it graded its own outputs (models tend to favour their own); an independent judge model rules that out"] : []),
    ...(j.repeats % 2 === 0 ? [`  note: ${j.repeats} gradings, an even number: an expectation passes on more than half of them, so a tie failed it`] : []),
  ];
  if (j.repeats < 2) return [`${head} (grade more than once to measure its self-agreement)`, ...notes];
  return [
    `${head}; self-agreement ${pct(j.agreement)}, Cohen's kappa ${fmt(j.kappa)} (Fleiss ${fmt(j.fleissKappa)}) over ${j.items} graded expectations`,
    `  unstable pairs (outcome flips between gradings): ${j.unstablePairs.length ? j.unstablePairs.map(safe).join(", ") : "none"}; RAE ${signed(j.rae.all)} (n ${j.rae.nAll}), without them ${signed(j.rae.withoutUnstable)} (n ${j.rae.nWithoutUnstable})`,
    ...notes,
  ];
}

/** The block under the skills table; empty for runs without skill evals. */
export function skillEvalsText(e: Evaluation, columns: (rows: string[][]) => string[], safe: (s: string) => string): string[] {
  if (!e.expectations) return [];
  const out = ["", `skill evals: expectations passed ${rates(e.expectations)}`, ...judgeLines(e, safe)];
  out.push("triggering (enabled runs; loaded = the skill was read by load_skill, search or read_skill_file):");
  const rows = e.skills
    .filter((s) => s.trigger)
    .map((s) => [safe(s.name), share(s.trigger!.ownEvals), share(s.trigger!.nearMiss), share(s.trigger!.otherEvals), signed(s.ownEvals?.effect), s.ownEvals ? String(s.ownEvals.n) : "0"]);
  out.push(...columns([["skill", "recall (own evals)", "near misses loaded", "others' evals loaded", "RAE on own, loaded", "n"], ...rows]).map((l) => `  ${l}`));
  const m = e.triggerMatrix;
  if (m && m.owners.length > 0) {
    out.push("trigger matrix (rows: skill loaded; columns: whose evals; loaded/runs):");
    const body = m.skills.map((s, i) => [safe(s), ...m.owners.map((_, j) => `${m.loaded[i]![j]}/${m.n[i]![j]}`)]);
    out.push(...columns([["", ...m.owners.map(safe)], ...body]).map((l) => `  ${l}`));
  }
  return out;
}

export function skillEvalsMarkdown(e: Evaluation): string[] {
  if (!e.expectations) return [];
  const out = ["", `**Skill evals.** Expectations passed: ${rates(e.expectations)}.`];
  for (const l of judgeLines(e)) out.push(`${md(l.trim())}  `);
  out.push("", "| skill | trigger recall (own evals) | near misses loaded | others' evals loaded | RAE on own evals where loaded |", "|---|---:|---:|---:|---:|");
  for (const s of e.skills) {
    if (!s.trigger) continue;
    out.push(`| ${md(s.name)} | ${share(s.trigger.ownEvals)} | ${share(s.trigger.nearMiss)} | ${share(s.trigger.otherEvals)} | ${signed(s.ownEvals?.effect)} (n ${s.ownEvals?.n ?? 0}) |`);
  }
  const m = e.triggerMatrix;
  if (m && m.owners.length > 0) {
    out.push("", `| loaded ↓ / evals of → | ${m.owners.map(md).join(" | ")} |`, `|---|${m.owners.map(() => "---:").join("|")}|`);
    m.skills.forEach((s, i) => out.push(`| ${md(s)} | ${m.owners.map((_, j) => `${m.loaded[i]![j]}/${m.n[i]![j]}`).join(" | ")} |`));
  }
  return out;
}
