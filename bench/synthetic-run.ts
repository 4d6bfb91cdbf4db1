/**
 * A synthetic run of realistic shape and size for the report-scale benchmark: N paired tasks over a library of
 * S skills, records with transcripts like the agent loop writes (system prompt with the catalog, the task,
 * tool calls with skill bodies, the answer). Built in memory, optionally written as a run file.
 */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { RUN_FORMAT_VERSION, runKey, type RunHeader, type RunRecord } from "../src/core/runs/types.js";
import type { Condition, SkillRef } from "../src/shared/vocabulary/index.js";
import { mulberry32 } from "../src/core/stats/bootstrap.js";

export interface SyntheticRunOptions {
  tasks: number;
  skills: number;
  seed?: number;
}


const sha = (s: string) => createHash("sha256").update(s).digest("hex");

export interface SyntheticRun {
  header: RunHeader;
  records: RunRecord[];
}

export function syntheticRun(options: SyntheticRunOptions): SyntheticRun {
  const rand = mulberry32(options.seed ?? 11);
  const skills = Array.from({ length: options.skills }, (_, i) => {
    const name = `synthetic-skill-${String(i).padStart(2, "0")}`;
    const description = `Guidance number ${i} for a family of tasks; use when the task looks like family ${i}.`;
    const body = `# ${name}\n\n${"Check the edge cases, keep the input order and return the type the example shows. ".repeat(12)}`;
    return { name, description, body, contentHash: sha(`${name}\n${description}\n${body}`), file: `/ws/skills/${name}/SKILL.md` };
  });
  const taskIds = Array.from({ length: options.tasks }, (_, i) => `Synthetic/${i}`);
  const catalog = skills.map((s) => `- ${s.name}: ${s.description}`).join("\n");
  const system = `You are a careful problem solver.\n\n## Skills\nYou have a library of skills.\n\n${catalog}`;
  const header: RunHeader = {
    type: "header",
    formatVersion: RUN_FORMAT_VERSION,
    toolVersion: "bench",
    runId: "00000000-0000-4000-8000-000000000000",
    createdAt: new Date(0).toISOString(),
    model: { id: "openai-compatible:synthetic@http://127.0.0.1/v1", name: "synthetic-model" },
    params: { temperature: 0, samples: 1, maxTurns: 6 },
    taskSet: { name: "synthetic", format: "native", file: "/ws/synthetic.jsonl", hash: sha("synthetic"), size: options.tasks },
    taskIds,
    skills: skills.map((s) => ({ name: s.name, contentHash: s.contentHash, file: s.file, description: s.description })),
    skillLibraryHash: sha(skills.map((s) => `${s.name}:${s.contentHash}`).join("\n")),
    mode: "catalog",
    design: "paired",
    promptVersion: "1",
    sandbox: { isolation: "process-permission" },
    stopWhen: "never",
  };

  const records: RunRecord[] = [];
  const code = (ok: boolean, i: number) =>
    `Here is the solution.\n\n\`\`\`python\ndef solve_${i}(xs):\n    ${ok ? "return sorted(xs)" : "return xs"}\n\`\`\`\n`;
  for (let i = 0; i < options.tasks; i++) {
    const id = taskIds[i] ?? "";
    const user = `Write a function solve_${i}(xs) that returns the list xs in ascending order. Example: solve_${i}([3, 1, 2]) == [1, 2, 3].`;
    const pDisabled = 0.55 + 0.3 * rand();
    const disabledPass = rand() < pDisabled;
    const retrieves = rand() < 0.4;
    const loaded: SkillRef[] = [];
    if (retrieves) {
      const first = skills[Math.floor(rand() * skills.length)]!;
      loaded.push({ name: first.name, contentHash: first.contentHash });
      if (rand() < 0.2) {
        const second = skills[Math.floor(rand() * skills.length)]!;
        if (second.name !== first.name) loaded.push({ name: second.name, contentHash: second.contentHash });
      }
    }
    // Each skill nudges its tasks up or down, so per-skill effects differ in sign.
    const skillBias = loaded.reduce((s, r) => s + ((Number(r.name.slice(-2)) % 3) - 1) * 0.15, 0);
    const enabledPass = rand() < Math.min(1, Math.max(0, (disabledPass ? 0.85 : 0.2) + skillBias));
    for (const condition of ["enabled", "disabled"] as Condition[]) {
      const pass = condition === "enabled" ? enabledPass : disabledPass;
      const refs = condition === "enabled" ? loaded : [];
      const transcript: RunRecord["transcript"] = [
        { role: "system", content: condition === "enabled" ? system : "You are a careful problem solver." },
        { role: "user", content: user },
      ];
      const toolCalls: RunRecord["toolCalls"] = [];
      refs.forEach((r, k) => {
        const callId = `call_${i}_${k}`;
        const args = JSON.stringify({ name: r.name });
        toolCalls.push({ name: "load_skill", arguments: args, retrieved: [r] });
        transcript.push({ role: "assistant", content: null, toolCalls: [{ id: callId, name: "load_skill", arguments: args }] });
        transcript.push({ role: "tool", content: skills.find((s) => s.name === r.name)?.body ?? "", toolCallId: callId });
      });
      const answer = code(pass, i);
      transcript.push({ role: "assistant", content: answer });
      records.push({
        type: "run",
        key: runKey(id, condition, 0),
        taskId: id,
        condition,
        sample: 0,
        retrieved: refs,
        toolCalls,
        answer: answer.slice(answer.indexOf("def "), answer.lastIndexOf("```")),
        verdict: pass
          ? { pass: true, reason: "all 12 inputs pass" }
          : { pass: false, reason: "base input #0 ([3, 1, 2]): expected [1, 2, 3], got [3, 1, 2]", failure: { kind: "wrong-answer", input: "([3, 1, 2],)", expected: "[1, 2, 3]", actual: "[3, 1, 2]" } },
        tokens: { prompt: 300 + 200 * refs.length, completion: 60 },
        latencyMs: 800 + Math.round(rand() * 400),
        modelCalls: 1 + refs.length,
        cachedCalls: 0,
        turns: 1 + refs.length,
        transcript,
        finishedAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      });
    }
  }
  return { header, records };
}

/** Writes a run as the engine would (header line, then one line per record). Returns the byte size. */
export async function writeRunFile(run: SyntheticRun, file: string): Promise<number> {
  const out = createWriteStream(file);
  let bytes = 0;
  const put = async (value: unknown) => {
    const line = `${JSON.stringify(value)}\n`;
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, "drain");
  };
  await put(run.header);
  for (const r of run.records) await put(r);
  out.end();
  await once(out, "finish");
  return bytes;
}
