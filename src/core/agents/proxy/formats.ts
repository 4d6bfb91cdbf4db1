import type { WireFormat, WireFormatId } from "../types.js";
import { anthropicMessages } from "./anthropic-messages.js";
import { geminiGenerateContent } from "./gemini.js";
import { openAIChat } from "./openai-chat.js";
import { openAIResponses } from "./openai-responses.js";

/** The wire formats the proxy serves, by id; a harness's adapter names the one it speaks. */
const FORMATS: Partial<Record<WireFormatId, WireFormat>> = {
  "openai-responses": openAIResponses,
  "openai-chat": openAIChat,
  "anthropic-messages": anthropicMessages,
  "gemini-generate-content": geminiGenerateContent,
};

export function wireFormat(id: WireFormatId): WireFormat {
  const format = FORMATS[id];
  if (!format) throw new Error(`the model proxy does not speak ${id} yet`);
  return format;
}
