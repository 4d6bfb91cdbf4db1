/**
 * The real Codex CLI (@openai/codex, pinned in devDependencies) as the agent of a paired evaluation, against the
 * scripted model server through the recording proxy, confined by bubblewrap. Nothing here is mocked: the binary
 * builds its own requests (its system prompt, its skill list, its tools), runs the shell commands the scripted
 * model asks for, and the engine grades what it answers.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { codexAdapter } from "../../../src/core/agents/codex.js";
import { createGrader } from "../../../src/core/grading/index.js";
import { createCachedClient } from "../../../src/core/models/cache.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { buildReport } from "../../../src/core/report/build.js";
import { evaluate, type EvaluationDeps } from "../../../src/core/runs/evaluate.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import { summarizeRun } from "../../../src/core/runs/types.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import type { Skill } from "../../../src/core/skills/types.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { harnessProcesses, waitFor, workRoots } from "../../support/harness-processes.js";
import { carriesSkillList, codexRead, harnessPlanScript, requestText, type HarnessPlan } from "../../support/scripted-harness.js";
import { startScriptedServer, type ChatCompletionRequestBody, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer } from "../../support/scripts.js";
import { runCli, startCli, tempDir } from "../reliability/cli-process.js";

const KEY = "sk-real-user-key-7f3a9c";
const SKILL = "carry-digits";
const OTHER = "unit-fractions";

/** Tasks and the scripted model's plan: which load the skill (a shell read of SKILL.md), which flip. */
const TASKS: Array<{ id: string; prompt: string; answer: string; plan: HarnessPlan }> = [
  { id: "harm-1", prompt: "Add 17 and 25.", answer: "42", plan: { enabled: [codexRead(SKILL), { answer: boxedAnswer("32") }], disabled: [{ answer: boxedAnswer("42") }] } },
  { id: "harm-2", prompt: "Add 38 and 47.", answer: "85", plan: { enabled: [codexRead(SKILL), { answer: boxedAnswer("75") }], disabled: [{ answer: boxedAnswer("85") }] } },
  { id: "rescue", prompt: "Add 56 and 69.", answer: "125", plan: { enabled: [codexRead(SKILL), { answer: boxedAnswer("125") }], disabled: [{ answer: boxedAnswer("115") }] } },
  {
    id: "loads-both-pass",
    prompt: "Add 12 and 19.",
    answer: "31",
    plan: { enabled: [{ shell: `cat .agents/skills/${SKILL}/SKILL.md .agents/skills/${SKILL}/references/table.md` }, { answer: boxedAnswer("31") }], disabled: [{ answer: boxedAnswer("31") }] },
  },
  { id: "plain-1", prompt: "Add 2 and 3.", answer: "5", plan: { enabled: [{ answer: boxedAnswer("5") }], disabled: [{ answer: boxedAnswer("5") }] } },
  { id: "plain-2", prompt: "Add 4 and 4.", answer: "8", plan: { enabled: [{ answer: boxedAnswer("8") }], disabled: [{ answer: boxedAnswer("8") }] } },
];
const EXPECTED = { nRetrieved: 4, rescued: ["rescue"], harmed: ["harm-1", "harm-2"], rae: (1 - 2) / 4 };

function writeSkill(root: string, name: string, description: string, body: string, files: Record<string, string> = {}): void {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
}

/** The first request of each conversation (no assistant turn yet). */
const firstRequests = (reqs: readonly ChatCompletionRequestBody[]) => reqs.filter((r) => !r.messages.some((m) => m.role === "assistant"));

