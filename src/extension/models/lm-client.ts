import * as vscode from "vscode";
import { CancelledError, ModelConfigError, ModelRequestError } from "../../core/errors.js";
import type { ChatMessage, ChatRequest, ChatResponse, ModelClient, ToolCall, ToolDefinition } from "../../core/models/types.js";

/**
 * A ModelClient over VS Code's language model API (e.g. Copilot models): the same agent loop, with the skill tools
 * offered as LanguageModelChatTools. The tool-calling classes arrived after the API version this extension targets
 * (1.90), so they are looked up at run time and typed here; without them only the disabled condition could run, and
 * we say so instead of silently measuring something else.
 */

interface ToolCallPart {
  callId: string;
  name: string;
  input: object;
}
interface LmToolApi {
  LanguageModelToolCallPart: new (callId: string, name: string, input: object) => ToolCallPart;
  LanguageModelToolResultPart: new (callId: string, content: unknown[]) => unknown;
  LanguageModelTextPart: new (value: string) => { value: string };
  LanguageModelChatMessage: {
    User(content: string | unknown[]): vscode.LanguageModelChatMessage;
    Assistant(content: string | unknown[]): vscode.LanguageModelChatMessage;
  };
}

function toolApi(): LmToolApi | undefined {
  const api = vscode as unknown as Partial<LmToolApi>;
  return api.LanguageModelToolCallPart && api.LanguageModelToolResultPart && api.LanguageModelTextPart ? (api as LmToolApi) : undefined;
}

/** Our OpenAI-shaped messages → vscode.lm messages. System text becomes the first user message (no system role). */
export function toLmMessages(messages: ChatMessage[], api: LmToolApi | undefined): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  const system = messages.filter((m) => m.role === "system").map((m) => m.content);
  for (const m of messages) {
    switch (m.role) {
      case "system":
        break;
      case "user":
        out.push(vscode.LanguageModelChatMessage.User(out.length === 0 && system.length ? `${system.join("\n\n")}\n\n${m.content}` : m.content));
        break;
      case "assistant": {
        if (m.toolCalls?.length && api) {
          const parts: unknown[] = [];
          if (m.content) parts.push(new api.LanguageModelTextPart(m.content));
          for (const c of m.toolCalls) parts.push(new api.LanguageModelToolCallPart(c.id, c.name, safeJson(c.arguments)));
          out.push(api.LanguageModelChatMessage.Assistant(parts));
        } else {
          out.push(vscode.LanguageModelChatMessage.Assistant(m.content ?? ""));
        }
        break;
      }
      case "tool":
        if (!api) throw new ModelConfigError("this VS Code has no tool-calling language model API");
        out.push(api.LanguageModelChatMessage.User([new api.LanguageModelToolResultPart(m.toolCallId, [new api.LanguageModelTextPart(m.content)])]));
        break;
    }
  }
  return out;
}

function safeJson(text: string): object {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" ? v : { value: v };
  } catch {
    return { raw: text };
  }
}

/** LanguageModelError codes → the product's typed errors, with the action the user can take. */
export function mapLmError(err: unknown): Error {
  if (err instanceof vscode.LanguageModelError) {
    switch (err.code) {
      case vscode.LanguageModelError.NoPermissions.name:
        return new ModelConfigError("VS Code language model access was not granted to Skill Following", {
          hint: "Run the evaluation again and allow access when VS Code asks, or pick an OpenAI-compatible endpoint.",
          hintIds: ["modelProvider"],
        });
      case vscode.LanguageModelError.Blocked.name:
        return new ModelRequestError("the language model blocked this request (quota or policy); wait and retry", 429);
      case vscode.LanguageModelError.NotFound.name:
        return new ModelRequestError("the selected VS Code language model is not available (is its extension installed and signed in?)", 404, {
          hintIds: ["model", "modelProvider"],
        });
      default:
        return new ModelRequestError(`language model error (${err.code}): ${err.message}`, undefined);
    }
  }
  return err instanceof Error ? err : new Error(String(err));
}

export async function selectLmModel(selector: string): Promise<vscode.LanguageModelChat> {
  const byId = await vscode.lm.selectChatModels({ id: selector });
  const models = byId.length ? byId : await vscode.lm.selectChatModels({ family: selector });
  const model = models[0];
  if (!model) {
    throw new ModelConfigError(`no VS Code language model matches "${selector}"`, {
      hint: "Install and sign in to a chat model provider (e.g. GitHub Copilot), or use an OpenAI-compatible endpoint.",
      hintIds: ["modelProvider"],
    });
  }
  return model;
}

export function createLmClient(model: vscode.LanguageModelChat, justification: string): ModelClient {
  const api = toolApi();
  return {
    id: `vscode-lm:${model.vendor}/${model.id}`,
    async complete(request: ChatRequest, options): Promise<ChatResponse> {
      if (request.tools?.length && !api) {
        throw new ModelConfigError("VS Code language models need VS Code 1.95 or later for tool calls (the skill tools)", { hintIds: ["modelProvider"] });
      }
      const source = new vscode.CancellationTokenSource();
      const onAbort = () => source.cancel();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const started = Date.now();
      try {
        const lmOptions: vscode.LanguageModelChatRequestOptions & { tools?: unknown[] } = { justification };
        if (request.tools?.length) lmOptions.tools = request.tools.map((t: ToolDefinition) => ({ name: t.name, description: t.description, inputSchema: t.parameters }));
        const messages = toLmMessages(request.messages, api);
        const response = await model.sendRequest(messages, lmOptions, source.token);
        let content = "";
        const toolCalls: ToolCall[] = [];
        const stream = (response as unknown as { stream?: AsyncIterable<unknown> }).stream ?? response.text;
        for await (const part of stream) {
          if (typeof part === "string") content += part;
          else if (api && part instanceof api.LanguageModelTextPart) content += part.value;
          else if (api && part instanceof api.LanguageModelToolCallPart) toolCalls.push({ id: part.callId, name: part.name, arguments: JSON.stringify(part.input) });
        }
        const promptText = request.messages.map((m) => m.content ?? "").join("\n");
        const [promptTokens, completionTokens] = await Promise.all([model.countTokens(promptText), model.countTokens(content || " ")]);
        return {
          content: content || null,
          toolCalls,
          finishReason: toolCalls.length ? "tool_calls" : "stop",
          usage: { promptTokens, completionTokens },
          latencyMs: Date.now() - started,
        };
      } catch (err) {
        if (options.signal?.aborted) throw new CancelledError();
        throw mapLmError(err);
      } finally {
        options.signal?.removeEventListener("abort", onAbort);
        source.dispose();
      }
    },
  };
}
