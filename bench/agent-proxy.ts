/**
 * The model proxy's share of a harness run's wall time (issue 25: at most 5%). The real Codex binary answers the
 * same one-turn task two ways, interleaved, unconfined (so bubblewrap's start-up is not in either side):
 *   direct:  Codex → a Responses server that answers at once (the proxy's own Responses encoder, no proxy);
 *   proxied: Codex → the recording proxy → the product's OpenAI client → the scripted Chat Completions server.
 * Each side's wall time is the harness process from spawn to exit (runHarness for the proxied side, which also
 * writes the workspace and home; the direct side writes the same files). The ratio of medians is the overhead.
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

export async function benchAgentProxy(rounds: number): Promise<BenchRow[]> {
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
      const child = spawn(command.argv[0]!, command.argv.slice(1), { cwd: workspace, env: { HOME: home, PATH: "/usr/local/bin:/usr/bin:/bin", TZ: "UTC", LANG: "C.UTF-8", ...command.env }, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.resume();
      child.stderr.resume();
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`codex exited with ${code}`))));
    });
    const ms = performance.now() - t0;
    rmSync(root, { recursive: true, force: true });
    return ms;
  };
  const runProxied = async (i: number): Promise<number> => {
    const t0 = performance.now();
    const r = await runHarness(
      { adapter, binary, confinement: "unconfined", workRoot: path.join(dir, `proxied-${i}`), fixedDate: "2025-01-01", timeoutMs: 60_000 },
      { task: { id: `t${i}`, kind: "math-answer", prompt: PROMPT, answer: "5" }, condition: "disabled", skills: [], client, model: "m", params: { temperature: 0 }, sampleIndex: 0, maxTurns: 4 },
    );
    if (r.answer !== "5") throw new Error(`proxied run answered ${r.answer}`);
    return performance.now() - t0;
  };

  const d: number[] = [];
  const p: number[] = [];
  try {
    await runDirect(-1); // warm the binary's pages
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
  return [
    { group, metric: `codex ${binary.version} run, direct to a Responses server (median of ${rounds})`, value: Math.round(md), unit: "ms" },
    { group, metric: `codex ${binary.version} run, through the proxy to the chat server (median of ${rounds})`, value: Math.round(mp), unit: "ms" },
    { group, metric: "proxy overhead (proxied / direct − 1)", value: `${(((mp - md) / md) * 100).toFixed(1)}%`, reference: "≤ 5%", note: `load ${os.loadavg()[0]!.toFixed(2)}` },
  ];
}
