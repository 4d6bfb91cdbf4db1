/**
 * Section ablation on a harness run (issue 25, item 6): the real Codex CLI (@openai/codex, pinned), confined by
 * bubblewrap, against the scripted model server through the recording proxy. The ablated section is deleted from
 * the SKILL.md installed in the harness's workspace; Codex reads it with its shell as it would the full one, so
 * every request before that read is the run's own (the response cache serves it) and only the turns after it reach
 * the server. The scripted model answers from what the read printed, so the outcomes show which text was installed.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createGrader } from "../../../src/core/grading/index.js";
import { createCachedClient } from "../../../src/core/models/cache.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { planAblation, runAblation, type AblateOptions } from "../../../src/core/runs/ablate.js";
import { evaluate } from "../../../src/core/runs/evaluate.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import type { Skill } from "../../../src/core/skills/types.js";
import { readAblationFile } from "../../../src/core/runs/ablation-store.js";
import { loadTaskSet } from "../../../src/core/tasks/index.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { claudeCodeScript, type ClaudePlan } from "../../support/scripted-anthropic.js";
import { carriesSkillList, codexRead } from "../../support/scripted-harness.js";
import { startScriptedServer, type ChatCompletionRequestBody, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer } from "../../support/scripts.js";
import { runCli } from "../reliability/cli-process.js";

const SKILL = "carry-digits";
const SKILL_TEXT = `---
name: ${SKILL}
description: Use when adding two-digit numbers with carries.
---
# Carry digits

## Method
Add the tens first, then the ones.

## Shortcut
Drop the carry.
`;
const READ = codexRead(SKILL) as { shell: string };

/**
 * Per prompt: the answer when the skill is read, from the text the read printed (so the installed SKILL.md decides),
 * and the disabled answer. With the full skill: harm-1 and harm-2 are harmed (the shortcut), rescue is rescued.
 */
const TASKS: Array<{ id: string; prompt: string; answer: string; loads: boolean; read: (skillText: string) => string; disabled: string }> = [
  { id: "harm-1", prompt: "Add 17 and 25.", answer: "42", loads: true, read: (t) => (t.includes("Drop the carry") ? "32" : "42"), disabled: "42" },
  { id: "harm-2", prompt: "Add 38 and 47.", answer: "85", loads: true, read: (t) => (t.includes("Drop the carry") ? "75" : "85"), disabled: "85" },
  { id: "rescue", prompt: "Add 56 and 69.", answer: "125", loads: true, read: (t) => (t.includes("tens first") ? "125" : "115"), disabled: "115" },
  { id: "plain", prompt: "Add 2 and 3.", answer: "5", loads: false, read: () => "5", disabled: "5" },
];

const lastTool = (req: ChatCompletionRequestBody) => [...req.messages].reverse().find((m) => m.role === "tool")?.content ?? "";

/** The model: enabled runs that load read SKILL.md first, then answer from what it printed; disabled runs answer at once. */
function script(req: ChatCompletionRequestBody): { content: string } | { toolCalls: Array<{ name: string; arguments: string }> } | { error: { status: number; message: string } } {
  const users = req.messages.filter((m) => m.role === "user").map((m) => m.content ?? "");
  const task = TASKS.find((t) => users.some((u) => u.includes(t.prompt)));
  if (!task) return { error: { status: 400, message: "no such task" } };
  if (!carriesSkillList(req)) return { content: boxedAnswer(task.disabled) };
  if (!task.loads) return { content: boxedAnswer(task.answer) };
  const turn = req.messages.filter((m) => m.role === "assistant").length;
  if (turn === 0) return { toolCalls: [{ name: "exec_command", arguments: JSON.stringify({ cmd: READ.shell }) }] };
  return { content: boxedAnswer(task.read(lastTool(req))) };
}

