/**
 * Claude Code end to end: the real binary (2.1.332, the pinned devDependency) under bubblewrap, talking Anthropic
 * Messages to the product's model proxy, which asks the real `openai` client → the scripted server over HTTP. The
 * scripted model decides per task whether to call the Skill tool, from the skill list Claude Code built
 * (test/support/scripted-anthropic.ts). Six tasks of the shipped math set with the shipped harmful skill
 * `round-money-whole-units` give known paired outcomes: three harmed, one rescued, one retrieved without effect (it
 * loads the skill with a shell `cat` and reads a reference file with the Read tool), one not retrieved —
 * RAE = (1 − 3) / 5.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { claudeCodeAdapter } from "../../../src/core/agents/claude-code.js";
import { runHarness } from "../../../src/core/agents/run.js";
import type { HarnessBinary, HarnessRunResult, HarnessSession } from "../../../src/core/agents/types.js";
import { createMathGrader } from "../../../src/core/grading/math.js";
import { createCachedClient } from "../../../src/core/models/cache.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { scanSkills } from "../../../src/core/skills/scan.js";
import type { Skill } from "../../../src/core/skills/types.js";
import { addOutcome, emptyCounts, retrievalMetrics } from "../../../src/core/stats/metrics.js";
import type { MathAnswerTask } from "../../../src/core/tasks/schema.js";
import { claudeCodeScript, skillListOf, type ClaudePlan } from "../../support/scripted-anthropic.js";
import { startScriptedServer, type ChatCompletionRequestBody, type ScriptedServer } from "../../support/scripted-server.js";

const SKILL = "round-money-whole-units";
const REFERENCE = "references/examples.md";
const ROOT = path.resolve(__dirname, "..", "..", "..");
const TASKS = readFileSync(path.join(ROOT, "samples", "math-word.jsonl"), "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as MathAnswerTask);
const task = (id: string) => TASKS.find((t) => t.id === id)!;
const boxed = (v: string) => `The answer is \\boxed{${v}}.`;

const HARMED = ["math-apples-cents", "math-cafe-order", "math-pens-change"];
const RESCUED = ["math-bike-savings"];
const LOADED_NO_EFFECT = "math-family-tickets";
const NOT_LOADED = "math-eggs-dozen";
const IDS = [...HARMED, ...RESCUED, LOADED_NO_EFFECT, NOT_LOADED];

function plans(): Record<string, ClaudePlan> {
  const table: Record<string, ClaudePlan> = {};
  for (const id of HARMED) {
    const t = task(id);
    table[t.prompt] = { disabled: [{ answer: boxed(t.answer) }], enabled: [{ loadSkill: SKILL }, { answer: boxed(String(Math.round(Number(t.answer)))) }] };
  }
  table[task("math-bike-savings").prompt] = { disabled: [{ answer: boxed("90") }], enabled: [{ loadSkill: SKILL }, { answer: boxed("150") }] };
  // Loaded through the shell instead of the Skill tool, then a reference read with the Read tool.
  table[task(LOADED_NO_EFFECT).prompt] = {
    skill: SKILL,
    disabled: [{ answer: boxed("54") }],
    enabled: [{ bash: `cat .claude/skills/${SKILL}/SKILL.md` }, { readFile: `/workspace/.claude/skills/${SKILL}/${REFERENCE}` }, { answer: boxed("54") }],
  };
  table[task(NOT_LOADED).prompt] = { skill: SKILL, disabled: [{ answer: boxed("45") }], enabled: [{ answer: boxed("45") }] };
  return table;
}

interface Pass {
  results: Map<string, { enabled: HarnessRunResult; disabled: HarnessRunResult; pass: { enabled: boolean; disabled: boolean } }>;
  /** The scripted server's requests of each run, by `<task>/<condition>`. */
  requests: Map<string, ChatCompletionRequestBody[]>;
  calls: number;
}

