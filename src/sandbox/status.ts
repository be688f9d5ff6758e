/**
 * What `svc sandbox status` reports: the sandbox this machine runs (or why none does and the fix),
 * whether commands of a worktree run in it, and what one would see: the writable, read-only and
 * hidden paths, the network rule and the limits. Found as planCommand finds them, creating
 * nothing in the worktree.
 */
import type { SandboxSettings } from "./settings.ts";
import type { SandboxMode } from "../config/keys.ts";
import { type SandboxKind, sandboxKind } from "./probe.ts";
import { sandboxLayout } from "./layout.ts";
import { appliedLimits, limitPrefix, unappliedLimits } from "./limits.ts";
import { basename } from "../util/posix_path.ts";
import { sizeText } from "../util/size.ts";

/** `svc sandbox status --json`. */
export interface SandboxStatus {
  worktree: string;
  /** The sandbox of this machine, or why none runs and how to fix it. */
  sandbox:
    | { available: true; kind: "bubblewrap" | "seatbelt"; program: string }
    | { available: false; reason: string; fix: string };
  mode: SandboxMode;
  /** The config names the mode (else workspace-write, the default). */
  modeChosen: boolean;
  failIfUnavailable: boolean;
  /** What happens to a command: run in the sandbox, refused, or run with the user's rights. */
  commands: "sandboxed" | "refused" | "unsandboxed";
  /** Why commands are not sandboxed, when they are not. */
  why?: string;
  /** The paths below are what the sandbox enforces; null when commands are not sandboxed. */
  writable: string[] | null;
  readOnly: string[] | null;
  hidden: string[] | null;
  /** Where the private temp folder of each command is seen. */
  temp: string | null;
  network: { rule: string; allowedDomains: string[]; deniedDomains: string[] };
  limits: StatusLimits;
}

/** The limits of one command as status reports them. */
export interface StatusLimits {
  memory: number;
  processes: number;
  /** Null: the command's timeout. */
  cpuSeconds: number | null;
  fileSize: number;
  openFiles: number;
  /** How they are applied: util-linux prlimit, bash's ulimit, or not at all. */
  via: "prlimit" | "ulimit" | "none";
  /** Limits not applied on this system, each with why. */
  notApplied: string[];
}

/** The status of commands run in `worktree` with `settings`. */
export async function sandboxStatus(
  settings: SandboxSettings,
  worktree: string,
): Promise<SandboxStatus> {
  const kind = await sandboxKind();
  const sandbox = kind.ok
    ? { available: true as const, kind: kind.kind, program: kind.program }
    : { available: false as const, reason: kind.reason, fix: kind.fix };
  const { commands, why } = commandFate(settings, kind);
  const temp = kind.ok && kind.kind === "seatbelt"
    ? "$TMPDIR: a new folder for each command"
    : "/tmp: a new folder for each command";
  const layout = commands === "sandboxed"
    ? await sandboxLayout(settings, { worktree, temp, createControlFolders: false })
    : undefined;
  return {
    worktree,
    sandbox,
    mode: settings.mode,
    modeChosen: settings.modeChosen,
    failIfUnavailable: settings.failIfUnavailable,
    commands,
    ...(why === undefined ? {} : { why }),
    writable: layout?.writable ?? null,
    readOnly: layout?.readOnly ?? null,
    hidden: layout ? [...layout.hiddenDirs, ...layout.hiddenFiles] : null,
    temp: layout ? temp : null,
    network: {
      rule: !layout
        ? "unrestricted: no sandbox"
        : layout.shareNetwork
        ? "shared: the command reaches any address the host does"
        : settings.allowedDomains.length
        ? "filtered: only the allowed hosts, through svc's proxy (HTTP and HTTPS clients that " +
          "honour HTTP_PROXY and HTTPS_PROXY)"
        : "none: the command has no network",
      allowedDomains: settings.allowedDomains,
      deniedDomains: settings.deniedDomains,
    },
    limits: statusLimits(settings),
  };
}

/**
 * What happens to a command under `settings` where `kind` is the machine's sandbox: it runs in
 * the sandbox, is refused, or runs with the user's rights (and why).
 */
export function commandFate(
  settings: Pick<SandboxSettings, "mode" | "failIfUnavailable">,
  kind: SandboxKind,
): { commands: SandboxStatus["commands"]; why?: string } {
  if (settings.mode === "danger-full-access") {
    return { commands: "unsandboxed", why: "sandbox.mode is danger-full-access" };
  }
  if (kind.ok) return { commands: "sandboxed" };
  return { commands: settings.failIfUnavailable ? "refused" : "unsandboxed", why: kind.reason };
}

function statusLimits(settings: SandboxSettings): StatusLimits {
  const { limits } = settings;
  const prefix = limitPrefix(appliedLimits(limits, 1));
  const via = !prefix ? "none" : basename(prefix[0]) === "prlimit" ? "prlimit" : "ulimit";
  return {
    memory: limits.memory,
    processes: limits.processes,
    cpuSeconds: limits.cpuSeconds ?? null,
    fileSize: limits.fileSize,
    openFiles: limits.openFiles,
    via,
    notApplied: via === "none"
      ? ["all: neither prlimit nor bash is on PATH"]
      : via === "ulimit"
      ? unappliedLimits()
      : [],
  };
}

/** The status as the lines `svc sandbox status` prints. */
export function statusText(status: SandboxStatus): string {
  const { sandbox } = status;
  const lines = [`worktree: ${status.worktree}`];
  if (sandbox.available) lines.push(`sandbox: ${sandbox.kind} (${sandbox.program})`);
  else lines.push(`sandbox: none: ${sandbox.reason}`, `  to fix it, ${sandbox.fix}`);
  lines.push(
    `mode: ${status.mode}${status.modeChosen ? "" : " (the default: sandbox.mode is not set)"}`,
  );
  if (status.commands === "sandboxed") lines.push("commands: run in the sandbox");
  else if (status.commands === "refused") {
    lines.push(
      `commands: refused (${status.why}; sandbox.failIfUnavailable is true)`,
    );
  } else lines.push(`commands: run with your full rights (${status.why})`);
  const list = (title: string, paths: string[] | null, empty: string) => {
    if (paths === null) return;
    lines.push(`${title}:`, ...(paths.length ? paths.map((path) => `  ${path}`) : [`  ${empty}`]));
  };
  if (status.writable) list("writable", [...status.writable, status.temp!], "");
  list("read-only inside them", status.readOnly, "(none)");
  list("hidden", status.hidden, "(none)");
  const { network } = status;
  lines.push(`network: ${network.rule}`);
  if (network.allowedDomains.length) {
    lines.push(`  sandbox.network.allowedDomains: ${network.allowedDomains.join(", ")}`);
  }
  if (network.deniedDomains.length) {
    lines.push(`  sandbox.network.deniedDomains: ${network.deniedDomains.join(", ")}`);
  }
  lines.push(...limitLines(status.limits));
  return lines.join("\n");
}

function limitLines(limits: StatusLimits): string[] {
  const cpu = limits.cpuSeconds === null ? "the command's timeout" : `${limits.cpuSeconds} s`;
  return [
    `limits (${limits.via === "none" ? "not applied" : `applied with ${limits.via}`}):`,
    `  memory ${sizeText(limits.memory)} per process`,
    `  processes ${limits.processes}`,
    `  CPU time ${cpu} per process`,
    `  file size ${sizeText(limits.fileSize)}`,
    `  open files ${limits.openFiles}`,
    ...limits.notApplied.map((line) => `  not applied: ${line}`),
  ];
}
