import { test } from "node:test";
import assert from "node:assert/strict";
import { buildReport, renderCsv, renderHtml, renderJUnit, renderJson, renderMarkdown, renderText, ReportSchema } from "../../../src/core/report/index.js";
import type { RunRecord } from "../../../src/core/runs/types.js";
import { header, pair, rec } from "./fixtures.js";

const SCRIPT = "<script>alert(1)</script>";
const IMG = `<img src=x onerror="alert('x')">`;

function hostileReport() {
  const skill = `evil${SCRIPT}`;
  const other = `pic${IMG}`;
  const ids = [`task-${SCRIPT}`, `task-${IMG}`, "plain-1", "plain-2", `inc-${SCRIPT}`];
  const records: RunRecord[] = [
    rec(ids[0]!, "enabled", false, [skill], 0, `answer printed ${SCRIPT}`),
    rec(ids[0]!, "disabled", true, [], 0, `ok ${IMG}`),
    rec(ids[1]!, "enabled", true, [other], 0, `ok ${IMG}`),
    rec(ids[1]!, "disabled", false, [], 0, `expected 1, got ${SCRIPT}`),
    ...pair("plain-1", true, true),
    ...pair("plain-2", false, false, [skill]),
    rec(ids[4]!, "enabled", true, [skill]),
  ];
  const h = header({ taskIds: ids, model: { id: "m", name: `model ${IMG}` }, taskSet: { name: `set ${SCRIPT}`, format: "native", file: "x", hash: "h", size: 5 } }, [skill, other]);
  h.skills[0]!.description = `desc ${IMG}`;
  return buildReport([{ header: h, records }]);
}

/** Every `<` in the document must open one of the tags the renderer itself writes. */
function assertOnlyOwnTags(doc: string, allowed: RegExp, label: string): void {
  const stray = doc.replace(allowed, "").match(/<[^\s]{0,20}/g);
  assert.equal(stray, null, `${label}: stray markup ${stray?.slice(0, 3).join(" ")}`);
}

test("HTML export: strict CSP meta, no scripts, every model/task/skill/answer text escaped", () => {
  const html = renderHtml(hostileReport());
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';/);
  assert.ok(!/<script/i.test(html), "no script element");
  assert.ok(!/<img/i.test(html), "no img element");
  assert.ok(!/onerror=/i.test(html.replace(/onerror=&quot;/g, "")), "no live event handler attribute");
  assert.ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt;"), "script text shown escaped");
  assert.ok(html.includes("&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;"), "img text shown escaped");
  assertOnlyOwnTags(html, /<\/?(?:!DOCTYPE html|html|head|meta|title|style|body|h1|h2|h3|h4|details|summary|section|p|strong|table|thead|tbody|tr|th|td|ul|li|code|div|span|svg|rect|circle|line|text|title)\b[^<>]*>/g, "html");
});

test("markdown: no raw HTML from untrusted text survives; table cells cannot be split by '|'", () => {
  const md = renderMarkdown(hostileReport());
  assert.ok(!/<script/i.test(md));
  assert.ok(!/<img/i.test(md));
  assert.ok(md.includes("&lt;script&gt;"));
  assertOnlyOwnTags(md, /<\/?(?:details|summary|sub)>/g, "markdown");
  const r = buildReport([{ header: header({ taskIds: ["t|1"] }, ["a|b"]), records: pair("t|1", true, false, ["a|b"]) }]);
  const row = renderMarkdown(r).split("\n").find((l) => l.startsWith("| a\\|b |"));
  assert.ok(row, "skill row with the pipe escaped");
  // Same number of unescaped cell separators as the header row.
  const cells = (l: string) => l.replace(/\\\|/g, "").split("|").length;
  assert.equal(cells(row), cells("| skill | n | rescued | harmed | RAE | CI | p (Holm) | badge |"));
});

