import type { Estimate, ReportView, SectionRow, SkillRow, SubsetRow, TaskRef } from "../shared/report-view.js";
import { CARD_DEFINITIONS, type CardId } from "../shared/explain.js";
import { interval, pLabel, pValue, signed } from "../shared/format.js";
import { failingSideLabel, liftParts } from "../shared/report-words.js";
import { el, type Child } from "./dom.js";
import { sortableTable, type Column } from "./table.js";

/** Builds the report DOM from plain data. Pure DOM construction; events are wired by main.ts via data-* attributes. */

/** Which explainer part each card's "?" opens. */
const CARD_EXPLAINS: Record<CardId, "pairs" | "lift" | "holm"> = { rae: "pairs", oae: "pairs", lift: "lift", retrieved: "lift", flips: "pairs" };

function explainButton(part: string, what: string): HTMLElement {
  return el("button", { class: "explain", type: "button", "data-explain": part, "aria-controls": "explainer", "aria-expanded": "false", title: `What ${what} means` }, el("span", { "aria-hidden": "true" }, "?"), el("span", { class: "visually-hidden" }, `What ${what} means`));
}

function card(id: CardId, label: string, value: string, detail: Child, tone?: "good" | "bad"): HTMLElement {
  return el(
    "section",
    { class: `card${tone ? ` ${tone}` : ""}`, id: `headline-${id}`, "aria-label": label },
    el("div", { class: "card-head" }, el("div", { class: "card-label" }, label), explainButton(CARD_EXPLAINS[id], label)),
    el("div", { class: "card-value" }, value),
    el("div", { class: "card-detail" }, detail),
    el("p", { class: "definition" }, CARD_DEFINITIONS[id]),
  );
}

function tone(e: Estimate): "good" | "bad" | undefined {
  if (e.value === null || e.low === null || e.high === null) return undefined;
  if (e.high < 0) return "bad";
  if (e.low > 0) return "good";
  return undefined;
}

const PARADOX_DEFAULT = "Lift and RAE disagree in sign: the aggregate comparison is confounded by which tasks retrieve.";
const estText = (e: Estimate) => `${interval(e.low, e.high)} \u00b7 ${pLabel(e.p)}`;

/** A comparison's headline: one row per model, the same quantities as the single-model cards. */
function renderModelHeadlines(models: NonNullable<ReportView["models"]>): HTMLElement {
  const head = el(
    "tr",
    {},
    el("th", { scope: "col" }, "Model"),
    el("th", { scope: "col", class: "num" }, "RAE (where retrieved)"),
    el("th", { scope: "col" }, "Interval · p"),
    el("th", { scope: "col", class: "num" }, "OAE (all tasks)"),
    el("th", { scope: "col", class: "num" }, "Lift"),
    el("th", { scope: "col", class: "num" }, "Retrieved"),
    el("th", { scope: "col", class: "num" }, "Rescued / harmed"),
  );
  const body = el("tbody", {});
  for (const m of models) {
    const t = tone(m.rae);
    body.append(
      el(
        "tr",
        { "data-model": m.model, ...(t ? { class: t } : {}) },
        el("td", { class: "model-name" }, m.model),
        el("td", { class: "num rae" }, signed(m.rae.value)),
        el("td", {}, estText(m.rae)),
        el("td", { class: "num" }, signed(m.oae.value)),
        el("td", { class: "num" }, signed(m.lift)),
        el("td", { class: "num" }, `${m.nRetrieved} / ${m.n}`),
        el("td", { class: "num" }, `${m.rescued} / ${m.harmed}`),
      ),
    );
  }
  const paradoxes = models.filter((m) => m.paradox).map((m) => el("p", { class: "paradox", role: "note" }, `${m.model}: `, m.paradoxText ?? PARADOX_DEFAULT));
  return el("div", { id: "headline" }, el("table", { id: "headline-models" }, el("thead", {}, head), body), ...paradoxes);
}

