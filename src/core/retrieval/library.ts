import MiniSearch from "minisearch";
import type { Skill } from "../skills/types.js";
import type { ToolCall, ToolDefinition } from "../models/types.js";
import { MAX_SEARCH_QUERY_CHARS, parseStringArgs, quoted } from "./tool-args.js";
import { DEFAULT_SEARCH, type FileRead, type RetrievalMode, type SearchOptions, type SkillRef } from "../../shared/vocabulary/index.js";
import { listSkillFiles, readSkillFolderFile, type SkillFile } from "./skill-files.js";

/**
 * The skill tools offered to the agent in the enabled condition, and what counts as a retrieval:
 * - catalog: the system prompt lists names + descriptions; `load_skill(name)` returns the body. A load of an
 *   existing name is a retrieval; an unknown name or bad arguments is not.
 * - search: `search_skills(query)` returns the top-k skills scoring above a threshold (BM25 via MiniSearch);
 *   at least one skill returned is a retrieval, an empty result is not.
 * - catalog, when a skill has files beside its SKILL.md: `read_skill_file(skill, path)` returns one of them
 *   (skill-files.ts). A successful read is a retrieval of that skill.
 */
export interface ToolOutcome {
  /** The text returned to the model as the tool message. */
  content: string;
  /** Skills returned by this call (empty when nothing was retrieved). */
  retrieved: SkillRef[];
  error?: string;
  /** A successful read_skill_file. */
  fileRead?: FileRead;
}

const READ_FILE = "read_skill_file";

export class SkillLibrary {
  /** The skills this library was made with (a copy: the section, tools and name index are built from it). */
  readonly skills: readonly Skill[];
  private readonly byName = new Map<string, Skill>();
  private index: MiniSearch<{ id: number; name: string; description: string; body: string }> | undefined;
  /** Each skill's files (names only: sizes would change load_skill's answer whenever a file is edited). */
  private readonly files = new Map<string, SkillFile[]>();
  /** Catalog mode with at least one skill that has files: read_skill_file is offered. */
  readonly readsFiles: boolean;
  /**
   * The system section and tool list are the same for every enabled request of a run: built once, on first use (the
   * catalog's sort with localeCompare cost a few percent of the engine's CPU per call). A library is a snapshot of
   * the skills it was made with (like `byName` and the file lists): a changed library is a new SkillLibrary.
   */
  private section: string | undefined;
  private toolList: ToolDefinition[] | undefined;

  /**
   * `servedBody` (section ablation) replaces the body a load or search returns, while the catalog, the search index
   * and the retrieval refs stay those of the full skill: everything before the skill text reaches the model is
   * unchanged, so those requests are byte-identical and come from the response cache.
   */
  constructor(
    skills: readonly Skill[],
    readonly mode: RetrievalMode,
    readonly search: SearchOptions = DEFAULT_SEARCH,
    private readonly servedBody?: (skill: Skill) => string,
  ) {
    this.skills = [...skills];
    for (const s of skills) this.byName.set(s.name, s);
    if (mode === "catalog") for (const s of skills) this.files.set(s.name, listSkillFiles(s.dir));
    this.readsFiles = [...this.files.values()].some((f) => f.length > 0);
  }

  /** The part of the system prompt that only the enabled condition gets. */
  systemSection(): string {
    return (this.section ??= this.buildSection());
  }

  private buildSection(): string {
    if (this.mode === "catalog") {
      const lines = [...this.skills]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((s) => `- ${s.name}: ${oneLine(s.description)}`);
      return [
        "## Skills",
        "You have a library of skills: short guides written for tasks like this one. Each is listed by name with a description of what it covers and when to use it.",
        "If a skill fits the task, call the `load_skill` tool with its exact name to read it before answering. Load only skills that fit; you may load none.",
        ...(this.readsFiles ? ["Some skills come with files (references, scripts, assets): loading such a skill lists them, and `read_skill_file` reads one when the skill points you to it."] : []),
        "",
        ...lines,
      ].join("\n");
    }
    return [
      "## Skills",
      "You can search a library of skills (short guides written for tasks like this one) with the `search_skills` tool.",
      "If guidance might help, call it with a short query describing what you need; it returns the best-matching skills in full. You may also answer without searching.",
    ].join("\n");
  }

  /** The tool definitions offered in the enabled condition; one frozen list per library, shared by every request. */
  tools(): ToolDefinition[] {
    return (this.toolList ??= deepFreeze(this.buildTools()));
  }

