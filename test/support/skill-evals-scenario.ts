/**
 * A library of three skills with their own evals, for the skill-evals tests (test code only), and the scripted
 * agent that answers them. Both spellings of evals.json (skill-creator's `expectations` with numeric ids, the Agent
 * Skills guide's `assertions` with string ids), string and typed assertions, attached files (text, binary) and a
 * skill reference the agent reads with read_skill_file. Every outcome is fixed here, so tests can compare the
 * report with values worked out by hand (see the table in skill-evals engine test).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ChatCompletionRequestBody, ScriptFn, ScriptedReply } from "./scripted-server.js";
import { planContext } from "./scripts.js";

/** Text only the skills hold: a judge request must never contain any of it. */
export const SKILL_MARKERS = ["RN-BODY-7f3a", "RN-STYLE-91c2", "CSV-BODY-5d10", "CS-BODY-2b88"];

export function writeLibrary(root: string): { skillsDir: string; triggerFile: string } {
  const skillsDir = path.join(root, "skills");
  const put = (rel: string, text: string | Buffer) => {
    const file = path.join(skillsDir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  put("release-notes/SKILL.md", "---\nname: release-notes\ndescription: Write release notes from a git log, grouped into Breaking changes, Features and Fixes.\n---\n# Release notes\nRN-BODY-7f3a. Follow references/style.md for headings.\n");
  put("release-notes/references/style.md", "RN-STYLE-91c2: headings are ## Breaking changes, ## Features, ## Fixes.\n");
  put("release-notes/evals/files/git-log.txt", "a1b2c3 drop the v1 API\nd4e5f6 add CSV export\n");
  put(
    "release-notes/evals/evals.json",
    JSON.stringify(
      {
        skill_name: "release-notes",
        evals: [
          {
            id: 1,
            prompt: "Write the release notes for v2.0 from the attached git log.",
            expected_output: "Release notes grouped by kind of change.",
            files: ["evals/files/git-log.txt"],
            expectations: ["Groups the changes by kind [grouped]", { type: "contains", value: "## Breaking changes" }],
          },
          { id: 2, prompt: "Draft release notes for v2.1: one fix, the crash on empty input.", expectations: ["Names the fixed crash [crash]", { name: "has a Fixes heading", type: "regex", value: "^## fixes$", flags: "im" }] },
          { id: 3, prompt: "Summarise the attached git log for today's standup.", files: ["evals/files/git-log.txt"], should_trigger: false, expectations: ["Is a short summary [short]"] },
        ],
      },
      null,
      2,
    ),
  );
  put("csv-report/SKILL.md", "---\nname: csv-report\ndescription: Total, average and summarise columns of CSV files.\n---\nCSV-BODY-5d10. Sum with care.\n");
  put("csv-report/evals/files/sales.csv", "item,amount\na,10\nb,14\nc,18\n");
  put(
    "csv-report/evals/evals.json",
    JSON.stringify(
      {
        skill_name: "csv-report",
        evals: [
          { id: "sum", prompt: "Total the amount column of the attached CSV.", files: ["evals/files/sales.csv"], assertions: [{ name: "total is 42", type: "icontains", value: "total: 42" }] },
          { id: "empty", prompt: "What is the total of an empty CSV with only a header?", assertions: ["Says the total is zero [zero]"] },
          { id: "mean", prompt: "Give the mean of the amount column of the attached CSV as JSON.", files: ["evals/files/sales.csv"], assertions: [{ type: "json_valid" }, { type: "contains", value: '"mean": 14' }] },
        ],
      },
      null,
      2,
    ),
  );
  put("commit-style/SKILL.md", "---\nname: commit-style\ndescription: Write git commit messages in the imperative mood, without a final period.\n---\nCS-BODY-2b88. Imperative, no period.\n");
  put("commit-style/evals/files/change.diff", "- if (xs.length) return xs[0]\n+ if (xs.length === 0) return undefined\n");
  put("commit-style/evals/files/logo.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]));
  put(
    "commit-style/evals/evals.json",
    JSON.stringify(
      {
        evals: [
          { id: 1, prompt: "Write a commit message for: fixed typo in README.", assertions: [{ type: "not_contains", value: "." }, "Uses the imperative mood [imperative]"] },
          { id: 2, prompt: "Write a commit message for the attached diff.", files: ["evals/files/change.diff", "evals/files/logo.png"], assertions: [{ type: "equals", value: "Fix crash on empty input" }] },
        ],
      },
      null,
      2,
    ),
  );
  const triggerFile = path.join(skillsDir, "commit-style", "evals", "trigger-evals.json");
  writeFileSync(
    triggerFile,
    JSON.stringify([
      { query: "can u write the commit msg for my change to the parser", should_trigger: true },
      { query: "what does git commit --amend do", should_trigger: false },
    ]),
  );
  return { skillsDir, triggerFile };
}

type Step = { tool: "load_skill"; name: string } | { tool: "read_skill_file"; skill: string; path: string } | { answer: string };

interface Plan {
  enabled: Step[];
  disabled: string;
}

/** Keyed by a phrase of each prompt. Each answer is unique per task and condition. */
export const PLANS: Record<string, Plan> = {
  "release notes for v2.0": {
    enabled: [{ tool: "load_skill", name: "release-notes" }, { tool: "read_skill_file", skill: "release-notes", path: "references/style.md" }, { answer: "## Breaking changes\n- drop the v1 API\n## Features\n- CSV export\n[grouped]" }],
    disabled: "Here are the notes: dropped the v1 API, added CSV export. [grouped]",
  },
  "release notes for v2.1": {
    enabled: [{ tool: "load_skill", name: "release-notes" }, { answer: "## Fixes\n- the crash on empty input is fixed [crash]" }],
    disabled: "## Fixes\n- Fixed the crash [crash]",
  },
  "today's standup": {
    enabled: [{ tool: "load_skill", name: "release-notes" }, { answer: "## Breaking changes\n- drop the v1 API\n## Features\n- CSV export" }],
    disabled: "- dropped v1 API\n- added CSV export [short]",
  },
  "Total the amount column": { enabled: [{ tool: "load_skill", name: "csv-report" }, { answer: "Total: 42" }], disabled: "The sum is 41." },
  "empty CSV": { enabled: [{ answer: "It is empty." }], disabled: "No idea." },
  "mean of the amount": { enabled: [{ tool: "load_skill", name: "release-notes" }, { answer: "The mean is 14" }], disabled: '{"mean": 14}' },
  "fixed typo in README": { enabled: [{ tool: "load_skill", name: "commit-style" }, { answer: "Fix typo in README [imperative]" }], disabled: "Fix the typo in README [imperative]" },
  "attached diff": { enabled: [{ tool: "load_skill", name: "commit-style" }, { tool: "load_skill", name: "csv-report" }, { answer: "Fix crash on empty input" }], disabled: "Fixed a crash." },
  "commit msg for my change": { enabled: [{ tool: "load_skill", name: "commit-style" }, { answer: "Add parser fix" }], disabled: "unused" },
  "commit --amend": { enabled: [{ tool: "load_skill", name: "commit-style" }, { answer: "It rewrites the last commit." }], disabled: "unused" },
};

export function planFor(userText: string): Plan | undefined {
  return Object.entries(PLANS).find(([k]) => userText.includes(k))?.[1];
}

/** The agent side: enabled runs follow their steps (one tool call per turn), disabled runs answer at once. */
export const agentScript: ScriptFn = (req: ChatCompletionRequestBody): ScriptedReply => {
  const ctx = planContext(req);
  const plan = planFor(ctx.userText);
  if (!plan) return { error: { status: 400, message: `no plan for ${JSON.stringify(ctx.userText.slice(0, 60))}` } };
  if (!ctx.hasTools) return { content: plan.disabled };
  const step = plan.enabled[ctx.turn];
  if (!step) return { content: "out of steps" };
  if ("answer" in step) return { content: step.answer };
  if (step.tool === "load_skill") return { toolCalls: [{ name: "load_skill", arguments: JSON.stringify({ name: step.name }) }] };
  return { toolCalls: [{ name: "read_skill_file", arguments: JSON.stringify({ skill: step.skill, path: step.path }) }] };
};
