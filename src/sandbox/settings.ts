/**
 * The sandbox as the config asks for it, resolved for one worktree: the mode, absolute paths
 * (`~` and relative entries expanded), domains and the command limits.
 */
import type { CommandLimitsConfig, Config } from "../config/schema.ts";
import { DEFAULT_COMMAND_LIMITS, type SandboxMode } from "../config/keys.ts";
import { isAbsolute, join, resolve } from "../util/posix_path.ts";
import { sizeBytes } from "../util/size.ts";

/** What one sandboxed command may do (docs/security.md). */
export interface SandboxSettings {
  mode: SandboxMode;
  /** The config named the mode (unset means workspace-write where a sandbox runs). */
  modeChosen: boolean;
  failIfUnavailable: boolean;
  /** Absolute paths writable besides the worktree and the private temp folder. */
  allowWrite: string[];
  /** Absolute paths kept read-only even inside a writable one. */
  denyWrite: string[];
  /** Absolute paths hidden (an empty folder or file in their place). */
  denyRead: string[];
  allowedDomains: string[];
  deniedDomains: string[];
  limits: CommandLimits;
}

/** `limits.command` with every default applied; sizes in bytes. */
export interface CommandLimits {
  memory: number;
  processes: number;
  /** Undefined: the command's timeout. */
  cpuSeconds?: number;
  fileSize: number;
  openFiles: number;
}

/**
 * Secrets in the home folder every sandbox hides besides `sandbox.filesystem.denyRead`: svc's own
 * folder (API keys, trust list, approvals) and the usual credential stores.
 */
export const HIDDEN_HOME_PATHS = [
  ".config/svc",
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".kube",
  ".docker",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
  ".cargo/credentials",
  ".cargo/credentials.toml",
] as const;

/**
 * System folders every sandbox hides: /run holds the sockets of local services (the user's
 * session bus and systemd, through which a command could start a program outside the sandbox,
 * docker or podman, databases), which a new network namespace does not cut off.
 */
export const HIDDEN_SYSTEM_PATHS = ["/run", "/var/run"] as const;

/** The settings `config` gives a command run in `worktree`. */
export function sandboxSettings(
  config: Readonly<Config>,
  worktree: string,
  { home = Deno.env.get("HOME") ?? "" }: { home?: string } = {},
): SandboxSettings {
  const paths = (list: readonly string[]) => list.map((path) => expand(path, worktree, home));
  const hidden = isAbsolute(home) ? HIDDEN_HOME_PATHS.map((path) => join(home, path)) : [];
  return {
    mode: config["sandbox.mode"] ?? "workspace-write",
    modeChosen: config["sandbox.mode"] !== undefined,
    failIfUnavailable: config["sandbox.failIfUnavailable"],
    allowWrite: paths(config["sandbox.filesystem.allowWrite"]),
    denyWrite: paths(config["sandbox.filesystem.denyWrite"]),
    denyRead: [
      ...new Set([
        ...hidden,
        ...HIDDEN_SYSTEM_PATHS,
        ...paths(config["sandbox.filesystem.denyRead"]),
      ]),
    ],
    allowedDomains: [...config["sandbox.network.allowedDomains"]],
    deniedDomains: [...config["sandbox.network.deniedDomains"]],
    limits: commandLimits(config["limits.command"]),
  };
}

/** `limits.command` with its defaults. */
export function commandLimits(config: Readonly<CommandLimitsConfig> = {}): CommandLimits {
  const bytes = (value: number | string | undefined, fallback: number) =>
    value === undefined ? fallback : sizeBytes(value) ?? fallback;
  return {
    memory: bytes(config.memory, DEFAULT_COMMAND_LIMITS.memory),
    processes: config.processes ?? DEFAULT_COMMAND_LIMITS.processes,
    ...(config.cpu_seconds === undefined ? {} : { cpuSeconds: config.cpu_seconds }),
    fileSize: bytes(config.file_size, DEFAULT_COMMAND_LIMITS.file_size),
    openFiles: config.open_files ?? DEFAULT_COMMAND_LIMITS.open_files,
  };
}

/** `~/x` under HOME, a relative path under the worktree, an absolute one as it is. */
function expand(path: string, worktree: string, home: string): string {
  if (path === "~" || path.startsWith("~/")) return join(home || "/", path.slice(1));
  return resolve(worktree, path);
}