  private buildTools(): ToolDefinition[] {
    if (this.mode === "catalog") {
      const load: ToolDefinition = {
        name: "load_skill",
        description: "Read the full text of a skill from the library, by its exact name.",
        parameters: {
          type: "object",
          properties: { name: { type: "string", description: "The skill's name, exactly as listed." } },
          required: ["name"],
          additionalProperties: false,
        },
      };
      if (!this.readsFiles) return [load];
      const read: ToolDefinition = {
        name: READ_FILE,
        description: "Read one file that a skill keeps beside its text (as listed when the skill is loaded), by the skill's name and the file's path.",
        parameters: {
          type: "object",
          properties: {
            skill: { type: "string", description: "The skill's name, exactly as listed." },
            path: { type: "string", description: "The file's path inside the skill's folder, e.g. references/style.md." },
          },
          required: ["skill", "path"],
          additionalProperties: false,
        },
      };
      return [load, read];
    }
    return [
      {
        name: "search_skills",
        description: "Search the skill library; returns the best-matching skills in full.",
        parameters: {
          type: "object",
          properties: { query: { type: "string", description: "What you need help with, in a few words." } },
          required: ["query"],
          additionalProperties: false,
        },
      },
    ];
  }

  /** Executes one tool call from the model. Never throws: problems become an error text for the model. */
  execute(call: ToolCall): ToolOutcome {
    if (call.name === READ_FILE && this.readsFiles) return this.readFile(call.arguments);
    const expected = this.mode === "catalog" ? "load_skill" : "search_skills";
    if (call.name !== expected) {
      return refuse(this.readsFiles ? `unknown tool '${quoted(call.name)}'; the tools are load_skill and ${READ_FILE}` : `unknown tool '${quoted(call.name)}'; the only tool is ${expected}`);
    }
    if (this.mode === "catalog") {
      const args = parseStringArgs(call.arguments, ["name"]);
      return "error" in args ? refuse(args.error) : this.load(args.name);
    }
    const args = parseStringArgs(call.arguments, ["query"]);
    if ("error" in args) return refuse(args.error);
    if (args.query.length > MAX_SEARCH_QUERY_CHARS) {
      return refuse(`the query is ${args.query.length} characters; the limit is ${MAX_SEARCH_QUERY_CHARS}: search with a few words`);
    }
    return this.find(args.query);
  }

  private load(name: string): ToolOutcome {
    const skill = this.byName.get(name.trim());
    if (!skill) {
      const names = [...this.byName.keys()].sort().join(", ");
      return refuse(`no skill named '${quoted(name)}'. Available skills: ${names || "(none)"}`);
    }
    return { content: this.format(skill), retrieved: [{ name: skill.name, contentHash: skill.contentHash }] };
  }

  private readFile(raw: string): ToolOutcome {
    const args = parseStringArgs(raw, ["skill", "path"]);
    if ("error" in args) return refuse(args.error);
    const skill = this.byName.get(args.skill.trim());
    if (!skill) return refuse(`no skill named '${quoted(args.skill)}'. Available skills: ${[...this.byName.keys()].sort().join(", ")}`);
    const read = readSkillFolderFile(skill.dir, args.path.trim());
    if ("error" in read) return refuse(`${skill.name}: ${read.error}`);
    return {
      content: `# File: ${skill.name}/${read.path}\n\n${read.text}`,
      retrieved: [{ name: skill.name, contentHash: skill.contentHash }],
      fileRead: { skill: skill.name, path: read.path },
    };
  }

  private find(query: string): ToolOutcome {
    const hits = this.getIndex()
      .search(query, { boost: { name: 2, description: 1.5 }, prefix: true, fuzzy: 0.1, combineWith: "OR" })
      .filter((h) => h.score > this.search.threshold)
      .slice(0, this.search.topK);
    if (hits.length === 0) return { content: "No skills matched the query.", retrieved: [] };
    const skills = hits.map((h) => this.skills[h.id as number]!);
    return {
      content: skills.map((s) => this.format(s)).join("\n\n---\n\n"),
      retrieved: skills.map((s) => ({ name: s.name, contentHash: s.contentHash })),
    };
  }

  private format(skill: Skill): string {
    const text = formatSkill(this.servedBody ? { ...skill, body: this.servedBody(skill) } : skill);
    const files = this.files.get(skill.name) ?? [];
    if (files.length === 0) return text;
    return `${text}\n\n## Files in this skill (read one with read_skill_file)\n${files.map((f) => `- ${f.path}`).join("\n")}`;
  }

  private getIndex() {
    if (!this.index) {
      this.index = new MiniSearch({ fields: ["name", "description", "body"], idField: "id" });
      this.index.addAll(this.skills.map((s, id) => ({ id, name: s.name.replace(/-/g, " "), description: s.description, body: s.body })));
    }
    return this.index;
  }
}

/** Frozen all the way down: the same tool list goes into every request, so no caller may change it for the others. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function refuse(error: string): ToolOutcome {
  return { content: `Error: ${error}`, retrieved: [], error };
}

function formatSkill(skill: Skill): string {
  return `# Skill: ${skill.name}\n\n${skill.body.trim()}`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
