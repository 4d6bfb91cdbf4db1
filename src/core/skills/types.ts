/** A located finding about a SKILL.md (or any input file). Lines and columns are 1-based. */
export interface Finding {
  file: string;
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
  severity: "error" | "warning" | "info";
  /** Stable id, e.g. `name-format`, `name-folder-mismatch`, `description-missing`, `yaml-syntax`. */
  code: string;
  message: string;
}

/** A parsed skill. Identity in results is `name` + `contentHash`. */
export interface Skill {
  name: string;
  description: string;
  /** Markdown body after the frontmatter, as the agent reads it. */
  body: string;
  /** Absolute path of SKILL.md. */
  file: string;
  /** Absolute path of the skill folder. */
  dir: string;
  /** sha256 (hex) of the normalised file content (CRLF→LF, trailing whitespace per line trimmed, BOM dropped). */
  contentHash: string;
  /** 1-based line where the body starts (for mapping findings and diagnostics). */
  bodyLine: number;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  allowedTools?: string[];
}

export interface SkillScan {
  skills: Skill[];
  /** Every finding of every file scanned, errors for skipped skills included. */
  findings: Finding[];
}
