/**
 * Reliability: secrets. A run with a recognisable fake key leaves no trace of it in any file under the
 * workspace (run files, response cache, reports), in HOME or TMPDIR, or on the CLI's stdout/stderr — also
 * with --verbose, with retried faults, and when a hostile endpoint echoes the key back in its error messages.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startScriptedServer, TRANSPORT_FAULTS, type ScriptedServer } from "../../support/scripted-server.js";
import { filesUnder, runCli, tempDir } from "./cli-process.js";
import { mathScenario, writeScenarioSkills, writeScenarioTasks } from "./math-scenario.js";

const KEY = `sk-test-SECRET-${randomBytes(12).toString("hex")}`;
/** The distinctive tail: a masked key that still shows it (e.g. `sk-...SECRET-abc`) counts as a leak too. */
const TAIL = KEY.slice(-16);

function assertNoKey(where: string, text: string | Buffer): void {
  const s = typeof text === "string" ? text : text.toString("latin1");
  assert.ok(!s.includes(KEY), `${where} contains the API key`);
  assert.ok(!s.includes(TAIL), `${where} contains the end of the API key`);
  const b64 = Buffer.from(KEY).toString("base64").slice(0, 24);
  assert.ok(!s.includes(b64), `${where} contains the API key in base64`);
}

function assertNoKeyInFiles(dir: string): number {
  const files = filesUnder(dir);
  for (const f of files) assertNoKey(f, readFileSync(f));
  return files.length;
}

/** An endpoint that echoes the Authorization header in its error messages (some proxies do). */
async function startEchoServer(status: number): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    const body = JSON.stringify({ error: { message: `bad request from ${req.headers.authorization ?? "nobody"}`, type: "invalid_request_error", code: null, param: null } });
    res.writeHead(status, { "content-type": "application/json", "x-echo-auth": req.headers.authorization ?? "" });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("reliability: the API key leaves no trace", () => {
  const scenario = mathScenario({ n: 12, seed: 44 });
  let ws: string;
  let server: ScriptedServer;

  before(async () => {
    ws = tempDir("sf-rel-secrets-");
    writeScenarioSkills(path.join(ws, "skills"));
    writeScenarioTasks(scenario, path.join(ws, "tasks.jsonl"));
    server = await startScriptedServer({ script: scenario.script, requireKey: KEY, faults: { rate: 0.2, seed: 8, kinds: TRANSPORT_FAULTS.filter((k) => k !== "stall") } });
  });
  after(async () => {
    await server?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  const base = ["run", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "scripted-model", "--concurrency", "2"];

  it("a --verbose run with retried faults, then every report format: no key in any file or output", async () => {
    const r = await runCli([...base, "--verbose", "--out", "runs/verbose.jsonl"], { cwd: ws, apiKey: KEY, baseUrl: server.url });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(server.calls > 0 && Object.keys(server.faultsInjected).length > 0, "the server was used (with the key) and faults were retried");
    assertNoKey("run stdout", r.stdout);
    assertNoKey("run stderr", r.stderr);
    for (const format of ["text", "json", "markdown", "junit", "html", "csv"]) {
      const rep = await runCli(["report", "runs/verbose.jsonl", "--format", format, "--out", `reports/report.${format}`, "--verbose"], { cwd: ws, apiKey: KEY });
      assert.equal(rep.code, 0, rep.stderr);
      assertNoKey(`report ${format} output`, rep.stdout + rep.stderr);
    }
    const n = assertNoKeyInFiles(ws);
    assert.ok(n > 5, `scanned the workspace, cache, HOME and TMPDIR (${n} files)`);
  });

  // Some gateways take the key in the URL (`?api-key=`); the product shows endpoints through describeEndpoint.
  const keyInUrl = () => `${server.url}?api-key=${KEY}`;

  it("a key in the base URL's query never reaches a file", async () => {
    const r = await runCli([...base, "--limit", "1", "--out", "runs/url-key.jsonl"], { cwd: ws, apiKey: "sk-test-other", baseUrl: keyInUrl() });
    assert.notEqual(r.code, null);
    assertNoKeyInFiles(ws);
  });

  it("a key in the base URL's query is not logged", async () => {
    const r = await runCli([...base, "--limit", "1", "--out", "runs/url-key-log.jsonl"], { cwd: ws, apiKey: "sk-test-other", baseUrl: keyInUrl() });
    assertNoKey("stderr (key in URL)", r.stderr);
    assertNoKey("stdout (key in URL)", r.stdout);
  });

  for (const status of [400, 401, 403, 422]) {
    it(`an endpoint that echoes the key in a ${status} error: the key is not shown or stored`, async () => {
      const echo = await startEchoServer(status);
      try {
        const r = await runCli([...base, "--verbose", "--timeout", "5", "--limit", "2", "--out", `runs/echo-${status}.jsonl`], { cwd: ws, apiKey: KEY, baseUrl: echo.url });
        assert.notEqual(r.code, 0, "the run fails");
        assert.match(r.stderr, /\[redacted\]/, "the endpoint's message is shown, with the echoed key redacted");
        assertNoKey(`stdout (echo ${status})`, r.stdout);
        assertNoKey(`stderr (echo ${status})`, r.stderr);
        assertNoKeyInFiles(ws);
      } finally {
        await echo.close();
      }
    });
  }
});
