/**
 * What `svc plugins` runs: list, install, update, uninstall and test plugins, printed as text (or
 * JSON for list). Each takes the roots (the worktree and, in tests, the bundled folder) and the
 * parsed options; a failure is thrown for the command to report.
 */
import { loadConfigReport } from "../config/load.ts";
import { isTrusted } from "../config/trust.ts";
import { table } from "../util/text_table.ts";
import type { RootOptions } from "./discover.ts";
import { describeGrant, grantSummary } from "./grant.ts";
import {
  type InstallOptions,
  installPlugin,
  uninstallPlugin,
  updatablePlugins,
  updatePlugin,
} from "./install.ts";
import { loadPlugins, type PluginInfo } from "./load.ts";
import { runPluginTests } from "./plugin_tests.ts";

/** Where the commands look: the worktree and, in tests, another bundled root. */
export type PluginRoots = Pick<RootOptions, "worktree" | "bundledDir">;

/** `svc plugins list`: the discovered plugins as a table or JSON; config warnings on stderr. */
export async function list(roots: PluginRoots, options: { json?: boolean } = {}): Promise<void> {
  const { config, trusted, warnings } = await loadConfigReport(roots.worktree);
  for (const warning of warnings) console.error(`warning: ${warning}`);
  const loaded = await loadPlugins({
    ...roots,
    names: config.plugins,
    trustLocal: trusted,
    fresh: true,
  });
  loaded.close();
  const { plugins } = loaded;
  console.log(
    options.json ? JSON.stringify(plugins, null, 2) : formatTable(plugins, roots.worktree),
  );
}

/** `svc plugins install <source>`: installs it and prints what its sandbox asks for. */
export async function install(source: string, options: InstallOptions): Promise<void> {
  const done = await installPlugin(source, options);
  console.log(`Installed ${done.name} ${done.version} (${done.origin}) at ${done.dir}`);
  console.log(asksFor(describeGrant(done.grant, options.worktree)));
  if (done.origin === "local" && !(await isTrusted(options.worktree))) {
    console.error("note: this worktree is not trusted, so its plugins do not load; run svc trust");
  }
}

/**
 * `svc plugins update [name]`: re-fetches the plugin, or every one with a recorded source (a
 * failure is reported and the rest still updated; then it throws naming those that failed).
 */
export async function update(name: string | undefined, options: InstallOptions): Promise<void> {
  const names = name ? [name] : await updatablePlugins(options);
  if (names.length === 0) console.log("No installed plugins with a recorded source");
  const failed: string[] = [];
  for (const each of names) {
    try {
      const done = await updatePlugin(each, options);
      console.log(
        `Updated ${done.name} ${done.previous ?? "?"} -> ${done.version} (${done.origin})`,
      );
      if (JSON.stringify(done.grant) !== JSON.stringify(done.previousGrant)) {
        console.log(asksFor(describeGrant(done.grant, options.worktree), "now"));
      }
    } catch (err) {
      if (name) throw err;
      console.error(`${each}: ${(err as Error).message}`);
      failed.push(each);
    }
  }
  if (failed.length) throw new Error(`Update failed for ${failed.join(", ")}`);
}

/** `svc plugins uninstall <name>`: removes the installed copy. */
export async function uninstall(name: string, options: InstallOptions): Promise<void> {
  const gone = await uninstallPlugin(name, options);
  console.log(`Uninstalled ${gone.name} (${gone.origin}) from ${gone.dir}`);
}

/**
 * `svc plugins test [name]`: runs the plugin's own tests, or every plugin's; throws on a failure,
 * and when a plugin's tests were not run (each such plugin's line says why).
 */
export async function test(name: string | undefined, roots: PluginRoots): Promise<void> {
  const runs = await runPluginTests(name, {
    ...roots,
    trustLocal: await isTrusted(roots.worktree),
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
  const skipped = runs.filter((run) => run.skipped !== undefined).map((run) => run.name);
  if (skipped.length) {
    throw new Error(`Not tested: ${skipped.join(", ")} (why is said above)`);
  }
}

/** What a sandboxed plugin asks for, one permission a line. */
function asksFor(lines: string[], when = ""): string {
  const asks = `It runs sandboxed and ${when ? `${when} ` : ""}asks for`;
  return lines.length
    ? `${asks}:\n${lines.map((line) => `  ${line}`).join("\n")}`
    : `${asks} no permissions (it can read only its own folder)`;
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
