import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv from "ajv";

/**
 * The official SARIF 2.1.0 schema (test/fixtures/sarif, see its README), compiled with ajv. The schema is draft-04:
 * its top-level `id` becomes `$id` and `$schema` is dropped so ajv's default draft reads it (no other draft-04-only
 * keyword occurs in it). Formats (uri, date-time) are not checked: ajv needs a plugin for them.
 */
export function sarifValidator(): (log: unknown) => string[] {
  const file = path.resolve(__dirname, "../fixtures/sarif/sarif-schema-2.1.0.json");
  const { id, $schema: _draft, ...rest } = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const validate = ajv.compile({ $id: String(id), ...rest });
  return (log) => (validate(log) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`));
}

/** The text a SARIF region covers in a file (1-based lines and columns, endColumn exclusive). */
export function regionText(text: string, r: { startLine: number; startColumn?: number; endLine?: number; endColumn?: number }): string {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  const endLine = r.endLine ?? r.startLine;
  const from = (r.startColumn ?? 1) - 1;
  if (endLine === r.startLine) return (lines[r.startLine - 1] ?? "").slice(from, r.endColumn === undefined ? undefined : r.endColumn - 1);
  const middle = lines.slice(r.startLine, endLine - 1);
  return [(lines[r.startLine - 1] ?? "").slice(from), ...middle, (lines[endLine - 1] ?? "").slice(0, (r.endColumn ?? 1) - 1)].join("\n");
}
