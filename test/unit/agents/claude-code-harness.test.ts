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
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { claudeCodeAdapter } from "../../../src/core/agents/claude-code.js";
import { createGrader } from "../../../src/core/grading/index.js";
import { createCachedClient } from "../../../src/core/models/cache.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { buildReport } from "../../../src/core/report/build.js";
import { evaluate } from "../../../src/core/runs/evaluate.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import { summarizeRun } from "../../../src/core/runs/types.js";
import { scanSkills } from "../../../src/core/skills/scan.js";
import type { Skill } from "../../../src/core/skills/types.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { harnessProcesses, waitFor, workRoots } from "../../support/harness-processes.js";
import { claudeCodeScript, skillListOf, type ClaudeStep } from "../../support/scripted-anthropic.js";
import { startScriptedServer, type ChatCompletionRequestBody, type ScriptedServer } from "../../support/scripted-server.js";
import { firstRequests, HARMED, IDS, LOADED_NO_EFFECT, NOT_LOADED, REFERENCE, RESCUED, ROOT, scenarioPlans, SKILL, task } from "../../support/harness-scenario.js";
import { runCli, startCli, tempDir } from "../reliability/cli-process.js";

const plans = () => scenarioPlans<ClaudeStep>({ skillsDir: ".claude/skills", load: (s) => ({ loadSkill: s }), shell: (c) => ({ bash: c }), read: (f) => ({ readFile: f }), answer: (t) => ({ answer: t }) });

const KEY = "sk-upstream-secret-7f3a";

/** The task of a request: the plan key its first user message holds. */
const taskOf = (r: ChatCompletionRequestBody) => IDS.find((id) => JSON.stringify(r.messages.find((m) => m.role === "user")?.content ?? "").includes(JSON.stringify(task(id).prompt).slice(1, -1)))!;

