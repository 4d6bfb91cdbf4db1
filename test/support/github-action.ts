/**
 * Runs this repository's composite action (action.yml) as a GitHub runner would, for the tests that check the
 * README's workflows: inputs from `with:` over the action's defaults, each step's `if:` evaluated (with the implicit
 * `success() &&` GitHub adds when no status function is named), `${{ … }}` expanded in `env:` and
 * `working-directory:`, each `run:` step through `bash --noprofile --norc -eo pipefail` (GitHub's `shell: bash`),
 * with GITHUB_ACTION_PATH, GITHUB_WORKSPACE, GITHUB_OUTPUT (a file per step, read back into `steps.<id>.outputs`)
 * and GITHUB_STEP_SUMMARY. Steps that `uses:` another action (setup-node, upload-sarif, upload-artifact) are
 * GitHub's own and are only recorded. `runner` gives the rest of what a runner sets for a job: the event (its name, and
 * its payload in the file GITHUB_EVENT_PATH names), the repository, the API's and the server's URLs, the run and job,
 * and `github.token` (only in expressions, as on GitHub: never in the environment unless an input passes it).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { spawnCollect } from "../unit/cli/harness.js";

interface ActionStep {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  "working-directory"?: string;
}
interface ActionFile {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export interface ActionRun {
  /** The exit code of the first failing step, or 0: the action's step passes or fails the job with it. */
  code: number;
  outputs: Record<string, string>;
  /** Step ids (or names) in order, with what happened to each. */
  steps: Array<{ step: string; status: "ran" | "skipped" | "uses" }>;
  stdout: string;
  stderr: string;
}

type Value = string | boolean;
interface Context {
  inputs: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string> }>;
  github: Record<string, string>;
  failed: boolean;
}

/** GitHub's expression language, as far as action.yml uses it: literals, contexts, ==, !=, !, &&, ||, (), status functions. */
export function evaluate(expr: string, ctx: Context): Value {
  const tokens = expr.match(/'(?:[^']|'')*'|==|!=|&&|\|\||[()!]|[A-Za-z_][\w.-]*(?:\(\))?/g) ?? [];
  let i = 0;
  const truthy = (v: Value) => v !== "" && v !== false;
  const lookup = (name: string): Value => {
    const [head, ...rest] = name.split(".");
    if (head === "inputs") return ctx.inputs[rest.join(".")] ?? "";
    if (head === "github") return ctx.github[rest.join(".")] ?? "";
    if (head === "steps" && rest[1] === "outputs") return ctx.steps[rest[0]!]?.outputs[rest.slice(2).join(".")] ?? "";
    if (name === "true" || name === "false") return name === "true";
    throw new Error(`expression context not modelled: ${name}`);
  };
  const primary = (): Value => {
    const t = tokens[i++];
    if (t === undefined) throw new Error(`unexpected end of ${expr}`);
    if (t === "(") {
      const v = or();
      i++;
      return v;
    }
    if (t === "!") return !truthy(primary());
    if (t.startsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
    if (t === "always()") return true;
    if (t === "success()") return !ctx.failed;
    if (t === "failure()") return ctx.failed;
    if (t === "cancelled()") return false;
    return lookup(t);
  };
  const comparison = (): Value => {
    const left = primary();
    const op = tokens[i];
    if (op !== "==" && op !== "!=") return left;
    i++;
    const right = primary();
    const equal = String(left).toLowerCase() === String(right).toLowerCase();
    return op === "==" ? equal : !equal;
  };
  const and = (): Value => {
    let v = comparison();
    while (tokens[i] === "&&") {
      i++;
      const r = comparison();
      v = truthy(v) ? r : v;
    }
    return v;
  };
  const or = (): Value => {
    let v = and();
    while (tokens[i] === "||") {
      i++;
      const r = and();
      v = truthy(v) ? v : r;
    }
    return v;
  };
  const v = or();
  if (i !== tokens.length) throw new Error(`cannot evaluate ${expr}`);
  return v;
}

const expand = (text: string, ctx: Context) => text.replace(/\$\{\{\s*([\s\S]*?)\s*\}\}/g, (_, e: string) => String(evaluate(e, ctx)));

