/**
 * Notices svc gives one time only, such as a configuration whose behaviour changed with a new
 * rule: the keys already given are kept in `~/.config/svc/notices.json` (a private file, as the
 * other state files there).
 */
import { join } from "../util/posix_path.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { updateJson } from "../util/json_file.ts";

/**
 * True the first time `key` is asked about (and records it), false after. Where the file cannot
 * be written (a read-only config folder), every time is the first: the notice is said again
 * rather than lost.
 */
export async function firstTime(key: string, options: { dir?: string } = {}): Promise<boolean> {
  const path = join(options.dir ?? globalConfigDir(), "notices.json");
  let first = false;
  try {
    await updateJson(path, (current) => {
      const given = Array.isArray(current) ? current.filter((k) => typeof k === "string") : [];
      first = !given.includes(key);
      return first ? [...given, key] : given;
    }, { mode: 0o600, private: true });
  } catch {
    return true;
  }
  return first;
}
