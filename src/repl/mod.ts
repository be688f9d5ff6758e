/**
 * The interactive REPL (`svc` with no arguments in a terminal). The first prompt is painted
 * before the runtime loads; the runtime, the commands and the rest load behind it.
 */
import type { RuntimeInit } from "../runtime/mod.ts";
import type { Command } from "./slash_command.ts";
import { historyPath, loadHistory } from "./history.ts";
import { Repl } from "./repl.ts";
import { colorWanted } from "./style.ts";
import { processTerminal, type Terminal } from "./terminal.ts";

export type { Terminal };

/** Which session the REPL opens: a saved one by name (`svc --continue`, `svc --resume <ref>`). */
export interface ReplSessionOptions {
  /** Open this saved session instead of a new one. */
  session?: string;
  /** Start with the `/resume` picker (`svc --resume` without a ref). */
  pick?: boolean;
}

/** Runs the REPL on the process's terminal until /exit, Ctrl-D or two Ctrl-C; the exit code. */
export async function runRepl(
  init: RuntimeInit = {},
  extra: readonly Command[] = [],
  options: ReplSessionOptions = {},
): Promise<number> {
  const terminal = processTerminal();
  const history = await loadHistory(historyPath());
  const repl: Repl = new Repl({
    terminal,
    color: colorWanted(Deno.stdout.isTerminal()),
    init: { ...init, confirmModel: (provider, model) => repl.confirmModel(provider, model) },
    history,
  });
  const stop = () => repl.exit(0);
  for (const signal of ["SIGHUP", "SIGTERM"] as const) Deno.addSignalListener(signal, stop);
  return await repl.run(async () => {
    const [
      { Runtime },
      { BUILTIN_COMMANDS },
      { pluginCommands },
      { interactiveName },
      { promptCommands },
      { customCommands },
    ] = await Promise.all([
      import("../runtime/runtime.ts"),
      import("./builtin_commands.ts"),
      import("./commands_core.ts"),
      import("../runtime/sessions.ts"),
      import("../runtime/prompt_commands.ts"),
      import("./commands_custom.ts"),
    ]);
    let runtime;
    try {
      runtime = await Runtime.load(repl.options.init);
    } catch (err) {
      repl.error(`svc: ${(err as Error).message}`);
      repl.exit(1);
      return;
    }
    repl.runtime = runtime;
    repl.applyDisplay(runtime.config);
    repl.banner();
    for (const warning of runtime.warnings) repl.warn(warning);
    const builtins = withExtra(BUILTIN_COMMANDS, extra);
    const { commands, skipped } = pluginCommands(runtime.plugins.commands, builtins);
    const markdown = await promptCommands(runtime);
    const custom = customCommands(markdown.commands, [...builtins, ...commands]);
    repl.commands = [...builtins, ...commands, ...custom.commands];
    for (const warning of [...skipped, ...markdown.warnings, ...custom.skipped]) repl.warn(warning);
    for (const warning of await runtime.start()) repl.warn(warning);
    await repl.useSession(runtime.sessions.create(interactiveName()), true, "startup");
    await repl.useModel();
    // Queued behind the loading task: shown as typed, then run as the command.
    if (options.session) repl.enqueue(`/resume ${options.session}`);
    else if (options.pick) repl.enqueue("/resume");
  });
}

/**
 * The built-in commands with those the CLI composes in (`/jobs`, from another front-end), in the
 * SPEC's `/help` order: before `/compact`.
 */
export function withExtra(
  builtins: readonly Command[],
  extra: readonly Command[],
): readonly Command[] {
  const at = builtins.findIndex((c) => c.name === "compact");
  return at < 0
    ? [...builtins, ...extra]
    : [...builtins.slice(0, at), ...extra, ...builtins.slice(at)];
}
