/**
 * Issue 25: Skill Following: Choose Agent… (the real command table against the fake `vscode`) lists builtin and the
 * harnesses found with their versions (the pinned devDependencies), writes `skillFollowing.agent`, refuses a harness
 * that is not installed with the fix; the status bar item and the model picker show the agent. A harness installed
 * globally is found through its command on PATH.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { findPackageOnPath } from "../../../src/core/agents/locate.js";
import { parseConfig, type Config } from "../../../src/extension/config-schema.js";
import type { Services } from "../../../src/extension/services.js";
import { editor, EventEmitter, installFakeVscode, MemoryMemento, Uri, window } from "./fake-vscode.js";

type Picker = typeof import("../../../src/extension/agent-picker.js");
let picker: Picker;
let pickers: typeof import("../../../src/extension/pickers.js");
const repoRoot = path.resolve(__dirname, "../../..");
const scratch = mkdtempSync(path.join(tmpdir(), "sf-agent-picker-"));

before(async () => {
  installFakeVscode();
  picker = await import("../../../src/extension/agent-picker.js");
  pickers = await import("../../../src/extension/pickers.js");
  const commands = await import("../../../src/extension/commands.js");
  editor.reset();
  commands.registerCommands(services());
});
after(() => rmSync(scratch, { recursive: true, force: true }));

const changes = new EventEmitter<Config>();
function config(): Config {
  return parseConfig({ baseUrl: "http://127.0.0.1:1/v1", model: "m", agent: editor.settings.get("skillFollowing.agent") });
}
function services(): Services {
  const quiet = () => undefined;
  return {
    ext: { globalState: new MemoryMemento(), workspaceState: new MemoryMemento(), extensionUri: Uri.file(scratch) },
    logger: { info: quiet, warn: quiet, error: quiet, show: quiet },
    config: { get: config, reload: config, onDidChange: changes.event },
    runner: { running: false },
    secrets: { getApiKey: async () => undefined },
  } as unknown as Services;
}

/** Runs `fn` as if this program lived and ran in `dir` with only system folders on PATH: no harness is near or on PATH. */
async function elsewhere<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const argv1 = process.argv[1];
  const pathVar = process.env.PATH;
  const cwd = process.cwd();
  process.chdir(dir);
  process.argv[1] = path.join(dir, "cli.js");
  process.env.PATH = [path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter);
  try {
    return await fn();
  } finally {
    process.argv[1] = argv1!;
    process.env.PATH = pathVar;
    process.chdir(cwd);
  }
}

beforeEach(() => {
  editor.settings.clear();
  editor.messages = [];
  editor.answers = { message: [], input: [], pick: [], dialog: [] };
});

