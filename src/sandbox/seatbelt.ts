/**
 * The macOS sandbox: a layout rendered as a Seatbelt profile for `sandbox-exec`, the counterpart
 * of bwrap.ts. `(deny default)` with what general commands need back (the shape Codex's and
 * Anthropic sandbox-runtime's profiles share): processes may exec, fork and signal their own
 * sandbox, everything is readable except the hidden paths, writes go only to the writable paths,
 * the private temp folder and a few devices, the read-only paths stay read-only inside writable
 * ones, and the network is shut unless the layout shares it (or, for svc's domain proxy, open to
 * its one loopback port). Seatbelt matches canonical paths, which is what layout.ts gives.
 */
import type { SandboxLayout } from "./layout.ts";
import { dirname } from "../util/posix_path.ts";

/** The one sandbox-exec svc runs: never one found on PATH. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** Longest string literal sandbox-exec reads (its reader refuses longer ones). */
const MAX_LITERAL_BYTES = 1024;

/** Options of `seatbeltArgs` and `seatbeltProfile`. */
export interface SeatbeltOptions {
  /**
   * The loopback port of svc's domain proxy (when `sandbox.network.allowedDomains` is used): the
   * one address a command without network may connect to. Ignored when the network is shared.
   */
  proxyPort?: number;
}

/** A path the profile cannot hold: not absolute, a control character, or too long. */
export class UnsafePathError extends Error {
  override name = "UnsafePathError";
}

/**
 * The words that run a command in `layout` on macOS, up to and including `--`: sandbox-exec and
 * its profile. sandbox-exec cannot change folder, so the caller starts it in `cwd`, which must be
 * a path the profile could name. Throws UnsafePathError for a path it cannot hold.
 */
export function seatbeltArgs(
  layout: SandboxLayout,
  cwd: string,
  options: SeatbeltOptions = {},
): string[] {
  sbplString(cwd);
  return [SANDBOX_EXEC, "-p", seatbeltProfile(layout, options), "--"];
}

/** The Seatbelt profile (SBPL) of `layout`. Throws UnsafePathError for a path it cannot hold. */
export function seatbeltProfile(layout: SandboxLayout, options: SeatbeltOptions = {}): string {
  const writable = [...layout.writable, layout.temp].map((path) => `(subpath ${sbplString(path)})`);
  const readOnly = layout.readOnly.map((path) => `(subpath ${sbplString(path)})`);
  const hidden = [
    ...layout.hiddenDirs.map((path) => `(subpath ${sbplString(path)})`),
    ...layout.hiddenFiles.map((path) => `(literal ${sbplString(path)})`),
  ];
  const pinned = ancestorsInside(
    [...layout.readOnly, ...layout.hiddenDirs, ...layout.hiddenFiles],
    [
      ...layout.writable,
      layout.temp,
    ],
  ).map((path) => `(literal ${sbplString(path)})`);
  return [
    ...BASE,
    ...networkRules(layout.shareNetwork, options.proxyPort),
    "; reads: everywhere (the hidden paths are taken back at the end)",
    "(allow file-read*)",
    "; writes: the writable paths and the private temp folder",
    ...rule("allow file-write*", writable),
    ...DEVICES,
    "; read-only paths inside writable ones (control files, denyWrite)",
    ...rule("deny file-write*", readOnly),
    "; a protected path's folders inside a writable one cannot be renamed away and replaced",
    ...rule("deny file-write-unlink", pinned),
    "; hidden paths (secrets, denyRead): last, so no rule above can show them again",
    ...rule("deny file-read* file-write*", hidden),
    "",
  ].join("\n");
}

/**
 * `path` as an SBPL string literal: backslashes and double quotes escaped. A path that is not
 * absolute, holds a control character (a newline or NUL among them: the profile is text and
 * sandbox-exec's reader would take it apart), or is longer than sandbox-exec reads is refused.
 */
export function sbplString(path: string): string {
  const shown = JSON.stringify(path);
  if (!path.startsWith("/")) {
    throw new UnsafePathError(`the sandbox needs an absolute path: ${shown}`);
  }
  for (let i = 0; i < path.length; i++) {
    const code = path.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) {
      throw new UnsafePathError(
        `the macOS sandbox cannot name a path with a control character (a newline, NUL, ...): ` +
          `${shown}; rename it or take it out of the sandbox settings`,
      );
    }
  }
  const escaped = path.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
  if (new TextEncoder().encode(escaped).length > MAX_LITERAL_BYTES) {
    throw new UnsafePathError(`the macOS sandbox cannot name a path this long: ${shown}`);
  }
  return `"${escaped}"`;
}