function condition(step: ActionStep, ctx: Context): boolean {
  const raw = (step.if ?? "").trim().replace(/^\$\{\{\s*([\s\S]*?)\s*\}\}$/, "$1");
  const value = raw === "" ? !ctx.failed : /\b(always|failure|success|cancelled)\(\)/.test(raw) ? evaluate(raw, ctx) : !ctx.failed && evaluate(raw, ctx);
  return value !== "" && value !== false;
}

/** What the runner knows about the job besides the workspace (GitHub's default environment and `github` context). */
export interface RunnerContext {
  token?: string;
  eventName?: string;
  /** The webhook payload, written to the file GITHUB_EVENT_PATH names. */
  event?: unknown;
  repository?: string;
  apiUrl?: string;
  serverUrl?: string;
  runId?: string;
  workflow?: string;
  job?: string;
}

/**
 * Runs the action in `workspace` with `with` as its inputs. `env` is the calling step's environment (its `env:` and
 * whatever else the job has, e.g. PATH); GITHUB_STEP_SUMMARY is the job's summary file, shared by its steps.
 */
export async function runAction(actionDir: string, withInputs: Record<string, string>, opts: { workspace: string; env: Record<string, string>; summary: string; runner?: RunnerContext }): Promise<ActionRun> {
  const action = parse(readFileSync(path.join(actionDir, "action.yml"), "utf8")) as ActionFile;
  const given = Object.keys(withInputs).filter((k) => !(k in action.inputs));
  if (given.length > 0) throw new Error(`action.yml has no input ${given.join(", ")}`);
  const tmp = mkdtempSync(path.join(os.tmpdir(), "sf-action-run-"));
  const runner = opts.runner ?? {};
  const runnerEnv: Record<string, string> = {};
  const set = (name: string, value: string | undefined) => value !== undefined && (runnerEnv[name] = value);
  set("GITHUB_EVENT_NAME", runner.eventName);
  set("GITHUB_REPOSITORY", runner.repository);
  set("GITHUB_API_URL", runner.apiUrl);
  set("GITHUB_SERVER_URL", runner.serverUrl);
  set("GITHUB_RUN_ID", runner.runId);
  set("GITHUB_WORKFLOW", runner.workflow);
  set("GITHUB_JOB", runner.job);
  if (runner.event !== undefined) {
    runnerEnv.GITHUB_EVENT_PATH = path.join(tmp, "event.json");
    writeFileSync(runnerEnv.GITHUB_EVENT_PATH, JSON.stringify(runner.event));
  }
  const github: Record<string, string> = { action_path: actionDir, workspace: opts.workspace, token: runner.token ?? "", event_name: runner.eventName ?? "", repository: runner.repository ?? "" };
  const ctx: Context = { inputs: {}, steps: {}, github, failed: false };
  // Defaults are expressions too (github-token: ${{ github.token }}).
  ctx.inputs = Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, withInputs[k] ?? expand(v.default ?? "", ctx)]));
  const out: ActionRun = { code: 0, outputs: {}, steps: [], stdout: "", stderr: "" };
  for (const [n, step] of action.runs.steps.entries()) {
    const label = step.id ?? step.name ?? step.uses ?? String(n);
    if (!condition(step, ctx)) {
      out.steps.push({ step: label, status: "skipped" });
      continue;
    }
    if (step.uses) {
      out.steps.push({ step: label, status: "uses" });
      continue;
    }
    const outputFile = path.join(tmp, `output-${n}`);
    writeFileSync(outputFile, "");
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(String(v), ctx)]));
    const env = { ...opts.env, ...runnerEnv, ...stepEnv, GITHUB_ACTIONS: "true", GITHUB_ACTION_PATH: actionDir, GITHUB_WORKSPACE: opts.workspace, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: opts.summary };
    const cwd = step["working-directory"] ? expand(step["working-directory"], ctx) : opts.workspace;
    if (step.shell !== "bash") throw new Error(`step ${label}: only shell: bash is modelled`);
    const r = await spawnCollect("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run ?? ""], { cwd, env });
    out.stdout += r.stdout;
    out.stderr += r.stderr;
    out.steps.push({ step: label, status: "ran" });
    const outputs = Object.fromEntries(
      readFileSync(outputFile, "utf8")
        .split("\n")
        .filter((l) => l.includes("="))
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    if (step.id) ctx.steps[step.id] = { outputs };
    if (r.code !== 0 && !ctx.failed) {
      ctx.failed = true;
      out.code = r.code ?? 1;
    }
  }
  out.outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, v]) => [k, expand(v.value, ctx)]));
  return out;
}
