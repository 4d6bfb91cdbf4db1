// ESLint rule `layers/no-upward-import`: the dependency picture of AGENTS.md, enforced. Every import in src/ is
// resolved to the part it lands in; a part may import only the parts this table puts below it.
import path from "node:path";

/**
 * src/core folders, lowest first. A folder may import folders of strictly lower layers (never one of its own layer,
 * so two folders on a layer stay independent), plus src/shared. "(root)" is the files directly in src/core.
 */
export const CORE_LAYERS = [
  ["(root)"],
  ["math", "stats", "skills", "workspace"],
  ["tasks"],
  ["models", "sandbox"],
  ["retrieval", "grading"],
  ["agent"],
  ["agents"],
  ["runs"],
  ["report"],
];

/** Outside src/core: which parts each top-level folder may import (besides itself). */
const HOSTS = {
  shared: { parts: [], packages: ["zod"] },
  webview: { parts: ["shared"], packages: ["zod", "chart.js"] },
  cli: { parts: ["shared", "core"], packages: null },
  extension: { parts: ["shared", "core"], packages: null },
};

/** The part a repo-relative path belongs to: "shared", "cli", "core/tasks", "core/(root)", …, or undefined outside src. */
export function partOf(relative) {
  const segments = relative.split(/[\\/]/);
  if (segments[0] !== "src" || segments.length < 3) return undefined;
  if (segments[1] !== "core") return segments[1];
  return segments.length === 3 ? "core/(root)" : `core/${segments[2]}`;
}

function coreLayer(folder) {
  const i = CORE_LAYERS.findIndex((layer) => layer.includes(folder));
  return i < 0 ? undefined : i;
}

/** Why `from` may not import `to`, or undefined when it may. Both are parts (see partOf). */
export function violation(from, to) {
  if (from === to) return undefined;
  const fromCore = from.startsWith("core/");
  const toCore = to.startsWith("core/");
  if (fromCore) {
    if (to === "shared") return undefined;
    if (!toCore) return `src/core must not import src/${to} (the core runs under any host; hosts import the core, never the reverse)`;
    const a = coreLayer(from.slice(5));
    const b = coreLayer(to.slice(5));
    if (a === undefined) return `src/${from} is not in the layer table (scripts/eslint/layers.mjs CORE_LAYERS): add it where it belongs`;
    if (b === undefined) return `src/${to} is not in the layer table (scripts/eslint/layers.mjs CORE_LAYERS): add it where it belongs`;
    if (b < a) return undefined;
    return b === a
      ? `src/${from} and src/${to} share a layer and must stay independent; move the shared term down (src/shared/vocabulary or a lower layer)`
      : `upward import: src/${from} (layer ${a}) must not import src/${to} (layer ${b}); move what both need down (src/shared/vocabulary or a lower layer)`;
  }
  const host = HOSTS[from];
  if (!host) return undefined;
  const target = toCore ? "core" : to;
  if (host.parts.includes(target)) return undefined;
  return `src/${from} must not import src/${to}${from === "shared" ? " (src/shared is the bottom layer: zod only)" : ""}`;
}

function isBare(source) {
  return !source.startsWith(".") && !source.startsWith("/");
}

function packageName(source) {
  const parts = source.split("/");
  return source.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

export const noUpwardImport = {
  meta: {
    type: "problem",
    docs: { description: "Imports in src/ follow the layer picture: hosts → core (lower layers only) → shared." },
    schema: [],
    messages: { upward: "{{reason}}", pkg: "src/{{part}} may import only {{allowed}} from node_modules (it is bundled for {{where}}); '{{source}}' is not allowed" },
  },
  create(context) {
    const filename = context.filename ?? context.getFilename();
    const root = context.cwd ?? context.getCwd();
    const from = partOf(path.relative(root, filename));
    if (!from) return {};
    const check = (node, source) => {
      if (typeof source !== "string") return;
      if (isBare(source)) {
        const allowed = HOSTS[from]?.packages;
        if (allowed && !allowed.includes(packageName(source))) {
          context.report({ node, messageId: "pkg", data: { part: from, allowed: allowed.join(", "), source, where: from === "webview" ? "the browser" : "the browser and every host" } });
        }
        return;
      }
      const to = partOf(path.relative(root, path.resolve(path.dirname(filename), source)));
      if (!to) return;
      const reason = violation(from, to);
      if (reason) context.report({ node, messageId: "upward", data: { reason } });
    };
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === "Literal" && check(node.source, node.source.value),
    };
  },
};

export default { rules: { "no-upward-import": noUpwardImport } };