/** `(<head> filter ...)` over several lines, or nothing for no filters (one would match all). */
function rule(head: string, filters: string[]): string[] {
  if (filters.length === 0) return [];
  return [`(${head}`, ...[...new Set(filters)].map((filter) => `  ${filter}`), ")"];
}

/**
 * The folders above each protected path that lie inside a writable path (that path included):
 * renaming one of them would carry the protected path away and let a command put its own in place.
 */
function ancestorsInside(protectedPaths: string[], writable: string[]): string[] {
  const inside = (path: string) =>
    writable.some((root) => path === root || path.startsWith(root === "/" ? "/" : `${root}/`));
  const found = new Set<string>();
  for (const path of protectedPaths) {
    for (let dir = dirname(path); dir !== "/" && dir !== "."; dir = dirname(dir)) {
      if (inside(dir)) found.add(dir);
    }
  }
  return [...found];
}

/** The network: shared, only svc's proxy on loopback, or none (the default denies it). */
function networkRules(share: boolean, proxyPort: number | undefined): string[] {
  if (share) {
    return [
      "; network: shared with the host",
      "(allow network*)",
      "(allow system-socket)",
      "(allow mach-lookup",
      ...NETWORK_SERVICES.map((name) => `  (global-name "${name}")`),
      ")",
    ];
  }
  if (proxyPort === undefined) return ["; network: none"];
  if (!Number.isInteger(proxyPort) || proxyPort < 1 || proxyPort > 65535) {
    throw new RangeError(`not a TCP port: ${proxyPort}`);
  }
  return [
    "; network: only svc's domain proxy on loopback",
    `(allow network-outbound (remote ip "localhost:${proxyPort}"))`,
  ];
}

/** What every command may do besides files and network. */
const BASE = [
  "(version 1)",
  "(deny default)",
  "; processes: children inherit this profile",
  "(allow process-exec)",
  "(allow process-fork)",
  "(allow process-info* (target same-sandbox))",
  "(allow signal (target same-sandbox))",
  "(allow mach-priv-task-port (target same-sandbox))",
  "; system facts programs read at start (CPU count, page size, OS version, ...)",
  "(allow sysctl-read)",
  '(allow sysctl-write (sysctl-name "kern.tcsm_enable") (sysctl-name "kern.grade_cputype"))',
  "(allow mach-host*)",
  "(allow user-preference-read)",
  "(allow ipc-posix-sem)",
  "(allow ipc-posix-shm)",
  '(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))',
  "(allow system-socket (require-all (socket-domain AF_SYSTEM) (socket-protocol 2)))",
  "; user and group names, the per-user temp and cache folders, logging",
  "(allow mach-lookup",
  '  (global-name "com.apple.system.opendirectoryd.libinfo")',
  '  (global-name "com.apple.system.opendirectoryd.membership")',
  '  (global-name "com.apple.bsd.dirhelper")',
  '  (global-name "com.apple.system.logger")',
  '  (global-name "com.apple.logd")',
  '  (global-name "com.apple.system.notification_center")',
  '  (global-name "com.apple.PowerManagement.control")',
  ")",
  "; pseudo-terminals (script, expect, ssh -t to nowhere)",
  "(allow pseudo-tty)",
  '(allow file-read* file-write* file-ioctl (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$"))',
];

/** Devices every command may write: the null and zero devices, its terminal, its own streams. */
const DEVICES = [
  "; devices",
  "(allow file-write-data file-ioctl",
  '  (literal "/dev/null")',
  '  (literal "/dev/zero")',
  '  (literal "/dev/tty")',
  '  (literal "/dev/dtracehelper")',
  '  (literal "/dev/stdout")',
  '  (literal "/dev/stderr")',
  '  (subpath "/dev/fd")',
  ")",
];

/** Services name resolution and TLS need (system DNS settings, certificate trust). */
const NETWORK_SERVICES = [
  "com.apple.SystemConfiguration.configd",
  "com.apple.SystemConfiguration.DNSConfiguration",
  "com.apple.dnssd.service",
  "com.apple.networkd",
  "com.apple.trustd.agent",
  "com.apple.ocspd",
  "com.apple.SecurityServer",
];
