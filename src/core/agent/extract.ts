import { extractMathAnswer } from "../grading/math.js";
import type { Task } from "../tasks/schema.js";

/**
 * Deterministic final-answer extraction. Code: the last fenced python block (```python / ```py), else the last
 * untagged fenced block. Math: the math grader's extractor (last \boxed{}, else an `Answer:` line, else the last number).
 */
export function extractAnswer(task: Task, text: string | null): string | null {
  if (!text) return null;
  return task.kind === "python-function" ? extractPythonCode(text) : extractMathAnswer(text);
}

const FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;

export function extractPythonCode(text: string): string | null {
  let lastTagged: string | null = null;
  let lastUntagged: string | null = null;
  for (const m of text.replace(/\r\n/g, "\n").matchAll(FENCE)) {
    const lang = (m[2] ?? "").toLowerCase();
    const body = m[3] ?? "";
    if (lang === "python" || lang === "py" || lang === "python3") lastTagged = body;
    else if (lang === "") lastUntagged = body;
  }
  const code = lastTagged ?? lastUntagged;
  return code !== null && code.trim() !== "" ? code.replace(/\s+$/, "") + "\n" : null;
}
