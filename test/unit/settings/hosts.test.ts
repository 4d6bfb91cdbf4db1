/**
 * One settings schema, two hosts. The CLI builds RunSettings from its flags, the extension from its settings; for
 * equivalent inputs the two must give byte-identical settings and run headers, over every option. Errors name
 * options by hint id, which each host renders its own way: flags in the CLI, settings and commands in the editor
 * (never a flag).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { renderHint, renderHintId } from "../../../src/cli/hints.js";
import { parseRunArgs } from "../../../src/cli/run-command.js";
import { SETTING_FLAGS, SETTING_OPTIONS, runSettingsFromArgs } from "../../../src/cli/settings.js";
import { INPUT_HINT_IDS, InputError, type HintId } from "../../../src/core/errors.js";
import { AgentIdSchema } from "../../../src/shared/vocabulary/index.js";
import { buildRunHeader, selectTasks } from "../../../src/core/runs/header.js";
import { DEFAULT_RUN_SETTINGS, RUN_SETTING_KEYS, type RunSettings } from "../../../src/core/settings.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { COMMANDS } from "../../../src/extension/command-ids.js";
import { CONFIG_SECTION, parseConfig, runSettingsFromConfig } from "../../../src/extension/config-schema.js";
import { editorErrorText, editorHint } from "../../../src/extension/hints.js";
import { mathTask, skill } from "../engine/helpers.js";

const repoRoot = path.resolve(__dirname, "../../..");
const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { contributes: { configuration: { properties: Record<string, unknown> } } };

const fromCli = (argv: string[]): RunSettings => runSettingsFromArgs(parseRunArgs(argv).values);
const fromEditor = (raw: Record<string, unknown>): RunSettings => runSettingsFromConfig(parseConfig(raw));

/** Equivalent inputs: what a CLI user types, and what an editor user sets. */
const TABLE: Array<{ name: string; argv: string[]; config: Record<string, unknown> }> = [
  { name: "defaults", argv: [], config: {} },
  { name: "search mode", argv: ["--mode", "search", "--top-k", "5", "--search-threshold", "1.5"], config: { retrievalMode: "search", searchTopK: 5, searchThreshold: 1.5 } },
  { name: "RAE-only with a control sample", argv: ["--rae-only", "--rae-only-control", "0.25", "--shuffle-seed", "3"], config: { design: "rae-only", raeOnlyControl: 0.25, shuffleSeed: 3 } },
  { name: "RAE-only by --design", argv: ["--design", "rae-only"], config: { design: "rae-only" } },
  {
    name: "sampling",
    argv: ["--samples", "3", "--temperature", "0.7", "--seed", "42", "--max-tokens", "512", "--max-turns", "4"],
    config: { samples: 3, temperature: 0.7, seed: 42, maxTokens: 512, maxTurns: 4 },
  },
  { name: "size", argv: ["--concurrency", "8", "--limit", "3"], config: { concurrency: 8, taskLimit: 3 } },
  { name: "early stopping", argv: ["--stop-when", "decided", "--shuffle-seed", "9", "--alpha", "0.1", "--limit", "4"], config: { stopWhen: "decided", shuffleSeed: 9, alpha: 0.1, taskLimit: 4 } },
  { name: "requests", argv: ["--timeout", "30", "--no-cache"], config: { requestTimeoutSeconds: 30, responseCache: false } },
  {
    name: "the skill-eval judge",
    argv: ["--judge-model", "judge-m", "--judge-base-url", "http://127.0.0.1:9/v1", "--judge-repeats", "3"],
    config: { judgeModel: "judge-m", judgeBaseUrl: "http://127.0.0.1:9/v1", judgeRepeats: 3 },
  },
  { name: "batch", argv: ["--batch"], config: { batch: true } },
  { name: "the CPython sandbox runtime", argv: ["--python", "cpython"], config: { sandboxPython: "cpython" } },
  { name: "the Pyodide sandbox runtime (the default is auto)", argv: ["--python", "pyodide"], config: { sandboxPython: "pyodide" } },
  { name: "a harness agent, unconfined", argv: ["--agent", "codex", "--agent-unconfined"], config: { agent: "codex", agentUnconfined: true } },
  // What the editor shows for an unset optional setting (null) is the CLI's absent flag.
  { name: "unset optionals", argv: [], config: { seed: null, maxTokens: null, taskLimit: null, judgeModel: null, judgeBaseUrl: null } },
];

