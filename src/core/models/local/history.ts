import type { ChatMessage, ToolDefinition } from "../types.js";

/**
 * The engine's OpenAI-shaped transcript as node-llama-cpp's chat history. node-llama-cpp treats a turn that calls
 * tools and the text after their results as one model response (that is how it generates them), so consecutive
 * assistant messages joined only by tool results become one "model" item whose function calls carry their results.
 * The result is always a model item last: the response to generate (empty after a user message, continued after
 * tool results), so the model sees exactly the context it would have generated into.
 */
export interface HistoryFunctionCall {
  type: "functionCall";
  name: string;
  params: unknown;
  result: unknown;
  startsNewChunk?: boolean;
}
export type HistoryItem =
  | { type: "system"; text: string }
  | { type: "user"; text: string }
  | { type: "model"; response: Array<string | HistoryFunctionCall> };

export function toChatHistory(messages: readonly ChatMessage[]): HistoryItem[] {
  const items: HistoryItem[] = [];
  // Function calls still waiting for their result, by tool-call id.
  const pending = new Map<string, HistoryFunctionCall>();
  let model: Extract<HistoryItem, { type: "model" }> | undefined;
  let afterResults = false;
  for (const m of messages) {
    if (m.role === "system" || m.role === "user") {
      items.push({ type: m.role, text: m.content });
      model = undefined;
      afterResults = false;
    } else if (m.role === "assistant") {
      if (!model || !afterResults) {
        model = { type: "model", response: [] };
        items.push(model);
      }
      afterResults = false;
      if (m.content) model.response.push(m.content);
      (m.toolCalls ?? []).forEach((call, i) => {
        const fc: HistoryFunctionCall = { type: "functionCall", name: call.name, params: parseParams(call.arguments), result: "", ...(i === 0 ? { startsNewChunk: true } : {}) };
        pending.set(call.id, fc);
        model!.response.push(fc);
      });
    } else {
      const fc = pending.get(m.toolCallId);
      if (fc) {
        fc.result = m.content;
        pending.delete(m.toolCallId);
        afterResults = true;
      } else {
        // A result for no call we know (a foreign transcript): keep its text where the model can read it.
        items.push({ type: "user", text: m.content });
        model = undefined;
      }
    }
  }
  const last = items[items.length - 1];
  if (!(last?.type === "model" && afterResults)) items.push({ type: "model", response: [] });
  return items;
}

function parseParams(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** node-llama-cpp's functions object: no handlers, so a call comes back to the engine's agent loop. */
export function toFunctions(tools: readonly ToolDefinition[]): Record<string, { description: string; params: Record<string, unknown> }> {
  return Object.fromEntries(tools.map((t) => [t.name, { description: t.description, params: t.parameters }]));
}
