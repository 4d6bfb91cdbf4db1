/**
 * What a harness's tool call tells about retrieval, and the JSON plumbing every adapter's event parser needs. Each
 * harness names its tools and their arguments its own way; `toolEvidenceOf` maps a harness's names onto the three
 * kinds of evidence (a skill load, a file read, a shell command).
 */
import type { ToolCall } from "../models/types.js";
import type { HarnessEvent } from "./types.js";

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A line or a tool call's arguments as JSON; undefined when it is not JSON (a harness's stray output). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A harness's tool and argument names for each kind of evidence: [tool name, argument holding the value]. */
export interface ToolNames {
  skill: readonly [tool: string, argument: string];
  read: readonly [tool: string, argument: string];
  command: readonly [tool: string, argument: string];
}

/** The evidence a tool call with these names carries: from its event (`input` parsed) or as the proxy saw it. */
export function toolEvidenceOf(names: ToolNames): { fromInput: (name: string, input: unknown) => HarnessEvent[]; fromCall: (call: ToolCall) => HarnessEvent[] } {
  const fromInput = (name: string, input: unknown): HarnessEvent[] => {
    if (!isObject(input)) return [];
    const value = (kind: keyof ToolNames) => (name === names[kind][0] && typeof input[names[kind][1]] === "string" ? (input[names[kind][1]] as string) : undefined);
    const skill = value("skill");
    if (skill !== undefined) return [{ kind: "skill", name: skill }];
    const read = value("read");
    if (read !== undefined) return [{ kind: "read", path: read }];
    const command = value("command");
    if (command !== undefined) return [{ kind: "command", command }];
    return [];
  };
  return { fromInput, fromCall: (call) => fromInput(call.name, parseJson(call.arguments)) };
}
