/**
 * The fixture workspace and the scripted model both real-VS-Code tiers use. Outcomes are known in advance:
 *
 *   task        retrieved  disabled  enabled   →
 *   T1          yes        wrong     right     rescued
 *   T2, T3      yes        right     wrong     harmed   (T3's id and answer carry HTML/script payloads)
 *   T4          yes        right     right
 *   T5, T6      no         wrong     wrong
 *
 * So where retrieved: n = 4, b = 1, c = 2, RAE = −0.25; over all 6 pairs OAE = −1/6; acc⁺ is 2/4 where retrieved
 * and 0/2 elsewhere, so the aggregate lift is +0.5 and disagrees with RAE in sign (the paradox flag fires).
 * Calls: enabled retrieved tasks take 2 model calls (load_skill, answer), the rest 1: 4×2 + 2 + 6 = 16.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer, bySubstring, pythonAnswer, taskPlanScript, type TaskPlan } from "../../support/scripts.js";

export const SKILL_NAME = "units-helper";
export const XSS_TASK_ID = `T3-<img src=x onerror="window.__sfXss=1">`;
export const XSS_ANSWER = `<script>window.__sfXss=2</script><img src=x onerror="window.__sfXss=3"> ${boxedAnswer("999")}`;
export const API_KEY = "sk-test-DO-NOT-LEAK-4f1c2b9e7a";

export const SKILL_TEXT = `---
name: ${SKILL_NAME}
description: Converts every quantity to one unit before computing. Use for word problems that mix units.
---

# Units helper

1. List every quantity with its unit.
2. Convert all of them to the smallest unit that appears.
3. Compute, then convert the result back to the unit the question asks for.
`;

interface FixtureTask {
  id: string;
  marker: string;
  answer: string;
  retrieved: boolean;
  disabledRight: boolean;
  enabledRight: boolean;
  enabledAnswer?: string;
}

export const FIXTURE_TASKS: FixtureTask[] = [
  { id: "T1-rescued", marker: "[T1]", answer: "12", retrieved: true, disabledRight: false, enabledRight: true },
  { id: "T2-harmed", marker: "[T2]", answer: "7", retrieved: true, disabledRight: true, enabledRight: false },
  { id: XSS_TASK_ID, marker: "[T3]", answer: "30", retrieved: true, disabledRight: true, enabledRight: false, enabledAnswer: XSS_ANSWER },
  { id: "T4-both-pass", marker: "[T4]", answer: "5", retrieved: true, disabledRight: true, enabledRight: true },
  { id: "T5-no-skill", marker: "[T5]", answer: "9", retrieved: false, disabledRight: false, enabledRight: false },
  { id: "T6-no-skill", marker: "[T6]", answer: "4", retrieved: false, disabledRight: false, enabledRight: false },
];

export const EXPECTED = {
  n: 6,
  nRetrieved: 4,
  rescued: ["T1-rescued"],
  harmed: ["T2-harmed", XSS_TASK_ID],
  rae: -0.25,
  oae: -1 / 6,
  lift: 0.5,
  firstRunCalls: 16,
  /** After an edit of the skill body: only the 4 answers that follow a load_skill see new input. */
  callsAfterBodyEdit: 4,
};

/**
 * Two python-function tasks, graded in the sandbox started from the extension host (the default runtime, auto: native
 * CPython where its probe passes, else Pyodide): P1 is rescued (the disabled run's add_one is off by one), P2 harmed
 * (the enabled run's double triples).
 */
export const PYTHON_TASKS = [
  {
    id: "P1-add-one",
    marker: "[P1]",
    entryPoint: "add_one",
    canonical: "def add_one(x):\n    return x + 1\n",
    wrong: "def add_one(x):\n    return x + 2\n",
    base: [[1], [5]],
    enabledRight: true,
  },
  {
    id: "P2-double",
    marker: "[P2]",
    entryPoint: "double",
    canonical: "def double(x):\n    return 2 * x\n",
    wrong: "def double(x):\n    return 3 * x\n",
    base: [[2], [7]],
    enabledRight: false,
  },
];

