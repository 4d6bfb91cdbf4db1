import type { Estimate, ReportView, SectionRow, SkillRow, TaskRef } from "../shared/report-view.js";
import { interval, pValue, signed } from "../shared/format.js";
import { el, type Child } from "./dom.js";

/** Builds the report DOM from plain data. Pure DOM construction; events are wired by main.ts via data-* attributes. */

function card(id: string, label: string, value: string, detail: Child, tone?: "good" | "bad"): HTMLElement {
  return el(
    "section",
    { class: `card${tone ? ` ${tone}` : ""}`, id },
    el("div", { class: "card-label" }, label),
    el("div", { class: "card-value" }, value),
    el("div", { class: "card-detail" }, detail),
  );
}

function tone(e: Estimate): "good" | "bad" | undefined {
  if (e.value === null || e.low === null || e.high === null) return undefined;
  if (e.high < 0) return "bad";
  if (e.low > 0) return "good";
  return undefined;
}

const PARADOX_DEFAULT = "Lift and RAE disagree in sign: the aggregate comparison is confounded by which tasks retrieve.";

/** A comparison's headline: one row per model, the same quantities as the single-model cards. */
function renderModelHeadlines(models: NonNullable<ReportView["models"]>): HTMLElement {
  const head = el(
    "tr",
    {},
    el("th", {}, "Model"),
    el("th", { class: "num" }, "RAE (where retrieved)"),
    el("th", {}, "Interval · p"),
    el("th", { class: "num" }, "OAE (all tasks)"),
    el("th", { class: "num" }, "Lift"),
    el("th", { class: "num" }, "Retrieved"),
    el("th", { class: "num" }, "Rescued / harmed"),
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
        el("td", {}, `${interval(m.rae.low, m.rae.high)} · ${pValue(m.rae.p)}`),
        el("td", { class: "num" }, signed(m.oae.value)),
        el("td", { class: "num" }, signed(m.lift)),
        el("td", { class: "num" }, `${m.nRetrieved} / ${m.n}`),
        el("td", { class: "num" }, `${m.rescued} / ${m.harmed}`),
      ),
    );
  }
  const paradoxes = models
    .filter((m) => m.paradox)
    .map((m) => el("p", { class: "paradox", role: "alert" }, `${m.model}: `, m.paradoxText ?? PARADOX_DEFAULT));
  return el("div", { id: "headline" }, el("table", { id: "headline-models" }, el("thead", {}, head), body), ...paradoxes);
}

export function renderHeadline(r: ReportView): HTMLElement {
  if (r.models && r.models.length > 1) return renderModelHeadlines(r.models);
  const h = r.headline;
  const cards = el(
    "div",
    { class: "cards" },
    card("headline-rae", "RAE (where retrieved)", signed(h.rae.value), `${interval(h.rae.low, h.rae.high)} · ${pValue(h.rae.p)}`, tone(h.rae)),
    card("headline-oae", "OAE (all tasks)", signed(h.oae.value), `${interval(h.oae.low, h.oae.high)} · ${pValue(h.oae.p)}`, tone(h.oae)),
    card("headline-lift", "Aggregate retrieval lift", signed(h.lift), "acc⁺ retrieved − acc⁺ not retrieved"),
    card("headline-retrieved", "Retrieved", `${h.nRetrieved} / ${h.n}`, "tasks where a skill was returned"),
    card("headline-flips", "Rescued / harmed", `${h.rescued} / ${h.harmed}`, "where retrieved"),
  );
  const paradox = h.paradox
    ? el("p", { class: "paradox", id: "paradox", role: "alert" }, h.paradoxText ?? PARADOX_DEFAULT)
    : null;
  return el("div", { id: "headline" }, cards, paradox);
}

function badge(flag: SkillRow["flag"]): HTMLElement {
  return el("span", { class: `badge ${flag}` }, flag);
}

