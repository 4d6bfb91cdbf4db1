/**
 * The scripted server in a process of its own, so the overhead benchmark measures the engine and not the
 * server sharing its event loop (a real model endpoint is elsewhere too).
 *
 * argv[2]: JSON {n, oneTurn, seed, latencyMs}. Prints one JSON line {url}; then answers stdin lines:
 * `stats` → {calls, faultsInjected}; `reset` → {ok}. Exits when stdin closes.
 */
import { createInterface } from "node:readline";
import { startScriptedServer } from "../test/support/scripted-server.js";
import { mathScenario } from "../test/unit/reliability/math-scenario.js";

interface Config {
  n: number;
  oneTurn?: boolean;
  seed?: number;
  latencyMs: number;
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "{}") as Config;
  const scenario = mathScenario({ n: config.n, ...(config.oneTurn ? { oneTurn: true } : {}), ...(config.seed !== undefined ? { seed: config.seed } : {}) });
  const server = await startScriptedServer({ script: scenario.script, latencyMs: config.latencyMs });
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (line === "stats") process.stdout.write(`${JSON.stringify({ calls: server.calls, faultsInjected: server.faultsInjected })}\n`);
    else if (line === "reset") {
      server.reset();
      process.stdout.write(`${JSON.stringify({ ok: true })}\n`);
    }
  }
  await server.close();
}

main().catch((e: unknown) => {
  process.stderr.write(`server-process: ${String(e)}\n`);
  process.exit(1);
});
