/**
 * Tab completion of slash commands and their arguments: command names (plugin commands too),
 * subcommands, and the argument kinds (session names, agent types, teams, skills, MCP servers,
 * tools, providers, config keys). Names come from a `NameSource`, asked only for the kind needed.
 */
import { type ArgKind, type Command, findCommand } from "./slash_command.ts";

/** Where the names of each argument kind come from. */
export type NameSource = (kind: ArgKind) => Promise<readonly string[]>;

/** A completion: replace `[start, end)` of the line with one of `candidates`. */
export interface Completion {
  start: number;
  end: number;
  candidates: string[];
}

/** The completion at `cursor` of `line`; null when there is nothing to complete. */
export async function complete(
  line: string,
  { cursor, commands, names }: { cursor: number; commands: readonly Command[]; names: NameSource },
): Promise<Completion | null> {
  const before = line.slice(0, cursor);
  if (!before.startsWith("/") || before.includes("\n")) return null;
  const words = before.split(/\s+/);
  const word = words.at(-1)!;
  const start = cursor - word.length;
  const pick = (all: readonly string[]) => {
    const candidates = [...new Set(all)].filter((c) => c.startsWith(word)).sort();
    return candidates.length ? { start, end: cursor, candidates } : null;
  };
  if (words.length === 1) {
    return pick(commands.flatMap((c) => [c.name, ...(c.aliases ?? [])]).map((n) => `/${n}`));
  }
  const command = findCommand(commands, words[0]);
  if (!command) return null;
  const position = words.length - 2; // 0: first argument
  if (command.subcommands && position === 0) {
    const own = command.args ? await names(command.args) : [];
    return pick([...command.subcommands, ...own]);
  }
  const kind = command.subcommands
    ? (position === 1 ? command.argsOf?.[words[1]] : command.restOf?.[words[1]])
    : (position === 0 ? command.args : undefined);
  if (!kind) return null;
  return pick(await names(kind));
}

/** The `@path` word the cursor ends, if any: where it starts (at the `@`) and the path typed. */
export function mentionAt(line: string, cursor: number): { start: number; typed: string } | null {
  const m = /(?:^|\s)@([^\s@]*)$/.exec(line.slice(0, cursor));
  return m ? { start: cursor - m[1].length - 1, typed: m[1] } : null;
}

/** The longest prefix all candidates share. */
export function commonPrefix(candidates: readonly string[]): string {
  if (!candidates.length) return "";
  let prefix = candidates[0];
  for (const c of candidates) {
    while (!c.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}
