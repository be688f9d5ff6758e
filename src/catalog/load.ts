/**
 * `loadCatalog`: the agent types, teams and skills of one worktree, merged from four layers
 * (bundled < plugin < global `~/.config/svc/` < local `.svc/`; skills have no bundled layer).
 * Never throws for a broken file or entry: it is reported in `warnings` with its path and the
 * other layers still load.
 */
import { join } from "../util/posix_path.ts";
import { isLooser } from "../config/trust.ts";
import type { AgentTypeDef, SkillDef, TeamDef } from "../plugin/api.ts";
import { type Action, type Category, DEFAULT_ACTIONS } from "../shared/types.ts";
import { globalConfigDir, localDir } from "../util/dirs.ts";
import { canonicalPath } from "../util/canonical_path.ts";
import { checkPrivate, UnsafeFileError } from "../util/private_file.ts";
import { BUNDLED_TEAMS } from "./bundled_teams.ts";
import { BUNDLED_TYPES } from "./bundled_types.ts";
import { mergeTeams, mergeTypes, type Patch, type TypePatch } from "./merge.ts";
import { leavesWorktree, readCatalogObject } from "./read.ts";
import { NAME_PATTERN, NAME_RULE } from "./names.ts";
import type { TeamEntry, TypeEntry } from "./schema.ts";
import { readSkillsDir } from "./skills.ts";
import type { AgentType, Catalog, Layer, Skill } from "./types.ts";

/** What `loadCatalog` reads. */
export interface CatalogOptions {
  /** The worktree whose `.svc/types.json`, `.svc/teams.json` and `.svc/skills/` form the local layer. */
  worktree: string;
  /**
   * Whether the worktree is trusted (`svc trust`). An untrusted worktree's types may only tighten
   * permissions, its teams may not force build mode, and its `.svc` files are read only where
   * they really lie inside it.
   */
  trusted: boolean;
  /** What plugins registered (`register_types`, `register_teams`, `register_skills`). */
  plugins?: {
    types?: readonly AgentTypeDef[];
    teams?: readonly TeamDef[];
    skills?: readonly SkillDef[];
  };
  /** The global layer's folder; default `~/.config/svc`. */
  globalDir?: string;
}

const TYPES_EXAMPLE = `{"reviewer": {"system_prompt": "You review ..."}}`;
const TEAMS_EXAMPLE = `{"docs": {"stages": ["researcher", "writer"]}}`;
const UNTRUSTED = "this worktree is not trusted, so its agent types and teams may tighten " +
  "permissions but not loosen them (run svc trust to trust it)";