describe("section ablation on a Codex run (real binary, bubblewrap, scripted model)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-codex-ablate-"));
  const cacheDir = path.join(dir, "responses");
  let server: ScriptedServer;
  let skills: Skill[];
  const grader = createGrader();
  let taskSet: TaskSet;
  const client = () => createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: cacheDir });
  let runFile = "";
  let n = 0;

  const options = async (extra: Partial<AblateOptions> = {}): Promise<AblateOptions> => ({
    run: { file: runFile, ...(await readRunFile(runFile)) },
    skills,
    skillName: SKILL,
    skillText: SKILL_TEXT,
    taskSet,
    client: client(),
    grader,
    concurrency: 2,
    control: 1,
    resume: false,
    out: path.join(dir, `ablation-${n++}.jsonl`),
    ...extra,
  });

  before(async () => {
    server = await startScriptedServer({ script });
    const skillDir = path.join(dir, "skills", SKILL);
    mkdirSync(skillDir, { recursive: true });
    writeFileSync(path.join(skillDir, "SKILL.md"), SKILL_TEXT);
    skills = (await scanSkills([path.join(dir, "skills")])).skills;
    writeFileSync(path.join(dir, "adds.jsonl"), TASKS.map((t) => JSON.stringify({ id: t.id, kind: "math-answer", prompt: t.prompt, answer: t.answer })).join("\n") + "\n");
    taskSet = await loadTaskSet(path.join(dir, "adds.jsonl"));
    const paired = await evaluate(
      { agent: "codex", design: "paired", samples: 1, temperature: 0, concurrency: 2, maxTurns: 4 },
      { skills, taskSet, client: client(), model: "m", grader, runFile: path.join(dir, "run.jsonl"), resume: false },
    );
    assert.equal(paired.failedRuns, 0, paired.lastError);
    runFile = paired.runFile;
    // The cache as the run left it, for the CLI's ablation below (the in-process ones fill the shared one).
    cpSync(cacheDir, path.join(dir, "cli-cache", "responses"), { recursive: true });
    // The scenario as run: two harmed, one rescued, through the real binary.
    const back = await readRunFile(runFile);
    const pass = (id: string, condition: string) => back.records.find((r) => r.taskId === id && r.condition === condition)!.verdict.pass;
    assert.deepEqual(
      TASKS.map((t) => [t.id, pass(t.id, "enabled"), pass(t.id, "disabled")]),
      [
        ["harm-1", false, true],
        ["harm-2", false, true],
        ["rescue", true, false],
        ["plain", true, true],
      ],
    );
  });
  after(async () => {
    await server.close();
    await grader.dispose();
  });

  it("deletes the section from the installed SKILL.md and asks the server only for the turns after the read", async () => {
    const o = await options();
    const plan = await planAblation(o);
    assert.deepEqual(plan.header.taskIds, ["harm-1", "harm-2", "rescue"], "the tasks that loaded the skill (both-pass: none)");
    const sections = plan.header.sections.map((s) => s.heading);
    assert.ok(sections.includes("Method") && sections.includes("Shortcut"), sections.join(", "));
    // From the run's transcripts: one turn through the read (cached), one after it (new), per run.
    assert.equal(plan.estimate.cachedCalls, sections.length * 3);
    assert.equal(plan.estimate.newCalls, sections.length * 3);

    server.reset();
    const result = await runAblation(plan, o);
    assert.equal(result.failedRuns, 0, result.lastError);
    assert.equal(result.records.length, sections.length * 3);
    assert.equal(server.calls, sections.length * 3, "one call per run: the turn after the skill was read");
    for (const req of server.requests) {
      assert.ok(carriesSkillList(req), "no disabled request");
      assert.ok(req.messages.some((m) => m.role === "assistant"), "no request before the read reaches the server");
      assert.match(lastTool(req), /name: carry-digits/, "every new request follows the read of the installed SKILL.md");
    }
    assert.ok(result.records.every((r) => r.cachedCalls === 1 && r.modelCalls === 1), "the first turn of each run came from the cache");

    // What the read printed is the SKILL.md without the variant's section, frontmatter kept.
    const id = (heading: string) => plan.header.sections.find((s) => s.heading === heading)!.id;
    const printed = (variant: string, task: string) => {
      const r = result.records.find((x) => x.variant === variant && x.taskId === task)!;
      return r.transcript.filter((m) => m.role === "tool").map((m) => m.content ?? "").join("\n");
    };
    assert.ok(!printed(id("Shortcut"), "harm-1").includes("Drop the carry") && printed(id("Shortcut"), "harm-1").includes("tens first"));
    assert.ok(!printed(id("Method"), "rescue").includes("tens first") && printed(id("Method"), "rescue").includes("Drop the carry"));
    assert.ok(printed(id("Method"), "rescue").includes(`name: ${SKILL}`));

    // Outcomes: removing the shortcut repairs both harmed tasks; removing the method breaks the rescued one.
    const passes = (heading: string) => result.records.filter((r) => r.variant === id(heading) && r.verdict.pass).map((r) => r.taskId).sort();
    assert.deepEqual(passes("Shortcut"), ["harm-1", "harm-2", "rescue"]);
    assert.deepEqual(passes("Method"), []);
    assert.ok(result.records.every((r) => r.retrieved.some((x) => x.name === SKILL)), "the read counts as the skill's load");
    // The skill file itself is never touched.
    assert.equal(readFileSync(path.join(dir, "skills", SKILL, "SKILL.md"), "utf8"), SKILL_TEXT);
  });

  it("an unchanged re-run of the ablation makes 0 upstream calls", async () => {
    server.reset();
    const o = await options();
    const result = await runAblation(await planAblation(o), o);
    assert.equal(result.failedRuns, 0, result.lastError);
    assert.equal(server.calls, 0);
    assert.ok(result.records.every((r) => r.modelCalls === 0 && r.cachedCalls === 2));
  });

  // The CLI's TMPDIR is <dir>/tmp (cli-process.ts), deeper than the in-process tests' own: this case once saw every
  // run fail in bubblewrap before its first model call (the variant's proxy socket path was over 107 bytes; see
  // test/unit/agents/proxy-socket.test.ts), recorded as graded "no answer" runs with 0 calls and exit 0.
  it("the CLI ablates a harness run the same way: only the turns after the read reach the server", async () => {
    server.reset();
    const out = path.join(dir, "ablation-cli.jsonl");
    const cli = await runCli(["ablate", runFile, "--skill", SKILL, "--ablate-control", "1", "--concurrency", "2", "--cache-dir", path.join(dir, "cli-cache"), "--out", out], {
      cwd: dir,
      apiKey: "sk-test",
      baseUrl: server.url,
    });
    assert.equal(cli.code, 0, cli.stderr);
    const back = await readAblationFile(out);
    assert.equal(back.records.length, back.header.sections.length * 3);
    assert.equal(server.calls, back.header.sections.length * 3, cli.stderr);
    assert.ok(server.requests.every((req) => req.messages.some((m) => m.role === "assistant")));
    // Each run really ran: the read from the cache (the run's own first turn), the turn after it from the server.
    assert.ok(back.records.every((r) => r.error === undefined && r.cachedCalls === 1 && r.modelCalls === 1), JSON.stringify(back.records.map((r) => [r.taskId, r.variant, r.cachedCalls, r.modelCalls, r.error])));
    // The new turns carry the ablated SKILL.md as the read printed it (never the full one the run's cached turns saw):
    // one text per variant, so no variant's turn can be answered with another's or the run's cached response.
    const reads = new Set(server.requests.map(lastTool));
    assert.equal(reads.size, back.header.sections.length, [...reads].join("\n---\n"));
    for (const read of reads) {
      assert.match(read, /name: carry-digits/);
      assert.ok(!["# Carry digits", "tens first", "Drop the carry"].every((t) => read.includes(t)), `a new turn saw the full SKILL.md: ${read}`);
    }
    assert.match(cli.stdout, /sections of carry-digits/);
  });

  it("refuses to ablate the description of a harness run (the harness builds its list from the installed files)", async () => {
    await assert.rejects(async () => planAblation(await options({ description: true })), /ablating the description is for runs of the built-in agent/);
  });
});