describe("Claude Code as the agent (real binary, bubblewrap, scripted model)", { timeout: 600_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-claude-code-"));
  const cacheDir = path.join(dir, "responses");
  let server: ScriptedServer;
  let skills: Skill[];
  const grader = createGrader();
  const taskSet: TaskSet = { name: "money", format: "native", file: path.join(dir, "money.jsonl"), hash: "money-1", tasks: IDS.map(task), issues: [] };
  let n = 0;
  let firstRunFile = "";
  let firstCalls = 0;

  before(async () => {
    // The shipped skill plus one reference file, so a read under the skill folder is seen.
    const skillDir = path.join(dir, "skills", SKILL);
    cpSync(path.join(ROOT, "skills", SKILL), skillDir, { recursive: true });
    mkdirSync(path.join(skillDir, "references"));
    writeFileSync(path.join(skillDir, REFERENCE), "$12.40 → 12\n");
    skills = (await scanSkills([skillDir])).skills;
    assert.equal(skills.length, 1);
    server = await startScriptedServer({ script: claudeCodeScript(plans()), requireKey: KEY });
  });
  after(async () => {
    await server.close();
    await grader.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  // The same response cache each time: a second call is an unchanged re-run.
  const run = (stamp?: { runId: string; createdAt: string }) =>
    evaluate(
      { agent: "claude-code", design: "paired", samples: 1, temperature: 0, concurrency: 2, maxTurns: 6 },
      {
        skills,
        taskSet,
        client: createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: KEY, model: "scripted-model", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: cacheDir }),
        model: "scripted-model",
        grader,
        runFile: path.join(dir, `run-${n++}.jsonl`),
        resume: false,
        ...(stamp ? { stamp } : {}),
      },
    );

  it("reproduces the scenario's rescued, harmed and RAE exactly through the real binary, with the evidence of each run", async () => {
    server.reset();
    const result = await run();
    firstRunFile = result.runFile;
    firstCalls = server.calls;
    assert.equal(result.failedRuns, 0, result.lastError);
    const report = buildReport([{ header: result.header, records: result.records, stops: [] }]);
    const e = report.evaluations[0]!;
    assert.equal(e.retrieved.n, 5);
    assert.equal(e.retrieved.rescued, RESCUED.length);
    assert.equal(e.retrieved.harmed, HARMED.length);
    assert.equal(e.metrics.RAE, (1 - 3) / 5);
    assert.equal(e.metrics.OAE, (1 - 3) / 6);
    const skill = e.skills.find((s) => s.name === SKILL)!;
    assert.deepEqual(skill.rescuedTasks, RESCUED);
    assert.deepEqual([...skill.harmedTasks].sort(), HARMED);

    const back = await readRunFile(result.runFile);
    const record = (id: string, condition: string) => back.records.find((r) => r.taskId === id && r.condition === condition)!;
    const harmed = record("math-pens-change", "enabled");
    assert.deepEqual(harmed.retrieved, [{ name: SKILL, contentHash: skills[0]!.contentHash }]);
    assert.equal(harmed.answer, "11");
    assert.deepEqual(harmed.toolCalls.map((c) => [c.name, c.retrieved.map((s) => s.name)]), [["Skill", [SKILL]]]);
    assert.ok(harmed.transcript.some((m) => m.role === "user" && m.content?.includes("# Money answers in whole units")), "the SKILL.md the Skill tool delivered is in the transcript");
    assert.equal(harmed.modelCalls, 2);
    const shell = record(LOADED_NO_EFFECT, "enabled");
    assert.deepEqual(shell.retrieved.map((s) => s.name), [SKILL], "a shell read of SKILL.md is a load");
    assert.deepEqual(shell.filesRead, [{ skill: SKILL, path: REFERENCE }]);
    assert.deepEqual(shell.toolCalls.map((c) => c.name), ["Bash", "Read"]);
    assert.deepEqual(record(NOT_LOADED, "enabled").retrieved, []);
    for (const id of IDS) assert.deepEqual(record(id, "disabled").retrieved, [], `${id}: nothing to load when disabled`);
    // Tokens are counted from the proxied exchanges, as for built-in runs.
    assert.ok(back.records.every((r) => r.tokens.prompt > 0 && r.tokens.completion > 0 && r.modelCalls > 0 && r.cachedCalls === 0));
  });

  it("the request log: each enabled run's first request carries Claude Code's skill list with the skill; no disabled request names it", () => {
    const firsts = firstRequests(server.requests);
    const enabled = firsts.filter((r) => skillListOf(r.messages).includes(SKILL));
    assert.equal(enabled.length, IDS.length, "one enabled conversation per task");
    assert.deepEqual(enabled.map(taskOf).sort(), [...IDS].sort());
    const description = skills[0]!.description;
    for (const first of enabled) {
      const listed = skillListOf(first.messages);
      assert.equal(listed[0], SKILL, "the project skill heads the list Claude Code built");
      assert.ok(listed.length > 1, "the bundled skills follow it");
      assert.ok(JSON.stringify(first.messages).includes(JSON.stringify(`- ${SKILL}: ${description}`).slice(1, -1)), "listed with its description");
      assert.ok(first.tools?.some((t) => t.function.name === "Skill"));
    }
    const disabled = server.requests.filter((r) => !skillListOf(r.messages).includes(SKILL));
    assert.equal(firstRequests(disabled).length, IDS.length, "one disabled conversation per task");
    for (const r of disabled) assert.ok(!JSON.stringify(r).includes(SKILL), `a disabled request of ${taskOf(r)} names the skill`);
    // Both conditions offer the same tools: the difference is the skill list.
    assert.deepEqual(firstRequests(disabled)[0]!.tools?.map((t) => t.function.name), enabled[0]!.tools?.map((t) => t.function.name));
  });

  it("the run header records Claude Code: version, the sha256 of its binary, its settings, the confinement", async () => {
    const agent = (await readRunFile(firstRunFile)).header.agent!;
    const binary = await claudeCodeAdapter().locate();
    assert.equal(agent.id, "claude-code");
    assert.equal(agent.version, "2.1.332");
    assert.equal(agent.sha256, createHash("sha256").update(readFileSync(binary.path)).digest("hex"));
    assert.equal(agent.wireFormat, "anthropic-messages");
    assert.equal(agent.skillsDir, ".claude/skills");
    assert.equal(agent.confinement, "bwrap");
    assert.equal(agent.settings.CLAUDE_CODE_MAX_RETRIES, "0");
  });

  it("an unchanged re-run on another day makes 0 upstream calls and gives the same records", async () => {
    assert.ok(firstCalls >= 13, `the first run asked the model (${firstCalls} calls)`);
    // Claude Code says today's date in its system prompt; the model sees the run's date, the cache a date-free form. So one
    // re-run, started on another day, covers the same-day re-run too: the cache key holds no date either way.
    server.reset();
    const later = await run({ runId: "another-day", createdAt: "2031-02-03T00:00:01.000Z" });
    assert.equal(later.failedRuns, 0, later.lastError);
    assert.equal(server.calls, 0, "every model call of the unchanged run on another day came from the response cache");
    const a = await readRunFile(firstRunFile);
    const b = await readRunFile(later.runFile);
    const view = (rs: typeof a.records) =>
      rs
        .map((r) => ({ key: r.key, pass: r.verdict.pass, answer: r.answer, retrieved: r.retrieved, filesRead: r.filesRead, tools: r.toolCalls, tokens: r.tokens }))
        .sort((x, y) => x.key.localeCompare(y.key));
    assert.deepEqual(view(b.records), view(a.records));
    assert.ok(b.records.every((r) => r.modelCalls === 0 && r.cachedCalls > 0));
    assert.equal(b.header.createdAt, "2031-02-03T00:00:01.000Z", "the re-run is dated another day");
  });

  it("the user's key never reaches the run file or the requests Claude Code built", () => {
    assert.ok(!readFileSync(firstRunFile, "utf8").includes(KEY));
    for (const r of server.requests) assert.ok(!JSON.stringify(r).includes(KEY));
  });
});

