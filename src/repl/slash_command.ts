/**
 * Slash commands: their shape, the context they run in, and the parser of a typed line. The
 * commands themselves live in the `commands_*.ts` files; `builtin_commands.ts` lists them.
 */
import type {
  ConnectedModel,
  Engine,
  EngineEvent,
  EngineOverrides,
  Runtime,
  SessionLog,
} from "../runtime/mod.ts";
import type { Style } from "./style.ts";

/** What an argument completes to. */
export type ArgKind =
  | "commands"
  | "sessions"
  | "types"
  | "teams"
  | "skills"
  | "servers"
  | "tools"
  | "providers"
  | "keys";

/** One slash command. */
export interface Command {
  name: string;
  aliases?: string[];
  /** e.g. `/session new|list|load <name>|...`. */
  usage: string;
  /** One line for `/help`. */
  summary: string;
  /** More lines for `/help <name>`. */
  details?: string;
  /** Subcommand words (completed after the name). */
  subcommands?: string[];
  /** What the first argument completes to (after a subcommand in `argsOf`, when given). */
  args?: ArgKind;
  /** Per subcommand: what its argument completes to. */
  argsOf?: Record<string, ArgKind>;
  /** Per subcommand: what its second and later arguments complete to. */
  restOf?: Record<string, ArgKind>;
  /**
   * Whether running it is logged in the session as a `command` message: always (the default),
   * never (`false`: `/fork` leaves its source as it was), or only once the session is written
   * (`unless_fresh`: a `/resume` first thing does not save an empty session).
   */
  log?: false | "unless_fresh";
  /** From a plugin (`register_commands`, or a Markdown command it ships). */
  plugin?: string;
  /** A Markdown command: the file it was read from. */
  path?: string;
  run(ctx: CommandContext, args: string): Promise<void>;
}

/** The display keys, as the REPL currently applies them (`/thinking` changes one). */
export interface Display {
  show_thinking: boolean;
  glyph_lines: boolean;
  tool_status_visible: boolean;
  show_context_size: boolean;
  show_version: boolean;
  clear_screen: boolean;
  markdown_streaming: boolean;
  delegate_echo: boolean;
}

/** What a command can do in the REPL. */
export interface CommandContext {
  readonly runtime: Runtime;
  /** The engine of the current model; null (with `engineError`) when none can be built. */
  readonly engine: Engine | null;
  readonly engineError: string;
  /** The engine tools run on: the model's, or without a backend one that runs tools only. */
  toolEngine(): Promise<Engine>;
  /** Sends `text` as a prompt: a turn, with an engine built with `overrides` when given. */
  prompt(text: string, overrides?: EngineOverrides | null): Promise<void>;
  /** The current backend connection (address, key, model); null without one. */
  readonly connection: ConnectedModel | null;
  readonly session: SessionLog;
  readonly style: Style;
  readonly display: Display;
  readonly commands: readonly Command[];
  /** Aborted by Esc or Ctrl-C while the command runs. */
  readonly signal: AbortSignal;
  /** Commits text to the scrollback. */
  print(text: string): void;
  /** Commits an error line. */
  error(text: string): void;
  /** Asks for a line of text; null when the user pressed Esc. */
  ask(
    question: string,
    options?: { mask?: boolean; choices?: readonly string[] },
  ): Promise<string | null>;
  /** Asks a yes/no question (y or n; Esc is no). */
  confirm(question: string): Promise<boolean>;
  /** A pick list (arrow keys, Enter); the picked item's index, or null on Esc. */
  pick(title: string, items: readonly string[]): Promise<number | null>;
  /** Renders engine events of a tool call, team run or compaction like a turn. */
  events(): { onEvent(event: EngineEvent): void; finish(): void };
  /**
   * Switches to another session (a loaded one keeps its name); resolves once its SessionStart
   * hooks ran.
   */
  useSession(session: SessionLog, options: { fresh: boolean }): Promise<void>;
  /** Rebuilds the engine on another provider or model (the approval gate may ask). */
  useModel(choice: { provider?: string; model?: string }): Promise<void>;
  /** Reloads config, plugins and the engine (after /connect or /config set). */
  reload(): Promise<void>;
  /** Ends the REPL after this command. */
  exit(): void;
}

/** A typed line as a command call; null when it is not a slash command. */
export function parseCommand(line: string): { name: string; args: string } | null {
  const text = line.trim();
  const m = /^\/([A-Za-z][\w.-]*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return null;
  return { name: m[1].toLowerCase(), args: (m[2] ?? "").trim() };
}

/** The first word of `args` and the rest (trimmed). */
export function firstWord(args: string): [string, string] {
  const m = /^(\S+)\s*([\s\S]*)$/.exec(args.trim());
  return m ? [m[1], m[2].trim()] : ["", ""];
}

/** Finds a command by name or alias. */
export function findCommand(commands: readonly Command[], name: string): Command | undefined {
  const key = name.replace(/^\//, "").toLowerCase();
  return commands.find((c) => c.name === key || c.aliases?.includes(key));
}
