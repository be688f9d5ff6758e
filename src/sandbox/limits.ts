/**
 * Resource limits of a command: setrlimit through util-linux `prlimit` (exact bytes), applied
 * inside the sandbox so a process count is the sandbox's own. Memory is RLIMIT_DATA, never
 * RLIMIT_AS: under an address-space limit of 4 or 16 GiB Deno and Node cannot even start (V8
 * reserves far more address space than it uses), while a data limit bounds what malloc and mmap
 * hand out.
 */
import type { CommandLimits } from "./settings.ts";
import { which } from "../util/which.ts";

/** The limits in force for one command, numbers resolved. */
export interface AppliedLimits {
  memory: number;
  processes: number;
  /** Infinity: no CPU-time limit. */
  cpuSeconds: number;
  fileSize: number;
  openFiles: number;
}

/**
 * The limits of a command whose timeout is `timeoutS` seconds; null is a long-lived process
 * without one (an MCP server, a plugin's process): no CPU-time limit (`cpuSeconds` Infinity).
 */
export function appliedLimits(limits: CommandLimits, timeoutS: number | null): AppliedLimits {
  return {
    memory: limits.memory,
    processes: limits.processes,
    cpuSeconds: timeoutS === null
      ? Infinity
      : Math.max(1, Math.ceil(limits.cpuSeconds ?? timeoutS)),
    fileSize: limits.fileSize,
    openFiles: limits.openFiles,
  };
}

/**
 * The words that run a program under `limits`: `prlimit ... --` where util-linux has it, else
 * bash's `ulimit` (sizes in KiB), else none (and the caller says the limits are not applied).
 */
export function limitPrefix(
  limits: AppliedLimits,
  { os = Deno.build.os, find = which }: LimitHost = {},
): string[] | undefined {
  const cpu = Number.isFinite(limits.cpuSeconds) ? limits.cpuSeconds : "unlimited";
  // util-linux is Linux's; a prlimit elsewhere is someone else's program.
  const prlimit = os === "linux" ? find("prlimit") : null;
  if (prlimit) {
    return [
      prlimit,
      `--data=${limits.memory}`,
      `--nproc=${limits.processes}`,
      `--cpu=${cpu}`,
      `--fsize=${limits.fileSize}`,
      `--nofile=${limits.openFiles}`,
      "--",
    ];
  }
  const bash = find("bash");
  if (!bash) return undefined;
  return [bash, "-c", ulimitScript(limits, { os }), "svc-limits"];
}

/** Where `limitPrefix` runs: the OS (`Deno.build.os`) and how a program is found on PATH. */
export interface LimitHost {
  os?: string;
  find?: (program: string) => string | null;
}

/**
 * The bash script that sets `limits` with `ulimit` and execs its arguments, for bash 3.2 (macOS's
 * /bin/bash) and later: sizes in KiB (`-f` too: posix mode, where it counts 512-byte blocks, is
 * switched off), each limit only ever lowered (a hard limit already below it stays, where asking
 * for more would fail the command), soft and hard together as prlimit sets them. On macOS the
 * process limit is left out: RLIMIT_NPROC counts every process of the user there, not the
 * command's, so 512 would stop a command of a user with 500 processes running.
 */
export function ulimitScript(
  limits: AppliedLimits,
  { os = Deno.build.os }: LimitHost = {},
): string {
  const kib = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));
  const set: [string, number][] = [["-d", kib(limits.memory)]];
  if (os !== "darwin") set.push(["-u", limits.processes]);
  if (Number.isFinite(limits.cpuSeconds)) set.push(["-t", limits.cpuSeconds]);
  set.push(["-f", kib(limits.fileSize)], ["-n", limits.openFiles]);
  const lower = 'lower() { hard=$(ulimit -H "$1") || return; ' +
    'if [ "$hard" = unlimited ] || [ "$hard" -gt "$2" ]; then ulimit "$1" "$2"; fi; }';
  const calls = set.map(([flag, value]) => `lower ${flag} ${value}`).join(" && ");
  return `set +o posix; ${lower}; ${calls} && exec "$@"`;
}

/** The limits `limitPrefix` cannot apply on `os`, each with why (for `svc sandbox status`). */
export function unappliedLimits({ os = Deno.build.os }: LimitHost = {}): string[] {
  return os === "darwin"
    ? ["processes: macOS counts every process of the user against the limit, not the command's"]
    : [];
}
