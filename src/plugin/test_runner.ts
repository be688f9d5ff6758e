import { basename, join } from "node:path";
import { type Candidate, discoverPlugins, type RootOptions } from "./discover.ts";

/** Result of one plugin's test run; `code` is null when the plugin has no `tests/` folder. */
export interface PluginTestRun {
  name: string;
  dir: string;
  code: number | null;
}

/**
 * Runs `deno test -A <plugin>/tests` for `name`, or for every discovered plugin, one after the
 * other with output streamed to this process. Throws when `name` is not found.
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
    options.onStart?.(plugin);
    const status = await new Deno.Command(denoBinary(), {
      args: ["test", "-A", tests],
      cwd: plugin.dir,
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    runs.push({ name: plugin.name, dir: plugin.dir, code: status.code });
  }
  return runs;
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
