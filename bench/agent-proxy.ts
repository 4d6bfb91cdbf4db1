/**
 * The model proxy's share of a harness run's wall time (issue 25: at most 5%). The real Codex binary answers the
 * same one-turn task two ways, interleaved, unconfined (so bubblewrap's start-up is not in either side):
 *   direct:  Codex → a Responses server that answers at once (the proxy's own Responses encoder, no proxy);
 *   proxied: Codex → the recording proxy → the product's OpenAI client → the scripted Chat Completions server.
 * Each side's wall time is the harness run from the first file written to the run folder removed (runHarness for the
 * proxied side; the direct side writes and removes the same files). The ratio of medians is the overhead.
 *
 * Both sides get the same scheduling (a fairness fault found in the first measure, 21.4% at load 23.6):
 * - Codex runs in a session of its own on both sides (runHarness spawns it detached; so does the direct side). With
 *   the kernel's autogroup scheduling each session is a group with its own fair share, and before, only the
 *   proxied side's Codex had one.
 * - The servers of both sides (and the proxy) run in a child process in a session of its own, as a CLI started from
 *   a terminal does, not in the session of whatever started the benchmark (a test run there took the proxy's CPU).
 * Rounds alternate which side goes first; the load is printed at the start and the end.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { codexAdapter } from "../src/core/agents/codex.js";
import { responsesReply } from "../src/core/agents/proxy/openai-responses.js";
import { runHarness } from "../src/core/agents/run.js";
import { createOpenAIClient } from "../src/core/models/openai-client.js";
import { startScriptedServer } from "../test/support/scripted-server.js";
import type { BenchRow } from "./types.js";

const PROMPT = "Add 2 and 3.";
const ANSWER = "The answer is \\boxed{5}.";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Runs the measurement in a child process that leads a session of its own (see the header), and returns its rows. */
export async function benchAgentProxy(rounds: number): Promise<BenchRow[]> {
  const child = spawn(process.execPath, ["--import", "tsx", __filename, String(rounds)], { detached: true, stdio: ["ignore", "pipe", "pipe"], cwd: path.resolve(__dirname, "..") });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  const last = out.trim().split("\n").pop() ?? "";
  if (code !== 0 || !last.startsWith("[")) throw new Error(`agent-proxy measurement exited with ${code}: ${err.trim().split("\n").slice(-5).join(" | ")}`);
  return JSON.parse(last) as BenchRow[];
}

async function measure(rounds: number): Promise<BenchRow[]> {
  const loadStart = os.loadavg()[0]!;
  const adapter = codexAdapter();
  const binary = await adapter.locate();
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-bench-agent-"));
  const direct = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const reply = responsesReply({ content: ANSWER, toolCalls: [], finishReason: "stop", usage: { promptTokens: 10, completionTokens: 5 }, latencyMs: 0 }, JSON.parse(body) as unknown, "bench");
      res.writeHead(reply.status, reply.headers);
      for (const chunk of typeof reply.body === "string" ? [reply.body] : reply.body) res.write(chunk);
      res.end();
    });
  });
  await new Promise<void>((resolve) => direct.listen(0, "127.0.0.1", resolve));
  const directUrl = `http://127.0.0.1:${(direct.address() as AddressInfo).port}/v1`;
  const scripted = await startScriptedServer({ script: () => ({ content: ANSWER }) });
  const client = createOpenAIClient({ baseURL: scripted.url, apiKey: "k", model: "m" });

  const runDirect = async (i: number): Promise<number> => {
    const root = path.join(dir, `direct-${i}`);
    const workspace = path.join(root, "workspace");
    const home = path.join(root, "home");
    const t0 = performance.now();
    mkdirSync(workspace, { recursive: true });
    const ctx = { binary, workspace, home, proxyUrl: directUrl, dummyKey: "dummy", model: "m", prompt: PROMPT, params: {}, maxTurns: 4 };
    for (const [rel, text] of Object.entries(adapter.homeFiles(ctx))) {
      mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
      writeFileSync(path.join(home, rel), text);
    }
    const command = adapter.command(ctx);
    await new Promise<void>((resolve, reject) => {
      // detached: a session of its own, as runHarness gives the harness.
      const child = spawn(command.argv[0]!, command.argv.slice(1), { cwd: workspace, detached: true, env: { HOME: home, PATH: "/usr/local/bin:/usr/bin:/bin", TZ: "UTC", LANG: "C.UTF-8", ...command.env }, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.resume();
      child.stderr.resume();
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`codex exited with ${code}`))));
    });
    // runHarness removes its run folder before it returns: so does this side, inside the timing.
    rmSync(root, { recursive: true, force: true });
    return performance.now() - t0;
  };
  const runProxied = async (i: number): Promise<number> => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await runHarness(
      { adapter, binary, confinement: "unconfined", workRoot: path.join(dir, `proxied-${i}`), fixedDate: "2025-01-01", timeoutMs: 60_000 },
      { task: { id: `t${i}`, kind: "math-answer", prompt: PROMPT, answer: "5" }, condition: "disabled", skills: [], client, model: "m", params: { temperature: 0 }, sampleIndex: 0, maxTurns: 4 },
    );
    if (r.answer !== "5") throw new Error(`proxied run answered ${r.answer}`);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    if (i >= 0) proxiedCpuMs += (cpu.user + cpu.system) / 1000;
    return ms;
  };

  const d: number[] = [];
  const p: number[] = [];
  let proxiedCpuMs = 0;
  try {
    // Warm both sides: the binary's pages, the proxy's code paths and the client's connection.
    await runDirect(-1);
    await runProxied(-1);
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) {
        d.push(await runDirect(i));
        p.push(await runProxied(i));
      } else {
        p.push(await runProxied(i));
        d.push(await runDirect(i));
      }
    }
  } finally {
    await scripted.close();
    await new Promise<void>((resolve) => direct.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
  const md = median(d);
  const mp = median(p);
  const group = "agent-proxy";
  const load = `load ${loadStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`;
  const perRound = d.map((x, i) => p[i]! / x - 1);
  return [
    { group, metric: `codex ${binary.version} run, direct to a Responses server (median of ${rounds})`, value: Math.round(md), unit: "ms", note: `range ${Math.round(Math.min(...d))}–${Math.round(Math.max(...d))}` },
    { group, metric: `codex ${binary.version} run, through the proxy to the chat server (median of ${rounds})`, value: Math.round(mp), unit: "ms", note: `range ${Math.round(Math.min(...p))}–${Math.round(Math.max(...p))}` },
    { group, metric: "proxy overhead (proxied / direct − 1, ratio of medians)", value: `${(((mp - md) / md) * 100).toFixed(1)}%`, reference: "≤ 5%", note: `${rounds} interleaved rounds; median of the per-round ratios ${(median(perRound) * 100).toFixed(1)}%; ${load}` },
    { group, metric: "runner + proxy + scripted server CPU per proxied run", value: Math.round(proxiedCpuMs / rounds), unit: "ms", note: "this process only (Codex not included): workspace, proxy, OpenAI client, scripted server, evidence" },
  ];
}

if (require.main === module) {
  measure(Number(process.argv[2] ?? 20)).then(
    (rows) => process.stdout.write(`${JSON.stringify(rows)}\n`),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}
