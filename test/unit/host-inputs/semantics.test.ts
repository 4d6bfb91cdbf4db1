/**
 * Host-side inputs (issue 10 item 5): the linear readers keep the behaviour of what they replaced on honest input,
 * and hostile input meets a cap with a clear message. Through the engine, with the real OpenAI client against the
 * scripted server: hostile replies fail as "no answer", honest ones pass, in the same run and in a later one.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { parseDocument } from "yaml";
import { MAX_REPLY_CHARS, extractAnswer, extractPythonCode, replyOverCap } from "../../../src/core/agent/extract.js";
import { runAgent } from "../../../src/core/agent/loop.js";
import { createGrader } from "../../../src/core/grading/index.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { SkillLibrary } from "../../../src/core/retrieval/library.js";
import { MAX_SEARCH_QUERY_CHARS, MAX_TOOL_ARGUMENT_CHARS, MAX_TOOL_CALLS_PER_TURN } from "../../../src/core/retrieval/tool-args.js";
import { evaluate } from "../../../src/core/runs/evaluate.js";
import { MAX_FRONTMATTER_BYTES, MAX_YAML_NESTING, readFrontmatterYaml } from "../../../src/core/skills/frontmatter.js";
import { MAX_FINDINGS_PER_CODE, parseSkill } from "../../../src/core/skills/parse.js";
import { splitSkillSections } from "../../../src/core/skills/sections.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { bySubstring, boxedAnswer, pythonAnswer, taskPlanScript } from "../../support/scripts.js";
import { fill } from "../../support/work-bound.js";
import { mathTask, pythonTask, skill } from "../engine/helpers.js";
import { sandboxDist } from "../sandbox/support.js";

/** The replaced fence regex with its one quirk removed: the fence may not backtrack to a shorter run of itself. */
const FENCE_NO_BACKTRACK = /^[ \t]*(`{3,}(?!`)|~{3,}(?!~))[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;
function regexExtract(text: string): string | null {
  let tagged: string | null = null;
  let untagged: string | null = null;
  for (const m of text.replace(/\r\n/g, "\n").matchAll(FENCE_NO_BACKTRACK)) {
    const lang = (m[2] ?? "").toLowerCase();
    if (lang === "python" || lang === "py" || lang === "python3") tagged = m[3] ?? "";
    else if (lang === "") untagged = m[3] ?? "";
  }
  const code = tagged ?? untagged;
  return code !== null && code.trim() !== "" ? code.replace(/\s+$/, "") + "\n" : null;
}

describe("answer extraction: the line scanner reads replies as the regex did", () => {
  it("agrees with the fence regex on random replies built from fence fragments", () => {
    const fragment = fc.constantFrom("```", "````", "~~~", "~~~~", "```python", "```py", "```js", "``` python3", "\n", "\n", "\n", " ", "\t", "x", "def f():\n    return 1", "\r\n", "`", "~");
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        assert.equal(extractPythonCode(text), regexExtract(text), JSON.stringify(text));
      }),
      { numRuns: 5000, seed: 105 },
    );
  });

  it("an opener never closes on a shorter run of its own fence (CommonMark; the regex backtracked into one)", () => {
    assert.equal(extractPythonCode("`````python\nx = 1\n```\n"), null);
    assert.equal(extractPythonCode("````python\nx = '```'\n````\n"), "x = '```'\n");
  });

  it("a reply over the cap has no answer, and says why", () => {
    const task = pythonTask("p/1", "f", "def f():\n    return 1\n", [[]]);
    const honest = pythonAnswer("def f():\n    return 1");
    const long = honest + "x".repeat(MAX_REPLY_CHARS);
    assert.equal(extractAnswer(task, honest), "def f():\n    return 1\n");
    assert.equal(extractAnswer(task, long), null);
    assert.equal(extractAnswer(mathTask("m/1", "p", "1"), `\\boxed{1}${" ".repeat(MAX_REPLY_CHARS)}`), null);
    assert.match(replyOverCap(long) ?? "", new RegExp(`the reply is ${long.length} characters, over the ${MAX_REPLY_CHARS}-character limit`));
    assert.equal(replyOverCap(honest), undefined);
  });
});