export function renderSkillTable(rows: SkillRow[], alpha: number): HTMLElement {
  const sorted = [...rows].sort((a, b) => (a.rae.value ?? Infinity) - (b.rae.value ?? Infinity) || a.name.localeCompare(b.name));
  const showModel = rows.some((r) => r.model !== undefined);
  const head = el(
    "tr",
    {},
    el("th", {}, "Skill"),
    showModel ? el("th", {}, "Model") : null,
    el("th", { class: "num" }, "n"),
    el("th", { class: "num" }, "Rescued"),
    el("th", { class: "num" }, "Harmed"),
    el("th", { class: "num" }, "RAE"),
    el("th", {}, `Interval (${Math.round((1 - alpha) * 100)}%)`),
    el("th", { class: "num" }, "Holm p"),
    el("th", {}, "Verdict"),
  );
  const body = el("tbody", {});
  for (const r of sorted) {
    body.append(
      el(
        "tr",
        { "data-skill": r.name },
        el("td", { class: "skill-name" }, r.name),
        showModel ? el("td", {}, r.model ?? "") : null,
        el("td", { class: "num" }, String(r.n)),
        el("td", { class: "num" }, String(r.rescued)),
        el("td", { class: "num" }, String(r.harmed)),
        el("td", { class: "num" }, signed(r.rae.value)),
        el("td", {}, interval(r.rae.low, r.rae.high)),
        el("td", { class: "num" }, r.pHolm === null ? "n/a" : r.pHolm.toFixed(3)),
        el("td", {}, badge(r.flag)),
      ),
    );
  }
  return el("table", { id: "skills-table" }, el("thead", {}, head), body);
}

export function renderTaskList(id: string, title: string, tasks: TaskRef[], empty: string): HTMLElement {
  const list = el("ul", { class: "tasks", id: `${id}-list` });
  tasks.forEach((t, i) => {
    const button = el(
      "button",
      { class: "task-link", "data-index": String(i), "data-list": id, title: "Open both transcripts side by side" },
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
        el("div", { class: "task-reason" }, t.reason),
      ),
    );
  });
  return el(
    "section",
    { id, class: "task-section" },
    el("h2", {}, `${title} (${tasks.length})`),
    tasks.length === 0 ? el("p", { class: "empty" }, empty) : list,
  );
}

export function renderRuns(r: ReportView): HTMLElement {
  const list = el("ul", { class: "runs" });
  for (const run of r.runs) {
    list.append(
      el(
        "li",
        {},
        `${run.model} · ${run.taskSet} (${run.tasks} tasks) · ${run.mode} · ${run.design} · samples ${run.samples} · ${run.createdAt}`,
        run.stopReason ? el("span", { class: "stop" }, ` · stopped: ${run.stopReason}`) : null,
      ),
    );
  }
  return list;
}

/** Section ablation: one table, most harmful first per skill; headings come from the skill file and are text only. */
export function renderSectionTable(rows: SectionRow[], alpha: number): HTMLElement {
  const showSkill = new Set(rows.map((r) => `${r.skill}\u0000${r.model ?? ""}`)).size > 1;
  const head = el(
    "tr",
    {},
    showSkill ? el("th", {}, "Skill") : null,
    el("th", {}, "Section"),
    el("th", { class: "num" }, "Lines"),
    el("th", { class: "num" }, "Repaired"),
    el("th", { class: "num" }, "Broken"),
    el("th", { class: "num" }, "Effect"),
    el("th", {}, `Interval (${Math.round((1 - alpha) * 100)}%)`),
    el("th", { class: "num" }, "Holm p"),
    el("th", {}, "Verdict"),
  );
  const body = el("tbody", {});
  for (const r of rows) {
    const harmful = r.verdict.startsWith("harms");
    body.append(
      el(
        "tr",
        { "data-section": r.id, ...(harmful ? { class: "bad" } : {}) },
        showSkill ? el("td", {}, r.model ? `${r.skill} (${r.model})` : r.skill) : null,
        el("td", { class: "section-heading" }, r.heading),
        el("td", { class: "num" }, r.startLine === r.endLine ? String(r.startLine) : `${r.startLine}\u2013${r.endLine}`),
        el("td", { class: "num section-repaired", title: r.repairedTasks.join(", ") }, String(r.repaired)),
        el("td", { class: "num section-broken", title: r.brokenTasks.join(", ") }, String(r.broken)),
        el("td", { class: "num" }, signed(r.effect.value)),
        el("td", {}, interval(r.effect.low, r.effect.high)),
        el("td", { class: "num" }, r.pHolm === null ? "n/a" : r.pHolm.toFixed(3)),
        el("td", {}, el("span", { class: `badge ${harmful ? "harmful" : r.verdict.startsWith("helps") ? "helpful" : "inconclusive"}` }, r.verdict)),
      ),
    );
  }
  return el("table", { id: "sections-table" }, el("thead", {}, head), body);
}
