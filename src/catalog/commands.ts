/**
 * Custom slash commands written in Markdown: `<name>.md` in a plugin's `commands/` folder, in
 * `~/.config/svc/commands/` (global) and in the worktree's `.svc/commands/` (local, read only in a
 * trusted worktree, since a command's file chooses a model, an agent type and the prompt sent).
 * Later layers win by name (plugin < global < local). Optional YAML front matter: `description`,
 * `argument-hint`, `model`, `agent` (an agent type) and `allowed-tools` (a list, or names split
 * by commas or spaces). The body is the prompt, with `$ARGUMENTS` and `$1`..`$9` filled in.
 */
import { join } from "../util/posix_path.ts";
import { checkPrivate, UnsafeFileError } from "../util/private_file.ts";
import { splitFrontMatter } from "./front_matter.ts";
import { NAME_PATTERN, NAME_RULE } from "./names.ts";
import { missing, readCatalogText } from "./read.ts";

/** A command file is a prompt of a page or two; a larger one is skipped with a warning. */
export const COMMAND_MAX_BYTES = 64 * 1024;
/** Commands read from one folder at most. */
const MAX_PER_FOLDER = 200;

/** Where a command comes from. */
export type CommandLayer = "plugin" | "global" | "local";

/** One Markdown command. */
export interface PromptCommand {
  name: string;
  /** The prompt, with `$ARGUMENTS` and `$1`.. placeholders. */
  body: string;
  description?: string;
  argumentHint?: string;
  model?: string;
  /** The agent type whose prompt, model and permissions the turn runs with. */
  agent?: string;
  /** The only tools the turn may use. */
  allowedTools?: string[];
  layer: CommandLayer;
  path: string;
  /** The plugin that ships it (layer `plugin`). */
  plugin?: string;
}

/** The folders commands are read from. */
export interface CommandSources {
  worktree: string;
  /** Only a trusted worktree's `.svc/commands/` is read. */
  trusted: boolean;
  /** `~/.config/svc` (undefined: no global layer). */
  globalDir?: string;
  /** Loaded plugins with a folder: their `commands/` folders, in load order. */
  plugins?: readonly { name: string; dir: string | null }[];
}

/** Every command by name (later layers replace earlier ones) and what was skipped, and why. */
export async function loadPromptCommands(
  sources: CommandSources,
): Promise<{ commands: PromptCommand[]; warnings: string[] }> {
  const warnings: string[] = [];
  const folders: { dir: string; layer: CommandLayer; plugin?: string }[] = [];
  for (const p of sources.plugins ?? []) {
    if (p.dir) folders.push({ dir: join(p.dir, "commands"), layer: "plugin", plugin: p.name });
  }
  if (sources.globalDir) {
    folders.push({ dir: join(sources.globalDir, "commands"), layer: "global" });
  }
  const local = join(sources.worktree, ".svc", "commands");
  if (sources.trusted) folders.push({ dir: local, layer: "local" });
  else if (!missing(local)) {
    warnings.push(
      `${local} is not read: this worktree is not trusted (svc trust lets its commands run)`,
    );
  }
  const byName = new Map<string, PromptCommand>();
  for (const folder of folders) {
    for (const command of await readFolder(folder, warnings)) byName.set(command.name, command);
  }
  const commands = [...byName.values()].sort((a, b) => a.name < b.name ? -1 : 1);
  return { commands, warnings };
}

async function readFolder(
  folder: { dir: string; layer: CommandLayer; plugin?: string },
  warnings: string[],
): Promise<PromptCommand[]> {
  const names: string[] = [];
  if (folder.layer === "global") {
    // svc's own folder: read only when no one else could have written in it (private_file.ts).
    try {
      checkPrivate(folder.dir);
    } catch (err) {
      if (!(err instanceof UnsafeFileError)) throw err;
      warnings.push(`${err.message}; skipped`);
      return [];
    }
  }
  try {
    for await (const entry of Deno.readDir(folder.dir)) {
      if (!entry.name.endsWith(".md") || entry.name.startsWith(".")) continue;
      const name = entry.name.slice(0, -3);
      if (NAME_PATTERN.test(name)) names.push(name);
      else warnings.push(`${join(folder.dir, entry.name)}: a command name must be ${NAME_RULE}`);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      warnings.push(`commands folder ${folder.dir} cannot be read (${(err as Error).message})`);
    }
    return [];
  }
  names.sort();
  if (names.length > MAX_PER_FOLDER) {
    warnings.push(`${folder.dir} holds ${names.length} commands; only ${MAX_PER_FOLDER} are read`);
    names.length = MAX_PER_FOLDER;
  }
  const read = await Promise.all(names.map((name) => readCommand(name, folder)));
  const commands: PromptCommand[] = [];
  for (const result of read) {
    if (typeof result === "string") warnings.push(result);
    else commands.push(result);
  }
  return commands;
}

/** One command file, or why it is skipped. */
async function readCommand(
  name: string,
  folder: { dir: string; layer: CommandLayer; plugin?: string },
): Promise<PromptCommand | string> {
  const path = join(folder.dir, `${name}.md`);
  const { text, problem } = await readCatalogText(path, COMMAND_MAX_BYTES);
  if (text === undefined) return problem ?? `${path} vanished; skipped`;
  const parsed = await splitFrontMatter(text);
  if ("problem" in parsed) return `${path}: ${parsed.problem}; skipped`;
  const body = parsed.body.trim();
  if (!body) return `${path}: the command has no prompt; skipped`;
  const command: PromptCommand = { name, body, layer: folder.layer, path };
  if (folder.plugin) command.plugin = folder.plugin;
  const data = parsed.data;
  for (const [key, field] of FIELDS) {
    const value = data[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string") return `${path}: front matter ${key} must be text; skipped`;
    if (value.trim()) command[field] = value.trim();
  }
  const tools = data["allowed-tools"];
  if (tools !== undefined && tools !== null) {
    const list = typeof tools === "string" ? tools.split(/[\s,]+/) : tools;
    if (!Array.isArray(list) || list.some((t) => typeof t !== "string")) {
      return `${path}: front matter allowed-tools must be a list of tool names; skipped`;
    }
    command.allowedTools = list.map((t: string) => t.trim()).filter(Boolean);
  }
  return command;
}

const FIELDS = [
  ["description", "description"],
  ["argument-hint", "argumentHint"],
  ["model", "model"],
  ["agent", "agent"],
] as const;

/**
 * The command's prompt for `args`: `$ARGUMENTS` is the whole argument text, `$1`..`$9` its
 * whitespace-separated words (empty when absent). A body with no placeholder gets the arguments
 * appended after a blank line, so they are never lost.
 */
export function expandCommand(body: string, args: string): string {
  const words = args.trim().split(/\s+/).filter(Boolean);
  let used = false;
  const text = body.replace(/\$(ARGUMENTS|[1-9])/g, (_, key: string) => {
    used = true;
    return key === "ARGUMENTS" ? args.trim() : words[Number(key) - 1] ?? "";
  });
  return used || !args.trim() ? text : `${text}\n\n${args.trim()}`;
}
