/**
 * Registrations of sandboxed plugins, remembered between runs so svc can start without booting
 * their Workers (a Worker and the plugin's own module graph cost tens of milliseconds). The key
 * covers what a plugin's hooks normally depend on: its files (every path, size and modification
 * time), its manifest, svc's and Deno's versions, and the values of the environment variables it
 * is granted (hashed into the key, never stored). Registrations that depend on more (a file
 * elsewhere, a server) are refreshed by the plugin's first call in a run, or at every start when
 * its manifest sets `dynamic_registrations`. The cache lives in svc's own folder
 * (`~/.config/svc/plugin_cache/`), which no plugin may write; what it holds is checked like
 * anything a Worker sends.
 */
import { join } from "../util/posix_path.ts";
import { VERSION } from "../version.ts";
import { writeFileAtomic } from "../util/atomic.ts";
import { readTextCapped } from "../util/fs.ts";
import { sha256Hex } from "../util/sha256.ts";
import type { FolderEntry } from "./confine.ts";
import type { PluginGrant } from "./grant.ts";
import type { RegistrationData } from "./sandbox_protocol.ts";

/** Largest cache file read back. */
const CACHE_MAX_BYTES = 4 * 1024 * 1024;

/** Whether a plugin's registrations may be remembered: unless its manifest says they change. */
export function cacheable(manifest: { dynamic_registrations?: boolean }): boolean {
  return manifest.dynamic_registrations !== true;
}

/** One plugin's place in the cache and the key its remembered registrations must match. */
export interface CacheSlot {
  file: string;
  key: string;
}

/**
 * The slot of the plugin in `pluginDir` (its files `entries`, its manifest, its grant) under
 * `cacheDir`.
 */
export async function cacheSlot(
  cacheDir: string,
  { pluginDir, manifest, entries, grant }: {
    pluginDir: string;
    manifest: unknown;
    entries: FolderEntry[];
    grant: Pick<PluginGrant, "env">;
  },
): Promise<CacheSlot> {
  const env = grant.env.map((name) => [name, Deno.env.get(name) ?? null]);
  const key = await sha256Hex(
    JSON.stringify([VERSION, Deno.version.deno, pluginDir, manifest, entries, env]),
  );
  return { file: join(cacheDir, `${(await sha256Hex(pluginDir)).slice(0, 32)}.json`), key };
}

/** The remembered registrations of a slot, or null when there are none for its key. */
export async function readCache(slot: CacheSlot): Promise<RegistrationData | null> {
  try {
    const stored = JSON.parse((await readTextCapped(slot.file, CACHE_MAX_BYTES)).text);
    return stored?.key === slot.key && stored.registrations ? stored.registrations : null;
  } catch {
    return null; // missing, unreadable or corrupt: load the plugin instead
  }
}

/** Remembers registrations for a slot; a failure only costs the next start its speed. */
export async function writeCache(slot: CacheSlot, registrations: RegistrationData): Promise<void> {
  try {
    await Deno.mkdir(join(slot.file, ".."), { recursive: true, mode: 0o700 });
    await writeFileAtomic(slot.file, JSON.stringify({ key: slot.key, registrations }), {
      syncDir: false,
    });
  } catch {
    // a read-only HOME: nothing is remembered
  }
}
