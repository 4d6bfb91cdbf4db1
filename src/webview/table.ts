import { el, type Child } from "./dom.js";

/**
 * Tables that sort by any column: each header is a button (keyboard: Tab to it, Enter or Space), `aria-sort` says
 * the order to screen readers, and undefined values (n/a) always sort last. Rows are moved, never rebuilt, so a
 * row's focus and selection survive a sort.
 */
export interface Column<T> {
  key: string;
  label: string;
  /** Right-aligned, tabular figures. */
  num?: boolean;
  /** What the column sorts by; null sorts last in either direction. */
  value: (row: T) => number | string | null;
  cell: (row: T) => Child;
  /** Extra text for the header's tooltip (what the column means). */
  title?: string;
}

export type SortDir = "ascending" | "descending";

function compare(a: number | string | null, b: number | string | null, dir: SortDir): number {
  if (a === null && b === null) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const c = typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b));
  return dir === "ascending" ? c : -c;
}

export function sortableTable<T>(
  id: string,
  rows: T[],
  columns: Column<T>[],
  initial: { key: string; dir: SortDir },
  rowAttrs: (row: T) => Record<string, string> = () => ({}),
  caption?: string,
): HTMLTableElement {
  const body = el("tbody", {});
  const trs = rows.map((r) => {
    const tr = el("tr", rowAttrs(r), ...columns.map((c) => el("td", c.num ? { class: "num" } : {}, c.cell(r))));
    return { row: r, tr };
  });
  const heads = columns.map((c) =>
    el(
      "th",
      { scope: "col", "aria-sort": "none", ...(c.num ? { class: "num" } : {}), "data-key": c.key },
      el("button", { class: "sort", type: "button", "data-sort": c.key, title: c.title ? `${c.title} (click to sort)` : "Sort by this column" }, c.label, el("span", { class: "sort-mark", "aria-hidden": "true" }, "")),
    ),
  );
  const table = el("table", { id, class: "sortable" }, caption ? el("caption", { class: "visually-hidden" }, caption) : null, el("thead", {}, el("tr", {}, ...heads)), body);
  let current = initial;
  const apply = (key: string, dir: SortDir) => {
    const col = columns.find((c) => c.key === key);
    if (!col) return;
    current = { key, dir };
    const sorted = [...trs].sort((a, b) => compare(col.value(a.row), col.value(b.row), dir));
    for (const { tr } of sorted) body.append(tr);
    for (const th of heads) {
      const on = th.getAttribute("data-key") === key;
      th.setAttribute("aria-sort", on ? dir : "none");
      th.querySelector(".sort-mark")!.textContent = on ? (dir === "ascending" ? " \u25b2" : " \u25bc") : "";
    }
    table.dataset.sortKey = key;
    table.dataset.sortDir = dir;
  };
  table.addEventListener("click", (event) => {
    const button = (event.target as Element).closest("button.sort");
    if (!button || !table.contains(button)) return;
    const key = button.getAttribute("data-sort")!;
    apply(key, current.key === key && current.dir === "ascending" ? "descending" : "ascending");
  });
  apply(initial.key, initial.dir);
  return table;
}
