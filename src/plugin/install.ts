import { pathExists } from "../util/fs.ts";
import { join } from "../util/posix_path.ts";
import { type Candidate, discoverPlugins, type PluginOrigin, pluginRoots } from "./discover.ts";
import type { RootOptions } from "./discover.ts";
import { folderProblem } from "./confine.ts";
import { incompatibility, readManifest } from "./manifest.ts";
import { grantFor, type PluginGrant } from "./permissions.ts";
import { denoBinary } from "./plugin_tests.ts";
import { fetchSource, readSourceRecord, writeSourceRecord } from "./source.ts";

/** Options shared by install, update and uninstall. */
export interface InstallOptions extends RootOptions {
  /** Target the global root instead of the worktree's `.svc/plugins`. */
  global?: boolean;
  /** Run `deno cache` on the manifest's `requires` before placing the plugin. */
  deps?: boolean;
  /** Replace an installed plugin of the same name. */
  force?: boolean;
}

/** An installed or updated plugin. */
export interface InstalledPlugin {
  name: string;
  version: string;
  origin: PluginOrigin;
  dir: string;
  /** The version that was replaced, if any. */
  previous?: string;
  /** What the plugin's sandbox grants, in the worktree it was installed for. */
  grant: PluginGrant;
  /** The grant of the replaced copy, when it had a valid one. */
  previousGrant?: PluginGrant;
}

/**
 * Installs a plugin from a git URL or a local folder into the local root (or global with
 * `global`): fetches into a hidden staging folder, validates the manifest and version ranges,
 * records the source, then moves it into `<root>/<name>`. Refuses to replace without `force`.
 */
export async function installPlugin(
  source: string,
  options: InstallOptions,
): Promise<InstalledPlugin> {
  const origin: PluginOrigin = options.global ? "global" : "local";
  const root = pluginRoots(options).find((r) => r.origin === origin)!.dir;
  return await stageAndPlace(source, root, origin, options, async (name) => {
    const existing = join(root, name);
    if (!options.force && await pathExists(existing)) {
      throw new Error(
        `Plugin ${name} is already installed at ${existing}; use --force to replace it`,
      );
    }
  });
}

/** Re-fetches an installed plugin from its recorded source and replaces it. */
export async function updatePlugin(
  name: string,
  options: InstallOptions,
): Promise<InstalledPlugin> {
  const installed = await findInstalled(name, options, "updated");
  const record = await readSourceRecord(installed.dir);
  if (!record) {
    throw new Error(
      `Plugin ${name} has no recorded source; reinstall it with svc plugins install --force`,
    );
  }
  const root = join(installed.dir, "..");
  return await stageAndPlace(record.source, root, installed.origin, options, (fetched) => {
    if (fetched !== name) {
      throw new Error(`Source ${record.source} now provides plugin ${fetched}, not ${name}`);
    }
    return Promise.resolve();
  }, installed);
}

/** Removes an installed (global or local) plugin; bundled plugins are refused. */
export async function uninstallPlugin(name: string, options: InstallOptions): Promise<Candidate> {
  const installed = await findInstalled(name, options, "uninstalled");
  await Deno.remove(installed.dir, { recursive: true });
  return installed;
}

/** Global and local plugins that have a recorded source, for `update` without a name. */
export async function updatablePlugins(options: InstallOptions): Promise<string[]> {
  const candidates = await discoverPlugins(options);
  const names = new Set<string>();
  for (const c of candidates) {
    if (c.origin === "bundled" || (options.global && c.origin !== "global")) continue;
    if (await readSourceRecord(c.dir)) names.add(c.name);
  }
  return [...names].sort();
}

/** The effective installed copy of `name`: local before global (only global with `global`). */
async function findInstalled(name: string, options: InstallOptions, verb: string) {
  const candidates = (await discoverPlugins(options)).filter((c) => c.name === name);
  const order: PluginOrigin[] = options.global ? ["global"] : ["local", "global"];
  for (const origin of order) {
    const found = candidates.find((c) => c.origin === origin);
    if (found) return found;
  }
  if (candidates.some((c) => c.origin === "bundled")) {
    const why = verb === "updated"
      ? "it is updated together with svc"
      : "disable it by removing it from the `plugins` config list";
    throw new Error(`Plugin ${name} is bundled and cannot be ${verb}; ${why}`);
  }
  throw new Error(`Plugin ${name} is not installed${options.global ? " globally" : ""}`);
}

async function stageAndPlace(
  source: string,
  root: string,
  origin: PluginOrigin,
  options: InstallOptions,
  check: (name: string) => Promise<void>,
  replacing?: Candidate,
): Promise<InstalledPlugin> {
  await Deno.mkdir(root, { recursive: true });
  const staging = join(root, `.staging-${crypto.randomUUID().slice(0, 8)}`);
  try {
    const record = await fetchSource(source, staging);
    const read = await readManifest(staging);
    if (!read.ok) throw new Error(`Cannot install from ${source}: ${read.error}`);
    const { name, version, requires } = read.manifest;
    const reason = await incompatibility(read.manifest);
    if (reason) throw new Error(`Cannot install ${name} ${version}: ${reason}`);
    await check(name);
    const dir = replacing?.dir ?? join(root, name);
    const places = { worktree: origin === "global" ? null : options.worktree };
    const granted = grantFor(read.manifest, { ...places, pluginDir: dir });
    if (!granted.ok) throw new Error(`Cannot install ${name} ${version}: ${granted.error}`);
    const problem = folderProblem(staging);
    if (problem) throw new Error(`Cannot install ${name} ${version}: ${problem}`);
    if (options.deps && requires.length) await cacheRequirements(name, requires);
    await writeSourceRecord(staging, record);
    await replaceDir(staging, dir);
    const previous = replacing?.manifest?.version;
    const before = replacing?.manifest &&
      grantFor(replacing.manifest, { ...places, pluginDir: dir });
    return {
      name,
      version,
      origin,
      dir,
      grant: granted.grant,
      ...(previous ? { previous } : {}),
      ...(before && before.ok ? { previousGrant: before.grant } : {}),
    };
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
}

/** Moves `from` to `to`; an existing `to` is moved aside first and removed afterwards. */
async function replaceDir(from: string, to: string): Promise<void> {
  const aside = join(to, "..", `.old-${crypto.randomUUID().slice(0, 8)}`);
  const hadOld = await pathExists(to);
  if (hadOld) await Deno.rename(to, aside);
  try {
    await Deno.rename(from, to);
  } catch (err) {
    if (hadOld) await Deno.rename(aside, to);
    throw err;
  }
  if (hadOld) await Deno.remove(aside, { recursive: true });
}

/** Runs `deno cache` on declared requirements so lazy imports work offline later. */
async function cacheRequirements(name: string, requires: string[]): Promise<void> {
  const output = await new Deno.Command(denoBinary(), {
    args: ["cache", "--no-config", "--no-lock", "--quiet", ...requires],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const last = new TextDecoder().decode(output.stderr).trim().split("\n").at(-1);
    throw new Error(`Cannot install the dependencies of ${name}: ${last || "deno cache failed"}`);
  }
}
