/**
 * Creating and removing skills and teams in the worktree's own layer (`.svc/skills/<name>.md`,
 * `.svc/teams.json`), for the REPL's `/skill new|remove` and `/team new|remove`. Bundled, plugin
 * and global entries are never touched: removing one of those names says where it comes from.
 */
import { join } from "../util/posix_path.ts";
import { localDir } from "../util/dirs.ts";
import { updateJson } from "../util/json_file.ts";
import { writeFileAtomic } from "../util/atomic.ts";
import { NAME_PATTERN, NAME_RULE } from "./names.ts";

function checkName(kind: string, name: string): void {
  if (!NAME_PATTERN.test(name)) throw new Error(`${kind} name "${name}": ${NAME_RULE}`);
}

/** Path of a local skill file. */
export function localSkillPath(worktree: string, name: string): string {
  return join(localDir(worktree), "skills", `${name}.md`);
}

/** Writes `.svc/skills/<name>.md` (front matter with the description, then the content). */
export async function createSkill(
  worktree: string,
  name: string,
  { content, description }: { content: string; description?: string },
): Promise<string> {
  checkName("skill", name);
  if (!content.trim()) throw new Error(`skill ${name} needs some content`);
  const path = localSkillPath(worktree, name);
  const head = description?.trim()
    ? `---\ndescription: ${JSON.stringify(description.trim())}\n---\n`
    : "";
  await Deno.mkdir(join(localDir(worktree), "skills"), { recursive: true });
  await writeFileAtomic(path, `${head}${content.trimEnd()}\n`);
  return path;
}

/** Removes `.svc/skills/<name>.md`; false when there was none. */
export async function removeSkill(worktree: string, name: string): Promise<boolean> {
  checkName("skill", name);
  try {
    await Deno.remove(localSkillPath(worktree, name));
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** Path of the local teams file. */
export function localTeamsPath(worktree: string): string {
  return join(localDir(worktree), "teams.json");
}

/** Adds (or replaces) a team in `.svc/teams.json` with these stage types in order. */
export async function createTeam(
  worktree: string,
  name: string,
  { stages, description }: { stages: readonly string[]; description?: string },
): Promise<string> {
  checkName("team", name);
  if (!stages.length) throw new Error(`team ${name} needs at least one stage type`);
  for (const stage of stages) checkName("stage type", stage);
  const path = localTeamsPath(worktree);
  await updateJson(path, (current) => ({
    ...objectOf(current),
    [name]: { stages: [...stages], ...(description?.trim() ? { description } : {}) },
  }));
  return path;
}

/** Removes a team from `.svc/teams.json`; false when the file holds no such team. */
export async function removeTeam(worktree: string, name: string): Promise<boolean> {
  checkName("team", name);
  const path = localTeamsPath(worktree);
  try {
    await Deno.stat(path);
  } catch {
    return false;
  }
  let had = false;
  await updateJson(path, (current) => {
    const teams = objectOf(current);
    had = name in teams;
    delete teams[name];
    return teams;
  });
  return had;
}

function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? { ...(value as Record<string, unknown>) }
    : {};
}
