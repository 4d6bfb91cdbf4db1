/**
 * The workspace of the skill-evals integration test: the shipped non-code example skill (skills/release-notes, with
 * its references/ and evals/evals.json) and a scripted model that answers its three evals and judges the answers.
 * Outcomes, fixed here (answers from test/support/example-answers.ts):
 *
 *   eval               enabled (loads release-notes, reads references/style.md)   disabled     outcome
 *   release-notes/1    good answer                                                bad answer   rescued
 *   release-notes/2    good answer                                                good answer  both pass
 *   release-notes/3    bad answer (a near miss that loaded the skill)             good answer  harmed
 *
 * The judge passes an expectation exactly when the answer is a good reference answer. Calls: 3 enabled turns per
 * eval (load, read, answer) = 9, 3 disabled, and one judge call per output: 6; 18 in all.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { REFERENCE } from "../../support/example-answers.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { planContext, withJudge } from "../../support/scripts.js";
import { API_KEY } from "./fixture.js";
import { REPO_ROOT } from "./code-server.js";

export const EXAMPLE = "release-notes";

/** A second good answer to release-notes/2, so the two sides differ (equal answers would share one cached grading). */
const RN2_ALT = "## 2.0.1\n\n### Fixes\nFixed the wrong exit code on --help (#215).\nFixed a crash when the config file is empty (#212).\n";

const ANSWERS: Record<string, { enabled: string; disabled: string }> = {
  "release notes for v2.0.0": { enabled: REFERENCE["release-notes/1"]!.good, disabled: REFERENCE["release-notes/1"]!.bad },
  "shipping 2.0.1 today": { enabled: REFERENCE["release-notes/2"]!.good, disabled: RN2_ALT },
  "for my manager": { enabled: REFERENCE["release-notes/3"]!.bad, disabled: REFERENCE["release-notes/3"]!.good },
};
const GOOD = new Set([...Object.values(REFERENCE).map((r) => r.good), RN2_ALT]);

export const skillEvalsScript = withJudge(
  (req) => {
    const ctx = planContext(req);
    const a = Object.entries(ANSWERS).find(([k]) => ctx.userText.includes(k))?.[1];
    if (!a) return { error: { status: 400, message: `no plan for ${ctx.userText.slice(0, 60)}` } };
    if (!ctx.hasTools) return { content: a.disabled };
    if (ctx.turn === 0) return { toolCalls: [{ name: "load_skill", arguments: JSON.stringify({ name: EXAMPLE }) }] };
    if (ctx.turn === 1) return { toolCalls: [{ name: "read_skill_file", arguments: JSON.stringify({ skill: EXAMPLE, path: "references/style.md" }) }] };
    return { content: a.enabled };
  },
  (ask) => {
    const passed = GOOD.has(ask.response);
    // A pass quotes the response (the judge's rule): its first line.
    return { passed, evidence: passed ? ask.response.split("\n")[0]! : `not met: the answer is ${JSON.stringify(ask.response.slice(0, 40))}` };
  },
);

export interface SkillEvalsFixture {
  skillFile: string;
  evalsFile: string;
  controlUrl: string;
  server: ScriptedServer;
  close(): Promise<void>;
}

export async function createSkillEvalsFixture(dir: string): Promise<SkillEvalsFixture> {
  const server = await startScriptedServer({ script: skillEvalsScript, requireKey: API_KEY });
  const control = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ calls: server.calls }));
  });
  await new Promise<void>((r) => control.listen(0, "127.0.0.1", () => r()));
  const skillDir = path.join(dir, "skills", EXAMPLE);
  cpSync(path.join(REPO_ROOT, "skills", EXAMPLE), skillDir, { recursive: true });
  mkdirSync(path.join(dir, ".vscode"), { recursive: true });
  writeFileSync(path.join(dir, ".vscode", "settings.json"), JSON.stringify({ "skillFollowing.baseUrl": server.url, "skillFollowing.model": "scripted-model", "skillFollowing.concurrency": 2 }, null, 2));
  return {
    skillFile: path.join(skillDir, "SKILL.md"),
    evalsFile: path.join(skillDir, "evals", "evals.json"),
    controlUrl: `http://127.0.0.1:${(control.address() as AddressInfo).port}/`,
    server,
    async close() {
      await new Promise<void>((r) => control.close(() => r()));
      await server.close();
    },
  };
}