test("JUnit: one test case per task pair, harmed = failure, incomplete = skipped, and well-formed escaped XML", () => {
  const xml = renderJUnit(hostileReport());
  assert.ok(!/<script/i.test(xml) && !/<img/i.test(xml));
  assertOnlyOwnTags(xml, /<\?xml[^>]*\?>|<\/?(?:testsuites|testsuite|testcase|failure|skipped|system-out)\b[^<>]*>/g, "junit");
  // 4 complete pairs + 1 incomplete + 2 skills.
  assert.equal((xml.match(/<testcase /g) ?? []).length, 7);
  assert.equal((xml.match(/<failure type="harmed"/g) ?? []).length, 1);
  assert.equal((xml.match(/<skipped /g) ?? []).length, 1);
  assert.match(xml, /testcase classname="skill-following\.set &lt;script&gt;alert\(1\)&lt;\/script&gt;" name="task-&lt;script&gt;/);
  // Attribute values never contain a raw quote or '<'.
  for (const m of xml.matchAll(/="([^"]*)"/g)) assert.ok(!m[1]!.includes("<"), m[1]);
  // Control characters that XML 1.0 cannot carry are replaced, not emitted.
  const ctl = buildReport([{ header: header({ taskIds: ["a\u0001b"] }), records: pair("a\u0001b", true, false) }]);
  assert.ok(!renderJUnit(ctl).includes("\u0001"));
});

test("JSON and CSV: the same hostile text round-trips as data; CSV guards formulas and quotes", () => {
  const report = hostileReport();
  const parsed = ReportSchema.parse(JSON.parse(renderJson(report)));
  assert.ok(parsed.evaluations[0]!.skills.some((s) => s.name === `evil${SCRIPT}`));
  const csvReport = buildReport([{ header: header({ taskIds: ["t"] }, ['=HYPERLINK("x")']), records: pair("t", true, false, ['=HYPERLINK("x")']) }]);
  const csv = renderCsv(csvReport);
  const lines = csv.trimEnd().split("\r\n");
  assert.equal(lines.length, 2);
  assert.ok(lines[1]!.includes(`"'=HYPERLINK(""x"")"`), lines[1]);
  assert.ok(lines[1]!.includes(",-1,"), "a negative number is not treated as a formula");
});

test("text: readable table with the subsets, skills, lift and the definitions; no control characters", () => {
  const txt = renderText(hostileReport());
  assert.match(txt, /all tasks \(OAE\)/);
  assert.match(txt, /retrieved \(RAE\)/);
  assert.match(txt, /not retrieved \(NRAE\)/);
  assert.match(txt, /aggregate retrieval lift/);
  assert.match(txt, /tables: Each task contributes one pair/);
  assert.match(txt, /incomplete \(left out\)/);
  const ctl = buildReport([{ header: header({ taskIds: ["a\u001b[31mb"] }, ["s"]), records: pair("a\u001b[31mb", true, false, ["s"]) }]);
  assert.ok(!renderText(ctl).includes("\u001b"));
  assert.equal(renderText(buildReport([])), "no evaluations (the run files contain no runs)");
});

test("verdicts say why: no discordant pairs, too few discordant pairs, helps/hurts at alpha, inconclusive", () => {
  const make = (b: number, c: number, concordant: number) => {
    const records: RunRecord[] = [];
    const ids: string[] = [];
    let i = 0;
    const add = (yMinus: boolean, yPlus: boolean) => {
      ids.push(`t${i}`);
      records.push(...pair(`t${i++}`, yMinus, yPlus, ["s"]));
    };
    for (let j = 0; j < b; j++) add(false, true);
    for (let j = 0; j < c; j++) add(true, false);
    for (let j = 0; j < concordant; j++) add(true, true);
    return renderText(buildReport([{ header: header({ taskIds: ids }, ["s"]), records }]));
  };
  const retrievedLine = (txt: string) => txt.split("\n").find((l) => l.startsWith("retrieved (RAE)"))!;
  assert.match(retrievedLine(make(0, 0, 5)), /no discordant pairs$/);
  assert.match(retrievedLine(make(3, 0, 5)), /too few discordant pairs$/);
  assert.match(retrievedLine(make(12, 1, 5)), /helps$/);
  assert.match(retrievedLine(make(1, 12, 5)), /hurts$/);
  assert.match(retrievedLine(make(6, 4, 5)), /inconclusive$/);
});
