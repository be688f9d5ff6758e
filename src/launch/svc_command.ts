/**
 * The command line that runs this svc again, for the processes svc starts of itself (fleet agents,
 * the detached fleet supervisor, the jobs daemon's systemd unit, an `mcp.servers` entry whose
 * command is `svc`). Under `deno run` that is the Deno binary running this svc (`Deno.execPath()`,
 * never the `deno` on PATH, which may be a wrapper that passes no signal on) with svc's permission
 * set and the main module (whose deno.json, found beside it, brings the import map and the unstable
 * flags); the installed command is its launcher, which names that binary; a compiled binary runs
 * itself, its permissions built in.
 */
import { fileURLToPath } from "../util/file_url.ts";
import { launcherPath } from "./launcher.ts";

/**
 * The Deno permissions svc's entry points run with (`deno task svc`, the command `deno task
 * install` installs, the binary `deno task compile` builds, and every svc that svc starts): each
 * kind svc needs and no more, never `-A`. docs/security.md explains each one; a sandboxed plugin's
 * Worker can only narrow them.
 */
export const SVC_PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-run",
  "--allow-env",
  "--no-prompt",
] as const;

/**
 * V8 flags svc's entry points run with (`deno task svc`, the installed command, the compiled
 * binary). `--max-semi-space-size=1` (MiB) keeps V8's young generation small: a streamed answer
 * makes much short-lived garbage, and with the default young generation (which grows to 16 MiB and
 * more) a 2 MB answer peaked at 160-170 MiB RSS, against 97-102 MiB with the flag, at equal or
 * lower CPU; `svc serve` answered 200 KB chats 20% faster with half the CPU (docs/performance.md).
 * The installed `svc serve` runs with options of its own (SERVE_V8_OPTIONS in
 * scripts/launcher_script.ts: 2 MiB semi-spaces and lazy compiling, for a server that stays up).
 */
export const SVC_V8_OPTIONS = ["--max-semi-space-size=1"] as const;

/** SVC_V8_OPTIONS as the deno flag. */
export const SVC_V8_FLAGS = [`--v8-flags=${SVC_V8_OPTIONS.join(",")}`] as const;

/** A program and its arguments. */
export interface CommandLine {
  command: string;
  args: string[];
}

/**
 * `svc <args>` as this process was started: the compiled binary, the installed launcher (which
 * brings its cache folder and V8 flags, src/launch/launcher.ts), or deno running main.
 */
export function svcCommand(args: readonly string[]): CommandLine {
  if (Deno.build.standalone) return { command: Deno.execPath(), args: [...args] };
  const launcher = launcherPath();
  if (launcher) return { command: launcher, args: [...args] };
  const main = Deno.mainModule.startsWith("file:")
    ? fileURLToPath(Deno.mainModule)
    : Deno.mainModule;
  return {
    command: Deno.execPath(),
    args: ["run", ...SVC_PERMISSIONS, ...SVC_V8_FLAGS, "--quiet", main, ...args],
  };
}
