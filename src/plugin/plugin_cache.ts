/**
 * Registrations of sandboxed plugins, remembered between runs so svc can start without booting
 * their Workers (a Worker and the plugin's own module graph cost tens of milliseconds). Only a
 * plugin whose sandbox grants nothing beyond reading its own folder is remembered: its hooks can
 * depend on nothing but its files, which the key covers (every path, size and modification time),
 * together with its manifest, svc's and Deno's versions. The cache lives in svc's own folder
 * (`~/.config/svc/plugin_cache/`), which no plugin may write; what it holds is checked like
 * anything a Worker sends.
 */
import { join } from "node:path";
import { VERSION } from "../version.ts";
import { writeFileAtomic } from "../util/atomic.ts";
import { readTextCapped } from "../util/fs.ts";
import type { FolderEntry } from "./confine.ts";
import type { PluginGrant } from "./grant.ts";
import type { RegistrationData } from "./sandbox_protocol.ts";

/** Largest cache file read back. */
const CACHE_MAX_BYTES = 4 * 1024 * 1024;

/** Whether a grant lets a plugin's registrations depend on nothing but its own files. */
export function cacheable(grant: PluginGrant): boolean {
  return grant.read.length === 1 && grant.write.length === 0 && grant.net !== "any" &&
    grant.net.length === 0 && grant.run.length === 0 && grant.env.length === 0 &&
    grant.import.length === 0;
}

/** One plugin's place in the cache and the key its remembered registrations must match. */
export interface CacheSlot {
  file: string;
  key: string;
}

/** The slot of the plugin in `pluginDir` (its files `entries`, its manifest) under `cacheDir`. */
export async function cacheSlot(
  cacheDir: string,
  pluginDir: string,
  manifest: unknown,
  entries: FolderEntry[],
): Promise<CacheSlot> {
  const key = await sha256(
    JSON.stringify([VERSION, Deno.version.deno, pluginDir, manifest, entries]),
  );
  return { file: join(cacheDir, `${(await sha256(pluginDir)).slice(0, 32)}.json`), key };
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

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