const skillText = (frontmatter: string, body = "Do it.\n") => `---\nname: a\ndescription: d\n${frontmatter}\n---\n${body}`;
const FILE = "/ws/skills/a/SKILL.md";

describe("SKILL.md: the capped reader keeps the library's verdicts on honest YAML", () => {
  it("reports duplicate keys exactly where the library's own check does, in any map", () => {
    const key = fc.constantFrom("a", "b", "c", "1", "1.0", "true", "null", "~", "'a'", '"b"', "x y");
    const value = fc.constantFrom("1", "v", "[1, 2]", "{a: 1, a: 2}", "{b: 1}", "null");
    const map = fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(map, fc.boolean(), (pairs, nested) => {
        const lines = pairs.map(([k, v]) => `${k}: ${v}`);
        const yaml = nested ? `top:\n${lines.map((l) => `  ${l}`).join("\n")}` : lines.join("\n");
        const theirs = parseDocument(yaml, { prettyErrors: false }).errors.filter((e) => e.code === "DUPLICATE_KEY").map((e) => e.pos[0]);
        const read = readFrontmatterYaml(yaml);
        const ours = read.ok ? [] : read.errors.filter((e) => e.message === "Map keys must be unique").map((e) => e.pos[0]);
        assert.deepEqual(ours, theirs, yaml);
      }),
      { numRuns: 1500, seed: 105 },
    );
  });

  it("a duplicate key is still a YAML error on the later key's line", () => {
    const r = parseSkill(FILE, skillText("license: x\nlicense: y"));
    assert.equal(r.skill, undefined);
    assert.deepEqual(r.findings.map((f) => [f.code, f.line, f.message]), [["yaml-syntax", 5, "YAML error: Map keys must be unique"]]);
  });

  it("lists at most 50 findings of a kind, then one finding with the count; the skill still loads", () => {
    const many = Array.from({ length: 4000 }, (_, i) => `extra${i}: v`).join("\n");
    const r = parseSkill(FILE, skillText(many));
    const unknown = r.findings.filter((f) => f.code === "unknown-field");
    assert.equal(unknown.length, MAX_FINDINGS_PER_CODE + 1);
    assert.equal(unknown[0]?.line, 4);
    assert.match(unknown.at(-1)?.message ?? "", /^3950 more `unknown-field` findings in this file are not listed \(at most 50 per kind\)$/);
    assert.equal(unknown.at(-1)?.severity, "info");
    assert.ok(r.skill, "unknown fields do not skip the skill");
  });

  it("caps YAML errors per kind too", () => {
    const r = parseSkill(FILE, skillText(fill("&a ", 30_000)));
    assert.equal(r.skill, undefined);
    assert.ok(r.findings.length <= MAX_FINDINGS_PER_CODE + 1, `${r.findings.length} findings`);
    assert.match(r.findings.at(-1)?.message ?? "", /more `yaml-syntax` findings/);
  });

  it("refuses a frontmatter over 64 KB with a finding that says what to do", () => {
    const r = parseSkill(FILE, skillText(`metadata:\n  notes: "${"x".repeat(MAX_FRONTMATTER_BYTES)}"`));
    assert.equal(r.skill, undefined);
    assert.deepEqual(r.findings.map((f) => [f.code, f.severity, f.line]), [["frontmatter-too-large", "error", 1]]);
    assert.match(r.findings[0]!.message, /the limit is 64 KB: keep only the fields/);
    assert.equal(splitSkillSections(skillText(`x: "${"y".repeat(MAX_FRONTMATTER_BYTES)}"`)).description, undefined);
  });

  it("refuses YAML nested deeper than 100 levels, at the line where it gets too deep, and reads honest nesting", () => {
    const deep = parseSkill(FILE, skillText(`x:\n  ${"[".repeat(MAX_YAML_NESTING + 5)}`));
    assert.equal(deep.skill, undefined);
    assert.deepEqual(deep.findings.map((f) => [f.code, f.line]), [["yaml-syntax", 5]]);
    assert.match(deep.findings[0]!.message, /nesting deeper than 100 levels/);
    const blocks = Array.from({ length: MAX_YAML_NESTING + 5 }, (_, i) => `${" ".repeat(i)}k:`).join("\n");
    assert.equal(parseSkill(FILE, skillText(`x:\n ${blocks}`)).findings[0]?.code, "yaml-syntax");
    const honest = parseSkill(FILE, skillText("metadata:\n  a: '[[[not nesting'\n  b: x\nallowed-tools: [Read, Grep]"));
    assert.deepEqual(honest.findings, []);
    assert.deepEqual(honest.skill?.allowedTools, ["Read", "Grep"]);
  });

  it("quotes a hostile key or name in a message by its start only", () => {
    const r = parseSkill(FILE, skillText(`${"k".repeat(5000)}: v`));
    assert.ok((r.findings[0]?.message.length ?? 0) < 300, r.findings[0]?.message.slice(0, 300));
  });
});