function plans(): Record<string, TaskPlan> {
  const wrong = (t: FixtureTask) => boxedAnswer(String(Number(t.answer) + 100));
  const out: Record<string, TaskPlan> = {};
  for (const t of FIXTURE_TASKS) {
    const enabledAnswer = t.enabledAnswer ?? (t.enabledRight ? boxedAnswer(t.answer) : wrong(t));
    out[t.marker] = {
      disabled: t.disabledRight ? boxedAnswer(t.answer) : wrong(t),
      enabled: t.retrieved ? [{ loadSkill: SKILL_NAME }, { answer: enabledAnswer }] : [{ answer: enabledAnswer }],
    };
  }
  for (const t of PYTHON_TASKS) {
    out[t.marker] = {
      disabled: pythonAnswer(t.enabledRight ? t.wrong : t.canonical),
      enabled: [{ loadSkill: SKILL_NAME }, { answer: pythonAnswer(t.enabledRight ? t.canonical : t.wrong) }],
    };
  }
  return out;
}

/** The fixture's model script (every task's plan), for another server, e.g. behind a VS Code language model. */
export function fixtureScript() {
  return taskPlanScript(bySubstring(plans()));
}

export interface Fixture {
  dir: string;
  skillFile: string;
  taskSetFile: string;
  pythonTaskSetFile: string;
  server: ScriptedServer;
  /** 127.0.0.1 URL answering GET → {"calls": n}, so code running inside VS Code can read the server's count. */
  controlUrl: string;
  close(): Promise<void>;
}

export async function createFixture(dir: string, options: { latencyMs?: number; settings?: Record<string, unknown> } = {}): Promise<Fixture> {
  const server = await startScriptedServer({ script: taskPlanScript(bySubstring(plans())), requireKey: API_KEY, latencyMs: options.latencyMs ?? 0 });
  const control = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ calls: server.calls }));
  });
  await new Promise<void>((r) => control.listen(0, "127.0.0.1", () => r()));
  const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}/`;

  const skillDir = path.join(dir, "skills", SKILL_NAME);
  mkdirSync(skillDir, { recursive: true });
  const skillFile = path.join(skillDir, "SKILL.md");
  writeFileSync(skillFile, SKILL_TEXT);
  const taskSetFile = path.join(dir, "tasks", "fixture-math.jsonl");
  mkdirSync(path.dirname(taskSetFile), { recursive: true });
  writeFileSync(
    taskSetFile,
    FIXTURE_TASKS.map((t) => JSON.stringify({ id: t.id, kind: "math-answer", prompt: `${t.marker} A word problem whose answer is a number. What is it?`, answer: t.answer })).join("\n") + "\n",
  );
  const pythonTaskSetFile = path.join(dir, "tasks", "fixture-python.jsonl");
  writeFileSync(
    pythonTaskSetFile,
    PYTHON_TASKS.map((t) =>
      JSON.stringify({
        id: t.id,
        kind: "python-function",
        prompt: `${t.marker} Write the function \`${t.entryPoint}\`.`,
        entryPoint: t.entryPoint,
        canonicalSolution: t.canonical,
        tests: { base: t.base, plus: [], atol: 0, oracle: "default" },
      }),
    ).join("\n") + "\n",
  );
  mkdirSync(path.join(dir, ".vscode"), { recursive: true });
  writeFileSync(
    path.join(dir, ".vscode", "settings.json"),
    JSON.stringify({ "skillFollowing.baseUrl": server.url, "skillFollowing.model": "scripted-model", "skillFollowing.concurrency": 2, ...options.settings }, null, 2),
  );
  return {
    dir,
    skillFile,
    taskSetFile,
    pythonTaskSetFile,
    server,
    controlUrl,
    async close() {
      await new Promise<void>((r) => control.close(() => r()));
      await server.close();
    },
  };
}