describe("a hostile Claude Code run (confined by bubblewrap) leaves the host untouched", { timeout: 300_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-claude-hostile-"));
  const canaryDir = path.join(os.homedir(), `.sf-claude-canary-${process.pid}`);
  const canary = path.join(canaryDir, "keep.txt");
  const outside = [path.join(dir, "outside.txt"), path.join(os.tmpdir(), `sf-claude-outside-${process.pid}.txt`)];
  const written = path.join(os.tmpdir(), `sf-claude-write-tool-${process.pid}.txt`);
  const KEY_ENV = "SF_TEST_CLAUDE_HOSTILE_KEY";
  let server: ScriptedServer;
  let listener: net.Server;
  let connections = 0;
  const grader = createGrader();

  before(async () => {
    mkdirSync(canaryDir, { recursive: true });
    writeFileSync(canary, "host file\n");
    // The key is in this process's environment too: a harness that could read it (env, /proc) would find it there.
    process.env[KEY_ENV] = KEY;
    listener = net.createServer((sock) => {
      connections++;
      sock.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const port = (listener.address() as net.AddressInfo).port;
    const attack = [
      // Claude Code refuses `rm -rf "$HOME"` itself; find -delete gets past its check, so the sandbox is what is tested.
      `find "$HOME" ${JSON.stringify(canaryDir)} -delete 2>&1 | tail -2`,
      ...outside.map((f) => `echo pwned > ${JSON.stringify(f)} 2>&1`),
      `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>&1 && echo tcp-open`,
      `env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -a ${KEY_ENV}; grep -rsa 'sk-upstream-secret' /etc /home /root /tmp /run 2>/dev/null | head -3`,
      "echo done",
    ].join("; ");
    // Bash for the shell, then Claude Code's own Write tool aimed outside the workspace.
    const steps = [{ bash: attack }, { writeFile: written, content: "pwned" }, { answer: "The answer is \\boxed{1}." }];
    server = await startScriptedServer({ script: claudeCodeScript({ "Say one.": { skill: SKILL, enabled: steps, disabled: steps } }), requireKey: KEY });
  });
  after(async () => {
    delete process.env[KEY_ENV];
    await server.close();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
    await grader.dispose();
    rmSync(canaryDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it("deletes no host file, writes nothing outside the workspace (shell or Write tool), opens no connection and never sees the key", async () => {
    const skillDir = path.join(dir, "skills", SKILL);
    cpSync(path.join(ROOT, "skills", SKILL), skillDir, { recursive: true });
    const { skills } = await scanSkills([skillDir]);
    const result = await evaluate(
      { agent: "claude-code", design: "paired", samples: 1, temperature: 0, concurrency: 2, maxTurns: 5 },
      {
        skills,
        taskSet: { name: "hostile", format: "native", file: path.join(dir, "hostile.jsonl"), hash: "h-1", tasks: [{ id: "hostile", kind: "math-answer", prompt: "Say one.", answer: "1" }], issues: [] },
        client: createOpenAIClient({ baseURL: server.url, apiKey: KEY, model: "m", retryBaseMs: 5, maxBackoffMs: 20 }),
        model: "m",
        grader,
        runFile: path.join(dir, "run.jsonl"),
        resume: false,
      },
    );
    assert.equal(result.failedRuns, 0, result.lastError);
    assert.equal(result.records.length, 2);
    const back = await readRunFile(result.runFile);
    for (const r of back.records) {
      // The attack ran: its output came back to the model as the tool result.
      const output = r.transcript.filter((m) => m.role === "tool").map((m) => m.content ?? "").join("\n");
      assert.match(output, /done/, `the attack's commands ran (${r.condition}): ${output.slice(0, 2000)}`);
      assert.doesNotMatch(output, /tcp-open/);
      assert.deepEqual(r.toolCalls.map((c) => c.name), ["Bash", "Write"]);
      assert.ok(r.verdict.pass);
    }
    assert.equal(readFileSync(canary, "utf8"), "host file\n", "the host's file is still there");
    for (const f of [...outside, written]) assert.ok(!existsSync(f), `${f} was not written`);
    assert.equal(connections, 0, "no connection reached the host's loopback");
    for (const r of server.requests) assert.ok(!JSON.stringify(r).includes(KEY), "no request to the model holds the key");
    assert.ok(!readFileSync(result.runFile, "utf8").includes(KEY));
  });
});

describe("a Claude Code evaluation killed with SIGKILL resumes and loses nothing (the CLI)", { timeout: 600_000 }, () => {
  let server: ScriptedServer;
  let ws: string;

  before(async () => {
    ws = tempDir("sf-claude-kill-");
    const skillDir = path.join(ws, "skills", SKILL);
    cpSync(path.join(ROOT, "skills", SKILL), skillDir, { recursive: true });
    mkdirSync(path.join(skillDir, "references"));
    writeFileSync(path.join(skillDir, REFERENCE), "$12.40 → 12\n");
    writeFileSync(path.join(ws, "tasks.jsonl"), IDS.map((id) => JSON.stringify(task(id))).join("\n") + "\n");
    server = await startScriptedServer({ script: claudeCodeScript(plans()), requireKey: KEY });
  });
  after(async () => {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it("every run exactly once, each model request asked upstream once (bar the ones in flight at the kill), no harness left running, the work root swept", async () => {
    const args = (resume: boolean) => ["run", "--agent", "claude-code", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "scripted-model", "--concurrency", "2", "--max-turns", "6", "--out", "runs/killed.jsonl", ...(resume ? ["--resume"] : [])];
    const env = { cwd: ws, apiKey: KEY, baseUrl: server.url };
    const out = path.join(ws, "runs", "killed.jsonl");
    const lines = () => (existsSync(out) ? readFileSync(out, "utf8").split("\n").length - 1 : 0);
    server.reset();
    const first = startCli(args(false), env);
    let finished = false;
    void first.done.then(() => (finished = true));
    // Kill once the header and two runs are on disk: the other runs are in flight or not started.
    await waitFor(() => finished || lines() >= 3, "two runs are written", 6_000);
    assert.ok(!finished, "the run was still going when killed");
    first.child.kill("SIGKILL");
    await first.done;
    const before = readFileSync(out, "utf8");
    const callsBefore = server.calls;
    // bwrap --die-with-parent: the killed CLI's harnesses go with it.
    await waitFor(() => harnessProcesses(ws, "claude").length === 0, "no harness of the killed run is left running");
    const left = workRoots(ws);
    assert.equal(left.length, 1, `the killed run left its work root: ${left.join(", ")}`);
    assert.match(left[0]!, new RegExp(`^skill-following-claude-code-${first.child.pid}-`));

    const resumed = await runCli(args(true), env);
    assert.equal(resumed.code, 0, resumed.stderr);
    const back = await readRunFile(out);
    const keys = back.records.map((r) => `${r.taskId}|${r.condition}`).sort();
    assert.deepEqual(keys, IDS.flatMap((id) => [`${id}|disabled`, `${id}|enabled`]).sort(), "every task × condition exactly once");
    assert.ok(readFileSync(out, "utf8").startsWith(before), "the runs written before the kill are kept as they were");
    assert.deepEqual(workRoots(ws), [], "the resumed run swept the killed run's work root and removed its own");
    // A clean run asks 18 requests (enabled: three harmed and the rescued two turns each, the shell load three, the
    // unloaded one; disabled: six). Each was asked upstream once, except the ones answered but not yet cached when
    // the kill came (at most one per run in flight).
    const clean = 4 * 2 + 3 + 1 + 6;
    assert.ok(server.calls >= clean && server.calls <= clean + 2, `upstream calls ${callsBefore} before the kill + ${server.calls - callsBefore} after`);
    const report = buildReport([{ header: back.header, records: back.records.map((r) => summarizeRun(r)), stops: [] }]);
    const e = report.evaluations[0]!;
    assert.equal(e.retrieved.rescued, RESCUED.length);
    assert.equal(e.retrieved.harmed, HARMED.length);
    assert.equal(e.metrics.RAE, (1 - 3) / 5);
  });
});
