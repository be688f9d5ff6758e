import { dirname, join } from "../util/posix_path.ts";
import { fileURLToPath } from "../util/file_url.ts";
import { globalConfigDir, localDir } from "../util/dirs.ts";
import { incompatibility, type Manifest, readManifest } from "./manifest.ts";
import { rememberManifest } from "./manifest_memo.ts";

/** Where a plugin was found; later origins take precedence. */
export type PluginOrigin = "bundled" | "global" | "local";

/** One discovery root. */
export interface PluginRoot {
  origin: PluginOrigin;
  dir: string;
}

/** Which folders to search: the worktree, plus overrides of the bundled and global roots. */
export interface RootOptions {
  worktree: string;
  /** Defaults to the repository's `plugins/` folder. */
  bundledDir?: string;
  /** Defaults to `~/.config/svc/plugins` (from HOME). */
  globalDir?: string;
  /**
   * Whether the worktree is trusted (config/trust.ts). When false its `.svc/plugins` are found
   * but `skipped`, so they never run and never hide a bundled or global copy. Default true.
   */
  trustLocal?: boolean;
}

/** Why an untrusted worktree's plugin is not loaded. */
export const UNTRUSTED_PLUGIN =
  "Not loaded: this worktree is not trusted (run svc trust to load it)";

/**
 * One plugin folder found in a root. `state` is `ok` for a valid, compatible plugin that wins
 * its name, `shadowed` when a later root holds a valid copy of the same name, `skipped` for an
 * incompatible one and `errored` for a bad manifest.
 */
export interface Candidate {
  name: string;
  origin: PluginOrigin;
  dir: string;
  state: "ok" | "shadowed" | "skipped" | "errored";
  message: string;
  manifest?: Manifest;
  entryPath?: string;
}

/** The bundled root `<repo>/plugins`, found from this module so any cwd works. */
export function bundledPluginsDir(): string | null {
  // `deno task bundle` puts plugins/ beside main.js; the source tree keeps it two levels up. The
  // bundle's own folder is tried first, so a plugins/ two levels above an install never counts.
  for (const relative of ["./plugins", "../../plugins"]) {
    const url = new URL(relative, import.meta.url);
    if (url.protocol !== "file:") return null;
    const dir = fileURLToPath(url);
    try {
      if (Deno.statSync(dir).isDirectory) return dir;
    } catch {
      // try the next layout
    }
  }
  return null;
}

/**
 * Where svc remembers what it learnt about third-party plugins (compatible manifests, sandboxed
 * registrations): `plugin_cache/` beside the global root, in svc's own folder.
 */
export function pluginCacheDir(options: RootOptions): string {
  return cacheDirOf(pluginRoots(options));
}

function cacheDirOf(roots: PluginRoot[]): string {
  return join(dirname(roots.find((root) => root.origin === "global")!.dir), "plugin_cache");
}

/** The three roots in precedence order: bundled < global < local. */
export function pluginRoots(options: RootOptions): PluginRoot[] {
  const bundled = options.bundledDir ?? bundledPluginsDir();
  const roots: PluginRoot[] = bundled ? [{ origin: "bundled", dir: bundled }] : [];
  roots.push({ origin: "global", dir: options.globalDir ?? join(globalConfigDir(), "plugins") });
  roots.push({ origin: "local", dir: join(localDir(options.worktree), "plugins") });
  return roots;
}

/**
 * Reads every plugin folder of every root (in parallel) and resolves precedence: for each name
 * the valid, compatible copy from the latest root wins. Incompatible copies are `skipped` and
 * never hide an older compatible one. Never throws for bad plugins or missing roots.
 */
export async function discoverPlugins(options: RootOptions): Promise<Candidate[]> {
  const roots = pluginRoots(options);
  const memoDir = cacheDirOf(roots);
  const perRoot = await Promise.all(
    roots.map((root) => readRoot(root, options.trustLocal ?? true, memoDir)),
  );
  const candidates = perRoot.flat();
  const winners = new Map<string, Candidate>();
  for (const candidate of candidates) {
    if (candidate.state !== "ok") continue;
    const previous = winners.get(candidate.name);
    if (previous?.origin === candidate.origin) {
      candidate.state = "errored";
      candidate.message = `Duplicate plugin name; ${previous.dir} already provides it`;
      continue;
    }
    if (previous) {
      previous.state = "shadowed";
      previous.message = `Overridden by the ${candidate.origin} copy`;
      candidate.message = `Overrides the ${previous.origin} copy`;
    }
    winners.set(candidate.name, candidate);
  }
  return candidates;
}

async function readRoot(
  root: PluginRoot,
  trustLocal: boolean,
  memoDir: string,
): Promise<Candidate[]> {
  const names: string[] = [];
  try {
    // Sync: a plugin root holds a few folders, and an async listing costs a thread-pool round trip.
    for (const entry of Deno.readDirSync(root.dir)) {
      if (entry.name.startsWith(".") || entry.isFile) continue;
      names.push(entry.name);
    }
  } catch {
    return []; // a missing or unreadable root holds no plugins
  }
  names.sort();
  if (root.origin === "local" && !trustLocal) {
    // Not even the manifest is parsed: the folder's contents are the repository's.
    return names.map((name) => ({
      name,
      origin: root.origin,
      dir: join(root.dir, name),
      state: "skipped",
      message: UNTRUSTED_PLUGIN,
    }));
  }
  const found = await Promise.all(names.map((name) => readCandidate(root, name, memoDir)));
  return found.filter((candidate): candidate is Candidate => candidate !== null);
}

async function readCandidate(
  root: PluginRoot,
  folder: string,
  memoDir: string,
): Promise<Candidate | null> {
  const dir = join(root.dir, folder);
  try {
    if (!Deno.statSync(dir).isDirectory) return null;
  } catch {
    return null; // dangling symlink
  }
  const base = { name: folder, origin: root.origin, dir };
  // Bundled plugins ship with this svc; their manifests are checked by the test suite.
  const trusted = root.origin === "bundled";
  const read = await readManifest(dir, { trusted, memoDir });
  if (!read.ok) return { ...base, state: "errored", message: read.error };
  const { manifest, entryPath } = read;
  const named = { ...base, name: manifest.name, manifest, entryPath };
  const reason = trusted || read.compatible ? null : await incompatibility(manifest);
  if (reason) return { ...named, state: "skipped", message: reason };
  if (read.marker) await rememberManifest(read.marker);
  return { ...named, state: "ok", message: "" };
}
