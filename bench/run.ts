/**
 * `npm run bench`: runs every benchmark of DESIGN §5 once, prints a table and writes bench/results/latest.json
 * with the machine noted (runs with --quick or --only write latest-partial.json instead). Numbers, not
 * pass/fail: each value sits beside its minimum, target or baseline, and every ratio is measured within one run.
 * `npm run bench -- --help` prints the usage below.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { BenchRow } from "./types.js";

const BENCHMARKS = ["calls", "overhead", "sandbox", "report", "webview", "memory", "lint", "agent-proxy"] as const;
type BenchName = (typeof BENCHMARKS)[number];

const USAGE = `npm run bench -- [--quick] [--only <names>] [--limit <n>] [--rounds <k>] [--runtimes pyodide,cpython,cpython-spawn]
  (no options)        every benchmark at full size; writes bench/results/latest.json
  --quick             smaller sizes (a smoke run of the harness); writes latest-partial.json
  --only <names>      some of: ${BENCHMARKS.join(", ")} (comma-separated); writes latest-partial.json
  --limit <n>         sandbox: the first n MBPP+ tasks (default all 378)
  --rounds <k>        sandbox: interleaved rounds (default 3)
  --runtimes <list>   sandbox: pyodide, cpython, cpython-spawn (default pyodide,cpython; cpython where its probe
                      passes; cpython-spawn: the CPython runtime with each answer process spawned, no warm template)
  --help              this text
The sandbox benchmark measures both runtimes against three CPython baselines (cold, warm, EvalPlus's structure) run
by one interpreter binary, named in its output; it needs ../shared/data (MBPP+). Details: bench/README.md.`;

function machine() {
  const cpus = os.cpus();
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: path.resolve(__dirname, ".."), encoding: "utf8" }).trim();
  } catch {
    // Not a git checkout (a packed copy): the commit is simply unknown.
  }
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? "unknown",
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
    commit,
  };
}

/** Both sandbox runtimes on MBPP+ against three CPython baselines (bench/sandbox.ts). */
async function benchSandboxRows(options: { limit?: string; rounds?: string; runtimes?: string }): Promise<BenchRow[]> {
  const group = "sandbox";
  const mod = await import("./sandbox.js");
  const missing = mod.missingData();
  if (missing) {
    process.stderr.write(`${missing}\n`);
    return [{ group, metric: "sandbox benchmark", value: "not run", note: "../shared/data/mbppplus not found" }];
  }
  const result = await mod.benchSandbox(mod.sandboxOptions(options));
  return Object.entries(result).map(([metric, value]) => ({ group, metric, value }));
}

function printTable(rows: BenchRow[]): void {
  const cells = rows.map((r) => [r.group, r.metric, `${r.value}${r.unit ? ` ${r.unit}` : ""}`, r.reference === undefined ? "" : String(r.reference), r.note ?? ""]);
  const head = ["group", "metric", "value", "min / target", "note"];
  const widths = head.map((h, i) => Math.min(i === 4 ? 200 : 60, Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length))));
  const line = (c: string[]) => c.map((x, i) => x.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
  process.stdout.write(`${line(head)}\n${line(widths.map((w) => "-".repeat(w)))}\n`);
  for (const c of cells) process.stdout.write(`${line(c)}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: "boolean" }, only: { type: "string" }, limit: { type: "string" }, rounds: { type: "string" }, runtimes: { type: "string" }, help: { type: "boolean", short: "h" } } });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const only = values.only ? (values.only.split(",") as BenchName[]) : [...BENCHMARKS];
  for (const b of only) if (!BENCHMARKS.includes(b)) throw new Error(`unknown benchmark '${b}' (${BENCHMARKS.join(", ")})`);
  const quick = values.quick ?? false;
  const info = machine();
  process.stdout.write(`Skill Following benchmarks${quick ? " (quick)" : ""} — ${info.cpus}× ${info.cpuModel}, ${info.memoryGiB} GiB, node ${info.node}, load ${info.loadAverageAtStart.join(" ")}\n\n`);

  const rows: BenchRow[] = [];
  const timings: Record<string, number> = {};
  const errors: Record<string, string> = {};
  const steps: Record<BenchName, () => Promise<BenchRow[]>> = {
    // Loaded lazily: one benchmark whose module cannot load must not stop the others.
    calls: async () => (await import("./calls.js")).benchCalls(40),
    overhead: async () =>
      (await import("./overhead.js")).benchOverhead(quick ? { tasks: 200, latencyMs: 200, concurrency: 32, cli: true } : { tasks: 1000, latencyMs: 200, concurrency: 32, cli: true }),
    sandbox: () => benchSandboxRows(quick ? { limit: "20", rounds: "1", ...values } : values),
    report: async () => (await import("./report-scale.js")).benchReportScale(quick ? 1000 : 10_000, 20),
    webview: async () => (await import("./webview-render.js")).benchWebviewRender(quick ? 1000 : 10_000, 20),
    memory: async () => (await import("./memory.js")).benchMemory({ tasks: quick ? 2000 : 20_000, concurrency: 32 }),
    lint: async () => (await import("./lint.js")).benchLint(quick ? 200 : 879),
    "agent-proxy": async () => (await import("./agent-proxy.js")).benchAgentProxy(quick ? 4 : 20),
  };
  for (const name of only) {
    process.stderr.write(`running ${name}…\n`);
    const t0 = performance.now();
    try {
      rows.push(...(await steps[name]()));
    } catch (e) {
      errors[name] = e instanceof Error ? (e.stack ?? e.message) : String(e);
      rows.push({ group: name, metric: "ERROR", value: "failed", note: (e instanceof Error ? e.message : String(e)).split("\n")[0] ?? "" });
    }
    timings[name] = Math.round(performance.now() - t0);
  }
  printTable(rows);

  // Only a complete full-size run replaces latest.json; partial and quick runs go beside it.
  const partial = quick || values.only !== undefined;
  const out = path.join(__dirname, "results", partial ? "latest-partial.json" : "latest.json");
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), quick, machine: info, loadAverageAtEnd: os.loadavg().map((x) => Math.round(x * 100) / 100), benchmarkWallMs: timings, rows, errors }, null, 2)}\n`);
  process.stdout.write(`\nwrote ${path.relative(process.cwd(), out)}\n`);
  for (const [name, stack] of Object.entries(errors)) process.stderr.write(`\n${name} failed:\n${stack}\n`);
  if (Object.keys(errors).length) process.exitCode = 1;
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