describe("Codex CLI as the agent (real binary, bubblewrap, scripted model)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-codex-"));
  const cacheDir = path.join(dir, "responses");
  let server: ScriptedServer;
  let skills: Skill[];
  const grader = createGrader();
  const table = Object.fromEntries(TASKS.map((t) => [t.prompt, t.plan]));
  const taskSet: TaskSet = { name: "adds", format: "native", file: path.join(dir, "adds.jsonl"), hash: "adds-1", tasks: TASKS.map((t) => ({ id: t.id, kind: "math-answer", prompt: t.prompt, answer: t.answer })), issues: [] };
  let n = 0;

  before(async () => {
    server = await startScriptedServer({ script: harnessPlanScript(table), requireKey: KEY });
    const root = path.join(dir, "skills");
    writeSkill(root, SKILL, "Use when adding two-digit numbers with carries.", "# Carry digits\nAdd the tens first, then the ones; drop the carry.", { "references/table.md": "carry table\n" });
    writeSkill(root, OTHER, "Use when a task asks for fractions with numerator one.", "# Unit fractions\nWrite 1/n.");
    skills = (await scanSkills([root])).skills;
    assert.equal(skills.length, 2);
  });
  after(async () => {
    await server.close();
    await grader.dispose();
  });

  const run = (extra: Partial<EvaluationDeps> = {}, settings: Record<string, unknown> = {}) => {
    const deps: EvaluationDeps = {
      skills,
      taskSet,
      client: createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: KEY, model: "m", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: cacheDir }),
      model: "m",
      grader,
      runFile: path.join(dir, `run-${n++}.jsonl`),
      resume: false,
      ...extra,
    };
    return evaluate({ agent: "codex", design: "paired", samples: 1, temperature: 0, concurrency: 2, maxTurns: 4, ...settings }, deps);
  };

  let firstRunFile = "";

  it("reproduces the scenario's rescued, harmed and RAE exactly through the real binary", async () => {
    server.reset();
    const result = await run();
    firstRunFile = result.runFile;
    assert.equal(result.failedRuns, 0, result.lastError);
    const report = buildReport([{ header: result.header, records: result.records, stops: [] }]);
    const e = report.evaluations[0]!;
    assert.equal(e.retrieved.n, EXPECTED.nRetrieved);
    assert.equal(e.retrieved.rescued, EXPECTED.rescued.length);
    assert.equal(e.retrieved.harmed, EXPECTED.harmed.length);
    assert.equal(e.metrics.RAE, EXPECTED.rae);
    const skill = e.skills.find((s) => s.name === SKILL)!;
    assert.deepEqual(skill.rescuedTasks, EXPECTED.rescued);
    assert.deepEqual([...skill.harmedTasks].sort(), EXPECTED.harmed);

    const back = await readRunFile(result.runFile);
    const record = (id: string, condition: string) => back.records.find((r) => r.taskId === id && r.condition === condition)!;
    assert.deepEqual(record("harm-1", "enabled").retrieved.map((r) => r.name), [SKILL]);
    assert.deepEqual(record("plain-1", "enabled").retrieved, []);
    assert.deepEqual(record("loads-both-pass", "enabled").filesRead, [{ skill: SKILL, path: "references/table.md" }]);
    assert.equal(record("harm-1", "enabled").toolCalls[0]!.name, "exec_command");
    assert.ok(record("harm-1", "enabled").transcript.some((m) => m.role === "tool" && m.content?.includes("drop the carry")), "the skill text the shell printed is in the transcript");
    assert.ok(back.records.every((r) => r.tokens.prompt > 0 && r.modelCalls > 0 && r.cachedCalls === 0));
  });

  it("the enabled run's first request carries the skill list Codex built; the disabled run's requests name no skill", () => {
    const enabledFirst = firstRequests(server.requests).filter(carriesSkillList);
    const disabled = server.requests.filter((r) => !carriesSkillList(r));
    assert.equal(enabledFirst.length, TASKS.length);
    for (const r of enabledFirst) {
      const list = r.messages.find((m) => m.role === "system" && m.content?.includes("<skills_instructions>"))!.content!;
      assert.match(list, /`r0` = `\/workspace\/\.agents\/skills`/, "the project skills folder, at the sandbox's fixed path");
      assert.ok(list.includes(`- ${SKILL}: Use when adding two-digit numbers with carries. (file: r0/${SKILL}/SKILL.md)`));
      assert.ok(list.includes(`- ${OTHER}: Use when a task asks for fractions with numerator one. (file: r0/${OTHER}/SKILL.md)`));
    }
    assert.ok(disabled.length >= TASKS.length);
    for (const r of disabled) {
      const text = requestText(r);
      assert.ok(!text.includes(SKILL) && !text.includes(OTHER), "a disabled request names no skill");
    }
  });

  it("the run header records the harness: version, the sha256 of its binary, settings, confinement", async () => {
    const back = await readRunFile(firstRunFile);
    const agent = back.header.agent!;
    const binary = await codexAdapter().locate();
    assert.equal(agent.id, "codex");
    assert.equal(agent.version, "0.171.0");
    assert.equal(agent.sha256, createHash("sha256").update(readFileSync(binary.path)).digest("hex"));
    assert.equal(agent.confinement, "bwrap");
    assert.equal(agent.skillsDir, ".agents/skills");
    assert.equal(agent.settings["skills.bundled.enabled"], "false");
  });

  it("an unchanged re-run makes 0 upstream calls and gives the same records", async () => {
    server.reset();
    const again = await run();
    assert.equal(server.calls, 0, "every model call came from the response cache");
    const a = await readRunFile(firstRunFile);
    const b = await readRunFile(again.runFile);
    const view = (rs: typeof a.records) =>
      rs
        .map((r) => ({ key: r.key, pass: r.verdict.pass, answer: r.answer, retrieved: r.retrieved, filesRead: r.filesRead, tools: r.toolCalls }))
        .sort((x, y) => x.key.localeCompare(y.key));
    assert.deepEqual(view(b.records), view(a.records));
    assert.ok(b.records.every((r) => r.modelCalls === 0 && r.cachedCalls > 0));
    // Codex puts today's date in its context; the model sees the run's date, the cache a date-free form: the same
    // run started on another day is still free.
    server.reset();
    const nextYear = await run({ stamp: { runId: "another-day", createdAt: "2031-02-03T00:00:01.000Z" } });
    assert.equal(server.calls, 0, "an unchanged run on another day is answered from the cache");
    assert.equal(nextYear.records.filter((r) => r.verdict.pass).length, a.records.filter((r) => r.verdict.pass).length);
  });

  it("the user's key never reaches the harness, the run file or the harness's requests", () => {
    const file = readFileSync(firstRunFile, "utf8");
    assert.ok(!file.includes(KEY));
    for (const r of server.requests) assert.ok(!requestText(r).includes(KEY));
  });
});

