/**
 * Opening an address in the person's browser, as most command-line programs do: `$BROWSER` first
 * (a colon-separated list of commands; `%s` stands for the address, else it is the last argument),
 * then `xdg-open` where a desktop session runs, `open` on macOS. Where none applies the caller
 * prints the address for the person to open.
 */
import { which } from "../util/which.ts";

/** Starts the browser on `url`; resolves with the command used, or null when there is none. */
export function openBrowser(url: string, env: Record<string, string | undefined>): string | null {
  const command = browserCommand(url, env);
  if (!command) return null;
  try {
    const child = new Deno.Command(command[0], {
      args: command.slice(1),
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    child.status.catch(() => {});
    child.unref();
    return command[0];
  } catch {
    return null;
  }
}

/** The program and arguments that open `url`, or null when this machine has none to offer. */
export function browserCommand(
  url: string,
  env: Record<string, string | undefined>,
): string[] | null {
  for (const entry of (env.BROWSER ?? "").split(":").map((part) => part.trim())) {
    if (!entry) continue;
    const words = entry.split(/\s+/);
    if (!words[0].includes("/") && !which(words[0])) continue;
    const withUrl = words.some((word) => word.includes("%s"));
    return withUrl ? words.map((word) => word.replaceAll("%s", url)) : [...words, url];
  }
  if (Deno.build.os === "darwin") return ["open", url];
  const desktop = env.DISPLAY || env.WAYLAND_DISPLAY;
  const opener = desktop ? which("xdg-open") : null;
  return opener ? [opener, url] : null;
}