const taskSet: TaskSet = {
  name: "toy",
  format: "native",
  file: "/tasks/toy.jsonl",
  hash: "abc",
  tasks: Array.from({ length: 6 }, (_, i) => mathTask(`t${i}`, `What is ${i} + 1?`, String(i + 1))),
  issues: [],
};
const skills = [skill("units", "Convert units first.", "Convert."), skill("rounding", "Round money.", "Round.")];
const inputs = { skills, taskSet, clientId: "openai-compatible:m@http://127.0.0.1:1/v1", model: "m", baseUrl: "http://127.0.0.1:1/v1" };
const stamp = { runId: "00000000-0000-4000-8000-000000000000", createdAt: "2025-01-01T00:00:00.000Z" };
const header = (s: RunSettings) => JSON.stringify(buildRunHeader(s, inputs, selectTasks(taskSet, s), { isolation: "none" }, stamp));

describe("RunSettings: the CLI and the extension agree", () => {
  for (const row of TABLE) {
    it(`${row.name}: byte-identical settings and run header`, () => {
      const cli = fromCli(row.argv);
      const editor = fromEditor(row.config);
      assert.equal(JSON.stringify(cli), JSON.stringify(editor));
      assert.equal(header(cli), header(editor));
    });
  }

  it("the table moves every option off its default in some row", () => {
    const moved = new Set<string>();
    for (const row of TABLE) {
      const s = fromCli(row.argv);
      for (const key of RUN_SETTING_KEYS) if (JSON.stringify(s[key]) !== JSON.stringify(DEFAULT_RUN_SETTINGS[key])) moved.add(key);
    }
    assert.deepEqual(RUN_SETTING_KEYS.filter((k) => !moved.has(k)), []);
  });

  it("the header follows the settings: shuffle before limit, search options only in search mode, control only with RAE-only", () => {
    const decided = JSON.parse(header(fromCli(["--stop-when", "decided", "--shuffle-seed", "9", "--limit", "4"]))) as { taskIds: string[]; shuffleSeed?: number };
    assert.equal(decided.shuffleSeed, 9);
    assert.equal(decided.taskIds.length, 4);
    assert.notDeepEqual(decided.taskIds, ["t0", "t1", "t2", "t3"], "a seeded order, not the file's first four");
    const plain = JSON.parse(header(fromCli(["--limit", "4"]))) as { taskIds: string[]; shuffleSeed?: number; search?: unknown; control?: unknown };
    assert.deepEqual(plain.taskIds, ["t0", "t1", "t2", "t3"]);
    assert.equal(plain.shuffleSeed, undefined);
    assert.equal(plain.search, undefined);
    assert.deepEqual((JSON.parse(header(fromCli(["--mode", "search", "--top-k", "5"]))) as { search: unknown }).search, { topK: 5, threshold: 0 });
    assert.deepEqual((JSON.parse(header(fromCli(["--rae-only", "--rae-only-control", "0.5"]))) as { control: unknown }).control, { q: 0.5, seed: 1 });
  });

  it("refuses the same contradiction in both hosts, with the same hint ids", () => {
    const errors: InputError[] = [];
    for (const attempt of [() => fromCli(["--rae-only-control", "0.2"]), () => fromEditor({ raeOnlyControl: 0.2 })]) {
      assert.throws(attempt, (e: unknown) => {
        assert.ok(e instanceof InputError);
        errors.push(e);
        return true;
      });
    }
    assert.deepEqual(errors[0]!.options.hintIds, ["raeOnlyControl", "design"]);
    assert.deepEqual(errors[1]!.options.hintIds, errors[0]!.options.hintIds);
    assert.match(renderHint(errors[0]!.options.hint, errors[0]!.options.hintIds) ?? "", /--rae-only-control <q>, --design paired\|rae-only/);
    const shown = editorErrorText(errors[1]!.message, errors[1]!.options.hint, errors[1]!.options.hintIds);
    assert.match(shown, /skillFollowing\.raeOnlyControl, skillFollowing\.design/);
    assert.doesNotMatch(shown, /--/);
  });

  it("names a bad flag value by its flag (the editor falls back to the default and reports the setting)", () => {
    assert.throws(() => fromCli(["--samples", "0"]), /--samples takes a whole number from 1 to 100 \(got '0'\)/);
    assert.throws(() => fromCli(["--mode", "magic"]), /--mode must be one of catalog, search/);
    assert.equal(fromEditor({ samples: 0 }).samples, 1);
  });
});