export function renderHeadline(r: ReportView): HTMLElement {
  if (r.models && r.models.length > 1) return renderModelHeadlines(r.models);
  const h = r.headline;
  const cards = el(
    "div",
    { class: "cards" },
    card("rae", "RAE (where retrieved)", signed(h.rae.value), estText(h.rae), tone(h.rae)),
    card("oae", "OAE (all tasks)", signed(h.oae.value), estText(h.oae), tone(h.oae)),
    card("lift", "Aggregate retrieval lift", signed(h.lift), h.selectionTerm === null ? "acc\u207a retrieved \u2212 acc\u207a not retrieved" : liftParts(h)),
    card("retrieved", "Retrieved", `${h.nRetrieved} / ${h.n}`, "tasks where a skill was returned"),
    card("flips", "Rescued / harmed", `${h.rescued} / ${h.harmed}`, `where retrieved; ${h.bothPass} passed and ${h.bothFail} failed both ways`),
  );
  const paradox = h.paradox ? el("p", { class: "paradox", id: "paradox", role: "note" }, h.paradoxText ?? PARADOX_DEFAULT) : null;
  return el("div", { id: "headline" }, cards, paradox);
}

/** The "?" explainer: closed until a "?" opens it at its part. */
export function renderExplainer(r: ReportView): HTMLElement {
  return el(
    "section",
    { id: "explainer", hidden: "", "aria-label": "What these numbers mean", tabindex: "-1" },
    el("div", { class: "explainer-head" }, el("h2", {}, "What these numbers mean"), el("button", { type: "button", "data-close-explainer": "", class: "close" }, "Close")),
    ...r.explainer.map((p) => el("section", { id: `explain-${p.id}`, class: "explain-part" }, el("h3", {}, p.title), ...p.paragraphs.map((x) => el("p", {}, x)))),
  );
}

export function renderStale(r: ReportView): HTMLElement | null {
  if (!r.stale) return null;
  return el(
    "div",
    { id: "stale", class: "stale", role: "status" },
    el("span", {}, `Out of date: ${r.stale.reason}`),
    r.stale.latestRunFile ? el("button", { type: "button", "data-action": "showLatest" }, "Show latest") : null,
    r.stale.skillFile ? el("button", { type: "button", "data-action": "evaluateAgain" }, "Evaluate again") : null,
  );
}

/** The subset table of the exports: all tasks (OAE), retrieved (RAE), not retrieved (NRAE), with every cell of the pair table. */
export function renderSubsets(r: ReportView): HTMLElement {
  const head = ["Subset", "n", "Both pass", "Rescued", "Harmed", "Both fail", "Effect", `Interval (${Math.round((1 - r.alpha) * 100)}%)`, "p", "Verdict"];
  const row = (s: SubsetRow) =>
    s.table === null
      ? el("tr", {}, el("td", {}, s.label), el("td", { colspan: "9" }, s.note ?? "n/a"))
      : el(
          "tr",
          {},
          el("td", {}, s.label),
          ...[s.table.n, s.table.bothPass, s.table.rescued, s.table.harmed, s.table.bothFail].map((v) => el("td", { class: "num" }, String(v))),
          el("td", { class: "num" }, signed(s.table.effect.value)),
          el("td", {}, interval(s.table.effect.low, s.table.effect.high)),
          el("td", { class: "num" }, pValue(s.table.effect.p)),
          el("td", {}, s.table.verdict),
        );
  return el(
    "section",
    { id: "subsets" },
    el("h2", {}, "The pair tables ", explainButton("pairs", "the pair table")),
    el("table", { id: "subsets-table" }, el("thead", {}, el("tr", {}, ...head.map((x, i) => el("th", { scope: "col", ...(i > 0 && i < 7 ? { class: "num" } : {}) }, x)))), el("tbody", {}, ...r.subsets.map(row))),
    el("ul", { class: "facts", id: "facts" }, ...[...r.facts, ...r.definitions].map((f) => el("li", {}, f))),
  );
}

