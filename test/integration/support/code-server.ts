/**
 * Test harness: a real VS Code (code-server, installed by scripts/install-code-server.sh) driven by Playwright's
 * chromium. Two uses: (1) run an in-extension-host test module through the `payload` URL
 * (extensionDevelopmentPath + extensionTestsPath), which writes its observations to a JSON file; (2) a browser
 * session a test clicks through like a person. Everything binds 127.0.0.1; every process is killed on close.
 * Recipe and measurements: docs/platform-notes.md part D2.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import * as esbuild from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";

export const REPO_ROOT = path.resolve(__dirname, "..", "..", "..");
export const CODE_SERVER_DIR = process.env.SF_CODE_SERVER_DIR ?? path.join(REPO_ROOT, ".vscode-test", "code-server");
export const CODE_SERVER_BIN = path.join(CODE_SERVER_DIR, "node_modules", ".bin", "code-server");
export const CHROMIUM = process.env.SF_CHROMIUM ?? "/usr/bin/chromium";
/** The extension under test: the repository itself (needs `npm run build`); SF_EXTENSION_DIR overrides. */
export const EXTENSION_DIR = process.env.SF_EXTENSION_DIR ?? REPO_ROOT;
/**
 * The packaged extension (`npm run package`; CI's .ci/run sets it): when given, every session installs this .vsix
 * the way a user does and tests run against the installed copy, not the development folder, so the tiers test what
 * users install (minified bundles, the packaged file set).
 */
export const VSIX = process.env.SF_VSIX ? path.resolve(process.env.SF_VSIX) : undefined;
/** An empty extension that hosts in-host test modules when ours is installed from the .vsix. */
export const PROBE_DIR = path.join(__dirname, "..", "probe");

/** Why the real-VS-Code tiers cannot run here, or undefined when they can. */
export function missingPrerequisite(): string | undefined {
  if (!existsSync(CODE_SERVER_BIN)) return `code-server not installed (run: bash scripts/install-code-server.sh) at ${CODE_SERVER_BIN}`;
  if (!existsSync(CHROMIUM)) return `chromium not found at ${CHROMIUM} (apt-get install chromium)`;
  if (VSIX) return existsSync(VSIX) ? undefined : `SF_VSIX names ${VSIX}, which does not exist (run npm run package)`;
  if (!existsSync(path.join(EXTENSION_DIR, "dist", "extension.js"))) return `extension not built (${EXTENSION_DIR}/dist/extension.js missing; run npm run build)`;
  return undefined;
}

/**
 * The `payload` entries that load our extension into a browser session: the development folder, or nothing when the
 * session installed the .vsix (startCodeServer does that under SF_VSIX).
 */
