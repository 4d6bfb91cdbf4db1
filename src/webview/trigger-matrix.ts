import type { SkillEvalsView } from "../shared/report-view.js";
import { signed } from "../shared/format.js";
import { el } from "./dom.js";

const pct = (x: number | null) => (x === null ? "n/a" : `${(100 * x).toFixed(0)}%`);

/**
 * A library's own evals in the report panel: the skill × eval-owner trigger heat map (how often each skill was loaded
 * on each skill's evals; the diagonal is trigger recall, the rest false triggers), then a table of recall, near misses
 * and false triggers per skill, and the judge's reliability. A table of text first, shaded by class (the CSP allows
 * no inline styles), so a screen reader reads the same numbers.
 */
export function renderSkillEvals(views: readonly SkillEvalsView[]): HTMLElement {
  return el(
    "section",
    { id: "skill-evals" },
    el("h2", {}, "The skills' own evals: triggering"),
    el("p", { class: "hint" }, "Each cell: enabled runs on the column skill's evals that loaded the row skill. The diagonal is trigger recall; the rest are false triggers. Near misses are counted per skill below."),
    ...views.flatMap((v) => [views.length > 1 ? el("h3", {}, v.model) : null, heatMap(v), triggerTable(v), judgeLine(v)]),
  );
}

/** 0–5: the shade of a share (classes heat-0 … heat-5, heat-na when nothing ran). */
function shade(loaded: number, n: number): string {
  return n === 0 ? "heat-na" : `heat-${Math.round((5 * loaded) / n)}`;
}

function heatMap(v: SkillEvalsView): HTMLElement {
  const m = v.triggerMatrix;
  const head = el("tr", {}, el("th", { scope: "col" }, "loaded ↓ · evals of →"), ...m.owners.map((o) => el("th", { scope: "col", class: "owner" }, o)));
  const body = el("tbody", {});
  m.skills.forEach((s, i) => {
    body.append(
      el(
        "tr",
        { "data-skill": s },
        el("th", { scope: "row", class: "skill-name" }, s),
        ...m.owners.map((o, j) => {
          const loaded = m.loaded[i]![j]!;
          const n = m.n[i]![j]!;
          const diagonal = s === o;
          return el(
            "td",
            { class: `num heat ${shade(loaded, n)}${diagonal ? " diagonal" : ""}`, "data-owner": o, title: `${s} was loaded on ${loaded} of ${n} runs of ${o}'s evals${diagonal ? " (trigger recall)" : ""}` },
            n === 0 ? "–" : `${loaded}/${n}`,
          );
        }),
      ),
    );
  });
  return el("table", { class: "trigger-matrix", id: `trigger-matrix${v.model ? `-${v.model.replace(/[^A-Za-z0-9_-]/g, "_")}` : ""}` }, el("thead", {}, head), body);
}

const share = (c: { n: number; loaded: number }) => (c.n === 0 ? "n/a" : `${pct(c.loaded / c.n)} (${c.loaded}/${c.n})`);

function triggerTable(v: SkillEvalsView): HTMLElement {
  const head = el("tr", {}, ...["Skill", "Trigger recall (own evals)", "Near misses loaded", "Others' evals loaded", "RAE on own evals where loaded"].map((h) => el("th", {}, h)));
  const body = el("tbody", {});
  for (const s of v.skills) {
    body.append(
      el(
        "tr",
        { "data-skill": s.name },
        el("td", { class: "skill-name" }, s.name),
        el("td", { class: "num" }, share(s.ownEvals)),
        el("td", { class: "num" }, share(s.nearMiss)),
        el("td", { class: "num" }, share(s.otherEvals)),
        el("td", { class: "num" }, `${signed(s.raeOwn)} (n ${s.nOwn})`),
      ),
    );
  }
  return el("table", { class: "trigger-table" }, el("thead", {}, head), body);
}

function judgeLine(v: SkillEvalsView): HTMLElement {
  const parts = [`Expectations passed: enabled ${pct(v.expectations.enabled)}, disabled ${pct(v.expectations.disabled)}.`];
  const j = v.judge;
  if (j) {
    parts.push(
      j.repeats > 1
        ? ` Judge ${j.model}, ${j.repeats} gradings per output: self-agreement ${pct(j.agreement)}, Cohen's κ ${j.kappa === null ? "n/a" : j.kappa.toFixed(2)}; unstable pairs: ${j.unstablePairs.length ? j.unstablePairs.join(", ") : "none"}.`
        : ` Judge ${j.model}, one grading per output (grade more than once to measure its reliability).`,
    );
  }
  return el("p", { class: "judge-line" }, ...parts);
}
