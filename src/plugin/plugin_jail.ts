/**
 * The OS sandbox of a plugin's process when its grant includes `run`. A program a plugin starts
 * escapes Deno's permissions, so the whole process (its Worker and everything it spawns) runs
 * inside bubblewrap, laid out as a command svc runs for a model (src/sandbox/): the root
 * read-only, a private /tmp, secrets hidden (svc's own folder, credential stores, denyRead), the
 * network only when the grant includes `net`, and the limits of `limits.command` without a
 * CPU-time limit. What the grant gives stays reachable: its write paths (the worktree when
 * granted) are writable, its read paths, the plugin's own folder (which may lie under
 * `~/.config/svc/plugins`), svc's code and Deno's cache readable even inside a hidden folder.
 * Without `run` nothing changes: Deno's permissions are the whole sandbox.
 */
import type { PluginGrant } from "./grant.ts";
import { type SandboxSettings, sandboxSettings } from "../sandbox/settings.ts";
import { sandboxKind } from "../sandbox/probe.ts";
import { denoDir, type SandboxLayout, sandboxLayout } from "../sandbox/layout.ts";
import { bwrapArgs } from "../sandbox/bwrap.ts";
import { appliedLimits, hardLimits, limitPrefix } from "../sandbox/limits.ts";
import { type CommandLine, unavailableError } from "../sandbox/plan.ts";
import { removeOnExit } from "../tool/long_lived.ts";
import { isInside } from "../util/canonical_path.ts";

/** Where a plugin's process runs: the worktree's sandbox settings (default: from its config). */
export interface JailPlace {
  worktree: string;
  settings?: SandboxSettings;
}

/** A plugin's process ready to start (`jailed`: inside bubblewrap), or why it may not. */
export type JailPlan =
  | { ok: true; line: CommandLine; env: Record<string, string>; jailed: boolean; done(): void }
  | { ok: false; error: string };