describe("hint ids: rendered by each host", () => {
  const all: HintId[] = [...RUN_SETTING_KEYS, ...INPUT_HINT_IDS];
  const declared = new Set(Object.keys(pkg.contributes.configuration.properties));
  const commands = new Set<string>(Object.values(COMMANDS).map((c) => c.id));

  it("the CLI names a flag or an environment variable for every id but the file (already in the message)", () => {
    for (const id of all) {
      const text = renderHintId(id);
      if (id === "file") assert.equal(text, "");
      else assert.match(text, /^--[a-z-]+|^[A-Z_]+/, `${id} → ${text}`);
    }
    // Every setting's flag is one `run` accepts.
    for (const id of RUN_SETTING_KEYS) {
      const flag = SETTING_FLAGS[id].flag;
      assert.ok(renderHintId(id).startsWith(`--${flag}`), id);
      assert.ok(flag in SETTING_OPTIONS, flag);
    }
  });

  it("the editor offers a declared setting or a registered command, and never shows a flag", () => {
    for (const id of all) {
      const h = editorHint(id);
      if (h.kind === "setting") assert.ok(declared.has(h.setting), `${id} → ${h.setting} is not in package.json`);
      if (h.kind === "command") assert.ok(commands.has(h.command), `${id} → ${h.command}`);
      const text = editorErrorText("Something failed", "Fix it.", [id]);
      assert.doesNotMatch(text, /--[a-z]/, `${id}: ${text}`);
    }
    assert.deepEqual(editorHint("samples"), { kind: "setting", setting: `${CONFIG_SECTION}.samples` });
    assert.deepEqual(editorHint("limit"), { kind: "setting", setting: `${CONFIG_SECTION}.taskLimit` });
  });
});

describe("no core text speaks a CLI flag", () => {
  it("src/core (but the sandbox's and the harnesses' process arguments) has no --flag outside comments", () => {
    // A harness adapter (src/core/agents/<agent id>.ts) and the harness confinement build argv for those programs.
    const argvFiles = new Set([...AgentIdSchema.options, "confine"].map((n) => path.join(repoRoot, "src/core/agents", `${n}.ts`)));
    const offenders: string[] = [];
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const p = path.join(dir, name);
        return name.endsWith(".ts") ? [p] : name.includes(".") ? [] : walk(p);
      });
    for (const file of walk(path.join(repoRoot, "src/core"))) {
      if (file.includes(`${path.sep}sandbox${path.sep}`) || argvFiles.has(file)) continue;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          const code = line.replace(/\/\/.*$/, "");
          if (/^\s*(\*|\/\*\*)/.test(code)) return;
          if (/--[a-z]/.test(code)) offenders.push(`${path.relative(repoRoot, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(offenders, []);
  });
});
