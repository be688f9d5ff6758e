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
  { os = Deno.build.os, find = which, hard = {}, ownCount = true }: LimitHost = {},
): string[] | undefined {
  // util-linux is Linux's; a prlimit elsewhere is someone else's program.
  const prlimit = os === "linux" ? find("prlimit") : null;
  if (prlimit) {
    // Each limit no higher than svc's own hard limit: asking for more fails the whole command.
    const at = (value: number, name: keyof HardLimits) => {
      const most = Math.min(value, hard[name] ?? Infinity);
      return Number.isFinite(most) ? String(most) : "unlimited";
    };
    return [
      prlimit,
      `--data=${at(limits.memory, "data")}`,
      ...(ownCount ? [`--nproc=${at(limits.processes, "nproc")}`] : []),
      `--cpu=${at(limits.cpuSeconds, "cpu")}`,
      `--fsize=${at(limits.fileSize, "fsize")}`,
      `--nofile=${at(limits.openFiles, "nofile")}`,
      "--",
    ];
  }
  const bash = find("bash");
  if (!bash) return undefined;
  return [bash, "-c", ulimitScript(limits, { os, ownCount }), "svc-limits"];
}

/** svc's own hard limits (what a child may at most be given), Infinity for unlimited. */
export interface HardLimits {
  data?: number;
  nproc?: number;
  cpu?: number;
  fsize?: number;
  nofile?: number;
}

/** Where `limitPrefix` runs: the OS (`Deno.build.os`) and how a program is found on PATH. */
export interface LimitHost {
  os?: string;
  find?: (program: string) => string | null;
  /** svc's hard limits (`hardLimits()`); a limit above one is lowered to it. */
  hard?: HardLimits;
  /**
   * The command has a user namespace of its own (the sandbox), where the process limit counts
   * only its processes; outside one RLIMIT_NPROC counts every process of the user, so it is left
   * out rather than stop a command of someone with 600 processes running.
   */
  ownCount?: boolean;
}

let known: Promise<HardLimits> | undefined;

/** svc's own hard limits, read once with `prlimit` (Linux); none known elsewhere. */
export function hardLimits(): Promise<HardLimits> {
  known ??= readHardLimits();
  return known;
}

async function readHardLimits(): Promise<HardLimits> {
  const prlimit = Deno.build.os === "linux" ? which("prlimit") : null;
  if (!prlimit) return {};
  try {
    const out = await new Deno.Command(prlimit, {
      args: ["--raw", "--noheadings", "--output=RESOURCE,HARD", `--pid=${Deno.pid}`],
      stdin: "null",
      stderr: "null",
    }).output();
    const hard: HardLimits = {};
    for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
      const [name, value] = line.trim().split(/\s+/);
      const key = name?.toLowerCase() as keyof HardLimits;
      if (!["data", "nproc", "cpu", "fsize", "nofile"].includes(key)) continue;
      hard[key] = value === "unlimited" ? Infinity : Number(value);
    }
    return hard;
  } catch {
    return {};
  }
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
  { os = Deno.build.os, ownCount = true }: LimitHost = {},
): string {
  const kib = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));
  const set: [string, number][] = [["-d", kib(limits.memory)]];
  if (os !== "darwin" && ownCount) set.push(["-u", limits.processes]);
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
