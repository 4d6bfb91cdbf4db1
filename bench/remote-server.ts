import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

/** A handle on bench/server-process.ts running in a child process. */
export interface RemoteServer {
  url: string;
  stats(): Promise<{ calls: number; faultsInjected: Record<string, number> }>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function startRemoteServer(config: { n: number; oneTurn?: boolean; seed?: number; latencyMs: number }): Promise<RemoteServer> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "server-process.ts"), JSON.stringify(config)], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout });
  const pending: Array<(line: string) => void> = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  lines.on("line", (line) => pending.shift()?.(line));
  const next = () =>
    new Promise<string>((resolve, reject) => {
      pending.push(resolve);
      void exited.then(() => reject(new Error(`server process exited: ${stderr.trim()}`)));
    });
  const first = JSON.parse(await next()) as { url: string };
  const ask = async (command: string) => {
    const reply = next();
    child.stdin.write(`${command}\n`);
    return JSON.parse(await reply) as unknown;
  };
  return {
    url: first.url,
    stats: () => ask("stats") as Promise<{ calls: number; faultsInjected: Record<string, number> }>,
    reset: async () => {
      await ask("reset");
    },
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
