import { basename, join } from "../util/posix_path.ts";
import { folderProblem } from "./confine.ts";
import { type Candidate, discoverPlugins, type RootOptions, UNTRUSTED_PLUGIN } from "./discover.ts";
import { denoFlags } from "./grant.ts";
import { grantFor } from "./permissions.ts";

/**
 * Result of one plugin's test run; `code` is null when the tests did not run: no `tests/` folder,
 * or `skipped` says why (an untrusted worktree's plugin, a manifest without a valid grant).
 */
export interface PluginTestRun {
  name: string;
  dir: string;
  code: number | null;
  skipped?: string;
}

/**
 * Runs `deno test <plugin>/tests` for `name`, or for every discovered plugin, one after the
 * other with output streamed to this process: a bundled plugin's with `-A` (it runs in svc's
 * process), a global or local one's with exactly the permissions its sandbox gets, and never
 * those of an untrusted worktree's plugin. Throws when `name` is not found.
 */
export async function runPluginTests(
  name: string | undefined,
  options: RootOptions & { onStart?(plugin: Candidate): void },
): Promise<PluginTestRun[]> {
  const plugins = selectPlugins(await discoverPlugins(options), name);
  if (name && plugins.length === 0) throw new Error(`Plugin ${name} is not installed`);
  const runs: PluginTestRun[] = [];
  for (const plugin of plugins) {
    const tests = join(plugin.dir, "tests");
    if (!(await isDirectory(tests))) {
      runs.push({ name: plugin.name, dir: plugin.dir, code: null });
      continue;
    }
    const permissions = testPermissions(plugin, options.worktree);
    if (typeof permissions === "string") {
      runs.push({ name: plugin.name, dir: plugin.dir, code: null, skipped: permissions });
      continue;
    }
    options.onStart?.(plugin);
    const status = await new Deno.Command(denoBinary(), {
      args: ["test", ...permissions, tests],
      cwd: plugin.dir,
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    runs.push({ name: plugin.name, dir: plugin.dir, code: status.code });
  }
  return runs;
}

/** The permission flags of a plugin's tests, or why they do not run. */
function testPermissions(plugin: Candidate, worktree: string): string[] | string {
  if (plugin.origin === "bundled") return ["-A"];
  if (plugin.message === UNTRUSTED_PLUGIN) {
    return "not run: this worktree is not trusted (run svc trust first)";
  }
  if (!plugin.manifest) return `not run: ${plugin.message}`;
  const granted = grantFor(plugin.manifest, { pluginDir: plugin.dir, worktree });
  if (!granted.ok) return `not run: ${granted.error}`;
  const problem = folderProblem(plugin.dir);
  if (problem) return `not run: ${problem}`;
  return denoFlags(granted.grant);
}

/** The deno executable: this process when it is deno, else `deno` from PATH. */
export function denoBinary(): string {
  const exec = Deno.execPath();
  return basename(exec).startsWith("deno") ? exec : "deno";
}

/** One copy per name: the winning copy, else the copy from the latest root. */
function selectPlugins(candidates: Candidate[], name: string | undefined): Candidate[] {
  const chosen = new Map<string, Candidate>();
  for (const c of candidates) {
    if (name !== undefined && c.name !== name) continue;
    const current = chosen.get(c.name);
    if (!current || current.state !== "ok") chosen.set(c.name, c);
  }
  return [...chosen.values()].sort((a, b) => a.name.localeCompare(b.name));
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