describe("Choose Agent…", () => {
  it("lists builtin and each harness with the version found, and writes the choice", async () => {
    let items: Array<{ label: string; description?: string; detail?: string }> = [];
    editor.answers.pick.push((shown) => {
      items = shown as typeof items;
      return items.find((i) => i.label === "codex");
    });
    // Found in the repository's node_modules (the workspace folder a user would have open).
    const out = await picker.listAgents([repoRoot]);
    assert.deepEqual(out.map((a) => [a.id, a.version ?? a.missing?.slice(0, 20)]), [
      ["builtin", undefined],
      ["codex", "0.171.0"],
      ["claude-code", "2.1.332"],
      ["gemini", "0.61.0"],
    ]);
    const chosen = await editor.commands.get("skillFollowing.chooseAgent")!();
    assert.equal(chosen, "codex");
    assert.deepEqual(items.map((i) => [i.label, i.description]), [
      ["builtin", "built in · current"],
      ["codex", "0.171.0"],
      ["claude-code", "2.1.332"],
      ["gemini", "0.61.0"],
    ]);
    assert.match(items[1]!.detail!, /codex-linux-x64|bin\/codex/);
    assert.equal(editor.settings.get("skillFollowing.agent"), "codex");
    assert.ok(editor.messages.includes("Evaluations now run with codex 0.171.0."), editor.messages.join("\n"));
  });

  it("an agent id passed to the command is written without a list; an unknown one is refused", async () => {
    assert.equal(await editor.commands.get("skillFollowing.chooseAgent")!("claude-code"), "claude-code");
    assert.equal(editor.settings.get("skillFollowing.agent"), "claude-code");
    assert.equal(await editor.commands.get("skillFollowing.chooseAgent")!("cursor"), undefined);
    assert.match(editor.messages.at(-1)!, /Unknown agent "cursor": choose one of builtin, codex, claude-code, gemini\./);
    assert.equal(editor.settings.get("skillFollowing.agent"), "claude-code");
  });

  it("a harness that is not installed is listed as such and not written; the warning names the npm package", async () => {
    const empty = path.join(scratch, "no-harness");
    mkdirSync(empty, { recursive: true });
    let items: Array<{ label: string; description?: string }> = [];
    editor.answers.pick.push((shown) => {
      items = shown as typeof items;
      return items.find((i) => i.label === "claude-code");
    });
    const chosen = await elsewhere(empty, async () => {
      const listed = await picker.listAgents([empty]);
      assert.deepEqual(listed.map((a) => a.id), ["builtin", "codex", "claude-code", "gemini"]);
      assert.ok(listed.slice(1).every((a) => a.missing && !a.version));
      // The command looks in the workspace folders (none here: the working folder), beside the program and on PATH.
      return editor.commands.get("skillFollowing.chooseAgent")!();
    });
    assert.equal(chosen, undefined);
    assert.deepEqual(items.map((i) => i.description), ["built in · current", "not installed", "not installed", "not installed"]);
    assert.equal(editor.settings.get("skillFollowing.agent"), undefined, "nothing written");
    assert.match(editor.messages.at(-1)!, /Claude Code is not installed: .*npm install @anthropic-ai\/claude-code/);
  });

  it("the status bar item shows the agent and follows the setting; the model picker names a harness agent", async () => {
    const status = picker.createAgentStatus(services());
    assert.equal(status.item.text, "$(hubot) builtin");
    assert.equal(status.item.command, "skillFollowing.chooseAgent");
    editor.settings.set("skillFollowing.agent", "codex");
    changes.fire(config());
    assert.equal(status.item.text, "$(hubot) codex");
    assert.match(String(status.item.tooltip), /runs tasks with the agent codex/);
    status.dispose();

    const original = window.showQuickPick;
    let title: unknown;
    window.showQuickPick = async (items: unknown[] | Promise<unknown[]>, options?: { title?: string }) => {
      title = options?.title;
      return original(items);
    };
    try {
      editor.answers.pick.push("m");
      assert.deepEqual(await pickers.pickModels(services(), false), ["m"]);
      assert.equal(title, "Model (agent codex)");
      editor.settings.set("skillFollowing.agent", "builtin");
      editor.answers.pick.push("m");
      await pickers.pickModels(services(), false);
      assert.equal(title, "Model");
    } finally {
      window.showQuickPick = original;
    }
  });
});

describe("a globally installed harness", () => {
  it("is found through its command on PATH (a link into the package)", () => {
    const prefix = path.join(scratch, "global");
    const pkg = path.join(prefix, "lib", "node_modules", "@openai", "codex");
    mkdirSync(path.join(pkg, "bin"), { recursive: true });
    writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "@openai/codex", version: "9.9.9" }));
    writeFileSync(path.join(pkg, "bin", "codex.js"), "");
    mkdirSync(path.join(prefix, "bin"));
    symlinkSync("../lib/node_modules/@openai/codex/bin/codex.js", path.join(prefix, "bin", "codex"));
    assert.equal(findPackageOnPath("@openai/codex", "codex", ["/nonexistent", path.join(prefix, "bin")].join(path.delimiter)), pkg);
    assert.equal(findPackageOnPath("@anthropic-ai/claude-code", "codex", path.join(prefix, "bin")), undefined, "another package's command is not it");
    assert.equal(findPackageOnPath("@openai/codex", "codex", "/nonexistent"), undefined);
  });
});