/** Loads the merged catalogs of `options.worktree`. */
export async function loadCatalog(options: CatalogOptions): Promise<Catalog> {
  const warnings: string[] = [];
  const globalDir = options.globalDir ?? globalDirOrWarn(warnings);
  const confine = options.trusted ? undefined : canonicalPath(options.worktree, ".");
  // An untrusted `.svc` that leads elsewhere is one refusal, not one per file in it.
  const outside = confine && leavesWorktree(confine, localDir(options.worktree));
  if (outside) warnings.push(outside);
  const local = outside ? undefined : localDir(options.worktree);
  const file = (dir: string | undefined, name: string) => dir ? join(dir, name) : undefined;
  // Each reader reports into its own list, so the warnings come in layer order, not finish order.
  const found: string[][] = [[], [], [], [], [], []];
  const globalSkillsDir = own(file(globalDir, "skills"), found[4]);
  const [globalTypes, localTypes, globalTeams, localTeams, globalSkills, localSkills] =
    await Promise.all([
      readEntries(
        own(file(globalDir, "types.json"), found[0]),
        "agent type",
        TYPES_EXAMPLE,
        found[0],
      ),
      readEntries(file(local, "types.json"), "agent type", TYPES_EXAMPLE, found[1], confine),
      readEntries(own(file(globalDir, "teams.json"), found[2]), "team", TEAMS_EXAMPLE, found[2]),
      readEntries(file(local, "teams.json"), "team", TEAMS_EXAMPLE, found[3], confine),
      globalSkillsDir
        ? readSkillsDir(globalSkillsDir, { layer: "global", warnings: found[4] })
        : [],
      local
        ? readSkillsDir(join(local, "skills"), {
          layer: "local",
          warnings: found[5],
          confineTo: confine,
        })
        : [],
    ]);
  warnings.push(...found.flat());
  // The entry schemas (and zod) load only when a file or a plugin gave entries to check; the
  // bundled types and teams need no check.
  const plugins = options.plugins ?? {};
  const entries = [globalTypes, localTypes, globalTeams, localTeams]
    .reduce((n, file) => n + file.entries.length, 0) +
    (plugins.types?.length ?? 0) + (plugins.teams?.length ?? 0) + (plugins.skills?.length ?? 0);
  const schemas = entries ? await import("./schema.ts") : undefined;
  const checkType = checkerOf<TypeEntry>(schemas, (s) => s.TypeEntrySchema);
  const checkTeam = checkerOf<TeamEntry>(schemas, (s) => s.TeamEntrySchema);

  const typePatches: TypePatch[] = [
    ...Object.entries(BUNDLED_TYPES).map(([name, entry]) =>
      ({ name, layer: "bundled", source: "bundled", entry }) as const
    ),
    ...pluginEntries(options.plugins?.types ?? [], "agent type", checkType, warnings),
    ...checked(globalTypes, "global", checkType, warnings),
  ];
  const localTypePatches = checked(localTypes, "local", checkType, warnings);
  typePatches.push(
    ...(options.trusted ? localTypePatches : localTypePatches.map(onlyTighten)),
  );
  const types = mergeTypes(typePatches, warnings);
  if (!options.trusted) warnLoosening(types, localTypePatches, warnings);

  const teamPatches: Patch<TeamEntry>[] = [
    ...Object.entries(BUNDLED_TEAMS).map(([name, entry]) =>
      ({ name, layer: "bundled", source: "bundled", entry }) as const
    ),
    ...pluginEntries(options.plugins?.teams ?? [], "team", checkTeam, warnings),
    ...checked(globalTeams, "global", checkTeam, warnings),
  ];
  const localTeamPatches = checked(localTeams, "local", checkTeam, warnings);
  teamPatches.push(
    ...(options.trusted ? localTeamPatches : localTeamPatches.map((p) => noBuild(p, warnings))),
  );
  const teams = mergeTeams(teamPatches, warnings);

  const skills = new Map<string, Skill>();
  for (const skill of schemas ? pluginSkills(schemas, plugins.skills ?? [], warnings) : []) {
    skills.set(skill.name, skill);
  }
  for (const skill of [...globalSkills, ...localSkills]) skills.set(skill.name, skill);

  return { types: sorted(types), teams: sorted(teams), skills: sorted(skills), warnings };
}

function globalDirOrWarn(warnings: string[]): string | undefined {
  try {
    return globalConfigDir();
  } catch (err) {
    warnings.push(`${(err as Error).message}; global agent types, teams and skills skipped`);
    return undefined;
  }
}

