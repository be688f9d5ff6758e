import { BUNDLED_PLUGINS } from "../config/keys.ts";
import type { PluginInfo } from "./load.ts";

/**
 * The warning for a `plugins` list that adds a plugin of its own but leaves out bundled ones:
 * the list names every plugin to load (SPEC), so those bundled plugins and their tools are off,
 * which someone adding one plugin rarely means. Null for the default list, `[]`, a list of
 * bundled names only (chosen knowingly), or one that keeps every bundled plugin.
 */
export function leftOutWarning(
  names: readonly string[],
  plugins: readonly Pick<PluginInfo, "name" | "origin" | "status">[],
): string | null {
  if (!names.some((name) => !BUNDLED_PLUGINS.includes(name))) return null;
  const off = plugins.filter((p) => p.origin === "bundled" && p.status === "disabled")
    .map((p) => p.name);
  if (off.length === 0) return null;
  return `the plugins list turns off the bundled ${off.join(", ")} (it names every plugin ` +
    `to load, so their tools are not offered): add them to the list to keep them, or use ` +
    `"plugins": [] to load every plugin found`;
}
