/**
 * Issue 24: Export Report offers every report format (JUnit and skill-creator included) and creates its folder. The
 * real export (src/extension/export-report.ts) against the fake `vscode` (fake-vscode.ts), with a report built by
 * the core from a run file written as the engine writes it (test/support/report-fixture.ts).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, beforeEach, describe, it } from "node:test";
import { workspaceLayout } from "../../../src/core/layout.js";
import { buildReport, renderJUnit, renderMarkdown } from "../../../src/core/report/index.js";
import type { Report } from "../../../src/core/report/schema.js";
import { ReportFormatSchema } from "../../../src/shared/vocabulary/index.js";
import { LIBRARY, libraryRun } from "../../support/report-fixture.js";
import { editor, installFakeVscode } from "./fake-vscode.js";
import type { Services } from "../../../src/extension/services.js";

type ExportModule = typeof import("../../../src/extension/export-report.js");
let exp: ExportModule;

before(async () => {
  installFakeVscode();
  exp = await import("../../../src/extension/export-report.js");
});

let root: string;
let svc: Services;
let panel: { reportModel: Report; runFiles: string[] };

beforeEach(() => {
  editor.reset();
  root = mkdtempSync(path.join(tmpdir(), "sf-export-"));
  const run = libraryRun(LIBRARY, { file: path.join(root, "runs", "lib--synthetic--model-one--2026.jsonl") });
  const runFile = path.join(root, "run.jsonl");
  writeFileSync(runFile, [run.header, ...run.records].map((l) => JSON.stringify(l)).join("\n") + "\n");
  const quiet = () => undefined;
  svc = { layout: workspaceLayout(path.join(root, "data")), logger: { trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet } } as unknown as Services;
  panel = { reportModel: buildReport([{ header: run.header, records: run.records }], { alpha: 0.05, exact: false, ablations: [] }), runFiles: [runFile] };
});

describe("Export Report", () => {
  it("offers every report format", async () => {
    let offered: string[] = [];
    editor.answers.pick.push((items) => void (offered = (items as { format: string }[]).map((i) => i.format)));
    assert.equal(await exp.exportOpenReport(svc, panel), undefined);
    assert.deepEqual([...offered].sort(), [...ReportFormatSchema.options].sort());
    assert.ok(offered.includes("junit") && offered.includes("skill-creator"));
  });

  it("the save dialog opens in the reports folder, created before the dialog shows it", async () => {
    assert.ok(!existsSync(svc.layout.reportsDir), "the fixture starts without it");
    assert.equal(await exp.exportOpenReport(svc, panel, "junit"), undefined); // the dialog is cancelled
    const [d] = editor.dialogs;
    assert.equal(d?.kind, "save");
    assert.equal(path.dirname(d!.options.defaultUri!.fsPath), svc.layout.reportsDir);
    assert.match(d!.options.defaultUri!.fsPath, /\.xml$/);
    assert.equal(d!.defaultExisted, true);
  });

  it("writes JUnit XML and Markdown where the dialog says, creating missing folders, as the core renders them", async () => {
    const junit = path.join(root, "out", "new", "report.xml");
    editor.answers.dialog.push(junit);
    assert.equal(await exp.exportOpenReport(svc, panel, "junit"), junit);
    assert.equal(readFileSync(junit, "utf8"), renderJUnit(panel.reportModel));
    assert.match(readFileSync(junit, "utf8"), /<testsuites name="skill-following">/);
    const md = path.join(root, "md", "report.md");
    assert.equal(await exp.exportOpenReport(svc, panel, "markdown", md), md);
    assert.equal(readFileSync(md, "utf8").trimEnd(), renderMarkdown(panel.reportModel).trimEnd());
  });

  it("every one-file format writes a non-empty file", async () => {
    for (const c of exp.EXPORT_CHOICES.filter((x) => x.extension)) {
      const file = path.join(root, "all", `r.${c.extension}`);
      assert.equal(await exp.exportOpenReport(svc, panel, c.format, file), file, c.format);
      assert.ok(readFileSync(file, "utf8").trim().length > 0, c.format);
    }
  });

  it("Inspect eval logs go into a folder of their own inside the folder chosen", async () => {
    editor.answers.dialog.push(path.join(root, "exports"));
    const dir = await exp.exportOpenReport(svc, panel, "inspect");
    assert.equal(dir, path.join(root, "exports", "run.inspect"));
    const written = readdirSync(dir!, { recursive: true }).map(String).filter((f) => f.endsWith(".json"));
    assert.ok(written.length >= 1, `Inspect logs written: ${written.join(", ")}`);
    assert.equal(editor.dialogs[0]?.kind, "open");
    assert.equal(editor.dialogs[0]?.defaultExisted, true);
  });

  it("skill-creator on a report without skill evals says why and writes nothing", async () => {
    const target = path.join(root, "sc");
    assert.equal(await exp.exportOpenReport(svc, panel, "skill-creator", target), undefined);
    assert.ok(editor.messages.some((m) => /no skill evals.*evals\/evals\.json/.test(m)), editor.messages.join("\n"));
    assert.ok(!existsSync(target));
  });
});
