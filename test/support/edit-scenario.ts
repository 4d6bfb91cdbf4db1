/**
 * The scripted edit of issue 28, shared by the CLI and extension tests: 20 tasks "Task i: what is n + 1?"; tasks
 * 0–13 load the skill `sums` (with a description mentioning "products" also 14–16). Loaded, the model answers by the
 * version of the text it was shown: NEW fixes 0–4 and breaks 5 against OLD, 6 and 7 fail with both, BAD fails all.
 */
import type { ScriptFn } from "./scripted-server.js";
import { boxedAnswer, pairedScript } from "./scripts.js";

export const T = 20;
export const LOADS = new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
export const WIDENED = new Set([14, 15, 16]);
export const DESC = "Add numbers. Use for sums.";

export const passes = (version: string, i: number): boolean => {
  if (version === "BAD") return false;
  if (i <= 4) return version === "NEW";
  if (i === 5) return version === "OLD";
  if (i === 6 || i === 7) return false;
  return true;
};

export const skillText = (description: string, version: string) => `---\nname: sums\ndescription: ${description}\n---\n# Sums\n\nVERSION-${version}: add carefully.\n`;

export const taskLines = () => Array.from({ length: T }, (_, i) => JSON.stringify({ id: `t${i}`, kind: "math-answer", prompt: `Task ${i}: what is ${10 + i} + 1?`, answer: String(11 + i) }));

export const editScript: ScriptFn = pairedScript((ctx) => {
  const m = /Task (\d+): what is (\d+) \+ 1\?/.exec(ctx.userText);
  if (!m) return { error: { status: 400, message: "no plan" } };
  const i = Number(m[1]);
  const right = boxedAnswer(String(Number(m[2]) + 1));
  const wrong = boxedAnswer(String(Number(m[2]) + 2));
  if (!ctx.hasTools) return { content: right };
  const system = ctx.messages.find((x) => x.role === "system")?.content ?? "";
  const loads = LOADS.has(i) || (WIDENED.has(i) && system.includes("products"));
  if (!loads) return { content: right };
  if (ctx.turn === 0) return { toolCalls: [{ name: "load_skill", arguments: JSON.stringify({ name: "sums" }) }] };
  const shown = ctx.messages.filter((x) => x.role === "tool").map((x) => x.content ?? "").join("\n");
  const version = /VERSION-(\w+)/.exec(shown)?.[1] ?? "none";
  return { content: passes(version, i) ? right : wrong };
});

