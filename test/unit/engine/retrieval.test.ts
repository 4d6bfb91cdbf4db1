import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SkillLibrary } from "../../../src/core/retrieval/library.js";
import { skill } from "./helpers.js";

const skills = [
  skill("float-tolerance", "Compare floating point results with a tolerance; use when a task returns floats.", "Use math.isclose(a, b, rel_tol=1e-9)."),
  skill("regex-pitfalls", "Escape regex metacharacters and anchor patterns; use for pattern matching tasks.", "Use re.escape and re.fullmatch."),
  skill("fraction-arithmetic", "Exact arithmetic with fractions in word problems.", "Use fractions.Fraction for exact sums."),
];

describe("catalog mode", () => {
  const lib = new SkillLibrary(skills, "catalog");

  it("lists every skill by name and description in the system section, sorted", () => {
    const section = lib.systemSection();
    const order = ["float-tolerance", "fraction-arithmetic", "regex-pitfalls"].map((n) => section.indexOf(`- ${n}:`));
    assert.ok(order.every((i) => i > 0), section);
    assert.deepEqual([...order].sort((a, b) => a - b), order);
    assert.ok(section.includes("Escape regex metacharacters"));
    assert.ok(!section.includes("re.fullmatch"), "bodies are not in the catalogue");
  });

  it("is a snapshot: the section and tools are built once from the skills it was made with", () => {
    const given = [...skills];
    const own = new SkillLibrary(given, "catalog");
    const section = own.systemSection();
    const tools = own.tools();
    // The caller's array changing later changes nothing: every request of the run sees one library.
    given.push(skill("zzz-added-later", "Added after the library was made.", "Body."));
    given.reverse();
    assert.equal(own.systemSection(), section);
    assert.equal(own.skills.length, skills.length);
    assert.ok(!own.execute({ id: "c", name: "load_skill", arguments: JSON.stringify({ name: "zzz-added-later" }) }).retrieved.length);
    // One tool list shared by every request, so nobody may change it for the others.
    assert.equal(own.tools(), tools);
    assert.throws(() => (tools as unknown[]).push({}), TypeError);
    assert.throws(() => ((tools[0]!.parameters as { required: string[] }).required as unknown[]).push("x"), TypeError);
    // A new library over the changed list sees the change.
    assert.ok(new SkillLibrary(given, "catalog").systemSection().includes("- zzz-added-later:"));
  });

  it("offers exactly one tool, load_skill(name)", () => {
    const tools = lib.tools();
    assert.equal(tools.length, 1);
    assert.equal(tools[0]!.name, "load_skill");
    assert.deepEqual((tools[0]!.parameters as { required: string[] }).required, ["name"]);
  });

  it("a load of an existing name is a retrieval returning the body", () => {
    const out = lib.execute({ id: "1", name: "load_skill", arguments: JSON.stringify({ name: "regex-pitfalls" }) });
    assert.deepEqual(out.retrieved, [{ name: "regex-pitfalls", contentHash: skills[1]!.contentHash }]);
    assert.ok(out.content.includes("re.fullmatch"));
    assert.equal(out.error, undefined);
  });

  it("an unknown name is an error and not a retrieval", () => {
    const out = lib.execute({ id: "1", name: "load_skill", arguments: JSON.stringify({ name: "sorting" }) });
    assert.deepEqual(out.retrieved, []);
    assert.match(out.content, /no skill named 'sorting'.*float-tolerance/);
  });

  it("invalid JSON arguments, a missing argument or another tool name are errors, not retrievals", () => {
    for (const call of [
      { id: "1", name: "load_skill", arguments: "{name: regex" },
      { id: "2", name: "load_skill", arguments: "{}" },
      { id: "3", name: "search_skills", arguments: JSON.stringify({ query: "regex" }) },
    ]) {
      const out = lib.execute(call);
      assert.deepEqual(out.retrieved, [], call.arguments);
      assert.ok(out.error, call.arguments);
      assert.match(out.content, /^Error: /);
    }
  });
});

describe("search mode", () => {
  it("returns the best matches, at most top-k, with full bodies", () => {
    const lib = new SkillLibrary(skills, "search", { topK: 1, threshold: 0 });
    const out = lib.execute({ id: "1", name: "search_skills", arguments: JSON.stringify({ query: "regex pattern escape" }) });
    assert.deepEqual(out.retrieved.map((r) => r.name), ["regex-pitfalls"]);
    assert.ok(out.content.includes("re.fullmatch"));
  });

  it("a search that matches nothing is not a retrieval", () => {
    const lib = new SkillLibrary(skills, "search");
    const out = lib.execute({ id: "1", name: "search_skills", arguments: JSON.stringify({ query: "zebra" }) });
    assert.deepEqual(out.retrieved, []);
    assert.match(out.content, /No skills matched/);
  });

  it("a threshold above every score returns nothing", () => {
    const lib = new SkillLibrary(skills, "search", { topK: 3, threshold: 1e6 });
    const out = lib.execute({ id: "1", name: "search_skills", arguments: JSON.stringify({ query: "regex" }) });
    assert.deepEqual(out.retrieved, []);
  });

  it("offers exactly one tool, search_skills(query), and no catalogue in the prompt", () => {
    const lib = new SkillLibrary(skills, "search");
    assert.deepEqual(lib.tools().map((t) => t.name), ["search_skills"]);
    assert.ok(!lib.systemSection().includes("float-tolerance"));
  });
});
