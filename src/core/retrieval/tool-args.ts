/**
 * Limits on what the model sends to the skill tools, in one place for every tool (load_skill, search_skills and any
 * tool added later). The model's output is untrusted input to the host: a reply can carry megabytes of arguments
 * or thousands of calls, and each would otherwise be parsed, searched, echoed into the next request and recorded.
 */

/** Longest arguments string a tool call may carry (honest calls are a few dozen characters). */
export const MAX_TOOL_ARGUMENT_CHARS = 16 * 1024;
/** Longest search query: MiniSearch's fuzzy matching costs grow with the number of query terms. */
export const MAX_SEARCH_QUERY_CHARS = 1000;
/** Tool calls run per model turn; further calls in the same turn are dropped (the model is told). */
export const MAX_TOOL_CALLS_PER_TURN = 16;
/** How much of a model-provided string a message quotes back (to the model or into a run record). */
export const QUOTED_CHARS = 80;

/** `s` as quoted back in a message: whole when short, else its start and an ellipsis. */
export function quoted(s: string, max = QUOTED_CHARS): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** The arguments as a run record keeps them: whole up to the cap, else cut at it with a marker. */
export function recordedArguments(raw: string): string {
  return raw.length > MAX_TOOL_ARGUMENT_CHARS ? `${raw.slice(0, MAX_TOOL_ARGUMENT_CHARS)}… (cut: ${raw.length} characters)` : raw;
}

/**
 * Parses a tool call's JSON arguments into the named string arguments, each non-empty. Arguments over
 * MAX_TOOL_ARGUMENT_CHARS are refused before parsing. Returns the values, or an error text for the model.
 */
export function parseStringArgs<K extends string>(raw: string, keys: readonly K[]): Record<K, string> | { error: string } {
  if (raw.length > MAX_TOOL_ARGUMENT_CHARS) {
    return { error: `arguments are ${raw.length} characters; the limit is ${MAX_TOOL_ARGUMENT_CHARS}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw || "{}");
  } catch {
    const example = `{${keys.map((k) => `"${k}": "..."`).join(", ")}}`;
    return { error: `arguments must be a JSON object like ${example}; got ${quoted(raw)}` };
  }
  const out = {} as Record<K, string>;
  for (const key of keys) {
    const value = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>)[key] : undefined;
    if (typeof value !== "string" || value.trim() === "") return { error: `missing string argument '${key}'` };
    out[key] = value;
  }
  return out;
}
