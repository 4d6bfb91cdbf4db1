import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";

/**
 * Installing the project must never download or build anything besides registry packages: node-llama-cpp's
 * postinstall (which may fetch and compile llama.cpp where no prebuilt binary fits) is skipped through package.json's
 * config, and the version is pinned to one whose platform binary packages all resolve from the registry.
 */
const root = path.resolve(__dirname, "../../..");
const pkgDir = path.join(root, "node_modules", "node-llama-cpp");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { dependencies: Record<string, string>; config?: Record<string, string> };
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string; resolved?: string; integrity?: string; optionalDependencies?: Record<string, string> }> };
const scratch = mkdtempSync(path.join(os.tmpdir(), "sf-install-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Runs node-llama-cpp's postinstall the way npm does (its folder, npm's variables), with the network blocked. With
 * `project`, the package is reached through a symlink farm in a project whose package.json has no config.
 */
function postinstall(project?: string) {
  const cwd = project ? path.join(project, "node_modules", "node-llama-cpp") : pkgDir;
  const bin = mkdtempSync(path.join(scratch, "bin-"));
  // Only node on PATH: no git, cmake or compiler for a fallback build to find.
  symlinkSync(process.execPath, path.join(bin, "node"));
  const netLog = path.join(bin, "net.log");
  // An absolute script path: the working directory of a process is always the real one, never the symlink.
  const r = spawnSync("node", [path.join(cwd, "dist/cli/cli.js"), "postinstall"], {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
    env: {
      PATH: bin,
      HOME: scratch,
      // Through the farm, node must keep the symlinked paths, or the package would find this repository's package.json.
      NODE_OPTIONS: `--require ${path.join(root, "test/fixtures/local/block-network.cjs")}${project ? " --preserve-symlinks --preserve-symlinks-main" : ""}`,
      SF_NET_LOG: netLog,
      npm_lifecycle_event: "postinstall",
      npm_package_name: "node-llama-cpp",
      npm_package_json: path.join(cwd, "package.json"),
      npm_config_user_agent: `npm/10.9.2 node/${process.version} ${process.platform} ${process.arch}`,
    },
  });
  return { ...r, network: existsSync(netLog) ? readFileSync(netLog, "utf8") : "" };
}

describe("installing node-llama-cpp", () => {
  it("is pinned exactly, with every platform binary package locked by version and integrity", () => {
    assert.equal(pkg.dependencies["node-llama-cpp"], "3.21.1");
    const entry = lock.packages["node_modules/node-llama-cpp"];
    assert.equal(entry?.version, "3.21.1");
    const platforms = Object.keys(entry?.optionalDependencies ?? {});
    assert.equal(platforms.length, 14);
    for (const name of platforms) {
      const p = lock.packages[`node_modules/${name}`];
      assert.equal(p?.version, "3.21.1", name);
      assert.match(p?.integrity ?? "", /^sha512-/, name);
    }
  });

  it("its postinstall skips through package.json's config, offline, touching nothing", () => {
    assert.equal(pkg.config?.nodeLlamaCppPostinstall, "skip");
    const before = readdirSync(path.join(pkgDir, "llama")).sort();
    const r = postinstall();
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /Skipping node-llama-cpp postinstall due to a 'skip' configuration/);
    assert.equal(r.network, "", "no connection was even tried");
    assert.deepEqual(readdirSync(path.join(pkgDir, "llama")).sort(), before);
  });

  it("in a project without that config it goes on to look for a binary (the check above is not vacuous)", () => {
    const project = mkdtempSync(path.join(scratch, "project-"));
    writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "no-config", version: "1.0.0" }));
    mkdirSync(path.join(project, "node_modules"));
    for (const name of readdirSync(path.join(root, "node_modules"))) {
      if (!name.startsWith(".")) symlinkSync(path.join(root, "node_modules", name), path.join(project, "node_modules", name));
    }
    const r = postinstall(project);
    assert.doesNotMatch(r.stdout, /Skipping/, `${r.stdout}\n${r.stderr}`);
  });
});
