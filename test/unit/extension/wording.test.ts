/** Issue 24's wording: what the editor's diagnostics, lift card, flip lists and facts say. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lintSkillText } from "../../../src/core/skills/index.js";
import { plainYamlMessage } from "../../../src/extension/yaml-messages.js";
import { buildReportView, type LoadedRun } from "../../../src/extension/report-view-model.js";
import type { RunHeader, RunRecord } from "../../../src/core/runs/types.js";
import { failingSideLabel, liftParts } from "../../../src/shared/report-words.js";
import { libraryRun } from "../../support/report-fixture.js";

const skill = (name: string, description = "Formats dates when asked to.") => `---\nname: ${name}\ndescription: ${description}\n---\nbody\n`;

describe("YAML findings in plain words", () => {
  it("a description with ': ' becomes a sentence with its line and column and the fix, not the parser's words", () => {
    const f = lintSkillText("/s/a/SKILL.md", skill("a", "Use when: dates break")).find((x) => x.code === "yaml-syntax")!;
    const text = plainYamlMessage(f);
    assert.equal(text, `Line ${f.line}, column ${f.column}: the frontmatter is not valid YAML: a value contains \u201c: \u201d, which YAML reads as a second key; put the value in double quotes.`);
    assert.doesNotMatch(text, /compact mappings/);
  });

  it("a duplicate key and an unclosed quote say so; an unknown parser message is quoted after the same lead", () => {
    const dup = lintSkillText("/s/a/SKILL.md", "---\nname: a\ndescription: x\nname: b\n---\nbody\n").find((x) => x.code === "yaml-syntax")!;
    assert.equal(plainYamlMessage(dup), "Line 4, column 1: the frontmatter is not valid YAML: this key appears twice; keep one of them.");
    assert.match(plainYamlMessage({ code: "yaml-syntax", message: 'YAML error: Missing closing "quote', line: 3, column: 16 }), /^Line 3, column 16: .*double quote is opened and never closed/);
    assert.equal(plainYamlMessage({ code: "yaml-warning", message: "YAML warning: Something odd.", line: 2, column: 1 }), "Line 2, column 1: the frontmatter's YAML is questionable: the parser says \u201cSomething odd\u201d.");
    assert.equal(plainYamlMessage({ code: "name-missing", message: "frontmatter has no `name`", line: 1, column: 1 }), "frontmatter has no `name`", "other findings keep their words");
  });
});

describe("name/folder mismatch suggests only valid names", () => {
  const mismatch = (folder: string, name: string) => lintSkillText(`/s/${folder}/SKILL.md`, skill(name)).find((f) => f.code === "name-folder-mismatch")!.message;
  it("never suggests renaming the folder to an invalid name", () => {
    assert.match(mismatch("date-formatter", "Date-Formatter"), /: set name: date-formatter$/);
    assert.doesNotMatch(mismatch("date-formatter", "Date-Formatter"), /rename the folder/);
    assert.match(mismatch("Date-Formatter", "date-formatter"), /: rename the folder to date-formatter$/);
    assert.match(mismatch("Date_Formatter", "Date-Formatter"), /use one valid name for both, such as date-formatter$/);
    assert.match(mismatch("a", "b"), /rename the folder to b or set name: a$/);
  });
});

describe("report wording", () => {
  it("the lift card gives every term its value", () => {
    const text = liftParts({ selectionTerm: -0.1, rae: { value: -0.25 } as never, nrae: { value: 0 } as never });
    assert.equal(text, "difficulty gap \u22120.10 + RAE \u22120.25 \u2212 NRAE 0.00");
  });

  it("the flip lists label the failing side", () => {
    assert.equal(failingSideLabel("rescued"), "Without skills, failed: ");
    assert.equal(failingSideLabel("harmed"), "With skills, failed: ");
  });

  it("a run where no code ran says so instead of `sandbox isolation: none`", () => {
    const header = {
      type: "header", formatVersion: 1, toolVersion: "0", runId: "r", createdAt: "2026-01-01T00:00:00Z",
      model: { id: "openai-compatible:m@http://x/v1", name: "m" }, params: { samples: 1, maxTurns: 6 },
      taskSet: { name: "math-word", format: "native", file: "/t.jsonl", hash: "h", size: 1 }, taskIds: [],
      skills: [{ name: "s", contentHash: "hash-s", file: "/skills/s/SKILL.md", description: "d" }],
      skillLibraryHash: "lib", mode: "catalog", design: "paired", promptVersion: "1", sandbox: { isolation: "none" }, stopWhen: "never",
    } as RunHeader;
    const rec = (condition: "enabled" | "disabled"): RunRecord =>
      ({
        type: "run", key: `T1\u0000${condition}\u00000`, taskId: "T1", condition, sample: 0, retrieved: [], toolCalls: [], answer: "4",
        verdict: { pass: true, reason: "ok" }, tokens: { prompt: 1, completion: 1 }, latencyMs: 1, modelCalls: 1, cachedCalls: 0, turns: 1, transcript: [], finishedAt: "2026-01-01T00:00:01Z",
      }) as RunRecord;
    const run: LoadedRun = { file: "/runs/a.jsonl", header, records: [rec("disabled"), rec("enabled")], stops: [], warnings: [] };
    const facts = buildReportView([run], 0.05).facts;
    assert.ok(facts.includes("sandbox: not used (no task ran generated code)"), facts.join("\n"));
    assert.ok(!facts.some((f) => f.includes("isolation: none")));
  });
});

describe("the too-few-discordant-pairs banner agrees with the rows", () => {
  it("in a comparison it names the model it is about and is absent for the model whose row is significant", () => {
    const a = libraryRun([{ name: "money", rescued: 0, harmed: 12, bothPass: 2, bothFail: 0 }], { model: "model-a", file: "/runs/a.jsonl" });
    const b = libraryRun([{ name: "money", rescued: 0, harmed: 0, bothPass: 13, bothFail: 1 }], { model: "model-b", file: "/runs/b.jsonl" });
    const view = buildReportView([a, b], 0.05);
    const rowA = view.skills.find((s) => s.model === "model-a" && s.name === "money");
    assert.equal(rowA?.flag, "harmful", JSON.stringify(view.skills.map((s) => [s.model, s.name, s.flag])));
    const banners = view.notes.filter((n) => /too few discordant/i.test(n));
    assert.deepEqual(banners, ["model-b: too few discordant pairs where retrieved: none of its results could reach significance at this size."]);
  });

  it("one model with too few discordant pairs: the banner as before, and no row of it is significant", () => {
    const view = buildReportView([libraryRun([{ name: "money", rescued: 1, harmed: 1, bothPass: 6, bothFail: 0 }], { model: "model-a" })], 0.05);
    assert.deepEqual(view.notes.filter((n) => /too few discordant/i.test(n)), ["Too few discordant pairs where retrieved: no result could reach significance at this size."]);
    assert.ok(view.skills.every((s) => s.flag !== "harmful" && s.flag !== "helpful"));
  });
});
