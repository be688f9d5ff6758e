/**
 * The command line that runs this svc again, for the processes svc starts of itself (fleet agents,
 * the detached fleet supervisor). Under `deno run` that is deno with svc's permission set and the
 * main module (whose deno.json, found beside it, brings the import map and the unstable flags); a
 * compiled binary runs itself, its permissions built in.
 */
import { fileURLToPath } from "node:url";

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

/** A program and its arguments. */
export interface CommandLine {
  command: string;
  args: string[];
}

/** `svc <args>` as this process was started: the compiled binary, or deno running main. */
export function svcCommand(args: readonly string[]): CommandLine {
  if (Deno.build.standalone) return { command: Deno.execPath(), args: [...args] };
  const main = Deno.mainModule.startsWith("file:")
    ? fileURLToPath(Deno.mainModule)
    : Deno.mainModule;
  return {
    command: Deno.execPath(),
    args: ["run", ...SVC_PERMISSIONS, "--quiet", main, ...args],
  };
}
