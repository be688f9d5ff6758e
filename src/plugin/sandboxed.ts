/**
 * Loading a global or local plugin into its sandbox: the grant from its manifest, a folder check,
 * the Worker, and its registrations rebuilt on svc's side (tools and commands whose `run` posts
 * a message, checked plain data for the rest). A plugin whose registrations are remembered (see
 * plugin_cache.ts) starts from them, and its Worker only when one of its tools or commands runs.
 */
import type { ToolContext, ToolOutput } from "../tool/types.ts";
import { linkIntoConfig, scanFolder } from "./confine.ts";
import type { Candidate } from "./discover.ts";
import type { PluginGrant } from "./grant.ts";
import type { SandboxSettings } from "../sandbox/settings.ts";
import { configDirOf, grantFor } from "./permissions.ts";
import { cacheable, cacheSlot, readCache, writeCache } from "./plugin_cache.ts";
import type { Registrations } from "./registrars.ts";
import { checkedData } from "./sandbox_data.ts";
import { PluginSandbox } from "./sandbox_host.ts";
import type { RegistrationData } from "./sandbox_protocol.ts";
import {
  type SandboxChannel,
  sandboxedCommand,
  sandboxedHook,
  sandboxedTool,
} from "./sandbox_tools.ts";

/** What runs a sandboxed plugin's tools, commands and hooks, and stops it. */
export interface SandboxHandle extends SandboxChannel {
  stop(reason?: string): void;
}

/** A loaded sandboxed plugin, or why it is errored. */
export type SandboxedOutcome =
  | { registrations: Registrations; sandbox: SandboxHandle }
  | { error: string };

/** How sandboxed plugins load. */
export interface SandboxedOptions {
  /** In milliseconds; `call` is the time limit of one tool call or command (sandbox_host.ts). */
  timeouts: { import: number; hook: number; call?: number };
  /** Where registrations are remembered between runs; null remembers nothing. */
  cacheDir: string | null;
  /** Run the hooks even when registrations are remembered (and remember what they give). */
  fresh?: boolean;
  transport?: "process" | "worker";
  /** The OS sandbox of a plugin granted `run` (plugin_jail.ts); default: the worktree's config. */
  sandbox?: SandboxSettings;
}

/** The grant of a candidate with a manifest in `worktree`, or why it has none. */
export function candidateGrant(
  c: Candidate,
  worktree: string,
): { ok: true; grant: PluginGrant } | { ok: false; error: string } {
  if (!c.manifest) return { ok: false, error: "no manifest" };
  return grantFor(c.manifest, { pluginDir: c.dir, worktree });
}

/** Loads `c` to run in a Worker with exactly its grant; never throws for a bad plugin. */
export async function activateSandboxed(
  c: Candidate,
  worktree: string,
  options: SandboxedOptions,
): Promise<SandboxedOutcome> {
  const granted = candidateGrant(c, worktree);
  if (!granted.ok) return { error: `Not loaded: ${granted.error}` };
  let scan: ReturnType<typeof scanFolder>;
  try {
    scan = scanFolder(c.dir);
  } catch (err) {
    return { error: `Not loaded: its folder cannot be read (${(err as Error).message})` };
  }
  if (scan.problem) return { error: `Not loaded: ${scan.problem}` };
  const grant = granted.grant;
  // Checked at each start (a remembered plugin starts at its first call), not at every svc start.
  const start = () => {
    const link = linkIntoConfig(
      [...new Set([...grant.read.slice(1), ...grant.write])],
      configDirOf(),
      grant.sensitive,
    );
    if (link) return Promise.resolve(`Not loaded: ${link}`);
    return PluginSandbox.start({
      name: c.name,
      entryPath: c.entryPath!,
      grant: granted.grant,
      timeouts: options.timeouts,
      transport: options.transport,
      place: { worktree, settings: options.sandbox },
    });
  };
  const slot = options.cacheDir && c.manifest && cacheable(c.manifest)
    ? await cacheSlot(options.cacheDir, {
      pluginDir: scan.root,
      manifest: c.manifest,
      entries: scan.entries,
      grant: granted.grant,
    })
    : null;
  const cached = slot && !options.fresh ? await readCache(slot) : null;
  if (slot && cached) {
    const lazy = new LazySandbox(c.name, start, async (fresh) => {
      if (JSON.stringify(fresh) !== JSON.stringify(cached)) await writeCache(slot, fresh);
    });
    try {
      return { registrations: rebuild(cached, lazy), sandbox: lazy };
    } catch {
      // a remembered registration svc no longer accepts: load the plugin instead
    }
  }
  const started = await start();
  if (typeof started === "string") return { error: started };
  const { sandbox, registrations: data } = started;
  try {
    const registrations = rebuild(data, sandbox);
    if (slot) await writeCache(slot, data);
    return { registrations, sandbox };
  } catch (err) {
    sandbox.stop("errored");
    return { error: (err as Error).message };
  }
}

