/** `/help`, `/version`, `/exit`, `/thinking`, `/compact`, `/config`, `/plugins`. */
import { configPaths } from "../config/load.ts";
import { checkKey, parseValue, writeConfigKeys } from "../config/write.ts";
import type { CommandDef } from "../plugin/api.ts";
import { DEFAULT_ACTIONS } from "../shared/types.ts";
import { VERSION } from "../version.ts";
import { type Command, type CommandContext, findCommand, firstWord } from "./slash_command.ts";

/** The `/help` text: every command with its summary, or one command in full. */
export function helpText(commands: readonly Command[], name?: string): string {
  if (name) {
    const command = findCommand(commands, name);
    if (!command) return `unknown command ${name}; /help lists them`;
    const aliases = command.aliases?.length
      ? `\nalias: ${command.aliases.map((a) => `/${a}`).join(", ")}`
      : "";
    const from = command.plugin ? `\nfrom plugin ${command.plugin}` : "";
    return `${command.usage}\n${command.summary}${aliases}${from}${
      command.details ? `\n${command.details}` : ""
    }`;
  }
  const names = commands.map((c) => [c.name, ...(c.aliases ?? [])].map((n) => `/${n}`).join(", "));
  const width = Math.max(...names.map((n) => n.length));
  const lines = commands.map((c, i) => `${names[i].padEnd(width)}  ${c.summary}`);
  return [
    ...lines,
    "",
    "Type a message to talk to the model; /help <command> tells more about one command.",
    "@path attaches a file (@src/a.ts:10-40 some lines) or a folder's listing; !command runs a",
    "shell command yourself, and its output goes with your next message.",
    "Keys: Enter sends, Ctrl-J or Alt-Enter adds a line, Tab completes, Up/Down and Ctrl-R",
    "search the history, Ctrl-X Ctrl-E edits the input in $VISUAL or $EDITOR, Ctrl-L scrolls",
    "the window clear, Esc or Ctrl-C cancels a running turn, Ctrl-D on an empty line exits.",
  ].join("\n");
}

export const help: Command = {
  name: "help",
  usage: "/help [name]",
  summary: "list the commands, or tell more about one",
  args: "commands",
  run(ctx, args) {
    ctx.print(helpText(ctx.commands, args || undefined));
    return Promise.resolve();
  },
};

export const version: Command = {
  name: "version",
  aliases: ["v"],
  usage: "/version",
  summary: "print the installed version",
  run(ctx) {
    ctx.print(`svc ${VERSION}`);
    return Promise.resolve();
  },
};

export const exit: Command = {
  name: "exit",
  usage: "/exit",
  summary: "leave the REPL (Ctrl-D on an empty line too)",
  run(ctx) {
    ctx.exit();
    return Promise.resolve();
  },
};

export const thinking: Command = {
  name: "thinking",
  usage: "/thinking on|off|?",
  summary: "stream the model's reasoning dimmed (on) or show a spinner and its duration (off)",
  details: "Display only, for this REPL: the reasoning text is always logged in the session.",
  subcommands: ["on", "off", "?"],
  run(ctx, args) {
    const word = args.toLowerCase();
    if (word === "on" || word === "off") ctx.display.show_thinking = word === "on";
    else if (word && word !== "?") {
      ctx.error("usage: /thinking on|off|?");
      return Promise.resolve();
    }
    ctx.print(`show_thinking is ${ctx.display.show_thinking ? "on" : "off"}`);
    return Promise.resolve();
  },
};

export const compact: Command = {
  name: "compact",
  usage: "/compact",
  summary: "summarize the conversation so far now (the session file keeps everything)",
  details: "The last compact_keep messages stay verbatim; the rest is sent as a summary.",
  async run(ctx) {
    if (!ctx.engine) return ctx.error(ctx.engineError);
    const events = ctx.events();
    const result = await ctx.engine.compact(ctx.session, ctx.signal, {
      trigger: "manual",
      onEvent: events.onEvent,
    }).finally(() => events.finish());
    if (result.ok) {
      ctx.print(`compacted: ${result.summarized} messages summarized, ${result.kept} kept`);
    } else ctx.error(`compact: ${result.message}`);
  },
};

export const config: Command = {
  name: "config",
  usage: "/config [key | set <key> <value> | unset <key>]",
  summary: "show the effective configuration, one key, or change the worktree's config",
  details: "set and unset write .svc/config.json (like svc config set) and reload the REPL.",
  subcommands: ["set", "unset"],
  args: "keys",
  argsOf: { set: "keys", unset: "keys" },
  async run(ctx, args) {
    const [sub, rest] = firstWord(args);
    const effective: Record<string, unknown> = {
      ...ctx.runtime.config,
      tool_permission: { ...DEFAULT_ACTIONS, ...ctx.runtime.config.tool_permission },
    };
    if (!sub) {
      for (const [key, value] of Object.entries(effective)) {
        ctx.print(`${key} = ${JSON.stringify(value)}`);
      }
      return;
    }
    if (sub === "set" || sub === "unset") {
      const [key, value] = firstWord(rest);
      if (!key || (sub === "set" && !value)) {
        return ctx.error(`usage: /config ${sub} <key>${sub === "set" ? " <value>" : ""}`);
      }
      const path = configPaths(ctx.runtime.worktree).local;
      const parsed = sub === "set" ? parseValue(value) : undefined;
      if (parsed !== undefined) checkKey(key);
      const { missing, problems } = await writeConfigKeys(path, { [key]: parsed });
      if (missing.length) return ctx.print(`${key} is not set in ${path}; nothing changed`);
      ctx.print(`${sub === "set" ? "set" : "unset"} ${key} in ${path}`);
      for (const problem of problems) ctx.error(`note: ${problem}`);
      await ctx.reload();
      return;
    }
    checkKey(sub);
    const [head, tail] = sub.split(".", 2);
    const value = sub in effective
      ? effective[sub]
      : (effective[head] as Record<string, unknown> | undefined)?.[tail];
    ctx.print(`${sub} = ${JSON.stringify(value ?? null)}`);
  },
};

export const plugins: Command = {
  name: "plugins",
  usage: "/plugins",
  summary: "list the plugins with their origin and status (svc plugins manages them)",
  run(ctx) {
    const list = ctx.runtime.plugins.plugins;
    if (!list.length) return Promise.resolve(ctx.print("No plugins loaded"));
    const width = Math.max(...list.map((p) => p.name.length));
    for (const p of list) {
      ctx.print(
        `${p.name.padEnd(width)}  ${p.version || "-"}  ${p.origin ?? "-"}  ${p.status}${
          p.message ? `: ${p.message}` : ""
        }`,
      );
    }
    return Promise.resolve();
  },
};

/**
 * Commands registered by plugins (`register_commands`), beside the built-ins; one whose name a
 * built-in already has is left out and reported in `skipped`.
 */
export function pluginCommands(
  defs: readonly CommandDef[],
  builtins: readonly Command[],
): { commands: Command[]; skipped: string[] } {
  const commands: Command[] = [];
  const skipped: string[] = [];
  for (const def of defs) {
    const name = def.name.replace(/^\//, "");
    if (findCommand([...builtins, ...commands], name)) {
      skipped.push(`plugin command /${name} is not added: a command of that name exists`);
      continue;
    }
    commands.push({
      name,
      usage: `/${name}`,
      summary: def.description,
      plugin: "a plugin (register_commands)",
      async run(ctx: CommandContext, args: string) {
        await def.run(args, { print: (text) => ctx.print(text) });
      },
    });
  }
  return { commands, skipped };
}
