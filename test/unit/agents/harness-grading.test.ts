/**
 * What a harness run is graded on (issue 25, item 5), through the real Codex binary under bubblewrap against the
 * scripted model server: a skill eval's final response plus the files the agent wrote under `outputs/` (assertions
 * and the blind judge), and a code task's `solution.py` when the final message holds no code. The agent also plants
 * links to a host file in both places: the host never reads them.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { skillEvalAnswer } from "../../../src/core/agents/answer.js";
import { createGrader } from "../../../src/core/grading/index.js";
import { createCachedClient } from "../../../src/core/models/cache.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { buildReport } from "../../../src/core/report/build.js";
import { evaluate } from "../../../src/core/runs/evaluate.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import type { Skill } from "../../../src/core/skills/types.js";
import type { Task, TaskSet } from "../../../src/core/tasks/schema.js";
import { codexRead, harnessPlanScript, type HarnessPlan } from "../../support/scripted-harness.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { isJudgeRequest, readJudgeAsk, tagJudge, withJudge } from "../../support/scripts.js";

const KEY = "sk-grading-key-51c0";
const SKILL = "quarterly-report";
const SKILL_MARKER = "QR-BODY-8e21";
const HOST_SECRET = "HOST-SECRET-d41d";

describe("grading harness runs: outputs/ files and solution.py (real Codex, bubblewrap, scripted model)", { timeout: 600_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-harness-grading-"));
  const hostFile = path.join(dir, "host-secret.txt");
  const hostPy = path.join(dir, "host-solution.py");
  let server: ScriptedServer;
  let skills: Skill[];
  const grader = createGrader({ cacheDir: path.join(dir, "expected") });

  const tasks: Task[] = [
    {
      id: `${SKILL}/1`,
      kind: "skill-eval",
      prompt: "Write the quarterly report for the attached numbers.",
      owner: SKILL,
      evalId: 1,
      shouldTrigger: true,
      triggerOnly: false,
      criteria: [
        { type: "contains", value: "TOTAL-42" },
        { type: "judge", text: "Has a totals section [totals]" },
      ],
      attachments: [],
    },
    {
      id: "add-two",
      kind: "python-function",
      prompt: "Write add_two(x), which returns x plus two.",
      entryPoint: "add_two",
      canonicalSolution: "def add_two(x):\n    return x + 2\n",
      tests: { base: [[1], [5], [-2]], plus: [], atol: 0, oracle: "default" },
    },
  ];
  // The enabled run loads the skill, writes the report (text, a binary, links out of the workspace, a FIFO) and says
  // where it is; the disabled run answers in text only. For the code task, the enabled run writes solution.py and
  // answers without code; the disabled run links solution.py to a correct solution on the host and answers the same.
  const writeOutputs = [
    "mkdir -p outputs/data",
    `printf '# Q3 report\\n\\n## Totals\\nTOTAL-42 [totals]\\n' > outputs/report.md`,
    `printf '\\x00\\x01' > outputs/data/blob.bin`,
    `ln -s ${JSON.stringify(hostFile)} outputs/leak.txt`,
    "ln -s /etc outputs/etc",
    "mkfifo outputs/pipe",
    "echo written",
  ].join(" && ");
  const plans: Record<string, HarnessPlan> = {
    "quarterly report": {
      enabled: [codexRead(SKILL), { shell: writeOutputs }, { answer: "I wrote the report to outputs/report.md." }],
      disabled: [{ answer: "Here is the report: revenue went up. [no totals]" }],
    },
    "add_two(x)": {
      enabled: [{ shell: `printf 'def add_two(x):\\n    return x + 2\\n' > solution.py && echo ok` }, { answer: "Done: the function is in solution.py." }],
      disabled: [{ shell: `ln -s ${JSON.stringify(hostPy)} solution.py && echo ok` }, { answer: "Done: the function is in solution.py." }],
    },
  };

  before(async () => {
    writeFileSync(hostFile, `${HOST_SECRET} [totals] TOTAL-42\n`);
    writeFileSync(hostPy, `def add_two(x):\n    return x + 2  # ${HOST_SECRET}\n`);
    const skillDir = path.join(dir, "skills", SKILL);
    mkdirSync(skillDir, { recursive: true });
    writeFileSync(path.join(skillDir, "SKILL.md"), `---\nname: ${SKILL}\ndescription: Use when writing a quarterly report; write it to outputs/report.md.\n---\n${SKILL_MARKER}: always include a Totals section.\n`);
    skills = (await scanSkills([skillDir])).skills;
    server = await startScriptedServer({ script: withJudge(harnessPlanScript(plans), tagJudge), requireKey: KEY });
  });
  after(async () => {
    await server.close();
    await grader.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("grades the final response plus outputs/ with the assertions and the blind judge; a code task's solution.py; links out are never read", async () => {
    const taskSet: TaskSet = { name: "mixed", format: "native", file: path.join(dir, "mixed.jsonl"), hash: "mixed-1", tasks, issues: [] };
    const result = await evaluate(
      { agent: "codex", design: "paired", samples: 1, temperature: 0, concurrency: 2, maxTurns: 5 },
      {
        skills,
        taskSet,
        client: createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: KEY, model: "m", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: path.join(dir, "responses") }),
        model: "m",
        grader,
        runFile: path.join(dir, "run.jsonl"),
        resume: false,
      },
    );
    assert.equal(result.failedRuns, 0, result.lastError);
    const back = await readRunFile(result.runFile);
    const record = (id: string, condition: string) => back.records.find((r) => r.taskId === id && r.condition === condition)!;

    // The skill eval: the enabled answer is the final response plus the files, and both graders saw the file's text.
    const report = record(`${SKILL}/1`, "enabled");
    assert.deepEqual(report.retrieved.map((s) => s.name), [SKILL]);
    const answer = report.answer!;
    assert.ok(answer.startsWith("I wrote the report to outputs/report.md.\n\n## Files under outputs/\n"), answer);
    assert.ok(answer.includes("### outputs/report.md\n```\n# Q3 report\n\n## Totals\nTOTAL-42 [totals]\n```"), answer);
    assert.ok(answer.includes("- outputs/data/blob.bin (2 bytes; binary; not shown)"), answer);
    assert.ok(answer.includes("- outputs/leak.txt (not read: outside)"), answer);
    assert.ok(answer.includes("- outputs/etc (not read: outside)"), answer);
    assert.ok(answer.includes("- outputs/pipe (not read: not-a-file)"), answer);
    assert.ok(report.verdict.pass, report.verdict.reason);
    assert.deepEqual(report.verdict.expectations!.map((e) => [e.text, e.passed]), [
      ['contains "TOTAL-42"', true],
      ["Has a totals section [totals]", true],
    ]);
    assert.match(report.verdict.expectations![0]!.evidence, new RegExp(`^found at line ${answer.slice(0, answer.indexOf("TOTAL-42")).split("\n").length}: `), "the check found the text in the file");
    const plain = record(`${SKILL}/1`, "disabled");
    assert.equal(plain.answer, "Here is the report: revenue went up. [no totals]");
    assert.equal(plain.verdict.pass, false);

    // The judge was shown the files (and the request), never the skill's text; two judge calls, one per output.
    const judged = server.requests.filter(isJudgeRequest).map((r) => readJudgeAsk(r, 0));
    assert.equal(judged.length, 2);
    const enabledAsk = judged.find((a) => a.response.includes("## Files under outputs/"))!;
    assert.equal(enabledAsk.response, answer);
    for (const a of judged) assert.ok(!a.userText.includes(SKILL_MARKER), "the judge never sees the skill");

    // The code task: solution.py graded in the sandbox when the final message has no code; a link to the host is not read.
    const code = record("add-two", "enabled");
    assert.equal(code.answer, "def add_two(x):\n    return x + 2\n");
    assert.ok(code.verdict.pass, code.verdict.reason);
    const linked = record("add-two", "disabled");
    assert.equal(linked.answer, null);
    assert.equal(linked.verdict.pass, false);

    const built = buildReport([{ header: result.header, records: result.records, stops: [] }]).evaluations[0]!;
    assert.equal(built.retrieved.rescued, 1, "the skill eval is rescued by the skill (its file passes the checks)");
    const file = readFileSync(result.runFile, "utf8");
    assert.ok(!file.includes(HOST_SECRET), "no host file reached the run file");
    for (const r of server.requests) assert.ok(!JSON.stringify(r).includes(HOST_SECRET), "no host file reached the model or the judge");
  });

  it("a response with no files is the response alone; files and no response are the files; neither is no answer", () => {
    const ws = path.join(dir, "ws");
    mkdirSync(ws);
    assert.equal(skillEvalAnswer("Just text.", ws), "Just text.");
    assert.equal(skillEvalAnswer("  ", ws), null);
    mkdirSync(path.join(ws, "outputs"));
    writeFileSync(path.join(ws, "outputs", "a.md"), "has ``` fences\n");
    assert.equal(skillEvalAnswer(null, ws), "## Files under outputs/\n\n### outputs/a.md\n````\nhas ``` fences\n````");
  });

  it("outputs/ that is a link out of the workspace is not read at all", () => {
    const ws = path.join(dir, "ws-link");
    mkdirSync(ws);
    const outside = path.join(dir, "outside-outputs");
    mkdirSync(outside);
    writeFileSync(path.join(outside, "x.md"), HOST_SECRET);
    symlinkSync(outside, path.join(ws, "outputs"));
    assert.equal(skillEvalAnswer("Text.", ws), "Text.");
  });
});