/** How the process `line` of a plugin with `grant` starts; `readable` is svc's code. */
export async function jailPlugin(
  line: CommandLine,
  options: { grant: PluginGrant; place: JailPlace; readable: string[] },
): Promise<JailPlan> {
  const plain: JailPlan = { ok: true, line, env: {}, jailed: false, done: () => {} };
  if (!options.grant.run.length) return plain;
  const settings = options.place.settings ?? await configuredSettings(options.place.worktree);
  if (settings.mode === "danger-full-access") return plain;
  const kind = await sandboxKind();
  if (!kind.ok) {
    return settings.failIfUnavailable
      ? { ok: false, error: refusal(unavailableError(kind)) }
      : plain;
  }
  // macOS: the plugin process keeps Deno's permissions only (docs/plugins.md): a Seatbelt
  // profile that shows granted paths inside hidden folders is not built yet.
  if (kind.kind !== "bubblewrap") return plain;
  const temp = await Deno.makeTempDir({ prefix: "svc-sandbox-" });
  const forget = removeOnExit(temp);
  const layout = await pluginLayout(options.grant, { settings, temp, ...options });
  const prefix = limitPrefix(appliedLimits(settings.limits, null), { hard: await hardLimits() }) ??
    [];
  const cwd = layout.hiddenDirs.some((dir) => isInside(dir, Deno.cwd())) ? "/" : Deno.cwd();
  return {
    ok: true,
    line: {
      command: kind.program,
      args: [...jailArgs(layout, cwd), ...prefix, line.command, ...line.args],
    },
    env: { TMPDIR: "/tmp" },
    jailed: true,
    done() {
      forget();
      Deno.remove(temp, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * Why a plugin with `grant` may not run as a Worker in svc's own process (a compiled svc, which
 * cannot start a plugin process, so cannot sandbox one): a program it starts would escape every
 * sandbox. Undefined when it may: no `run` in the grant, or the settings accept no sandbox.
 */
export async function inProcessRefusal(
  grant: PluginGrant,
  place: JailPlace,
): Promise<string | undefined> {
  if (!grant.run.length) return undefined;
  const settings = place.settings ?? await configuredSettings(place.worktree);
  if (settings.mode === "danger-full-access" || !settings.failIfUnavailable) return undefined;
  return refusal(
    "a compiled svc runs plugins inside its own process, where no OS sandbox can hold the " +
      "programs they start; run svc with deno (deno task install), or set " +
      "sandbox.failIfUnavailable to false",
  );
}

function refusal(why: string): string {
  return `Not loaded: its grant includes run (programs it starts escape Deno's permissions), so ` +
    `its process must run in svc's OS sandbox: ${why}`;
}

/** The sandbox settings of `worktree`'s config (what `svc run` there would use). */
async function configuredSettings(worktree: string): Promise<SandboxSettings> {
  const { loadConfigReport } = await import("../config/load.ts");
  return sandboxSettings((await loadConfigReport(worktree)).config, worktree);
}

/** A plugin layout: a command's, with the grant's writes and reads in place of the worktree's. */
interface PluginLayout extends SandboxLayout {
  /** Granted paths inside hidden folders, bound again (read-only unless granted for writing). */
  shown: { path: string; writable: boolean }[];
  /** Granted read paths inside the host's /tmp, which the private /tmp covers: bound read-only. */
  inTmp: string[];
}

async function pluginLayout(
  grant: PluginGrant,
  options: { settings: SandboxSettings; temp: string; place: JailPlace; readable: string[] },
): Promise<PluginLayout> {
  const { settings, temp, place } = options;
  const writes = new Set(await canonicalAll(grant.write));
  const worktree = await Deno.realPath(place.worktree).catch(() => place.worktree);
  // Control folders matter (and are made, to be bound read-only) only in a writable worktree.
  const writesWorktree = [...writes].some((path) => isInside(path, worktree));
  const layout = await sandboxLayout({ ...settings, mode: "workspace-write", allowWrite: [] }, {
    worktree: place.worktree,
    temp,
    shareNetwork: grant.net === "any" || grant.net.length > 0,
    createControlFolders: writesWorktree,
  });
  if (!writesWorktree) layout.readOnly = layout.readOnly.filter((p) => !isInside(worktree, p));
  // The worktree only when granted; the grant's other write paths (allowWrite is for commands).
  layout.writable = [...layout.writable.filter((path) => writes.has(path))];
  for (const path of writes) if (!layout.writable.includes(path)) layout.writable.push(path);
  // With the network, name resolution (/etc/resolv.conf may lead into the hidden /run).
  const resolver = grant.net === "any" || grant.net.length > 0 ? ["/run/systemd/resolve"] : [];
  const reads = await canonicalAll([...grant.read, ...options.readable, denoDir(), ...resolver]);
  const inTmp = reads.filter((path) =>
    isInside("/tmp", path) && !layout.writable.some((dir) => isInside(dir, path))
  );
  const hidden = [...layout.hiddenDirs, ...layout.hiddenFiles];
  const shown = [...new Set([...reads, ...writes])]
    .filter((path) => hidden.some((dir) => isInside(dir, path)))
    .map((path) => ({ path, writable: writes.has(path) }));
  // A granted path that is itself hidden is shown whole (its writable or read-only bind stays).
  const whole = (path: string) => !shown.some((s) => s.path === path);
  layout.hiddenDirs = layout.hiddenDirs.filter(whole);
  layout.hiddenFiles = layout.hiddenFiles.filter(whole);
  return { ...layout, shown: shown.filter((s) => !hidden.includes(s.path)), inTmp };
}

/**
 * bwrap's arguments for `layout`: those of a command, with each hidden folder's granted paths
 * bound inside its empty tmpfs before the tmpfs is made read-only.
 */
function jailArgs(layout: PluginLayout, cwd: string): string[] {
  const base = bwrapArgs({ ...layout, hiddenDirs: [], hiddenFiles: [] }, cwd);
  const tail = base.splice(base.lastIndexOf("--chdir"));
  for (const path of layout.inTmp) base.push("--ro-bind", path, path);
  for (const dir of layout.hiddenDirs) {
    base.push("--tmpfs", dir);
    for (const { path, writable } of layout.shown) {
      if (path !== dir && isInside(dir, path)) {
        base.push(writable ? "--bind" : "--ro-bind", path, path);
      }
    }
    base.push("--remount-ro", dir);
  }
  for (const file of layout.hiddenFiles) base.push("--ro-bind", "/dev/null", file);
  return [...base, ...tail];
}

async function canonicalAll(paths: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    try {
      out.push(await Deno.realPath(path));
    } catch {
      // a granted path that does not exist has nothing to bind
    }
  }
  return out;
}
