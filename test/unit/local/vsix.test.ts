import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { startFileServer } from "../../support/file-server.js";
import { spawnCollect } from "../cli/harness.js";

/**
 * The packaging decision for local models, on the development build: node-llama-cpp is never bundled (the bundles
 * import it lazily), and a CLI without the package stops with the setup message instead of downloading a model it
 * could not run. test/unit/extension/vsix.test.ts checks the same on the packaged .vsix.
 */
const root = path.resolve(__dirname, "../../..");
const built = existsSync(path.join(root, "dist", "cli.js")) && existsSync(path.join(root, "dist", "extension.js"));
const scratch = mkdtempSync(path.join(os.tmpdir(), "sf-lazy-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("node-llama-cpp is loaded lazily, never bundled", { skip: built ? false : "dist/ not built (npm test builds it first)" }, () => {
  it("the bundles import it instead of containing it", () => {
    for (const bundle of ["extension.js", "cli.js"]) {
      const code = readFileSync(path.join(root, "dist", bundle), "utf8");
      assert.match(code, /import\("node-llama-cpp"\)/, bundle);
      assert.doesNotMatch(code, /class QwenChatWrapper/, `${bundle} bundles node-llama-cpp itself`);
    }
  });

  it("a CLI installed without it refuses the local default, and the mirror is never asked", async () => {
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
      const r = await spawnCollect(process.execPath, [path.join(install, "dist", "cli.js"), "run", "--skills", path.join(root, "skills"), "--tasks", path.join(root, "samples/python-basics.jsonl")], {
        cwd: install,
        env: { PATH: process.env.PATH ?? "", HOME: install, OLLAMA_HOST: ollama, SKILL_FOLLOWING_MODELS_DIR: models, SKILL_FOLLOWING_MODELS_MIRROR: mirror.url },
      });
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /The local default model cannot run in this installation \(Local models need the node-llama-cpp package/);
      assert.equal(mirror.requests.length, 0);
      assert.ok(!existsSync(models) || readdirSync(models).length === 0);
    } finally {
      await mirror.close();
    }
  });
});