/** Registrations on svc's side from their data; throws `<hook> failed: ...` for a bad item. */
function rebuild(data: RegistrationData, channel: SandboxChannel): Registrations {
  const list = <T>(value: unknown) => (Array.isArray(value) ? value as T[] : []);
  const tools = list<Parameters<typeof sandboxedTool>[0]>(data?.tools).map((tool) => {
    try {
      return sandboxedTool(tool, channel);
    } catch (err) {
      throw new Error(`register_tools failed: ${(err as Error).message}`);
    }
  });
  const commands = list<Parameters<typeof sandboxedCommand>[0]>(data?.commands).map((cmd) => {
    try {
      return sandboxedCommand(cmd, channel);
    } catch (err) {
      throw new Error(`register_commands failed: ${(err as Error).message}`);
    }
  });
  const hooks = list<Parameters<typeof sandboxedHook>[0]>(data?.hooks).map((hook) => {
    try {
      return sandboxedHook(hook, channel);
    } catch (err) {
      throw new Error(`register_hooks failed: ${(err as Error).message}`);
    }
  });
  return { ...checkedData(data), tools, commands, hooks };
}

/**
 * A plugin started from remembered registrations: its Worker starts at the first call. When the
 * hooks now register something else, the next start remembers that; a plugin that no longer
 * loads fails its calls with the reason.
 */
class LazySandbox implements SandboxHandle {
  #name: string;
  #start: () => ReturnType<typeof PluginSandbox.start>;
  #loaded: (data: RegistrationData) => Promise<void>;
  #running?: Promise<PluginSandbox | string>;
  #stopped: string | null = null;

  constructor(
    name: string,
    start: () => ReturnType<typeof PluginSandbox.start>,
    loaded: (data: RegistrationData) => Promise<void>,
  ) {
    this.#name = name;
    this.#start = start;
    this.#loaded = loaded;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    ctx: ToolContext,
  ): Promise<ToolOutput> {
    return (await this.#sandbox()).callTool(name, args, ctx);
  }

  async runCommand(name: string, args: string, io: { print(text: string): void }): Promise<void> {
    return (await this.#sandbox()).runCommand(name, args, io);
  }

  async runHook(id: number, input: Record<string, unknown>): Promise<string> {
    return (await this.#sandbox()).runHook(id, input);
  }

  stop(reason = "closed"): void {
    this.#stopped ??= reason;
    this.#running?.then((sandbox) => typeof sandbox !== "string" && sandbox.stop(reason));
  }

  async #sandbox(): Promise<PluginSandbox> {
    if (this.#stopped !== null) throw new Error(`plugin ${this.#name} stopped: ${this.#stopped}`);
    this.#running ??= this.#start().then(async (started) => {
      if (typeof started === "string") return started;
      if (this.#stopped !== null) started.sandbox.stop(this.#stopped);
      else await this.#loaded(started.registrations);
      return started.sandbox;
    });
    const sandbox = await this.#running;
    if (typeof sandbox === "string") {
      throw new Error(`plugin ${this.#name} did not load: ${sandbox}`);
    }
    return sandbox;
  }
}
