import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { ModelConfigError } from "../../../src/core/errors.js";
import type { Logger } from "../../../src/core/logger.js";
import { DEFAULT_OPENAI_MODEL, resolveModelConfig } from "../../../src/cli/resolve-model.js";

const SECRET = "sk-test-DO-NOT-LEAK-1234567890";

interface Fake {
  url: string;
  hits: Array<{ path: string; auth: string | undefined }>;
  close(): Promise<void>;
}

/** One loopback server per behaviour; `routes` maps a path to a JSON body, or "stall" to never answer. */
async function fake(routes: Record<string, unknown>): Promise<Fake> {
  const hits: Fake["hits"] = [];
  const server = http.createServer((req, res) => {
    const p = req.url ?? "";
    hits.push({ path: p, auth: req.headers.authorization });
    if (!(p in routes)) {
      res.writeHead(404).end();
      return;
    }
    const body = routes[p];
    if (body === "stall") return;
    if (typeof body === "number") {
      res.writeHead(body).end("{}");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function closedPortUrl(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (m: string | Error) => void lines.push(String(m));
  return { trace: push, debug: push, info: push, warn: push, error: push, lines };
}

describe("resolveModelConfig", () => {
  let ollama: Fake;
  let emptyOllama: Fake;
  let stall: Fake;
  let openaiLike: Fake;
  let noModels: Fake;
  let unauthorized: Fake;
  let dead: string;
  before(async () => {
    ollama = await fake({ "/api/tags": { models: [{ name: "qwen2.5-coder:7b", model: "qwen2.5-coder:7b" }, { name: "llama3.2:latest" }] } });
    emptyOllama = await fake({ "/api/tags": { models: [] } });
    stall = await fake({ "/api/tags": "stall", "/v1/models": "stall" });
    openaiLike = await fake({ "/v1/models": { object: "list", data: [{ id: "Qwen/Qwen2.5-7B-Instruct", object: "model" }, { id: "other" }] } });
    noModels = await fake({ "/v1/models": { object: "list", data: [] } });
    unauthorized = await fake({ "/v1/models": 401 });
    dead = await closedPortUrl();
  });
  after(async () => {
    await Promise.all([ollama, emptyOllama, stall, openaiLike, noModels, unauthorized].map((f) => f.close()));
  });

  it("flags: --base-url and --model are used as given, with the env key, and nothing is probed", async () => {
    const before = ollama.hits.length;
    const r = await resolveModelConfig({ baseUrl: `${openaiLike.url}/v1/`, model: "m1", env: { OPENAI_API_KEY: SECRET }, ollamaUrl: ollama.url });
    assert.deepEqual(r, { baseURL: `${openaiLike.url}/v1`, apiKey: SECRET, model: "m1", source: "flags" });
    assert.equal(ollama.hits.length, before);
  });

  it("flags: --base-url alone asks the server's /models and takes the first id, sending the key", async () => {
    const n = openaiLike.hits.length;
    const r = await resolveModelConfig({ baseUrl: `${openaiLike.url}/v1`, apiKey: SECRET, env: {} });
    assert.deepEqual(r, { baseURL: `${openaiLike.url}/v1`, apiKey: SECRET, model: "Qwen/Qwen2.5-7B-Instruct", source: "flags" });
    assert.deepEqual(openaiLike.hits.slice(n), [{ path: "/v1/models", auth: `Bearer ${SECRET}` }]);
  });

  it("flags: --base-url alone prefers SKILL_FOLLOWING_MODEL over probing", async () => {
    const r = await resolveModelConfig({ baseUrl: dead, env: { SKILL_FOLLOWING_MODEL: "from-env" } });
    assert.deepEqual(r, { baseURL: dead, model: "from-env", source: "flags" });
  });

  it("flags: --base-url whose server lists no models says to pass --model", async () => {
    await assert.rejects(
      resolveModelConfig({ baseUrl: `${noModels.url}/v1`, env: {} }),
      (e: unknown) => e instanceof ModelConfigError && /listed no models/.test(e.message) && /--model/.test(String(e.options.hint)),
    );
  });

  it("flags: --model with OPENAI_API_KEY targets OpenAI; OPENAI_BASE_URL is honoured", async () => {
    assert.deepEqual(await resolveModelConfig({ model: "gpt-4.1", env: { OPENAI_API_KEY: SECRET } }), { apiKey: SECRET, model: "gpt-4.1", source: "flags" });
    assert.deepEqual(await resolveModelConfig({ model: "x/y", env: { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: "https://openrouter.ai/api/v1/" } }), {
      baseURL: "https://openrouter.ai/api/v1",
      apiKey: SECRET,
      model: "x/y",
      source: "flags",
    });
  });

  it("env: OPENAI_API_KEY alone defaults the model; SKILL_FOLLOWING_MODEL overrides it; the caller's key wins", async () => {
    assert.deepEqual(await resolveModelConfig({ env: { OPENAI_API_KEY: SECRET }, ollamaUrl: ollama.url }), { apiKey: SECRET, model: DEFAULT_OPENAI_MODEL, source: "env" });
    assert.deepEqual(await resolveModelConfig({ env: { OPENAI_API_KEY: SECRET, SKILL_FOLLOWING_MODEL: "gpt-4o" } }), { apiKey: SECRET, model: "gpt-4o", source: "env" });
    assert.deepEqual(await resolveModelConfig({ apiKey: "sk-other", env: { OPENAI_API_KEY: SECRET } }), { apiKey: "sk-other", model: DEFAULT_OPENAI_MODEL, source: "env" });
  });

  it("env: OPENAI_BASE_URL without a key (vLLM, LM Studio) asks the server for its model", async () => {
    const r = await resolveModelConfig({ env: { OPENAI_BASE_URL: `${openaiLike.url}/v1` } });
    assert.deepEqual(r, { baseURL: `${openaiLike.url}/v1`, model: "Qwen/Qwen2.5-7B-Instruct", source: "env" });
  });

  it("env: empty variables count as unset", async () => {
    const r = await resolveModelConfig({ env: { OPENAI_API_KEY: "", OPENAI_BASE_URL: " ", SKILL_FOLLOWING_MODEL: "" }, ollamaUrl: ollama.url });
    assert.equal(r.source, "ollama");
  });

  it("ollama: picks the first installed model and the /v1 endpoint", async () => {
    const r = await resolveModelConfig({ env: {}, ollamaUrl: `${ollama.url}/` });
    assert.deepEqual(r, { baseURL: `${ollama.url}/v1`, apiKey: "ollama", model: "qwen2.5-coder:7b", source: "ollama" });
  });

  it("ollama: --model without a key selects an installed model, `:latest` implied", async () => {
    const r = await resolveModelConfig({ model: "llama3.2", env: {}, ollamaUrl: ollama.url });
    assert.equal(r.model, "llama3.2:latest");
    assert.equal(r.source, "ollama");
  });

  it("ollama: found through OLLAMA_HOST given as host:port", async () => {
    const r = await resolveModelConfig({ env: { OLLAMA_HOST: ollama.url.replace("http://", "") } });
    assert.equal(r.baseURL, `${ollama.url}/v1`);
  });

  it("ollama: a missing model is an error naming what is installed", async () => {
    await assert.rejects(resolveModelConfig({ model: "mistral", env: {}, ollamaUrl: ollama.url }), (e: unknown) => {
      assert.ok(e instanceof ModelConfigError);
      assert.match(e.message, /no model "mistral"; installed: qwen2\.5-coder:7b, llama3\.2:latest/);
      assert.match(String(e.options.hint), /ollama pull mistral/);
      return true;
    });
  });

  it("ollama: a server with no models says to pull one", async () => {
    await assert.rejects(resolveModelConfig({ env: {}, ollamaUrl: emptyOllama.url }), (e: unknown) => e instanceof ModelConfigError && /no models installed/.test(e.message));
  });

  it("nothing configured: the error lists how to set up every backend, with the probe's reason", async () => {
    await assert.rejects(resolveModelConfig({ env: {}, ollamaUrl: dead, noLocal: true }), (e: unknown) => {
      assert.ok(e instanceof ModelConfigError);
      assert.equal(e.options.hintIds?.[0], "apiKey");
      for (const needle of ["OpenAI", "Ollama", "vLLM", "LM Studio", "llama.cpp", "OpenRouter", "VS Code", "OPENAI_API_KEY", "OPENAI_BASE_URL", "--base-url", "--model", "ollama pull", "ECONNREFUSED", `${dead}/api/tags`, "local:", "is off"]) {
        assert.ok(e.message.includes(needle), `message lacks ${needle}:\n${e.message}`);
      }
      return true;
    });
  });

  // The probe's own deadline ends it ("no answer within 150 ms"); a probe that hung would meet the test's timeout.
  it("a stalled Ollama is given up on after the probe timeout", { timeout: 60_000 }, async () => {
    await assert.rejects(resolveModelConfig({ env: {}, ollamaUrl: stall.url, probeTimeoutMs: 150, noLocal: true }), (e: unknown) => e instanceof ModelConfigError && /no answer within 150 ms/.test(e.message));
  });

  it("a server that is not Ollama does not count as Ollama", async () => {
    await assert.rejects(resolveModelConfig({ env: {}, ollamaUrl: openaiLike.url, noLocal: true }), (e: unknown) => e instanceof ModelConfigError && /HTTP 404/.test(e.message));
  });

  it("never puts the key in an error message or a log line", async () => {
    const logger = recorder();
    const errors: string[] = [];
    const attempts = [
      () => resolveModelConfig({ baseUrl: `${unauthorized.url}/v1`, apiKey: SECRET, env: {}, logger }),
      () => resolveModelConfig({ env: { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: `${stall.url}/v1` }, probeTimeoutMs: 100, logger }),
      () => resolveModelConfig({ baseUrl: dead.replace(/:\d+$/, ":11434"), env: { OPENAI_API_KEY: SECRET }, logger, probeTimeoutMs: 100 }),
    ];
    for (const attempt of attempts) {
      try {
        await attempt();
      } catch (e) {
        assert.ok(e instanceof ModelConfigError, String(e));
        errors.push(e.message, String(e.options.hint), e.stack ?? "");
      }
    }
    assert.ok(errors.length >= 6, "each attempt must fail (is a real server listening on 127.0.0.1:11434?)");
    assert.match(errors[0] ?? "", /HTTP 401/);
    assert.ok(logger.lines.some((l) => /looks like an Ollama root/.test(l)));
    for (const text of [...errors, ...logger.lines]) assert.ok(!text.includes(SECRET), `key leaked in: ${text}`);
  });

  it("rejects a base URL that is not http(s)", async () => {
    await assert.rejects(resolveModelConfig({ baseUrl: "ftp://x/v1", model: "m", env: {} }), (e: unknown) => e instanceof ModelConfigError && /--base-url "ftp:\/\/x\/v1" must be an http\(s\) URL/.test(e.message));
  });
});

describe("the fallback order: flags, environment, Ollama, then the local default", () => {
  let ollama: Fake;
  let dead: string;
  before(async () => {
    ollama = await fake({ "/api/tags": { models: [{ name: "llama3.2:latest" }] } });
    dead = await closedPortUrl();
  });
  after(() => ollama.close());

  /** A runtime check that counts how often the fallback asked it. */
  const runtime = (status: { ok: true } | { ok: false; reason: string } = { ok: true }) => {
    const check = async () => {
      check.calls++;
      return status;
    };
    check.calls = 0;
    return check;
  };

  it("a local: model runs in-process whatever else is configured, from a flag or SKILL_FOLLOWING_MODEL", async () => {
    const env = { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: "https://api.example/v1" };
    assert.deepEqual(await resolveModelConfig({ model: "local:tiny.gguf", env, ollamaUrl: ollama.url }), { model: "local:tiny.gguf", source: "flags", local: true });
    assert.deepEqual(await resolveModelConfig({ env: { ...env, SKILL_FOLLOWING_MODEL: "local:qwen2.5-coder-0.5b-instruct" } }), {
      model: "local:qwen2.5-coder-0.5b-instruct",
      source: "env",
      local: true,
    });
    // A --model flag names the model, not the environment.
    assert.deepEqual(await resolveModelConfig({ model: "gpt-4o", env: { ...env, SKILL_FOLLOWING_MODEL: "local:x.gguf" } }), { baseURL: "https://api.example/v1", apiKey: SECRET, model: "gpt-4o", source: "flags" });
    await assert.rejects(resolveModelConfig({ model: "local:x.gguf", baseUrl: "http://127.0.0.1:1/v1", env: {} }), /runs in-process, so --base-url has nothing to do/);
  });

  it("the environment beats Ollama, and Ollama beats the local default (which is then never asked)", async () => {
    const check = runtime();
    assert.equal((await resolveModelConfig({ env: { OPENAI_API_KEY: SECRET }, ollamaUrl: ollama.url, localRuntime: check })).source, "env");
    assert.equal((await resolveModelConfig({ env: {}, ollamaUrl: ollama.url, localRuntime: check })).source, "ollama");
    assert.equal(check.calls, 0);
  });

  it("with nothing else, the local default, announced in one line with its size and how to turn it off", async () => {
    const logger = recorder();
    const check = runtime();
    const r = await resolveModelConfig({ env: { SKILL_FOLLOWING_MODELS_DIR: "/models/here" }, ollamaUrl: dead, localRuntime: check, logger });
    // Where Ollama was looked for comes along, for the message if the download then fails.
    const { ollamaProbe, ...rest } = r;
    assert.deepEqual(rest, { model: "local:qwen2.5-coder-0.5b-instruct", source: "local-default", local: true });
    assert.ok(ollamaProbe && ollamaProbe.reason.length > 0);
    assert.equal(check.calls, 1);
    const said = logger.lines.filter((l) => /local default/.test(l));
    assert.equal(said.length, 1);
    assert.ok(!said[0]!.includes("\n"), "one line");
    assert.match(said[0]!, /Qwen2\.5-Coder-0\.5B-Instruct \(Q4_K_M\) \(491 MB, Apache-2\.0\), downloaded once to \/models\/here and run in-process; --no-local turns this off/);
  });

  it("--no-local, or SKILL_FOLLOWING_NO_LOCAL=1, keeps a missing model an error (CI)", async () => {
    for (const input of [{ env: {}, noLocal: true }, { env: { SKILL_FOLLOWING_NO_LOCAL: "1" } }, { env: { SKILL_FOLLOWING_NO_LOCAL: "true" } }]) {
      const check = runtime();
      await assert.rejects(resolveModelConfig({ ...input, ollamaUrl: dead, localRuntime: check }), (e: unknown) => e instanceof ModelConfigError && /The local default model is off/.test(e.message));
      assert.equal(check.calls, 0);
    }
    assert.equal((await resolveModelConfig({ env: { SKILL_FOLLOWING_NO_LOCAL: "0" }, ollamaUrl: dead, localRuntime: runtime() })).source, "local-default");
  });

  it("a named model is never swapped for the local default", async () => {
    const check = runtime();
    await assert.rejects(resolveModelConfig({ model: "gpt-4o", env: {}, ollamaUrl: dead, localRuntime: check }), (e: unknown) => e instanceof ModelConfigError && /--model gpt-4o was given but no endpoint/.test(e.message));
    await assert.rejects(resolveModelConfig({ env: { SKILL_FOLLOWING_MODEL: "gpt-4o" }, ollamaUrl: dead, localRuntime: check }), ModelConfigError);
    assert.equal(check.calls, 0);
  });

  it("where local models cannot run, nothing is downloaded: the error says why", async () => {
    await assert.rejects(resolveModelConfig({ env: {}, ollamaUrl: dead, localRuntime: runtime({ ok: false, reason: "no node-llama-cpp" }) }), (e: unknown) => {
      assert.ok(e instanceof ModelConfigError);
      assert.match(e.message, /The local default model cannot run in this installation \(no node-llama-cpp\)/);
      return true;
    });
  });
});