function badge(flag: SkillRow["flag"]): HTMLElement {
  const mark = flag === "harmful" ? "\u2715 " : flag === "helpful" ? "\u2713 " : "";
  return el("span", { class: `badge ${flag}` }, el("span", { "aria-hidden": "true" }, mark), flag);
}

export function renderSkillTable(rows: SkillRow[], alpha: number, family: number): HTMLElement {
  const showModel = rows.some((r) => r.model !== undefined);
  const columns: Column<SkillRow>[] = [
    { key: "name", label: "Skill", value: (r) => r.name, cell: (r) => el("span", {}, el("span", { class: "skill-name" }, r.name), r.note ? el("div", { class: "note" }, r.note) : null) },
    ...(showModel ? [{ key: "model", label: "Model", value: (r: SkillRow) => r.model ?? "", cell: (r: SkillRow) => r.model ?? "" }] : []),
    { key: "n", label: "n", num: true, value: (r) => r.n, cell: (r) => String(r.n), title: "Tasks on which the skill was returned" },
    { key: "rescued", label: "Rescued", num: true, value: (r) => r.rescued, cell: (r) => String(r.rescued) },
    { key: "harmed", label: "Harmed", num: true, value: (r) => r.harmed, cell: (r) => String(r.harmed) },
    { key: "rae", label: "RAE", num: true, value: (r) => r.rae.value, cell: (r) => signed(r.rae.value) },
    { key: "interval", label: `Interval (${Math.round((1 - alpha) * 100)}%)`, value: (r) => r.rae.low, cell: (r) => interval(r.rae.low, r.rae.high) },
    { key: "p", label: "p", num: true, value: (r) => r.rae.p, cell: (r) => pValue(r.rae.p), title: "The skill's own p-value" },
    { key: "pHolm", label: "Holm p", num: true, value: (r) => r.pHolm, cell: (r) => pValue(r.pHolm), title: `Adjusted for the ${family} skills tested` },
    { key: "lift", label: "Lift", num: true, value: (r) => r.lift, cell: (r) => signed(r.lift) },
    { key: "verdict", label: "Verdict", value: (r) => r.flag, cell: (r) => badge(r.flag) },
  ];
  return sortableTable("skills-table", rows, columns, { key: "rae", dir: "ascending" }, (r) => ({ "data-skill": r.name, ...(r.model ? { "data-model": r.model } : {}), tabindex: "-1" }), "Skills: RAE, interval, p-values and verdict of each skill");
}

