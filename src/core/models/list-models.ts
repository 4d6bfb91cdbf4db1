/**
 * GET <baseURL>/models of an OpenAI-compatible server (OpenAI, Ollama, LM Studio, vLLM, llama.cpp all answer it), for
 * pickers that offer the server's own model names. Never throws: it says what happened, so the caller can tell
 * "nothing is listening" from "answered without a list". The key goes only into the Authorization header.
 */
export type ModelList =
  | { ok: true; models: string[] }
  | { ok: false; reason: "unreachable" | "http" | "not-a-list"; status?: number; detail: string };

export async function listModels(baseURL: string, apiKey: string | undefined, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<ModelList> {
  const url = `${baseURL.replace(/\/+$/, "")}/models`;
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 4000), ...(options.signal ? [options.signal] : [])];
  let res: Response;
  try {
    res = await fetch(url, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {}, signal: AbortSignal.any(signals) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { ok: false, reason: "unreachable", detail: cause ?? (err instanceof Error ? err.name : "fetch failed") };
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    return { ok: false, reason: "http", status: res.status, detail: `HTTP ${res.status}` };
  }
  try {
    const body = (await res.json()) as { data?: unknown };
    if (!Array.isArray(body.data)) return { ok: false, reason: "not-a-list", detail: "no data array" };
    const models = body.data.map((m) => (m && typeof m === "object" ? (m as { id?: unknown }).id : undefined)).filter((id): id is string => typeof id === "string" && id.length > 0);
    return { ok: true, models };
  } catch {
    return { ok: false, reason: "not-a-list", detail: "not JSON" };
  }
}
