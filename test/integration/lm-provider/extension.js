// Test fixture (plain JS, loaded as is by code-server): registers "scripted-lm", a VS Code language model whose
// answers come from the scripted OpenAI-compatible server at SF_TEST_LM_URL. It maps vscode.lm messages, tools and
// parts to OpenAI's wire format and back, like a real provider would; the extension under test only sees vscode.lm.
const vscode = require("vscode");

function toWire(messages) {
  const out = [];
  for (const m of messages) {
    const role = m.role === vscode.LanguageModelChatMessageRole.Assistant ? "assistant" : "user";
    const parts = typeof m.content === "string" ? [new vscode.LanguageModelTextPart(m.content)] : m.content;
    let text = "";
    const toolCalls = [];
    for (const p of parts) {
      if (p instanceof vscode.LanguageModelTextPart) text += p.value;
      else if (p instanceof vscode.LanguageModelToolCallPart) toolCalls.push({ id: p.callId, type: "function", function: { name: p.name, arguments: JSON.stringify(p.input) } });
      else if (p instanceof vscode.LanguageModelToolResultPart) {
        const content = p.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : "")).join("");
        out.push({ role: "tool", tool_call_id: p.callId, content });
      }
    }
    if (role === "assistant") out.push({ role, content: text || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) });
    else if (text) out.push({ role, content: text });
  }
  return out;
}

exports.activate = function activate(context) {
  const url = process.env.SF_TEST_LM_URL;
  if (!url) return;
  const provider = {
    async provideLanguageModelResponse(messages, options, _extensionId, progress, token) {
      const body = { model: "scripted-model", messages: toWire(messages) };
      if (options.tools && options.tools.length) {
        body.tools = options.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
      }
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      const res = await fetch(`${url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: controller.signal });
      if (!res.ok) throw new Error(`scripted server: HTTP ${res.status} ${await res.text()}`);
      const message = (await res.json()).choices[0].message;
      let index = 0;
      if (message.content) progress.report({ index: index++, part: new vscode.LanguageModelTextPart(message.content) });
      for (const call of message.tool_calls || []) {
        progress.report({ index: index++, part: new vscode.LanguageModelToolCallPart(call.id, call.function.name, JSON.parse(call.function.arguments)) });
      }
    },
    async provideTokenCount(text) {
      const s = typeof text === "string" ? text : JSON.stringify(text);
      return Math.ceil(s.length / 4);
    },
  };
  context.subscriptions.push(
    vscode.lm.registerChatModelProvider("scripted-lm", provider, {
      vendor: "sf-test",
      name: "Scripted LM",
      family: "scripted-lm",
      version: "1",
      maxInputTokens: 100000,
      maxOutputTokens: 4096,
      isUserSelectable: true,
      capabilities: { toolCalling: true },
    }),
  );
};

exports.deactivate = function deactivate() {};