describe("skill tools: arguments, queries and calls per turn are capped", () => {
  const skills = [skill("units", "Convert units.", "Convert first."), skill("rounding", "Round money.", "Round to dollars.")];

  it("refuses arguments over 16 KB before parsing them, and quotes names by their start", () => {
    const lib = new SkillLibrary(skills, "catalog");
    const big = JSON.stringify({ name: "x".repeat(MAX_TOOL_ARGUMENT_CHARS) });
    const out = lib.execute({ id: "1", name: "load_skill", arguments: big });
    assert.equal(out.error, `arguments are ${big.length} characters; the limit is ${MAX_TOOL_ARGUMENT_CHARS}`);
    assert.deepEqual(out.retrieved, []);
    const unknown = lib.execute({ id: "2", name: "load_skill", arguments: JSON.stringify({ name: "y".repeat(5000) }) });
    assert.ok(unknown.content.length < 300, unknown.content.slice(0, 300));
    const tool = lib.execute({ id: "3", name: "z".repeat(5000), arguments: "{}" });
    assert.ok(tool.content.length < 300);
    assert.equal(lib.execute({ id: "4", name: "load_skill", arguments: JSON.stringify({ name: "units" }) }).retrieved[0]?.name, "units");
  });

  it("refuses a search query over 1000 characters; a short one still retrieves", () => {
    const lib = new SkillLibrary(skills, "search", { topK: 1, threshold: 0 });
    const out = lib.execute({ id: "1", name: "search_skills", arguments: JSON.stringify({ query: "units ".repeat(200) }) });
    assert.equal(out.error, `the query is 1200 characters; the limit is ${MAX_SEARCH_QUERY_CHARS}: search with a few words`);
    assert.equal(lib.execute({ id: "2", name: "search_skills", arguments: JSON.stringify({ query: "convert units" }) }).retrieved[0]?.name, "units");
  });

  it("runs at most 16 tool calls of one turn, keeps the transcript consistent and tells the model", async () => {
    const server = await startScriptedServer({
      script: (req) =>
        req.messages.some((m) => m.role === "tool")
          ? { content: boxedAnswer("2") }
          : { toolCalls: Array.from({ length: 40 }, (_, i) => ({ name: "load_skill", arguments: JSON.stringify({ name: i % 2 ? "units" : "nope" }) })) },
    });
    try {
      const client = createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 });
      const r = await runAgent({ task: mathTask("m/1", "What is 1 + 1?", "2"), condition: "enabled", library: new SkillLibrary(skills, "catalog"), client, model: "m", params: {}, sampleIndex: 0 });
      assert.equal(r.toolCalls.length, MAX_TOOL_CALLS_PER_TURN);
      const assistant = r.transcript.find((m) => m.role === "assistant" && m.toolCalls);
      assert.equal(assistant?.role === "assistant" ? assistant.toolCalls?.length : 0, MAX_TOOL_CALLS_PER_TURN);
      const replies = r.transcript.filter((m) => m.role === "tool");
      assert.equal(replies.length, MAX_TOOL_CALLS_PER_TURN);
      assert.match(String(replies.at(-1)?.content), /\(24 more tool calls in this turn were not run: at most 16 per turn\.\)$/);
      assert.deepEqual(r.retrieved.map((s) => s.name), ["units"]);
      assert.equal(r.answer, "2");
      // What the server saw next: the same 16 calls, each with its reply.
      const second = server.requests.at(-1)!;
      assert.equal(second.messages.filter((m) => m.role === "tool").length, MAX_TOOL_CALLS_PER_TURN);
    } finally {
      await server.close();
    }
  });
});

