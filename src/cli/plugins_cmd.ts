import { resolve } from "../util/posix_path.ts";
import { Command } from "commander";
import type { PluginInfo } from "../plugin/mod.ts";
import { grantSummary } from "../plugin/grant.ts";
import { table } from "../util/text_table.ts";

/** The plugin manager and config loader load only when a plugins subcommand runs. */
const manager = () => import("../plugin/mod.ts");

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
      guard(cmd, async () => {
        const worktree = worktreeOf(flags);
        const { loadConfigReport } = await import("../config/load.ts");
        const { loadPlugins } = await manager();
        const { config, trusted, warnings } = await loadConfigReport(worktree);
        for (const warning of warnings) console.error(`warning: ${warning}`);
        const loaded = await loadPlugins({
          ...roots(flags),
          names: config.plugins,
          trustLocal: trusted,
          fresh: true,
        });
        loaded.close();
        const { plugins } = loaded;
        console.log(
          flags.json ? JSON.stringify(plugins, null, 2) : formatTable(plugins, worktreeOf(flags)),
        );
      })
    );

  sub("install <source>", "Install a plugin from a git URL or a local folder")
    .option("--global", "install into ~/.config/svc/plugins instead of .svc/plugins")
    .option("--deps", "cache the packages the manifest requires (deno cache)")
    .option("--force", "replace an installed plugin of the same name")
    .action((source: string, flags: InstallFlags, cmd: Command) =>
      guard(cmd, async () => {
        const { describeGrant, installPlugin } = await manager();
        const done = await installPlugin(source, { ...roots(flags), ...flags });
        console.log(`Installed ${done.name} ${done.version} (${done.origin}) at ${done.dir}`);
        console.log(asksFor(describeGrant(done.grant, worktreeOf(flags))));
        const { isTrusted } = await import("../config/trust.ts");
        if (done.origin === "local" && !(await isTrusted(worktreeOf(flags)))) {
          console.error(
            "note: this worktree is not trusted, so its plugins do not load; run svc trust",
          );
        }
      })
    );

  sub("update [name]", "Re-fetch one or every installed plugin from its recorded source")
    .option("--global", "only consider global plugins")
    .action((name: string | undefined, flags: InstallFlags, cmd: Command) =>
      guard(cmd, async () => {
        const { describeGrant, updatablePlugins, updatePlugin } = await manager();
        const names = name ? [name] : await updatablePlugins({ ...roots(flags), ...flags });
        if (names.length === 0) console.log("No installed plugins with a recorded source");
        const failed: string[] = [];
        for (const each of names) {
          try {
            const done = await updatePlugin(each, { ...roots(flags), ...flags });
            console.log(
              `Updated ${done.name} ${done.previous ?? "?"} -> ${done.version} (${done.origin})`,
            );
            if (JSON.stringify(done.grant) !== JSON.stringify(done.previousGrant)) {
              console.log(asksFor(describeGrant(done.grant, worktreeOf(flags)), "now"));
            }
          } catch (err) {
            if (name) throw err;
            console.error(`${each}: ${(err as Error).message}`);
            failed.push(each);
          }
        }
        if (failed.length) throw new Error(`Update failed for ${failed.join(", ")}`);
      })
    );

  sub("uninstall <name>", "Remove an installed plugin (bundled plugins can only be disabled)")
    .option("--global", "remove the global copy")
    .action((name: string, flags: InstallFlags, cmd: Command) =>
      guard(cmd, async () => {
        const { uninstallPlugin } = await manager();
        const gone = await uninstallPlugin(name, { ...roots(flags), ...flags });
        console.log(`Uninstalled ${gone.name} (${gone.origin}) from ${gone.dir}`);
      })
    );

  sub("test [name]", "Run a plugin's own tests with its permissions, or every plugin's")
    .action((name: string | undefined, flags: PathFlags, cmd: Command) =>
      guard(cmd, async () => {
        const { runPluginTests } = await manager();
        const { isTrusted } = await import("../config/trust.ts");
        const runs = await runPluginTests(name, {
          ...roots(flags),
          trustLocal: await isTrusted(worktreeOf(flags)),
          onStart: (p) => console.log(`Testing ${p.name} (${p.origin}) in ${p.dir}`),
        });
        for (const run of runs) {
          if (run.code === null) console.log(`${run.name}: ${run.skipped ?? "no tests"}`);
        }
        const failed = runs.filter((run) => run.code !== null && run.code !== 0);
        if (failed.length) {
          throw new Error(`Tests failed for ${failed.map((r) => r.name).join(", ")}`);
        }
        const passed = runs.filter((run) => run.code === 0).length;
        console.log(runs.length ? `Plugin tests passed: ${passed}` : "No plugins found");
      })
    );
  return plugins;
}

interface InstallFlags extends PathFlags {
  global?: boolean;
  deps?: boolean;
  force?: boolean;
}

/** What a sandboxed plugin asks for, one permission a line. */
function asksFor(lines: string[], when = ""): string {
  const asks = `It runs sandboxed and ${when ? `${when} ` : ""}asks for`;
  return lines.length
    ? `${asks}:\n${lines.map((line) => `  ${line}`).join("\n")}`
    : `${asks} no permissions (it can read only its own folder)`;
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

/**
 * Renders plugins as an aligned text table; PERMISSIONS is `all` for bundled plugins, else what
 * the plugin's Worker is granted (`none`, or for example `read=worktree net=api.example.com`).
 */
export function formatTable(plugins: PluginInfo[], worktree: string): string {
  if (plugins.length === 0) return "No plugins found";
  const head = ["NAME", "VERSION", "ORIGIN", "STATUS", "PERMISSIONS", "MESSAGE"];
  return table(
    head,
    plugins.map((p) => [
      p.name,
      p.version || "-",
      p.origin ?? "-",
      p.status,
      p.permissions === null
        ? "-"
        : p.permissions === "all"
        ? "all"
        : grantSummary(p.permissions, worktree),
      p.message.split("\n")[0],
    ]),
  );
}