function sorted<T>(map: Map<string, T>): Map<string, T> {
  return new Map([...map].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}

/** A file's entries with where they came from; none when absent or broken (then warned). */
/**
 * A global catalog file (it may loosen permissions, as the global config may) under the rule of
 * every config file svc reads (private_file.ts); one another user could have written is skipped
 * with the reason.
 */
function own(path: string | undefined, warnings: string[]): string | undefined {
  if (!path) return undefined;
  try {
    checkPrivate(path);
    return path;
  } catch (err) {
    if (!(err instanceof UnsafeFileError)) throw err;
    warnings.push(`${err.message}; skipped`);
    return undefined;
  }
}

async function readEntries(
  path: string | undefined,
  what: string,
  example: string,
  warnings: string[],
  confineTo?: string,
): Promise<{ path: string; what: string; entries: Array<[string, unknown]> }> {
  if (!path) return { path: "", what, entries: [] };
  const { object, problem } = await readCatalogObject(path, example, confineTo);
  if (problem) warnings.push(problem);
  return { path, what, entries: Object.entries(object ?? {}) };
}

type CatalogSchemas = typeof import("./schema.ts");

interface Schema<E> {
  safeParse(value: unknown): { success: true; data: E } | {
    success: false;
    error: Parameters<CatalogSchemas["firstIssue"]>[0];
  };
}

/** Checks one entry: the parsed entry, or its first problem for the warning. */
type Checker<E> = (value: unknown) => { entry: E } | { problem: string };

/** The checker of one entry schema; one that throws when the schemas were not loaded. */
function checkerOf<E>(
  schemas: CatalogSchemas | undefined,
  pick: (schemas: CatalogSchemas) => Schema<E>,
): Checker<E> {
  if (!schemas) {
    return () => {
      throw new Error("an entry to check was not counted (catalog schemas not loaded)");
    };
  }
  const schema = pick(schemas);
  return (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? { entry: parsed.data } : { problem: schemas.firstIssue(parsed.error) };
  };
}

/** The valid entries of one file as patches; each invalid one is skipped with a warning. */
function checked<E>(
  file: { path: string; what: string; entries: Array<[string, unknown]> },
  layer: Layer,
  check: Checker<E>,
  warnings: string[],
): Patch<E>[] {
  const patches: Patch<E>[] = [];
  for (const [name, value] of file.entries) {
    const where = `${file.path}: ${file.what} "${name}"`;
    if (!NAME_PATTERN.test(name)) {
      warnings.push(`${where}: a name must be ${NAME_RULE}; skipped`);
      continue;
    }
    const checked = check(value);
    if ("problem" in checked) warnings.push(`${where}: ${checked.problem}; skipped`);
    else patches.push({ name, layer, source: file.path, entry: checked.entry });
  }
  return patches;
}

/** Plugin registrations as patches, checked like file entries. */
function pluginEntries<E>(
  defs: readonly { name: string }[],
  what: string,
  check: Checker<E>,
  warnings: string[],
): Patch<E>[] {
  const entries = defs.map((def) => {
    const { name, ...entry } = def as { name: string } & Record<string, unknown>;
    return [name, entry] as [string, unknown];
  });
  return checked({ path: "a plugin", what, entries }, "plugin", check, warnings);
}

function pluginSkills(
  { firstIssue, PluginSkillSchema }: CatalogSchemas,
  defs: readonly SkillDef[],
  warnings: string[],
): Skill[] {
  const skills: Skill[] = [];
  for (const def of defs) {
    const parsed = PluginSkillSchema.safeParse(def);
    if (!parsed.success) {
      warnings.push(`a plugin: skill "${def.name}": ${firstIssue(parsed.error)}; skipped`);
      continue;
    }
    const { name, content, description, tags } = parsed.data;
    skills.push({
      name,
      content,
      ...(description ? { description } : {}),
      ...(tags?.length ? { tags } : {}),
      layer: "plugin",
    });
  }
  return skills;
}

/**
 * An untrusted worktree's type: its permissions become `tighten` (applied only where stricter)
 * and its `tools_deny` is added to the lower layers' list instead of replacing it.
 */
function onlyTighten(patch: Patch<TypeEntry>): TypePatch {
  const { tool_permission, tools_deny, ...rest } = patch.entry;
  return {
    ...patch,
    entry: {
      ...rest,
      ...(tool_permission ? { tighten: tool_permission } : {}),
      ...(tools_deny ? { tools_deny_add: tools_deny } : {}),
    },
  };
}

/**
 * Names the permissions of an untrusted worktree's types that can tighten nothing: looser than
 * what the trusted layers (or the defaults) give the type.
 */
function warnLoosening(
  types: ReadonlyMap<string, AgentType>,
  local: readonly Patch<TypeEntry>[],
  warnings: string[],
): void {
  const ignored = new Map<string, string[]>();
  for (const { name, source, entry } of local) {
    const type = types.get(name);
    for (const [key, action] of Object.entries(entry.tool_permission ?? {})) {
      const category = key as Category;
      const base = type?.tool_permission?.[category] ?? DEFAULT_ACTIONS[category];
      if (!isLooser(action as Action, base)) continue;
      ignored.set(source, [
        ...(ignored.get(source) ?? []),
        `${name}.tool_permission.${category} (${action})`,
      ]);
    }
  }
  for (const [source, keys] of ignored) {
    warnings.push(`ignored ${keys.join(", ")} from ${source}: ${UNTRUSTED}`);
  }
}

/** An untrusted worktree's team: a stage cannot force build mode; it inherits the caller's. */
function noBuild(patch: Patch<TeamEntry>, warnings: string[]): Patch<TeamEntry> {
  const stages = patch.entry.stages;
  if (!stages?.some((stage) => typeof stage !== "string" && stage.mode === "build")) return patch;
  const numbers: number[] = [];
  const kept = stages.map((stage, index) => {
    if (typeof stage === "string" || stage.mode !== "build") return stage;
    numbers.push(index + 1);
    const { mode: _mode, ...rest } = stage;
    return rest;
  });
  warnings.push(
    `ignored mode build of stage ${numbers.join(", ")} of team "${patch.name}" from ` +
      `${patch.source} (the stage inherits the caller's mode): ${UNTRUSTED}`,
  );
  return { ...patch, entry: { ...patch.entry, stages: kept } };
}
