import { createHash } from "node:crypto";
import type { Skill } from "../../../src/core/skills/types.js";
import type { MathAnswerTask, PythonFunctionTask } from "../../../src/core/tasks/schema.js";

/** A skill as the scanner would return it, for tests that do not need files on disk. */
export function skill(name: string, description: string, body: string): Skill {
  return {
    name,
    description,
    body,
    file: `/skills/${name}/SKILL.md`,
    dir: `/skills/${name}`,
    contentHash: createHash("sha256").update(`${name}\n${description}\n${body}`).digest("hex"),
    bodyLine: 5,
  };
}

export function mathTask(id: string, prompt: string, answer: string): MathAnswerTask {
  return { id, kind: "math-answer", prompt, answer };
}

export function pythonTask(id: string, entryPoint: string, canonicalSolution: string, base: unknown[][]): PythonFunctionTask {
  return {
    id,
    kind: "python-function",
    prompt: `Write ${entryPoint}.`,
    entryPoint,
    canonicalSolution,
    tests: { base, plus: [], atol: 0, oracle: "default" },
  };
}
