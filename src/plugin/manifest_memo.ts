/**
 * Manifests already found valid and compatible with this svc and Deno, remembered as empty marker
 * files named by a hash of the manifest text and both versions. Checking version ranges needs
 * semver, whose CommonJS modules cost tens of milliseconds to load; a third-party plugin seen
 * before skips that on every later start. Kept in svc's own folder beside the registration cache
 * (`~/.config/svc/plugin_cache/`), which no plugin may write.
 */
import { join } from "../util/posix_path.ts";
import { VERSION } from "../version.ts";
import { sha256Hex } from "../util/sha256.ts";

/** The marker of a manifest's text, and whether it is already there. */
export async function manifestMarker(
  dir: string,
  text: string,
): Promise<{ path: string; known: boolean }> {
  const name = await sha256Hex(`${VERSION}\0${Deno.version.deno}\0${text}`);
  const path = join(dir, `manifest-${name.slice(0, 32)}`);
  try {
    return { path, known: Deno.lstatSync(path).isFile };
  } catch {
    return { path, known: false };
  }
}

/** Remembers a manifest as valid and compatible; a failure only costs the next start its speed. */
export async function rememberManifest(path: string): Promise<void> {
  try {
    await Deno.mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
    await Deno.writeFile(path, new Uint8Array());
  } catch {
    // a read-only HOME: nothing is remembered
  }
}
