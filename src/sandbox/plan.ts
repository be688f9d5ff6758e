/**
 * How one command svc runs for a model is started: inside the OS sandbox with its limits, or
 * refused with what to do, or (sandbox off or unavailable and allowed) with the limits alone.
 * The one place that turns a command line into the command line that really runs.
 */
import type { SandboxSettings } from "./settings.ts";
import { type SandboxKind, sandboxKind } from "./probe.ts";
import { sandboxLayout } from "./layout.ts";
import { bwrapArgs } from "./bwrap.ts";
import { sandboxNetwork } from "./bridge.ts";
import { seatbeltArgs, UnsafePathError } from "./seatbelt.ts";
import { type AppliedLimits, appliedLimits, hardLimits, limitPrefix } from "./limits.ts";

/** A program and its arguments. */
export interface CommandLine {
  command: string;
  args: string[];
}

/** A command ready to start, and what to undo once it ended. */
export interface PlannedCommand extends CommandLine {
  /** The environment to start it with (the caller's, with TMPDIR of the sandbox). */
  env: Record<string, string>;
  /** Whether the OS sandbox holds it. */
  sandboxed: boolean;
  limits: AppliedLimits;
  /** Said once per process when commands run without a sandbox that was wanted. */
  notice?: string;
  /** Removes the private temp folder; call once the command ended. */
  cleanup(): Promise<void>;
  /** The private temp folder (sandboxed only), for a synchronous removal when svc exits. */
  temp?: string;
}

/** A planned command, or why it may not run. */
export type Plan = { ok: true; command: PlannedCommand } | { ok: false; error: string };

/** Options of `planCommand`. */
export interface PlanOptions {
  settings: SandboxSettings;
  /** The worktree: writable under workspace-write. */
  worktree: string;
  /** Where the command starts (inside the worktree, or the worktree). */
  cwd: string;
  /** Null: a long-lived process (an MCP server) with no timeout, so no CPU-time limit. */
  timeoutS: number | null;
  env: Record<string, string>;
}

let toldUnavailable = false;

/** How `line` runs under `options.settings`. */
export async function planCommand(line: CommandLine, options: PlanOptions): Promise<Plan> {
  const { settings } = options;
  const limits = appliedLimits(settings.limits, options.timeoutS);
  const hard = await hardLimits();
  // Outside a sandbox's user namespace the process limit would count all the user's processes.
  const barePrefix = () => limitPrefix(limits, { hard, ownCount: false }) ?? [];
  if (settings.mode === "danger-full-access") {
    return { ok: true, command: bare(line, barePrefix(), options, limits) };
  }
  const kind = await sandboxKind();
  if (!kind.ok) {
    if (settings.failIfUnavailable) return { ok: false, error: unavailableError(kind) };
    const command = bare(line, barePrefix(), options, limits);
    if (!toldUnavailable) {
      toldUnavailable = true;
      command.notice = `no OS sandbox: ${kind.reason}; commands run with your full rights ` +
        "(sandbox.failIfUnavailable is false)";
    }
    return { ok: true, command };
  }
  const prefix = limitPrefix(limits, { hard }) ?? [];
  if (kind.kind === "seatbelt") return await planSeatbelt(line, options, { prefix, limits });
  const temp = await Deno.makeTempDir({ prefix: "svc-sandbox-" });
  const layout = await sandboxLayout(settings, { worktree: options.worktree, temp });
  // allowedDomains: a filtering proxy for this command alone, reached through a bridge (bridge.ts).
  const network = await sandboxNetwork(settings, temp);
  if (network && !network.ok) {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
    return { ok: false, error: network.error };
  }
  if (network) layout.proxyBind = network.network.bind;
  const bridge = network?.network.prefix ?? [];
  return {
    ok: true,
    command: {
      command: kind.program,
      args: [...bwrapArgs(layout, options.cwd), ...bridge, ...prefix, line.command, ...line.args],
      env: { ...options.env, TMPDIR: "/tmp" },
      sandboxed: true,
      limits,
      cleanup: async () => {
        await network?.network.close();
        await Deno.remove(temp, { recursive: true }).catch(() => {});
      },
      temp,
    },
  };
}

/** Whether commands run with `settings` are held by the OS sandbox, and if not, why. */
export async function sandboxState(
  settings: Pick<SandboxSettings, "mode">,
): Promise<{ holds: boolean; why?: string }> {
  if (settings.mode === "danger-full-access") {
    return { holds: false, why: "sandbox.mode is danger-full-access" };
  }
  const kind = await sandboxKind();
  if (!kind.ok) return { holds: false, why: kind.reason };
  return { holds: true };
}

/**
 * `line` under macOS's sandbox-exec: the layout as a Seatbelt profile, the limits inside it, and
 * TMPDIR the private temp folder itself (Seatbelt cannot show a folder at another path, so the
 * host's /tmp stays read-only where bubblewrap gives a private one). Refused when a path of the
 * layout cannot be written in a profile.
 */
async function planSeatbelt(
  line: CommandLine,
  options: PlanOptions,
  { prefix, limits }: { prefix: string[]; limits: AppliedLimits },
): Promise<Plan> {
  // Canonical, as Seatbelt matches paths: $TMPDIR is under /var, which is /private/var.
  const temp = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-sandbox-" }));
  const cleanup = () => Deno.remove(temp, { recursive: true }).catch(() => {});
  try {
    const layout = await sandboxLayout(options.settings, { worktree: options.worktree, temp });
    // When svc's domain proxy serves allowedDomains, its port goes here: { proxyPort }.
    const [command, ...args] = [...seatbeltArgs(layout, options.cwd), ...prefix, line.command];
    return {
      ok: true,
      command: {
        command,
        args: [...args, ...line.args],
        env: { ...options.env, TMPDIR: temp },
        sandboxed: true,
        limits,
        cleanup,
        temp,
      },
    };
  } catch (err) {
    await cleanup();
    if (err instanceof UnsafePathError) return { ok: false, error: `refused: ${err.message}` };
    throw err;
  }
}

/** The message of a command refused because no sandbox can run. */
export function unavailableError(kind: Extract<SandboxKind, { ok: false }>): string {
  return `refused: this command must run in svc's OS sandbox, and none can run here: ` +
    `${kind.reason}. To fix it, ${kind.fix}. To run commands without a sandbox anyway, set ` +
    `sandbox.failIfUnavailable to false (or sandbox.mode to danger-full-access) in ` +
    `~/.config/svc/config.json`;
}

function bare(
  line: CommandLine,
  prefix: string[],
  options: PlanOptions,
  limits: AppliedLimits,
): PlannedCommand {
  const [command, ...args] = prefix.length ? [...prefix, line.command, ...line.args] : [
    line.command,
    ...line.args,
  ];
  return {
    command,
    args,
    env: options.env,
    sandboxed: false,
    limits,
    cleanup: () => Promise.resolve(),
  };
}