describe("a hostile Codex run (confined by bubblewrap) leaves the host untouched", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-codex-hostile-"));
  const canaryDir = path.join(os.homedir(), `.sf-codex-canary-${process.pid}`);
  const canary = path.join(canaryDir, "keep.txt");
  const outside = [path.join(dir, "outside.txt"), path.join(os.tmpdir(), `sf-codex-outside-${process.pid}.txt`)];
  const KEY_ENV = "SF_TEST_HOSTILE_KEY";
  let server: ScriptedServer;
  let listener: net.Server;
  let connections = 0;
  let port = 0;
  const grader = createGrader();

  before(async () => {
    mkdirSync(canaryDir, { recursive: true });
    writeFileSync(canary, "host file\n");
    // The key is in this process's environment too: a harness that could read it (env, /proc) would find it there.
    process.env[KEY_ENV] = KEY;
    listener = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as net.AddressInfo).port;
    const attack = [
      `rm -rf "$HOME" ${JSON.stringify(canaryDir)} 2>&1`,
      ...outside.map((f) => `echo pwned > ${JSON.stringify(f)} 2>&1`),
      `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>&1 && echo tcp-open`,
      `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), 2); print('py-open')" 2>&1 | tail -1`,
      `env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -a ${KEY_ENV}; grep -rsaE 'sk-real-user-key-[0-9a-f]{6}' /etc /home /root /tmp /run 2>/dev/null | head -3`,
      "echo done",
    ].join("; ");
    const plan: HarnessPlan = { enabled: [{ shell: attack }, { answer: boxedAnswer("1") }], disabled: [{ shell: attack }, { answer: boxedAnswer("1") }] };
    server = await startScriptedServer({ script: harnessPlanScript({ "Say one.": plan }), requireKey: KEY });
  });
  after(async () => {
    delete process.env[KEY_ENV];
    await server.close();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
    await grader.dispose();
  });

  it("deletes no host file, writes nothing outside the workspace, opens no connection and never sees the key", async () => {
    const root = path.join(dir, "skills");
    writeSkill(root, SKILL, "Use when adding two-digit numbers with carries.", "# Carry digits\nAdd.");
    const { skills } = await scanSkills([root]);
    const result = await evaluate(
      { agent: "codex", design: "paired", samples: 1, temperature: 0, concurrency: 2, maxTurns: 4 },
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
      const output = r.transcript.find((m) => m.role === "tool")?.content ?? "";
      assert.match(output, /done/, `the attack's commands ran (${r.condition})`);
      assert.doesNotMatch(output, /tcp-open|py-open/);
      assert.ok(r.verdict.pass);
    }
    assert.equal(readFileSync(canary, "utf8"), "host file\n", "the host's file is still there");
    for (const f of outside) assert.ok(!existsSync(f), `${f} was not written`);
    assert.equal(connections, 0, "no connection reached the host's loopback");
    for (const r of server.requests) assert.ok(!requestText(r).includes(KEY), "no request to the model holds the key");
    assert.ok(!readFileSync(result.runFile, "utf8").includes(KEY));
    rmSync(canaryDir, { recursive: true, force: true });
  });
});

