/**
 * Retrieval from what a harness did. A skill counts as retrieved when the agent loaded it: a shell command or a
 * file tool that reads `<skillsDir>/<name>/SKILL.md` (Codex), or the harness's skill tool (Claude Code's Skill).
 * Files named under an installed skill's folder other than SKILL.md (references/, scripts/, …) that exist in the
 * skill are recorded as filesRead, as `read_skill_file` records them in the built-in loop.
 *
 * The evidence comes from two places that must agree: the harness's own event stream and the tool calls the model
 * made, seen by the proxy. Either one suffices (a command the harness refused to run still shows the model's
 * decision to load the skill).
 */
import path from "node:path";
import type { FileRead, SkillRef } from "../../shared/vocabulary/index.js";
import type { HarnessEvent } from "./types.js";

/** An installed skill: its name and hash (the retrieval ref) and the files of its folder (relative, `/`-separated). */
export interface InstalledSkill {
  ref: SkillRef;
  files: readonly string[];
}

export interface Retrieval {
  retrieved: SkillRef[];
  filesRead: FileRead[];
}

/** Characters that end a path in a shell command. */
const PATH_END = /[\s'"`;|&()<>]/;

/** Every `<skillsDir>/<name>/<rest>` named in `text`, with `rest` the path below the skill folder. */
function mentions(text: string, skillsDir: string): Array<{ name: string; rest: string }> {
  const out: Array<{ name: string; rest: string }> = [];
  const marker = skillsDir.replace(/\/+$/, "") + "/";
  let at = text.indexOf(marker);
  while (at >= 0) {
    let end = at + marker.length;
    while (end < text.length && !PATH_END.test(text[end]!)) end++;
    const tail = text.slice(at + marker.length, end);
    const slash = tail.indexOf("/");
    if (slash > 0) out.push({ name: tail.slice(0, slash), rest: path.posix.normalize(tail.slice(slash + 1)) });
    at = text.indexOf(marker, end);
  }
  return out;
}

export class RetrievalTracker {
  private readonly byName = new Map<string, InstalledSkill>();
  readonly retrieved: SkillRef[] = [];
  readonly filesRead: FileRead[] = [];

  constructor(
    skills: readonly InstalledSkill[],
    private readonly skillsDir: string,
  ) {
    for (const s of skills) this.byName.set(s.ref.name, s);
  }

  /** Records what one event shows; returns the skills it loaded (for the tool call's record). */
  add(event: HarnessEvent): SkillRef[] {
    if (event.kind === "skill") return this.load(event.name);
    if (event.kind !== "command" && event.kind !== "read") return [];
    const text = event.kind === "command" ? event.command : event.path;
    const loaded: SkillRef[] = [];
    for (const m of mentions(text, this.skillsDir)) {
      const skill = this.byName.get(m.name);
      if (!skill) continue;
      if (m.rest === "SKILL.md") loaded.push(...this.load(m.name));
      else if (skill.files.includes(m.rest) && !this.filesRead.some((f) => f.skill === m.name && f.path === m.rest)) this.filesRead.push({ skill: m.name, path: m.rest });
    }
    return loaded;
  }

  private load(name: string): SkillRef[] {
    const skill = this.byName.get(name);
    if (!skill) return [];
    if (!this.retrieved.some((r) => r.name === name)) this.retrieved.push(skill.ref);
    return [skill.ref];
  }

  result(): Retrieval {
    return { retrieved: [...this.retrieved], filesRead: [...this.filesRead] };
  }
}