export function extensionPayload(server: CodeServer): [string, string][] {
  return server.installedVsix ? [] : [["extensionDevelopmentPath", remoteUri(server, EXTENSION_DIR)]];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface CodeServer {
  port: number;
  origin: string;
  userDataDir: string;
  /** The .vsix installed into this session (SF_VSIX), if any. */
  installedVsix?: string;
  /** URL that opens `folder`, optionally with a test payload. */
  url(folder: string, payload?: [string, string][]): string;
  close(): Promise<void>;
}

export interface CodeServerOptions {
  /** Root for user-data, extensions and logs of this session. */
  sessionDir: string;
  /** User settings written before start. */
  settings?: Record<string, unknown>;
  env?: Record<string, string>;
  logFile: string;
  /** Keep VS Code's workspace trust on (default off: the tiers that evaluate run in a trusted workspace). */
  workspaceTrust?: boolean;
  /** Extension ids allowed their `enabledApiProposals` (test fixtures only, e.g. a language model provider). */
  enableProposedApi?: string[];
  /** Extension folders to install into this session before it starts (test fixtures), as `<publisher>.<name>-<version>`. */
  installExtensions?: string[];
  /** Install $SF_VSIX into this session (default: yes when it is set). A tier about the development folder says no. */
  installVsix?: boolean;
}

async function waitHealthy(origin: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited early with ${child.exitCode}`);
    try {
      const res = await fetch(`${origin}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`code-server not healthy after ${timeoutMs} ms`);
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const userDataDir = path.join(options.sessionDir, "user-data");
  const extensionsDir = path.join(options.sessionDir, "extensions");
  // The extension scan fails silently (and the dev extension is missing) when this folder does not exist.
  mkdirSync(extensionsDir, { recursive: true });
  for (const dir of options.installExtensions ?? []) {
    const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { publisher: string; name: string; version: string };
    cpSync(dir, path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`), { recursive: true });
  }
  mkdirSync(path.join(userDataDir, "User"), { recursive: true });
  const installedVsix = VSIX && options.installVsix !== false ? VSIX : undefined;
  if (installedVsix) {
    // What a user does: `code --install-extension skill-following.vsix`, into this session's own folders.
    const r = spawnSync(CODE_SERVER_BIN, ["--user-data-dir", userDataDir, "--extensions-dir", extensionsDir, "--install-extension", installedVsix], { encoding: "utf8", timeout: 120_000 });
    if (r.status !== 0 || !/was successfully installed/.test(r.stdout + r.stderr)) throw new Error(`installing ${installedVsix} failed (${r.status}): ${r.stdout}${r.stderr}`);
  }
  writeFileSync(
    path.join(userDataDir, "User", "settings.json"),
    JSON.stringify(
      {
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "workbench.enableExperiments": false,
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "chat.commandCenter.enabled": false,
        "workbench.welcomePage.walkthroughs.openOnInstall": false,
        ...options.settings,
      },
      null,
      2,
    ),
  );
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile);
  const child = spawn(
    CODE_SERVER_BIN,
    [
      "--auth", "none",
      "--bind-addr", `127.0.0.1:${port}`,
      "--user-data-dir", userDataDir,
      "--extensions-dir", extensionsDir,
      "--disable-telemetry",
      "--disable-update-check",
      ...(options.workspaceTrust ? [] : ["--disable-workspace-trust"]),
      ...(options.enableProposedApi ?? []).flatMap((id) => ["--enable-proposed-api", id]),
      "--disable-getting-started-override",
    ],
    // Downloads go to the session, never to the user's shared task-set cache (src/core/layout.ts).
    { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, SKILL_FOLLOWING_TASKS_CACHE: path.join(options.sessionDir, "task-sets"), ...options.env } },
  );
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const close = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      if ((await Promise.race([exited.then(() => true), sleep(3000).then(() => false)])) === false) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
        await exited;
      }
    }
    log.end();
  };
  try {
    await waitHealthy(origin, child, 30_000);
  } catch (err) {
    await close();
    throw err;
  }
  return {
    port,
    origin,
    userDataDir,
    ...(installedVsix ? { installedVsix } : {}),
    url(folder, payload) {
      const q = new URLSearchParams({ folder });
      if (payload && payload.length > 0) q.set("payload", JSON.stringify(payload));
      return `${origin}/?${q.toString()}`;
    },
    close,
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"],
  });
}

/** Opens the workbench and waits until it is usable. */
export async function openWorkbench(browser: Browser, url: string, width = 1400, height = 900): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } });
  await page.goto(url);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
  await page.locator(".statusbar").waitFor({ timeout: 60_000 });
  return page;
}

export function remoteUri(server: CodeServer, file: string): string {
  return `vscode-remote://127.0.0.1:${server.port}${file}`;
}

/**
 * Bundles an in-host test module (test/integration/host/*.ts) for code-server's extension host, with `config`
 * baked in as __SF_HOST_CONFIG__ (read by host/common.ts). Returns the bundle's path.
 */
export async function bundleHostModule(entry: string, outfile: string, config: { resultsFile: string } & Record<string, unknown>): Promise<string> {
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["vscode"],
    outfile,
    logLevel: "warning",
    define: { __SF_HOST_CONFIG__: JSON.stringify(JSON.stringify(config)) },
  });
  return outfile;
}

/**
 * Runs a bundled in-host test module (exports `run()`) inside code-server's extension host and returns the JSON
 * it wrote to `resultsFile`. The extension host exits after run(), so this session is not reused.
 */
export async function runInExtensionHost(options: {
  server: CodeServer;
  workspace: string;
  testsModule: string;
  resultsFile: string;
  timeoutMs: number;
  /** The extension under development that hosts the test module (default: ours, EXTENSION_DIR, or the probe when ours is installed from the .vsix). */
  developmentPath?: string;
  /** Takes the screenshots the module asks for (host/common.ts requestShot) into this folder as <name>.png. */
  shotsDir?: string;
}): Promise<unknown> {
  const browser = await launchBrowser();
  try {
    const url = options.server.url(options.workspace, [
      ["extensionDevelopmentPath", remoteUri(options.server, options.developmentPath ?? (options.server.installedVsix ? PROBE_DIR : EXTENSION_DIR))],
      ["extensionTestsPath", remoteUri(options.server, options.testsModule)],
    ]);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(url);
    const deadline = Date.now() + options.timeoutMs;
    const shotRequest = `${options.resultsFile}.shot`;
    while (!existsSync(options.resultsFile)) {
      if (options.shotsDir && existsSync(shotRequest)) {
        const name = readFileSync(shotRequest, "utf8").trim();
        mkdirSync(options.shotsDir, { recursive: true });
        await sleep(1000); // let the workbench paint what the module just did
        await page.screenshot({ path: path.join(options.shotsDir, `${name}.png`) }).catch(() => undefined);
        rmSync(shotRequest, { force: true });
      }
      if (Date.now() > deadline) throw new Error(`no results from the extension host after ${options.timeoutMs} ms (${options.resultsFile})`);
      await sleep(200);
    }
    return JSON.parse(readFileSync(options.resultsFile, "utf8")) as unknown;
  } finally {
    await browser.close();
  }
}