describe("Claude Code end to end (real binary, bubblewrap, scripted model)", { timeout: 600_000 }, () => {
  let server: ScriptedServer;
  let binary: HarnessBinary;
  let skills: Skill[];
  let dir: string;
  const adapter = claudeCodeAdapter();
  const grader = createMathGrader();
  const passes: Pass[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "sf-claude-code-"));
    // The shipped skill plus one reference file, so a read under the skill folder is seen.
    const skillDir = path.join(dir, "skills", SKILL);
    cpSync(path.join(ROOT, "skills", SKILL), skillDir, { recursive: true });
    mkdirSync(path.join(skillDir, "references"));
    writeFileSync(path.join(skillDir, REFERENCE), "$12.40 → 12\n");
    skills = (await scanSkills([skillDir])).skills;
    assert.equal(skills.length, 1);
    binary = await adapter.locate();
    server = await startScriptedServer({ script: claudeCodeScript(plans()) });
  });
  after(async () => {
    await server?.close();
    await grader.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function evaluatePass(): Promise<Pass> {
    // The same cache folder and work root each pass: an unchanged re-run.
    const client = createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-upstream-secret-7f3a", model: "scripted-model", maxRetries: 0 }), { dir: path.join(dir, "cache") });
    const session: HarnessSession = { adapter, binary, confinement: "bwrap", workRoot: path.join(dir, "work"), fixedDate: "2026-01-31", timeoutMs: 120_000 };
    const before = server.calls;
    const pass: Pass = { results: new Map(), requests: new Map(), calls: 0 };
    for (const id of IDS) {
      const t = task(id);
      const out: Partial<Record<"enabled" | "disabled", HarnessRunResult>> = {};
      const verdicts: Partial<Record<"enabled" | "disabled", boolean>> = {};
      for (const condition of ["enabled", "disabled"] as const) {
        const seen = server.requests.length;
        const r = await runHarness(session, { task: t, condition, skills, client, model: "scripted-model", params: { temperature: 0 }, sampleIndex: 0, maxTurns: 8 });
        assert.equal(r.error, undefined, `${id}/${condition}: ${r.error}`);
        out[condition] = r;
        verdicts[condition] = (await grader.grade(t, r.answer)).pass;
        pass.requests.set(`${id}/${condition}`, server.requests.slice(seen));
      }
      pass.results.set(id, { enabled: out.enabled!, disabled: out.disabled!, pass: { enabled: verdicts.enabled!, disabled: verdicts.disabled! } });
    }
    pass.calls = server.calls - before;
    return pass;
  }

  it("reproduces the scenario exactly: rescued, harmed, RAE, and the evidence of each enabled run", async () => {
    passes.push(await evaluatePass());
    const { results } = passes[0]!;
    const retrieved = emptyCounts();
    const notRetrieved = emptyCounts();
    const rescued: string[] = [];
    const harmed: string[] = [];
    for (const [id, r] of results) {
      const loaded = r.enabled.retrieved.some((s) => s.name === SKILL);
      addOutcome(loaded ? retrieved : notRetrieved, { yMinus: r.pass.disabled, yPlus: r.pass.enabled });
      if (loaded && !r.pass.disabled && r.pass.enabled) rescued.push(id);
      if (loaded && r.pass.disabled && !r.pass.enabled) harmed.push(id);
      assert.deepEqual(r.disabled.retrieved, [], `${id}: nothing to load when disabled`);
    }
    assert.deepEqual(rescued.sort(), RESCUED);
    assert.deepEqual(harmed.sort(), HARMED);
    const m = retrievalMetrics(retrieved, notRetrieved);
    assert.equal(m.nCond, 5);
    assert.equal(m.RAE, (1 - 3) / 5);
    assert.equal(m.OAE, (1 - 3) / 6);
    assert.equal(m.NRAE, 0);

    const harmedRun = results.get("math-pens-change")!.enabled;
    assert.deepEqual(harmedRun.retrieved, [{ name: SKILL, contentHash: skills[0]!.contentHash }]);
    assert.equal(harmedRun.answer, "11");
    assert.ok(harmedRun.events.some((e) => e.kind === "skill" && e.name === SKILL), "Claude Code's own event stream shows the Skill call");
    assert.deepEqual(harmedRun.toolCalls.map((c) => [c.name, c.retrieved.map((s) => s.name)]), [["Skill", [SKILL]]]);
    const shellRun = results.get(LOADED_NO_EFFECT)!.enabled;
    assert.deepEqual(shellRun.retrieved.map((s) => s.name), [SKILL], "a shell read of SKILL.md is a load");
    assert.deepEqual(shellRun.filesRead, [{ skill: SKILL, path: REFERENCE }]);
    assert.deepEqual(shellRun.toolCalls.map((c) => c.name), ["Bash", "Read"]);
    assert.deepEqual(results.get(NOT_LOADED)!.enabled.retrieved, []);
    // Token use comes from the proxy's exchanges (the scripted server's usage), as for built-in runs.
    assert.ok(harmedRun.tokens.prompt > 0 && harmedRun.tokens.completion > 0);
    assert.equal(harmedRun.modelCalls, 2);
  });

  it("the request log: each enabled run's first request carries Claude Code's skill list with the skill; no disabled request names it", () => {
    const { requests } = passes[0]!;
    for (const id of IDS) {
      const enabled = requests.get(`${id}/enabled`)!;
      const first = enabled[0]!;
      const listed = skillListOf(first.messages);
      assert.equal(listed[0], SKILL, `${id}: the project skill heads the list Claude Code built`);
      assert.ok(listed.length > 1, "the bundled skills follow it");
      const description = skills[0]!.description;
      assert.ok(JSON.stringify(first.messages).includes(JSON.stringify(`- ${SKILL}: ${description}`).slice(1, -1)), `${id}: listed with its description`);
      assert.ok(first.tools?.some((t) => t.function.name === "Skill"));
      const disabled = requests.get(`${id}/disabled`)!;
      assert.ok(disabled.length >= 1);
      for (const body of disabled) assert.ok(!JSON.stringify(body).includes(SKILL), `${id}: a disabled request names the skill`);
      // Both conditions offer the same tools: the difference is only the skill list.
      assert.deepEqual(disabled[0]!.tools?.map((t) => t.function.name), first.tools?.map((t) => t.function.name));
    }
    // The loaded SKILL.md reaches the model in the next request, as Claude Code's Skill tool delivers it.
    const second = requests.get("math-pens-change/enabled")![1]!;
    assert.ok(JSON.stringify(second.messages).includes(`Base directory for this skill: /workspace/.claude/skills/${SKILL}`));
    assert.ok(JSON.stringify(second.messages).includes("# Money answers in whole units"));
  });

  it("an unchanged re-run makes 0 upstream calls and gives the same outcomes", async () => {
    assert.ok(passes[0]!.calls >= 13, `the first pass asked the model (${passes[0]!.calls} calls)`);
    passes.push(await evaluatePass());
    const [first, second] = passes as [Pass, Pass];
    assert.equal(second.calls, 0);
    for (const id of IDS) {
      const a = first.results.get(id)!;
      const b = second.results.get(id)!;
      assert.deepEqual(b.pass, a.pass, id);
      assert.deepEqual(b.enabled.retrieved, a.enabled.retrieved, id);
      assert.equal(b.enabled.answer, a.enabled.answer, id);
      assert.equal(b.enabled.modelCalls, 0, id);
      assert.equal(b.enabled.cachedCalls, a.enabled.modelCalls, id);
      assert.deepEqual(b.enabled.tokens, a.enabled.tokens, `${id}: a cached answer counts its tokens again`);
    }
  });
});
