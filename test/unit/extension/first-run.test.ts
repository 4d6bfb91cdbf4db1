/**
 * Issue 24: the walkthrough ticks only steps that happened, and the endpoint setup keeps its place across Set API
 * Key. The real command table runs against the fake `vscode` (test/unit/extension/fake-vscode.ts) and a local
 * OpenAI-compatible server whose model list needs a key.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { editor, installFakeVscode, MemoryMemento, Uri } from "./fake-vscode.js";
import type { Services } from "../../../src/extension/services.js";

type Commands = typeof import("../../../src/extension/commands.js");
type Ids = typeof import("../../../src/extension/command-ids.js");
let commands: Commands;
let ids: Ids;
let server: Server;
let baseUrl: string;
const KEY = "sk-test";

before(async () => {
  installFakeVscode();
  commands = await import("../../../src/extension/commands.js");
  ids = await import("../../../src/extension/command-ids.js");
  server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${KEY}`) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "no key" } }));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "served-model" }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

let globalState: MemoryMemento;

function services(): Services {
  let key: string | undefined;
  const cfg = () => ({
    modelProvider: (editor.settings.get("skillFollowing.modelProvider") as string | undefined) ?? "openai-compatible",
    baseUrl: (editor.settings.get("skillFollowing.baseUrl") as string | undefined) ?? "https://api.openai.com/v1",
    model: (editor.settings.get("skillFollowing.model") as string | undefined) ?? "gpt-4o-mini",
  });
  const quiet = () => undefined;
  return {
    ext: { globalState, workspaceState: new MemoryMemento(), extensionUri: Uri.file(mkdtempSync(path.join(tmpdir(), "sf-ext-"))) },
    logger: { info: quiet, warn: quiet, error: quiet, show: quiet },
    config: { get: cfg, reload: cfg },
    secrets: {
      getApiKey: async () => (key ? { key, source: "secret-storage" } : undefined),
      setApiKey: async (k: string) => void (key = k),
      deleteApiKey: async () => void (key = undefined),
    },
    runner: { running: false },
  } as unknown as Services;
}

beforeEach(() => {
  editor.reset();
  // Without this the flow would read the runner's own key.
  delete process.env.SKILL_FOLLOWING_API_KEY;
  delete process.env.OPENAI_API_KEY;
  globalState = new MemoryMemento();
  commands.registerCommands(services());
});

const endpointContext = () => editor.contexts.get("skillFollowing.walkthrough.endpointChosen");

describe("walkthrough steps are ticked only on success", () => {
  it("a refused Try the Example in an untrusted workspace leaves its step unticked", async () => {
    editor.isTrusted = false;
    const out = await editor.commands.get("skillFollowing.tryExample")!();
    assert.equal(out, undefined);
    assert.ok(editor.messages.some((m) => m.includes("trusted workspace")), editor.messages.join("\n"));
    assert.equal(editor.contexts.get(ids.WALKTHROUGH_CONTEXTS.example), undefined);
    assert.equal(endpointContext(), undefined);
  });

  it("Choose Model Endpoint stopping on HTTP 401 saves nothing and leaves its step unticked", async () => {
    editor.answers.input.push(baseUrl); // Another OpenAI-compatible server…: its URL
    // The "needs an API key" toast is dismissed (no answer).
    const out = await editor.commands.get("skillFollowing.chooseEndpoint")!("url");
    assert.equal(out, undefined);
    assert.ok(editor.messages.some((m) => m.includes("needs an API key")), editor.messages.join("\n"));
    assert.equal(endpointContext(), undefined);
    assert.equal(editor.settings.get("skillFollowing.baseUrl"), undefined);
    assert.equal(editor.settings.get("skillFollowing.model"), undefined);
  });

  it("a command's outcome counts as success only when it did something", () => {
    assert.equal(ids.succeeded(undefined), false);
    assert.equal(ids.succeeded(false), false);
    assert.equal(ids.succeeded({ runFile: "r", cancelled: true }), false);
    assert.equal(ids.succeeded({ runFile: "r", cancelled: false }), true);
    assert.equal(ids.succeeded("/t/gsm8k.jsonl"), true);
  });
});

describe("the endpoint setup resumes after Set API Key", () => {
  it("Set API Key from the palette, after the toast has gone, continues the setup and saves the URL", async () => {
    editor.answers.input.push(baseUrl);
    await editor.commands.get("skillFollowing.chooseEndpoint")!("url");
    assert.equal(editor.settings.get("skillFollowing.baseUrl"), undefined);

    editor.answers.pick.push("served-model"); // the server's model list, now readable with the key
    const set = await editor.commands.get("skillFollowing.setApiKey")!(KEY);
    assert.equal(set, true);
    assert.equal(editor.settings.get("skillFollowing.baseUrl"), baseUrl);
    assert.equal(editor.settings.get("skillFollowing.modelProvider"), "openai-compatible");
    assert.equal(editor.settings.get("skillFollowing.model"), "served-model");
    assert.equal(endpointContext(), true, "the walkthrough step is ticked once it happened");

    // Done: a later key change does not run the setup again.
    const before = editor.messages.length;
    await editor.commands.get("skillFollowing.setApiKey")!("sk-other");
    assert.equal(editor.messages.slice(before).some((m) => m.startsWith("Model calls go to")), false);
  });

  it("Set API Key from the toast continues the same flow once (not a second time from the pending state)", async () => {
    editor.answers.input.push(baseUrl);
    editor.answers.message.push("Set API Key"); // the toast's button …
    editor.answers.input.push(KEY); // … asks for the key
    editor.answers.pick.push("served-model");
    const out = await editor.commands.get("skillFollowing.chooseEndpoint")!("url");
    assert.equal(out, "served-model");
    assert.equal(editor.settings.get("skillFollowing.baseUrl"), baseUrl);
    assert.equal(editor.messages.filter((m) => m.startsWith("Model calls go to")).length, 1);
    assert.equal(globalState.keys().length > 0 && globalState.get("skillFollowing.pendingEndpoint.v1") !== undefined, false);
  });
});