/**
 * The same through the real Claude Code binary, whose agent loads a skill with its own Skill tool: the shipped
 * harmful skill, two harmed tasks and one rescued (test/support/scripted-anthropic.ts decides from Claude Code's
 * skill list). Only the turns after the load reach the server, as many as the plan's estimate from the run's own
 * transcripts, and each section's variant gives the model a different skill text.
 */
describe("section ablation on a Claude Code run (real binary, bubblewrap, scripted model)", { timeout: 600_000 }, () => {
  const ROOT = path.resolve(__dirname, "..", "..", "..");
  const MONEY = "round-money-whole-units";
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-claude-ablate-"));
  const cacheDir = path.join(dir, "responses");
  const boxed = (v: string) => `The answer is \\boxed{${v}}.`;
  const tasks = [
    { id: "apples", prompt: "Apples cost $1.20 each. How much do 2 apples cost?", answer: "2.40", enabled: "2", disabled: "2.40" },
    { id: "pens", prompt: "Pens cost $1.25 each. How much do 3 pens cost?", answer: "3.75", enabled: "4", disabled: "3.75" },
    { id: "bike", prompt: "A bike costs $150 and she saves $10 a week for 15 weeks. How much does she have?", answer: "150", enabled: "150", disabled: "90" },
  ];
  const plans: Record<string, ClaudePlan> = Object.fromEntries(tasks.map((t) => [t.prompt, { disabled: [{ answer: boxed(t.disabled) }], enabled: [{ loadSkill: MONEY }, { answer: boxed(t.enabled) }] }]));
  let server: ScriptedServer;
  const grader = createGrader();

  before(async () => {
    server = await startScriptedServer({ script: claudeCodeScript(plans) });
  });
  after(async () => {
    await server.close();
    await grader.dispose();
  });

  it("asks the server only for the turns after the Skill tool loaded the ablated SKILL.md", async () => {
    const skillDir = path.join(dir, "skills", MONEY);
    cpSync(path.join(ROOT, "skills", MONEY), skillDir, { recursive: true });
    const skills = (await scanSkills([skillDir])).skills;
    writeFileSync(path.join(dir, "money.jsonl"), tasks.map((t) => JSON.stringify({ id: t.id, kind: "math-answer", prompt: t.prompt, answer: t.answer })).join("\n") + "\n");
    const taskSet = await loadTaskSet(path.join(dir, "money.jsonl"));
    const client = () => createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "scripted-model", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: cacheDir });
    const paired = await evaluate(
      { agent: "claude-code", design: "paired", samples: 1, temperature: 0, concurrency: 2, maxTurns: 6 },
      { skills, taskSet, client: client(), model: "scripted-model", grader, runFile: path.join(dir, "run.jsonl"), resume: false },
    );
    assert.equal(paired.failedRuns, 0, paired.lastError);
    const run = await readRunFile(paired.runFile);
    const o: AblateOptions = {
      run: { file: paired.runFile, ...run },
      skills,
      skillName: MONEY,
      skillText: readFileSync(path.join(skillDir, "SKILL.md"), "utf8"),
      taskSet,
      client: client(),
      grader,
      concurrency: 2,
      control: 1,
      resume: false,
      out: path.join(dir, "ablation.jsonl"),
    };
    const plan = await planAblation(o);
    assert.deepEqual(plan.header.selection.harmed, ["apples", "pens"]);
    assert.deepEqual(plan.header.selection.rescued, ["bike"]);
    const sections = plan.header.sections.length;
    assert.ok(sections >= 5, `${sections} sections`);
    assert.equal(plan.estimate.newCalls, sections * 3, "one turn after the load per run");

    server.reset();
    const result = await runAblation(plan, o);
    assert.equal(result.failedRuns, 0, result.lastError);
    assert.equal(result.records.length, sections * 3);
    assert.equal(server.calls, plan.estimate.newCalls, "only the turns after the load are new");
    assert.ok(server.requests.every((r) => r.messages.some((m) => m.role === "assistant")), "no request before the load reaches the server");
    assert.ok(result.records.every((r) => r.retrieved.some((x) => x.name === MONEY) && r.cachedCalls === 1 && r.modelCalls === 1));
    // The Skill tool's result differs per variant: each run saw the SKILL.md without its own section.
    const served = new Set(server.requests.map((r) => JSON.stringify(r.messages.filter((m) => m.role === "tool" || m.role === "user").slice(1))));
    assert.equal(served.size, sections * 3, "every (variant, task) request is a different request");
    const rule = plan.header.sections.find((s) => s.heading === "The rule")!;
    const withoutRule = result.records.filter((r) => r.variant === rule.id);
    assert.ok(withoutRule.every((r) => !JSON.stringify(r.transcript).includes("round it to the nearest whole currency unit")), "the rule's text never reached the model without it");
    assert.ok(result.records.filter((r) => r.variant !== rule.id).every((r) => JSON.stringify(r.transcript).includes("round it to the nearest whole currency unit")));
  });
});
