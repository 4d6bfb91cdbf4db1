import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { startFileServer } from "../../support/file-server.js";

/**
 * The packaging decision for local models: one universal .vsix with no native code. node-llama-cpp is never bundled
 * (the bundles import it lazily), so the package carries no binary and no model; an installation without the package
 * offers no local model, and its CLI, with nothing configured, stops with the setup message instead of downloading
 * 491 MB it could not run.
 */
const root = path.resolve(__dirname, "../../..");
const built = existsSync(path.join(root, "dist", "cli.js")) && existsSync(path.join(root, "dist", "extension.js"));
const scratch = mkdtempSync(path.join(os.tmpdir(), "sf-vsix-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("the universal .vsix and local models", { skip: built ? false : "dist/ not built (npm test builds it first)" }, () => {
  it("ships no native binary, no model and no node-llama-cpp", () => {
    const r = spawnSync(path.join(root, "node_modules", ".bin", "vsce"), ["ls", "--no-dependencies"], { cwd: root, encoding: "utf8", timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    const files = r.stdout.split("\n").map((l) => l.trim()).filter(Boolean);
    assert.ok(files.includes("dist/extension.js"));
    assert.deepEqual(files.filter((f) => /\.node$|\.gguf$|llama|\.so$|\.dll$|\.dylib$/i.test(f)), []);
  });

  it("the bundles import node-llama-cpp lazily instead of containing it", () => {
    for (const bundle of ["extension.js", "cli.js"]) {
      const code = readFileSync(path.join(root, "dist", bundle), "utf8");
      assert.match(code, /import\("node-llama-cpp"\)/, bundle);
      assert.doesNotMatch(code, /class QwenChatWrapper/, `${bundle} bundles node-llama-cpp itself`);
    }
  });

  it("a CLI installed without node-llama-cpp refuses the local default before downloading anything", async () => {
    const install = path.join(scratch, "install");
    mkdirSync(path.join(install, "dist"), { recursive: true });
    copyFileSync(path.join(root, "dist", "cli.js"), path.join(install, "dist", "cli.js"));
    const mirror = await startFileServer({ files: {} });
    const dead = net.createServer();
    await new Promise<void>((r) => dead.listen(0, "127.0.0.1", r));
    const ollama = `http://127.0.0.1:${(dead.address() as net.AddressInfo).port}`;
    await new Promise<void>((r) => dead.close(() => r()));
    try {
      const models = path.join(install, "models");
      const r = spawnSync(process.execPath, [path.join(install, "dist", "cli.js"), "run", "--skills", path.join(root, "skills"), "--tasks", path.join(root, "samples/python-basics.jsonl")], {
        cwd: install,
        encoding: "utf8",
        timeout: 120_000,
        env: { PATH: process.env.PATH ?? "", HOME: install, OLLAMA_HOST: ollama, SKILL_FOLLOWING_MODELS_DIR: models, SKILL_FOLLOWING_MODELS_MIRROR: mirror.url },
      });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /The local default model cannot run in this installation \(Local models need the node-llama-cpp package/);
      assert.equal(mirror.requests.length, 0);
      assert.ok(!existsSync(models) || readdirSync(models).length === 0);
    } finally {
      await mirror.close();
    }
  });
});