describe("a Codex evaluation killed with SIGKILL resumes and loses nothing (the CLI)", () => {
  let server: ScriptedServer;
  let ws: string;
  const table = Object.fromEntries(TASKS.map((t) => [t.prompt, t.plan]));

  before(async () => {
    ws = tempDir("sf-codex-kill-");
    writeSkill(path.join(ws, "skills"), SKILL, "Use when adding two-digit numbers with carries.", "# Carry digits\nAdd the tens first, then the ones; drop the carry.", { "references/table.md": "carry table\n" });
    writeFileSync(path.join(ws, "tasks.jsonl"), TASKS.map((t) => JSON.stringify({ id: t.id, kind: "math-answer", prompt: t.prompt, answer: t.answer })).join("\n") + "\n");
    server = await startScriptedServer({ script: harnessPlanScript(table), requireKey: KEY });
  });
  after(async () => {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it("every run exactly once, each model request asked upstream once (bar the ones in flight at the kill), no harness left running", async () => {
    const args = (resume: boolean) => ["run", "--agent", "codex", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "m", "--concurrency", "2", "--max-turns", "4", "--out", "runs/killed.jsonl", ...(resume ? ["--resume"] : [])];
    const env = { cwd: ws, apiKey: KEY, baseUrl: server.url };
    const out = path.join(ws, "runs", "killed.jsonl");
    const lines = () => (existsSync(out) ? readFileSync(out, "utf8").split("\n").length - 1 : 0);
    server.reset();
    const first = startCli(args(false), env);
    let finished = false;
    void first.done.then(() => (finished = true));
    // Kill once the header and two runs are on disk: the other runs are in flight or not started.
    while (!finished && lines() < 3) await sleep(20);
    assert.ok(!finished, "the run was still going when killed");
    first.child.kill("SIGKILL");
    await first.done;
    const before = readFileSync(out, "utf8");
    const callsBefore = server.calls;
    // bwrap --die-with-parent: the killed CLI's harnesses go with it.
    await waitFor(() => harnessProcesses(ws, "codex").length === 0, "no harness of the killed run is left running");
    // The killed run could not remove its work root (workspaces, HOMEs, the proxy socket): the next run sweeps it.
    const left = workRoots(ws);
    assert.equal(left.length, 1, `the killed run left its work root: ${left.join(", ")}`);
    assert.match(left[0]!, new RegExp(`^skill-following-codex-${first.child.pid}-`));

    const resumed = await runCli(args(true), env);
    assert.equal(resumed.code, 0, resumed.stderr);
    const back = await readRunFile(out);
    const keys = back.records.map((r) => `${r.taskId}|${r.condition}`).sort();
    assert.deepEqual(keys, TASKS.flatMap((t) => [`${t.id}|disabled`, `${t.id}|enabled`]).sort(), "every task × condition exactly once");
    assert.ok(readFileSync(out, "utf8").startsWith(before), "the runs written before the kill are kept as they were");
    assert.deepEqual(workRoots(ws), [], "the resumed run swept the killed run's work root and removed its own");
    // A clean run asks 16 requests (enabled: 4 two-turn + 2 one-turn; disabled: 6). Each was asked upstream once,
    // except the ones answered but not yet cached when the kill came (at most one per run in flight).
    const clean = 4 * 2 + 2 + 6;
    assert.ok(server.calls >= clean && server.calls <= clean + 2, `upstream calls ${callsBefore} before the kill + ${server.calls - callsBefore} after`);
    const report = buildReport([{ header: back.header, records: back.records.map((r) => summarizeRun(r)), stops: [] }]);
    const e = report.evaluations[0]!;
    assert.equal(e.retrieved.rescued, EXPECTED.rescued.length);
    assert.equal(e.retrieved.harmed, EXPECTED.harmed.length);
    assert.equal(e.metrics.RAE, EXPECTED.rae);
  });
});
