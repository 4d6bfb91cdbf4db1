/**
 * The README's pull-request workflow (<!-- ci-diff -->, issue 28 item 3), run as CI would run it against the scripted
 * edit of issue 28 (test/support/edit-scenario.ts): a pull request opened before `main` has a run, a push to `main`,
 * then two pushes to the pull request, the first fixing 5 tasks and breaking 1 (not significant), the second
 * breaking the skill (significant). Each `uses:` of this repository's action runs action.yml's own steps
 * (test/support/github-action.ts); the comment goes to a fake GitHub API over real HTTP (test/support/fake-github.ts).
 * GitHub's own actions are modelled, not run: checkout writes the commit's files into a fresh workspace (a new runner
 * per job), cache/save copies the listed paths into a store under the key, cache/restore copies back the exact key or
 * else the newest entry whose key starts with a restore key (GitHub's rule).
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, it } from "node:test";
import { parse } from "yaml";
import { marker } from "../../../src/cli/pr-comment.js";
import { DESC, editScript, LOADS, skillText, T, taskLines } from "../../support/edit-scenario.js";
import { startFakeGitHub, type FakeGitHub } from "../../support/fake-github.js";
import { evaluate, runAction } from "../../support/github-action.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { FAKE_KEY, repoRoot, spawnCollect } from "./harness.js";

interface Step {
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
}
interface Workflow {
  on: { push: { branches: string[] }; pull_request: unknown };
  permissions: Record<string, string>;
  jobs: { evaluate: { steps: Step[] } };
}

const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
const block = /<!-- ci-diff -->\s*```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
const isOurs = (s: Step) => /(^|\/)skill-following@/.test(s.uses ?? "");
const TOKEN = "ghs_TEST-ci-diff-token-0123456789";
const REPO = "acme/skills";
const PR = 12;

let server: ScriptedServer;
let gh: FakeGitHub;
const store: Array<{ key: string; dir: string }> = [];

before(async () => {
  server = await startScriptedServer({ script: editScript });
  gh = await startFakeGitHub({ token: TOKEN, repository: REPO });
});
after(async () => {
  await server?.close();
  await gh?.close();
});

const expand = (text: string, vars: Record<string, string>) => text.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_, name: string) => vars[name] ?? `<unset ${name}>`);
const expandAll = (o: Record<string, unknown> | undefined, vars: Record<string, string>) => Object.fromEntries(Object.entries(o ?? {}).map(([k, v]) => [k, expand(String(v), vars)]));
const listed = (paths: string) => paths.split("\n").map((p) => p.trim()).filter(Boolean);

interface JobResult {
  /** The first failing step's exit code, or 0. */
  code: number;
  calls: number;
  log: string;
  summary: string;
  ran: string[];
}

/** One run of the workflow's job on a fresh runner, for a commit whose skill text is `text`. */
async function job(event: "push" | "pull_request", sha: string, text: string): Promise<JobResult> {
  const wf = parse(block) as Workflow;
  const ws = mkdtempSync(path.join(os.tmpdir(), "sf-ci-diff-ws-"));
  const summary = path.join(mkdtempSync(path.join(os.tmpdir(), "sf-ci-diff-summary-")), "summary.md");
  writeFileSync(summary, "");
  const vars = { "secrets.OPENAI_API_KEY": FAKE_KEY, "github.sha": sha };
  const github = { event_name: event };
  const runner = {
    token: TOKEN,
    eventName: event,
    event: event === "pull_request" ? { number: PR, pull_request: { number: PR } } : { ref: "refs/heads/main" },
    repository: REPO,
    apiUrl: gh.url,
    serverUrl: "https://github.example",
    runId: sha,
    workflow: "skills",
    job: "evaluate",
  };
  const out: JobResult = { code: 0, calls: 0, log: "", summary: "", ran: [] };
  server.reset();
  for (const s of wf.jobs.evaluate.steps) {
    // A failed step stops the job (the implicit success() of every `if:`).
    if (out.code !== 0) break;
    if (s.if !== undefined && evaluate(s.if, { inputs: {}, steps: {}, github, failed: false }) !== true) continue;
    const inputs = expandAll(s.with, vars);
    out.ran.push(s.uses ?? s.run ?? "?");
    let code = 0;
    if (s.uses === "actions/checkout@v4") {
      mkdirSync(path.join(ws, "skills", "sums"), { recursive: true });
      writeFileSync(path.join(ws, "skills", "sums", "SKILL.md"), text);
      mkdirSync(path.join(ws, "tasks"));
      writeFileSync(path.join(ws, "tasks", "tasks.jsonl"), `${taskLines().join("\n")}\n`);
    } else if (s.uses?.startsWith("actions/cache/restore@")) {
      const prefixes = listed(inputs["restore-keys"] ?? "");
      const hit = store.find((e) => e.key === inputs.key) ?? [...store].reverse().find((e) => prefixes.some((p) => e.key.startsWith(p)));
      for (const p of hit ? listed(inputs.path!) : []) if (existsSync(path.join(hit!.dir, p))) cpSync(path.join(hit!.dir, p), path.join(ws, p), { recursive: true });
    } else if (s.uses?.startsWith("actions/cache/save@")) {
      const dir = mkdtempSync(path.join(os.tmpdir(), "sf-ci-diff-cache-"));
      for (const p of listed(inputs.path!)) if (existsSync(path.join(ws, p))) cpSync(path.join(ws, p), path.join(dir, p), { recursive: true });
      store.push({ key: inputs.key!, dir });
    } else if (isOurs(s)) {
      const env = { PATH: process.env.PATH ?? "", HOME: ws, OPENAI_BASE_URL: server.url, ...expandAll(s.env, vars) };
      const r = await runAction(repoRoot, inputs, { workspace: ws, env, summary, runner });
      out.log += r.stdout + r.stderr;
      code = r.code;
    } else if (s.run) {
      const r = await spawnCollect("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", expand(s.run, vars)], { cwd: ws, env: { PATH: process.env.PATH ?? "", GITHUB_STEP_SUMMARY: summary } });
      out.log += r.stdout + r.stderr;
      code = r.code ?? -1;
    } else {
      throw new Error(`a step this test does not model: ${JSON.stringify(s)}`);
    }
    out.code = code;
  }
  out.calls = server.calls;
  out.summary = readFileSync(summary, "utf8");
  return out;
}