describe("through the engine: hostile replies fail as no answer, honest ones pass", () => {
  let server: ScriptedServer;
  let dir: string;
  const FENCES = "````x\n".repeat(320 * 1024 / 6);
  const tasks = [
    pythonTask("py/honest", "add", "def add(a, b):\n    return a + b\n", [[1, 2], [3, 4]]),
    pythonTask("py/unclosed-fences", "add", "def add(a, b):\n    return a + b\n", [[1, 2]]),
    pythonTask("py/over-cap", "add", "def add(a, b):\n    return a + b\n", [[1, 2]]),
    mathTask("m/honest", "What is 2 + 3? (honest)", "5"),
    mathTask("m/answer-lines", "What is 2 + 3? (answer lines)", "5"),
    mathTask("m/over-cap", "What is 2 + 3? (over cap)", "5"),
  ];
  const good = pythonAnswer("def add(a, b):\n    return a + b");
  const plans = bySubstring({
    "py/honest": { disabled: good, enabled: [{ answer: good }] },
    "py/unclosed-fences": { disabled: FENCES, enabled: [{ answer: FENCES + good.replace(/```/g, "'''") }] },
    "py/over-cap": { disabled: good + " ".repeat(MAX_REPLY_CHARS), enabled: [{ answer: "x".repeat(MAX_REPLY_CHARS) + good }] },
    "(honest)": { disabled: boxedAnswer("5"), enabled: [{ answer: boxedAnswer("5") }] },
    "(answer lines)": { disabled: "Answer: `\n`\n".repeat(80_000), enabled: [{ answer: "Answer: `\n`\n".repeat(80_000) }] },
    "(over cap)": { disabled: boxedAnswer("5") + " ".repeat(MAX_REPLY_CHARS), enabled: [{ answer: boxedAnswer("5") + "\n".repeat(MAX_REPLY_CHARS) }] },
  });
  const taskSet: TaskSet = { name: "hostile-replies", format: "native", file: "hostile.jsonl", hash: "h-hostile", tasks, issues: [] };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "sf-host-inputs-"));
    // Each task's prompt names its id, so the plan can tell them apart.
    for (const t of tasks) if (t.kind === "python-function") t.prompt = `Write add(a, b). (${t.id})`;
    server = await startScriptedServer({ script: taskPlanScript(plans) });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("in one run and in a later one with the same grader caches", async () => {
    const distDir = await sandboxDist();
    const verdicts: Array<Record<string, [boolean, string]>> = [];
    for (const n of [1, 2]) {
      const grader = createGrader({ distDir, poolSize: 1, cacheDir: path.join(dir, "expected"), verdictCacheDir: path.join(dir, "verdicts") });
      try {
        const result = await evaluate(
          { mode: "catalog", design: "paired", samples: 1, temperature: 0, concurrency: 2 },
          {
            skills: [skill("units", "Convert units.", "Convert first.")],
            taskSet,
            client: createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }),
            model: "m",
            grader,
            runFile: path.join(dir, `run-${n}.jsonl`),
            resume: false,
          },
        );
        assert.equal(result.records.length, 12);
        verdicts.push(Object.fromEntries(result.records.map((r) => [`${r.taskId} ${r.condition}`, [r.verdict.pass, r.verdict.reason]])));
      } finally {
        await grader.dispose();
      }
    }
    const [first, later] = verdicts as [Record<string, [boolean, string]>, Record<string, [boolean, string]>];
    assert.deepEqual(later, first, "a later run grades exactly the same");
    for (const cond of ["enabled", "disabled"]) {
      assert.deepEqual(first[`py/honest ${cond}`]?.[0], true);
      assert.deepEqual(first[`m/honest ${cond}`]?.[0], true);
      assert.deepEqual(first[`py/unclosed-fences ${cond}`], [false, "no python code block in the answer"]);
      assert.match(first[`py/over-cap ${cond}`]![1], /^the reply is \d+ characters, over the 1048576-character limit of answer extraction; it was not read; no python code block in the answer$/);
      assert.match(first[`m/answer-lines ${cond}`]![1], /^no final answer found/);
      assert.match(first[`m/over-cap ${cond}`]![1], /over the 1048576-character limit.*; no final answer found/);
    }
  });
});
