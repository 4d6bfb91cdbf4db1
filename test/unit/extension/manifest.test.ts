/** The command table and the settings facade against package.json: ids drift silently otherwise. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { COMMANDS, COMMAND_CATEGORY, WALKTHROUGH_CONTEXTS } from "../../../src/extension/command-ids.js";
import { RUN_SETTING_KEYS, RUN_SETTING_SPECS } from "../../../src/core/settings.js";
import { CONFIG_KEYS, CONFIG_SECTION, RUN_SETTING_CONFIG_KEYS, parseConfig } from "../../../src/extension/config-schema.js";

const repoRoot = path.resolve(__dirname, "../../..");
const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  main: string;
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: boolean | "limited"; restrictedConfigurations?: string[] } };
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    menus: Record<string, { command: string; when?: string }[]>;
    configuration: { properties: Record<string, { default?: unknown; type?: unknown; minimum?: number; maximum?: number; enum?: string[]; description?: string }> };
    walkthroughs: { steps: { media: { markdown?: string } }[] }[];
  };
};

describe("package.json contributes vs the command table", () => {
  it("declares exactly the commands of the table, with the same titles and category", () => {
    const table = Object.values(COMMANDS).map((c) => ({ command: c.id, title: c.title, category: COMMAND_CATEGORY }));
    const declared = pkg.contributes.commands.map((c) => ({ command: c.command, title: c.title, category: c.category }));
    const byId = (a: { command: string }, b: { command: string }) => a.command.localeCompare(b.command);
    assert.deepEqual(declared.sort(byId), table.sort(byId));
  });

  it("hides exactly the internal commands from the palette", () => {
    const hidden = pkg.contributes.menus.commandPalette!.filter((m) => m.when === "false").map((m) => m.command).sort();
    const internal = Object.values(COMMANDS).filter((c) => !c.palette).map((c) => c.id).sort();
    assert.deepEqual(hidden, internal);
  });

  it("menus only reference declared commands", () => {
    const ids = new Set(pkg.contributes.commands.map((c) => c.command));
    for (const [menu, items] of Object.entries(pkg.contributes.menus)) {
      for (const item of items) assert.ok(ids.has(item.command), `${menu} references unknown ${item.command}`);
    }
  });

  it("offers Evaluate This Skill in the editor title of SKILL.md files", () => {
    const title = pkg.contributes.menus["editor/title"]!;
    assert.ok(title.some((m) => m.command === COMMANDS.evaluateSkill.id && m.when?.includes("resourceFilename == SKILL.md")));
  });

  it("declares trust, activation and the bundle the way the design asks", () => {
    // Restricted Mode: lint and reports work; evaluations refuse (the extension's own guard) and the settings that
    // choose an endpoint, a model or folders are not read from an untrusted workspace.
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, "limited");
    for (const key of ["baseUrl", "model", "modelProvider", "skillFolders", "taskSetMirror", "evaluateOnSave"]) {
      assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations?.includes(`skillFollowing.${key}`), `skillFollowing.${key} is restricted`);
    }
    assert.ok(pkg.activationEvents.includes("workspaceContains:**/SKILL.md"));
    assert.ok(!pkg.activationEvents.includes("*"), "no eager activation");
    assert.equal(pkg.main, "./dist/extension.js");
  });

  it("walkthrough media exist", () => {
    for (const w of pkg.contributes.walkthroughs) {
      for (const s of w.steps) if (s.media.markdown) assert.ok(readFileSync(path.join(repoRoot, s.media.markdown), "utf8").length > 50);
    }
  });

  it("every walkthrough step has a button to a declared command and a completion event", () => {
    const declared = new Set(pkg.contributes.commands.map((c) => c.command));
    const steps = pkg.contributes.walkthroughs.flatMap((w) => w.steps) as unknown as { id: string; description: string; completionEvents?: string[] }[];
    for (const id of ["endpoint", "example", "taskset", "report"]) assert.ok(steps.some((s) => s.id === id), `walkthrough step ${id}`);
    for (const s of steps) {
      const buttons = [...s.description.matchAll(/\]\(command:([\w.]+)/g)].map((m) => m[1]!);
      assert.ok(buttons.length > 0, `step ${s.id} has a button`);
      for (const b of buttons.filter((b) => b.startsWith("skillFollowing."))) assert.ok(declared.has(b), `step ${s.id} runs ${b}, which is declared`);
      assert.ok((s.completionEvents ?? []).length > 0, `step ${s.id} has a completion event`);
    }
  });

  it("walkthrough steps complete on a context the extension sets on success, never on a command being invoked", () => {
    const steps = pkg.contributes.walkthroughs.flatMap((w) => w.steps) as unknown as { id: string; completionEvents?: string[] }[];
    const known = new Set<string>([...Object.values(WALKTHROUGH_CONTEXTS), "skillFollowing.reportActive"]);
    for (const s of steps) {
      for (const e of s.completionEvents ?? []) {
        assert.ok(!e.startsWith("onCommand:"), `step ${s.id}: ${e} would tick the step when the command is refused or fails`);
        if (e.startsWith("onContext:skillFollowing.")) assert.ok(known.has(e.slice("onContext:".length)), `step ${s.id}: ${e} is a context the extension sets`);
      }
    }
    for (const [step, key] of Object.entries(WALKTHROUGH_CONTEXTS)) {
      assert.ok(steps.find((s) => s.id === step)?.completionEvents?.includes(`onContext:${key}`), `step ${step} completes on ${key}`);
    }
  });
});

describe("settings vs the Config facade", () => {
  it("declares exactly the facade's keys, and never an API key", () => {
    const declared = Object.keys(pkg.contributes.configuration.properties).sort();
    assert.deepEqual(declared, CONFIG_KEYS.map((k) => `${CONFIG_SECTION}.${k}`).sort());
    assert.ok(!declared.some((k) => /api.?key|secret|password|credential/i.test(k)));
  });

  it("declared defaults parse to the facade's defaults", () => {
    const raw: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(pkg.contributes.configuration.properties)) raw[k.slice(CONFIG_SECTION.length + 1)] = v.default;
    const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown; // undefined-valued keys = absent
    assert.deepEqual(plain(parseConfig(raw)), plain(parseConfig({})));
  });

  it("declares every evaluation option with the core schema's type, range, default and description", () => {
    for (const key of RUN_SETTING_KEYS) {
      const spec = RUN_SETTING_SPECS[key];
      const name = `${CONFIG_SECTION}.${RUN_SETTING_CONFIG_KEYS[key]}`;
      const p = pkg.contributes.configuration.properties[name];
      assert.ok(p, `${name} (RunSettings.${key}) is not declared`);
      const declared = { type: p.type, enum: p.enum, minimum: p.minimum, maximum: p.maximum, default: p.default, description: p.description };
      const expected = {
        type: spec.default === undefined ? [spec.type, "null"] : spec.type,
        enum: spec.enum,
        minimum: spec.minimum,
        maximum: spec.maximum,
        default: spec.default ?? null,
        description: spec.description,
      };
      assert.deepEqual(declared, expected, name);
    }
  });

  it("falls back to defaults for invalid values", () => {
    const c = parseConfig({ samples: 0, temperature: "hot", retrievalMode: "magic", seed: 7 });
    assert.equal(c.samples, 1);
    assert.equal(c.temperature, 0);
    assert.equal(c.retrievalMode, "catalog");
    assert.equal(c.seed, 7);
  });
});
