/**
 * Server processes never outlive svc. Each starts in its own process group (so a Ctrl-C meant
 * for svc's turn does not reach it, and its own children can be stopped with it), is tracked
 * while it runs, and its group is killed when svc exits (the `unload` event: a normal end,
 * `Deno.exit`, a handled signal). On Linux, when util-linux `setpriv` is present, the server is
 * also started under `setpriv --pdeathsig KILL`, so the kernel kills it when svc dies in a way no
 * handler sees (SIGKILL, a crash).
 */

import { signalGroup } from "../../../../src/plugin/api.ts";

const live = new Set<number>();
let listening = false;

/** Records a started server's process group (its leader's pid). */
export function track(pid: number): void {
  live.add(pid);
  if (!listening) {
    listening = true;
    globalThis.addEventListener("unload", killAll);
  }
}

/** Forgets a group whose leader has exited and been reaped. */
export function untrack(pid: number): void {
  live.delete(pid);
}

function killAll(): void {
  for (const pid of live) signalGroup(pid, "SIGKILL");
  live.clear();
}

let deathSignal: string | null | undefined;

/**
 * The command line that starts `command`: under `setpriv --pdeathsig KILL` where that works
 * (checked once per process), else as is.
 */
export function guarded(command: string, args: string[]): { command: string; args: string[] } {
  deathSignal ??= findSetpriv();
  if (!deathSignal) return { command, args };
  return { command: deathSignal, args: ["--pdeathsig", "KILL", "--", command, ...args] };
}

function findSetpriv(): string | null {
  if (Deno.build.os !== "linux") return null;
  for (const path of ["/usr/bin/setpriv", "/bin/setpriv"]) {
    try {
      const probe = new Deno.Command(path, {
        args: ["--pdeathsig", "KILL", "--", "true"],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).outputSync();
      if (probe.success) return path;
    } catch {
      // not there, or not runnable: try the next one
    }
  }
  return null;
}
