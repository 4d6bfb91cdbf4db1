/**
 * Issue 24: the walkthrough ticks only steps that happened, and the endpoint setup keeps its place across Set API
 * Key. The real command table runs against the fake `vscode` (test/unit/extension/fake-vscode.ts) and a local
 * OpenAI-compatible server whose model list needs a key.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { editor, installFakeVscode, MemoryMemento, Uri } from "./fake-vscode.js";
import type { Services } from "../../../src/extension/services.js";
import { workspaceLayout } from "../../../src/core/layout.js";

type Commands = typeof import("../../../src/extension/commands.js");
type Store = typeof import("../../../src/extension/results-store.js");
type Ids = typeof import("../../../src/extension/command-ids.js");
let commands: Commands;
let ids: Ids;
let store: Store;
let server: Server;
let baseUrl: string;
const KEY = "sk-test";

before(async () => {
  installFakeVscode();
  commands = await import("../../../src/extension/commands.js");
  ids = await import("../../../src/extension/command-ids.js");
  store = await import("../../../src/extension/results-store.js");
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
let svc: Services;
/** What the evaluation runner was asked to run (Try the Example's evaluation), in order. */
let runs: { model: { modelName: string }; label: string; taskSet: { name: string } }[];
const REPO = path.resolve(__dirname, "../../..");

function services(): Services {
  let key: string | undefined;
  const cfg = () => ({
    modelProvider: (editor.settings.get("skillFollowing.modelProvider") as string | undefined) ?? "openai-compatible",
    baseUrl: (editor.settings.get("skillFollowing.baseUrl") as string | undefined) ?? "https://api.openai.com/v1",
    model: (editor.settings.get("skillFollowing.model") as string | undefined) ?? "gpt-4o-mini",
    models: [] as string[],
  });
  const quiet = () => undefined;
  return {
    // The repository is the extension folder: Try the Example copies its skills/ and evaluates samples/math-word.jsonl.
    ext: { globalState, workspaceState: new MemoryMemento(), extensionUri: Uri.file(REPO) },
    logger: { info: quiet, warn: quiet, error: quiet, show: quiet },
    config: { get: cfg, reload: cfg },
    secrets: {
      getApiKey: async () => (key ? { key, source: "secret-storage" } : undefined),
      setApiKey: async (k: string) => void (key = k),
      deleteApiKey: async () => void (key = undefined),
    },
    // The runner records what it was asked and stops there, as a cancelled evaluation does (nothing is run).
    runner: {
      running: false,
      run: async (input: { model: { modelName: string }; label: string; taskSet: { name: string } }) => {
        runs.push(input);
        return { cancelled: true };
      },
    },
    results: new store.ResultsStore(new MemoryMemento()),
    layout: workspaceLayout(mkdtempSync(path.join(tmpdir(), "sf-data-"))),
  } as unknown as Services;
}

beforeEach(() => {
  editor.reset();
  // Without this the flow would read the runner's own key.
  delete process.env.SKILL_FOLLOWING_API_KEY;
  delete process.env.OPENAI_API_KEY;
  globalState = new MemoryMemento();
  runs = [];
  svc = services();
  commands.registerCommands(svc);
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

describe("Try the Example after the endpoint setup", () => {
  /** A quick pick answer that records being asked and dismisses the picker. */
  const asked: string[] = [];
  const dismiss = (items: unknown[]) => void asked.push(items.map((i) => (i as { label?: string }).label ?? String(i)).join(", "));

  it("evaluates with the model the resumed setup saved, and asks for no model again", async () => {
    editor.answers.input.push(baseUrl);
    await editor.commands.get("skillFollowing.chooseEndpoint")!("url"); // stops on HTTP 401
    editor.answers.pick.push("served-model");
    assert.equal(await editor.commands.get("skillFollowing.setApiKey")!(KEY), true);
    assert.equal(editor.settings.get("skillFollowing.model"), "served-model");

    asked.length = 0;
    editor.answers.pick.push(dismiss);
    const folder = mkdtempSync(path.join(tmpdir(), "sf-example-"));
    const out = (await editor.commands.get("skillFollowing.tryExample")!({ folder })) as { cancelled: boolean } | undefined;
    assert.deepEqual(asked, [], "no picker was shown");
    assert.equal(editor.answers.pick.length, 1, "the scripted picker answer is still unused");
    assert.deepEqual(runs.map((r) => [r.model.modelName, r.label, r.taskSet.name]), [["served-model", "round-money-whole-units", "math-word"]]);
    assert.equal(out?.cancelled, true);
    assert.ok(existsSync(path.join(folder, "skills", "round-money-whole-units", "SKILL.md")));
    assert.deepEqual(editor.shownDocuments, [path.join(folder, "skills", "round-money-whole-units", "SKILL.md")]);
  });

  it("with an endpoint but no model in the settings, asks which model (and stops when the picker is dismissed)", async () => {
    editor.settings.set("skillFollowing.baseUrl", baseUrl);
    asked.length = 0;
    editor.answers.pick.push(dismiss);
    const out = await editor.commands.get("skillFollowing.tryExample")!({ folder: mkdtempSync(path.join(tmpdir(), "sf-example-")) });
    assert.equal(out, undefined);
    assert.equal(asked.length, 1, `the model picker was shown once (messages: ${editor.messages.join(" | ")})`);
    assert.match(asked[0]!, /gpt-4o-mini/, "it offers the default model");
    assert.deepEqual(runs, []);
  });
});

describe("the model pickers list the endpoint's models", () => {
  it("Compare Models offers the models the configured server lists (with the stored key) beside the settings' ones", async () => {
    const pickers = await import("../../../src/extension/pickers.js");
    editor.settings.set("skillFollowing.baseUrl", baseUrl);
    svc.config.reload();
    let offered: { label: string; description?: string }[] = [];
    const capture = (items: unknown[]) => void (offered = items as typeof offered);

    // Without the key the server answers 401: only the configured model (and typing another) is offered.
    editor.answers.pick.push(capture);
    await pickers.pickModels(svc, true);
    assert.deepEqual(offered.map((i) => i.label).filter((l) => !l.startsWith("$(")), ["gpt-4o-mini"]);

    await svc.secrets.setApiKey(KEY);
    editor.answers.pick.push(capture);
    await pickers.pickModels(svc, true);
    const served = offered.find((i) => i.label === "served-model");
    assert.ok(served, offered.map((i) => i.label).join(", "));
    assert.equal(served.description, `served by ${baseUrl}`);
  });
});