/** Compare Models: skills × models, each cell the skill's RAE under that model with its interval and verdict. */
export function renderMatrix(r: ReportView): HTMLElement | null {
  const models = r.models?.map((m) => m.model) ?? [];
  if (models.length < 2) return null;
  const names = [...new Set(r.skills.map((s) => s.name))].sort();
  const cell = (name: string, model: string) => {
    const s = r.skills.find((x) => x.name === name && x.model === model);
    if (!s || s.rae.value === null) return el("td", { class: "num empty" }, "n/a");
    return el("td", { class: `num${s.flag === "harmful" ? " bad" : s.flag === "helpful" ? " good" : ""}` }, el("div", {}, signed(s.rae.value)), el("div", { class: "cell-detail" }, `${interval(s.rae.low, s.rae.high)} \u00b7 ${s.flag}`));
  };
  return el(
    "section",
    { id: "matrix" },
    el("h2", {}, "Skills \u00d7 models (RAE where retrieved)"),
    el(
      "table",
      { id: "matrix-table" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Skill"), ...models.map((m) => el("th", { scope: "col", class: "num" }, m)))),
      el("tbody", {}, ...names.map((n) => el("tr", { "data-skill": n }, el("th", { scope: "row" }, n), ...models.map((m) => cell(n, m))))),
    ),
  );
}

export function renderTaskList(id: "harmed" | "rescued", title: string, tasks: TaskRef[], empty: string): HTMLElement {
  const list = el("ul", { class: "tasks", id: `${id}-list` });
  tasks.forEach((t, i) => {
    const button = el(
      "button",
      { class: "task-link", type: "button", "data-index": String(i), "data-list": id, title: "Open both transcripts side by side" },
      el("span", { class: "task-id" }, t.taskId),
      t.sample > 0 ? el("span", { class: "task-sample" }, ` #${t.sample}`) : null,
    );
    list.append(
      el(
        "li",
        {},
        button,
        t.model ? el("span", { class: "task-model" }, t.model) : null,
        t.skills.length > 0 ? el("span", { class: "task-skills" }, t.skills.join(", ")) : null,
        el("div", { class: "task-reason" }, el("span", { class: "task-side" }, failingSideLabel(id)), t.reason),
      ),
    );
  });
  return el("section", { id, class: "task-section" }, el("h2", {}, `${title} (${tasks.length})`), tasks.length === 0 ? el("p", { class: "empty" }, empty) : list);
}

export function renderRuns(r: ReportView): HTMLElement {
  const list = el("ul", { class: "runs" });
  for (const run of r.runs) {
    list.append(
      el(
        "li",
        {},
        `${run.model} \u00b7 ${run.taskSet} (${run.tasks} tasks) \u00b7 ${run.mode} \u00b7 ${run.design} \u00b7 samples ${run.samples} \u00b7 ${run.createdAt}`,
        run.stopReason ? el("span", { class: "stop" }, ` \u00b7 stopped: ${run.stopReason}`) : null,
      ),
    );
  }
  return list;
}

/** Section ablation: sortable, most harmful first per skill; headings come from the skill file and are text only. */
export function renderSectionTable(rows: SectionRow[], alpha: number): HTMLElement {
  const showSkill = new Set(rows.map((r) => `${r.skill}\u0000${r.model ?? ""}`)).size > 1;
  const verdictClass = (r: SectionRow) => (r.verdict.startsWith("harms") ? "harmful" : r.verdict.startsWith("helps") ? "helpful" : "inconclusive");
  const columns: Column<SectionRow>[] = [
    ...(showSkill ? [{ key: "skill", label: "Skill", value: (r: SectionRow) => r.skill, cell: (r: SectionRow) => (r.model ? `${r.skill} (${r.model})` : r.skill) }] : []),
    { key: "heading", label: "Section", value: (r) => r.heading, cell: (r) => el("span", { class: "section-heading" }, r.heading) },
    { key: "lines", label: "Lines", num: true, value: (r) => r.startLine, cell: (r) => (r.startLine === r.endLine ? String(r.startLine) : `${r.startLine}\u2013${r.endLine}`) },
    { key: "repaired", label: "Repaired", num: true, value: (r) => r.repaired, cell: (r) => el("span", { class: "section-repaired", title: r.repairedTasks.join(", ") }, String(r.repaired)) },
    { key: "broken", label: "Broken", num: true, value: (r) => r.broken, cell: (r) => el("span", { class: "section-broken", title: r.brokenTasks.join(", ") }, String(r.broken)) },
    { key: "effect", label: "Effect", num: true, value: (r) => r.effect.value, cell: (r) => signed(r.effect.value) },
    { key: "interval", label: `Interval (${Math.round((1 - alpha) * 100)}%)`, value: (r) => r.effect.low, cell: (r) => interval(r.effect.low, r.effect.high) },
    { key: "pHolm", label: "Holm p", num: true, value: (r) => r.pHolm, cell: (r) => pValue(r.pHolm) },
    { key: "verdict", label: "Verdict", value: (r) => r.verdict, cell: (r) => el("span", { class: `badge ${verdictClass(r)}` }, r.verdict) },
  ];
  // The core already orders rows most harmful first per skill: keep that order until the reader sorts.
  const order = new Map(rows.map((r, i) => [r, i]));
  columns.unshift({ key: "rank", label: "#", num: true, value: (r) => order.get(r)!, cell: (r) => String(order.get(r)! + 1), title: "Most harmful first" });
  return sortableTable("sections-table", rows, columns, { key: "rank", dir: "ascending" }, (r) => ({ "data-section": r.id, ...(r.verdict.startsWith("harms") ? { class: "bad" } : {}) }), "Sections: what removing each did");
}
