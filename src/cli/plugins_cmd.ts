import { resolve } from "../util/posix_path.ts";
import { Command } from "commander";

/** The plugin manager and config loader load only when a plugins subcommand runs. */
const commands = () => import("../plugin/commands.ts");

/** Options of `pluginsCommand`. */
export interface PluginsCommandOptions {
  /** Receives the exit code of a failed subcommand (1); without it commander's `error()` exits. */
  setExit?(code: number): void;
  /** Test override of the bundled root (default: the repository's `plugins/` folder). */
  bundledDir?: string;
}

interface PathFlags {
  path?: string;
}

/** `svc plugins`: list, install, update, uninstall and test plugins. */
export function pluginsCommand(options: PluginsCommandOptions = {}): Command {
  const plugins = new Command("plugins").description("Manage plugins");
  const roots = (flags: PathFlags) => ({
    bundledDir: options.bundledDir,
    worktree: worktreeOf(flags),
  });
  const guard = (cmd: Command, fn: () => Promise<void>) => runGuarded(cmd, fn, options.setExit);
  const sub = (spec: string, description: string) =>
    plugins.command(spec).description(description)
      .option("--path <dir>", "worktree folder (default: current folder)");

  sub("list", "List discovered plugins with version, origin and status")
    .option("--json", "print JSON instead of a table")
    .action((flags: PathFlags & { json?: boolean }, cmd: Command) =>
      guard(cmd, async () => (await commands()).list(roots(flags), flags))
    );

  sub("install <source>", "Install a plugin from a git URL or a local folder")
    .option("--global", "install into ~/.config/svc/plugins instead of .svc/plugins")
    .option("--deps", "cache the packages the manifest requires (deno cache)")
    .option("--force", "replace an installed plugin of the same name")
    .action((source: string, flags: InstallFlags, cmd: Command) =>
      guard(cmd, async () => (await commands()).install(source, { ...roots(flags), ...flags }))
    );

  sub("update [name]", "Re-fetch one or every installed plugin from its recorded source")
    .option("--global", "only consider global plugins")
    .action((name: string | undefined, flags: InstallFlags, cmd: Command) =>
      guard(cmd, async () => (await commands()).update(name, { ...roots(flags), ...flags }))
    );

  sub("uninstall <name>", "Remove an installed plugin (bundled plugins can only be disabled)")
    .option("--global", "remove the global copy")
    .action((name: string, flags: InstallFlags, cmd: Command) =>
      guard(cmd, async () => (await commands()).uninstall(name, { ...roots(flags), ...flags }))
    );

  sub("test [name]", "Run a plugin's own tests with its permissions, or every plugin's")
    .action((name: string | undefined, flags: PathFlags, cmd: Command) =>
      guard(cmd, async () => (await commands()).test(name, roots(flags)))
    );
  return plugins;
}

interface InstallFlags extends PathFlags {
  global?: boolean;
  deps?: boolean;
  force?: boolean;
}

/** The worktree: `--path`, else the current folder. */
function worktreeOf(flags: PathFlags): string {
  return resolve(flags.path ?? Deno.cwd());
}

/** Runs an action; any failure becomes one `error: ...` line on stderr and exit code 1. */
async function runGuarded(
  cmd: Command,
  fn: () => Promise<void>,
  setExit?: (code: number) => void,
): Promise<void> {
  try {
    await fn();
  } catch (err) {
    const line = `error: ${(err instanceof Error ? err.message : String(err)).split("\n")[0]}`;
    if (!setExit) cmd.error(line, { exitCode: 1, code: "svc.plugins" });
    console.error(line);
    setExit(1);
  }
}
