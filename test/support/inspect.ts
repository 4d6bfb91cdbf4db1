import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020";

/**
 * Inspect's eval log JSON Schema (test/fixtures/inspect, see its README: inspect_ai 0.3.201, MIT), compiled with ajv's
 * JSON Schema 2020-12 build. `validator()` checks an EvalLog; `validator("EvalSample")` one of its definitions.
 * Formats are not checked (the schema declares none that matter here).
 */
export function inspectValidator(def?: string): (value: unknown) => string[] {
  const schema = JSON.parse(readFileSync(path.resolve(__dirname, "../fixtures/inspect/log-schema.json"), "utf8")) as Record<string, unknown>;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...schema, $id: "inspect-log-schema" });
  const validate = ajv.getSchema(def ? `inspect-log-schema#/$defs/${def}` : "inspect-log-schema")!;
  return (value) => (validate(value) ? [] : (validate.errors ?? []).slice(0, 20).map((e) => `${e.instancePath} ${e.message ?? ""} ${JSON.stringify(e.params)}`));
}

/** Inspect's `is_log_file` for a `.json` log (inspect_ai/log/_file.py): the viewer lists only such names. */
export const INSPECT_LOG_FILE = /^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*\.json$/;

/** Inspect's `_try_parse_filename`: the task part of `{timestamp}_{task}_{id}`. */
export function inspectTaskOfFileName(name: string): string | undefined {
  const parts = name.replace(/\.json$/, "").split("_");
  return parts.length >= 3 ? parts[1] : undefined;
}