const comment = () => gh.comments(PR).filter((c) => c.body.startsWith(marker("skills/evaluate/report.md")));

it("the README's pull-request workflow: main's run is the base, a pull request's report shows the edit as a paired diff, comments it once and gates on a significant regression", async () => {
  assert.ok(block, "README has a <!-- ci-diff --> yaml block");
  const wf = parse(block) as Workflow;
  assert.deepEqual(wf.on.push.branches, ["main"]);
  assert.ok("pull_request" in wf.on);
  assert.equal(wf.permissions["pull-requests"], "write", "the comment needs pull-requests: write");
  const reportStep = wf.jobs.evaluate.steps.find((s) => isOurs(s) && s.with?.command === "report");
  assert.deepEqual([reportStep?.with?.against, reportStep?.with?.["fail-on"], reportStep?.with?.comment], ["base.jsonl", "regressed", true]);
  const OLD = skillText(DESC, "OLD");

  // A pull request opened before main has any run: no base, a warning, a report without diffs; the comment is posted.
  const first = await job("pull_request", "pr-0", OLD);
  assert.equal(first.code, 0, first.log);
  assert.match(first.log, /::warning::skill-following: no base run at base\.jsonl: the report has no diffs against the base branch and fail-on: regressed is not applied/);
  assert.doesNotMatch(first.summary, /Skill changes against the base run/);
  assert.equal(comment().length, 1);

  // main: the run is saved with its response cache as the base.
  const main = await job("push", "main-1", OLD);
  assert.equal(main.code, 0, main.log);
  assert.equal(main.calls, T * 2 + LOADS.size, "a cold cache: every call");
  assert.equal(main.ran.filter((r) => /skill-following@/.test(r)).length, 1, "main runs the evaluation only (no report step)");
  assert.ok(main.ran.some((r) => r.startsWith("actions/cache/save@")) && main.ran.some((r) => r.startsWith("cp run.jsonl base.jsonl")));
  assert.equal(main.summary, "", "main publishes no report in this workflow");

  // The pull request edits the skill's body: it fixes 5 tasks and breaks 1, which is not significant.
  const edit = await job("pull_request", "pr-1", skillText(DESC, "NEW"));
  assert.equal(edit.calls, LOADS.size, "main's response cache is restored: only the continuations after the load are new calls");
  assert.equal(edit.code, 0, `the regression of 1 task is not significant\n${edit.log}`);
  const plain = (s: string) => s.replace(/\\(.)/g, "$1");
  assert.match(plain(edit.summary), /## Skill changes against the base run[\s\S]*what the edit to `sums` changed[\s\S]*\*\*no significant change on the tasks that load the skill\*\*[\s\S]*\| 14 \| 5 \| 1 \| \+0\.29 \|/);
  assert.match(edit.summary, /Improved: t0, t1, t2, t3, t4\n\nRegressed: t5\n/);
  assert.equal(comment().length, 1, "the pull request's comment is updated, not added to");
  assert.equal(comment()[0]!.body, `${marker("skills/evaluate/report.md")}\n${edit.summary}`, "the comment is the report in the job summary");

  // A second push breaks the skill on every task that loads it: a significant regression fails the job.
  const broken = await job("pull_request", "pr-2", skillText(DESC, "BAD"));
  assert.equal(broken.calls, LOADS.size);
  assert.equal(broken.code, 3, broken.log);
  assert.match(broken.log, /--fail-on regressed: an edited skill made the tasks that load it significantly worse \(sums\)/);
  assert.match(broken.summary, /\*\*the edit made the tasks that load the skill worse\*\*/);
  assert.match(broken.summary, /Regressed: t5, t8, t9, t10, t11, t12, t13\n/);
  assert.equal(comment().length, 1);
  assert.match(comment()[0]!.body, /the edit made the tasks that load the skill worse/, "the comment shows the failing push's diff");
  assert.deepEqual(
    gh.requests.filter((r) => r.method !== "GET").map((r) => r.method),
    ["POST", "PATCH", "PATCH"],
  );
});
