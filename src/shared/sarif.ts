/**
 * SARIF 2.1.0 (OASIS), the subset `lint` and `report --format sarif` write: one run, its rules, results located in
 * files relative to the repository. GitHub code scanning reads `ruleId`, `level`, `message.text` and the first
 * physical location's `artifactLocation.uri` + `region` (1-based lines and columns, `endColumn` exclusive), and shows
 * a rule's `shortDescription` and `help`. test/fixtures/sarif holds the official schema the tests validate against.
 */
export const SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

export type SarifLevel = "error" | "warning" | "note" | "none";

export interface SarifRegion {
  startLine: number;
  startColumn?: number;
  endLine?: number;
  endColumn?: number;
}

export interface SarifRule {
  id: string;
  shortDescription: string;
  help: string;
  defaultLevel: SarifLevel;
  /** Where the rule comes from (a specification, another tool), shown in the rule's properties. */
  sources?: string[];
}

export interface SarifReplacement {
  region: SarifRegion;
  text: string;
}

export interface SarifResultInput {
  ruleId: string;
  level: SarifLevel;
  message: string;
  /** Relative to the repository root, `/`-separated (or an absolute file: URI). */
  uri: string;
  region: SarifRegion;
  fixes?: Array<{ description: string; replacements: SarifReplacement[] }>;
  properties?: Record<string, unknown>;
}

/** A file path as a SARIF URI: relative to `root` with `/` separators when inside it, else an absolute file: URI. */
export function sarifUri(file: string, root: string, sep = "/"): string {
  const norm = (p: string) => p.split(sep).join("/");
  const f = norm(file);
  const r = norm(root).replace(/\/+$/, "");
  if (f.startsWith(`${r}/`)) return f.slice(r.length + 1).split("/").map(encodeURIComponent).join("/");
  const abs = f.startsWith("/") ? f : `/${f}`;
  return `file://${abs.split("/").map(encodeURIComponent).join("/")}`;
}

function artifact(uri: string): { uri: string; uriBaseId?: string } {
  return uri.startsWith("file:") ? { uri } : { uri, uriBaseId: "%SRCROOT%" };
}

/** One SARIF log with one run of `tool`. Rules are listed in the order given; results refer to them by id and index. */
export function sarifLog(tool: { name: string; version: string; informationUri?: string }, rules: SarifRule[], results: SarifResultInput[]): Record<string, unknown> {
  const index = new Map(rules.map((r, i) => [r.id, i]));
  return {
    $schema: SARIF_SCHEMA_URI,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: tool.name,
            version: tool.version,
            ...(tool.informationUri ? { informationUri: tool.informationUri } : {}),
            rules: rules.map((r) => ({
              id: r.id,
              shortDescription: { text: r.shortDescription },
              fullDescription: { text: r.shortDescription },
              help: { text: r.help },
              defaultConfiguration: { level: r.defaultLevel },
              ...(r.sources ? { properties: { sources: r.sources } } : {}),
            })),
          },
        },
        columnKind: "utf16CodeUnits",
        results: results.map((r) => ({
          ruleId: r.ruleId,
          ...(index.has(r.ruleId) ? { ruleIndex: index.get(r.ruleId) } : {}),
          level: r.level,
          message: { text: r.message },
          locations: [{ physicalLocation: { artifactLocation: artifact(r.uri), region: r.region } }],
          ...(r.fixes?.length
            ? {
                fixes: r.fixes.map((f) => ({
                  description: { text: f.description },
                  artifactChanges: [{ artifactLocation: artifact(r.uri), replacements: f.replacements.map((x) => ({ deletedRegion: x.region, insertedContent: { text: x.text } })) }],
                })),
              }
            : {}),
          ...(r.properties ? { properties: r.properties } : {}),
        })),
      },
    ],
  };
}
