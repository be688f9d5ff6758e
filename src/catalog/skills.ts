/**
 * Skills on disk. A skills folder (`.svc/skills/`, `~/.config/svc/skills/`) holds flat
 * `<name>.md` files and, for skills written for other agent tools, `<name>/SKILL.md` folders.
 * Either may start with YAML front matter (`description`, `tags`, `name`); the body is the
 * skill's content. The file or folder name is the skill's name.
 */
import { join } from "../util/posix_path.ts";
import { NAME_PATTERN, NAME_RULE } from "./names.ts";
import { splitFrontMatter } from "./front_matter.ts";
import { leavesWorktree, missing, readCatalogText } from "./read.ts";
import type { Layer, Skill } from "./types.ts";

/** A skill file is a page or two of instructions; a larger one is skipped with a warning. */
export const SKILL_MAX_BYTES = 64 * 1024;

/** Skills read from one folder at most; the rest are skipped with a warning. */
export const SKILLS_MAX_PER_FOLDER = 500;

/** The file of each skill in `dir`, by name: flat files first, then `<name>/SKILL.md`. */
async function skillFiles(dir: string, warnings: string[]): Promise<Map<string, string>> {
  const flat = new Map<string, string>();
  const folders = new Map<string, string>();
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name.startsWith(".")) continue;
      if (entry.name.endsWith(".md")) {
        const name = entry.name.slice(0, -3);
        if (NAME_PATTERN.test(name)) flat.set(name, join(dir, entry.name));
        else {
          warnings.push(`${join(dir, entry.name)}: a skill name must be ${NAME_RULE}; skipped`);
        }
      } else if (NAME_PATTERN.test(entry.name) && await isFolder(entry, join(dir, entry.name))) {
        folders.set(entry.name, join(dir, entry.name, "SKILL.md"));
      }
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return new Map();
    const why = err instanceof Deno.errors.NotADirectory
      ? "is not a folder"
      : `cannot be read (${(err as Error).message})`;
    warnings.push(`skills folder ${dir} ${why}; skipped`);
    return new Map();
  }
  const files = new Map(flat);
  for (const [name, path] of folders) {
    if (!files.has(name)) files.set(name, path);
    else if (await exists(path)) {
      warnings.push(`${path}: skill "${name}" is also ${files.get(name)}, which is used`);
    }
  }
  return files;
}

async function isFolder(entry: Deno.DirEntry, path: string): Promise<boolean> {
  if (entry.isDirectory) return true;
  if (!entry.isSymlink) return false;
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The skills of one folder. A broken file (too large, not a regular file, bad front matter,
 * empty) is skipped with a warning naming it. With `confineTo` (an untrusted worktree) a file or
 * folder that leads outside it through a symbolic link is skipped too.
 */
export async function readSkillsDir(
  dir: string,
  { layer, warnings, confineTo }: { layer: Layer; warnings: string[]; confineTo?: string },
): Promise<Skill[]> {
  if (missing(dir)) return [];
  if (confineTo) {
    const outside = leavesWorktree(confineTo, dir);
    if (outside) {
      warnings.push(outside);
      return [];
    }
  }
  const files = [...(await skillFiles(dir, warnings))].sort(([a], [b]) => a < b ? -1 : 1);
  if (files.length > SKILLS_MAX_PER_FOLDER) {
    warnings.push(
      `${dir} holds ${files.length} skills; only the first ${SKILLS_MAX_PER_FOLDER} by name are read`,
    );
    files.length = SKILLS_MAX_PER_FOLDER;
  }
  const read = await Promise.all(
    files.map(([name, path]) => readSkill(name, path, layer, confineTo)),
  );
  const skills: Skill[] = [];
  for (const { skill, problem } of read) {
    if (problem) warnings.push(problem);
    if (skill) skills.push(skill);
  }
  return skills;
}

/**
 * One skill file and what is wrong with it; neither for a folder without SKILL.md (not a skill).
 * A `name` in the front matter that differs from the file name is reported, and the file name
 * decides, so two files can never claim one name.
 */
async function readSkill(
  name: string,
  path: string,
  layer: Layer,
  confineTo?: string,
): Promise<{ skill?: Skill; problem?: string }> {
  const { text, problem } = await readCatalogText(path, SKILL_MAX_BYTES, confineTo);
  if (text === undefined) return { problem };
  const parsed = await splitFrontMatter(text);
  if ("problem" in parsed) return { problem: `${path}: ${parsed.problem}; skipped` };
  // The schema (and zod) load only when there is a skill file to check.
  const { firstIssue, FrontMatterSchema } = await import("./schema.ts");
  const meta = FrontMatterSchema.safeParse(parsed.data);
  if (!meta.success) {
    return { problem: `${path}: front matter ${firstIssue(meta.error)}; skipped` };
  }
  const content = parsed.body.trim();
  if (!content) return { problem: `${path}: the skill has no content; skipped` };
  const skill: Skill = { name, content, layer, path };
  const description = meta.data.description?.trim();
  if (description) skill.description = description;
  const tags = typeof meta.data.tags === "string" ? meta.data.tags.split(",") : meta.data.tags;
  const cleaned = tags?.map((tag) => tag.trim()).filter(Boolean);
  if (cleaned?.length) skill.tags = cleaned;
  const declared = meta.data.name?.trim();
  if (declared && declared !== name) {
    return {
      skill,
      problem: `${path}: front matter names the skill "${declared}"; svc names it "${name}" ` +
        "after its file or folder",
    };
  }
  return { skill };
}
