import type { SkillEvalTask } from "./schema.js";

/**
 * The user message of a skill eval as the agent sees it, and as the judge is shown the request: the prompt, then
 * each attached file under its relative path (text inlined, others listed by name and size).
 */
export function skillEvalMessage(task: SkillEvalTask): string {
  const prompt = task.prompt.trim();
  if (task.attachments.length === 0) return prompt;
  const parts = [prompt, "", "## Attached files"];
  for (const a of task.attachments) {
    if (a.text !== undefined) {
      const fence = longestFence(a.text);
      parts.push("", `### ${a.path}`, fence, a.text.replace(/\n$/, ""), fence);
    } else {
      parts.push("", `- ${a.path} (${a.bytes} bytes; ${a.note ?? "not shown"}; not shown)`);
    }
  }
  return parts.join("\n");
}

/** A backtick fence longer than any run of backticks in the text, so file content cannot close it. */
function longestFence(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}
