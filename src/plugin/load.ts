import { BUNDLED_PLUGINS } from "../config/keys.ts";
import type { PluginHookDef, ServiceDef } from "./api.ts";
import { pathToFileURL } from "../util/file_url.ts";
import {
  type Candidate,
  discoverPlugins,
  pluginCacheDir,
  type PluginOrigin,
  type RootOptions,
} from "./discover.ts";
import type { PluginGrant } from "./grant.ts";
import {
  emptyRegistrations,
  HOOKS,
  makeRegistrar,
  mergeRegistrations,
  type Registrations,
} from "./registrars.ts";
import type { SandboxHandle } from "./sandboxed.ts";
import { startTimer } from "../util/timer.ts";

/** Status of a plugin after loading. */
export type PluginStatus = "loaded" | "disabled" | "skipped" | "errored";

/** One plugin as `svc plugins list` shows it. A listed name found nowhere has null origin and dir. */
export interface PluginInfo {
  name: string;
  version: string;
  origin: PluginOrigin | null;
  dir: string | null;
  status: PluginStatus;
  message: string;
  /**
   * Deno permissions: `all` for a bundled plugin (in-process, fully trusted), the Worker's grant
   * for a global or local one, null when unknown (no valid manifest, or not read).
   */
  permissions: PluginGrant | "all" | null;
}

/** Options of `loadPlugins`: the roots plus the config `plugins` list (empty loads all). */
export interface LoadOptions extends RootOptions {
  names: readonly string[];
  /** Required here: every loader decides whether the worktree's own plugins may run. */
  trustLocal: boolean;
  /** Longest wait for one entry import or one hook, in milliseconds (default 30 s and 10 s). */
  timeoutMs?: number;
  /** Time limit of one sandboxed plugin's tool call or command, in milliseconds (default 600 s). */
  callTimeoutMs?: number;
  /**
   * Run every sandboxed plugin's hooks now instead of starting from remembered registrations
   * (`svc plugins list` shows real statuses); what they register is remembered all the same.
   */
  fresh?: boolean;
  /**
   * Where sandboxed plugins' Workers run: each in a child process (the default under `deno`), or
   * in svc's own process (the only way in a compiled binary; see sandbox_transport.ts).
   */
  transport?: "process" | "worker";
  /**
   * The OS sandbox a plugin granted `run` runs its process in (src/plugin/plugin_jail.ts);
   * default: `sandboxSettings` of the worktree's config, read when such a plugin starts.
   */
  sandbox?: import("../sandbox/settings.ts").SandboxSettings;
}

/** What `loadPlugins` returns: every plugin's status and everything the loaded ones registered. */
export interface LoadResult extends Registrations {
  plugins: PluginInfo[];
  /** The plugin that registered each tool, by tool name. */
  owners: Map<string, string>;
  /** The plugin that registered each service. */
  serviceOwners: Map<ServiceDef, string>;
  /** The hooks plugins registered, each with its plugin. */
  pluginHooks: { plugin: string; hook: PluginHookDef }[];
  /** Stops the Workers of sandboxed plugins (their tools fail afterwards); idempotent. */
  close(): void;
}

/**
 * Discovers plugins, loads the enabled ones in parallel and runs their hooks: bundled plugins
 * in-process, global and local ones each in a Worker with exactly its manifest's permissions.
 * Never throws for a bad plugin: a failing import or hook marks it `errored` and drops its
 * registrations. Call `close()` on the result when its tools are no longer needed.
 */
export async function loadPlugins(options: LoadOptions): Promise<LoadResult> {
  const candidates = await discoverPlugins(options);
  const wanted = new Set(options.names);
  const enabled = (c: Candidate) => c.state === "ok" && (wanted.size === 0 || wanted.has(c.name));
  const timeouts = { import: options.timeoutMs ?? 30_000, hook: options.timeoutMs ?? 10_000 };
  const active = candidates.filter(enabled);
  const sandboxes: SandboxHandle[] = [];
  const sandboxed = {
    timeouts: { ...timeouts, call: options.callTimeoutMs },
    cacheDir: pluginCacheDir(options),
    fresh: options.fresh === true,
    transport: options.transport,
    sandbox: options.sandbox,
  };
  const loading = new Map<Candidate, Promise<Registrations | string>>();
  // The sandbox (and the zod schemas that check what a Worker sends) loads only when a global
  // or local plugin is there.
  const sandbox = candidates.some((c) => c.origin !== "bundled" && c.manifest)
    ? await import("./sandboxed.ts")
    : null;
  // Sandboxed plugins first: their Workers boot on other threads while svc's own thread imports
  // the bundled plugins. Registrations still merge in discovery order.
  for (const c of active.filter((c) => c.origin !== "bundled")) {
    loading.set(
      c,
      sandbox!.activateSandboxed(c, options.worktree, sandboxed).then((outcome) => {
        if ("error" in outcome) return outcome.error;
        sandboxes.push(outcome.sandbox);
        return outcome.registrations;
      }),
    );
  }
  for (const c of active.filter((c) => c.origin === "bundled")) {
    loading.set(c, activate(c, timeouts));
  }
  const outcomes = await Promise.all(active.map((c) => loading.get(c)!));
  const result = emptyLoadResult();
  result.close = () => sandboxes.forEach((sandbox) => sandbox.stop());
  const errors = new Map<Candidate, string>();
  active.forEach((candidate, i) => {
    const outcome = outcomes[i];
    if (typeof outcome === "string") errors.set(candidate, outcome);
    else {
      mergeRegistrations(result, outcome);
      for (const tool of outcome.tools) result.owners.set(tool.name, candidate.name);
      for (const service of outcome.services) result.serviceOwners.set(service, candidate.name);
      for (const hook of outcome.hooks ?? []) {
        result.pluginHooks.push({ plugin: candidate.name, hook });
      }
    }
  });
  for (const candidate of orderForDisplay(candidates)) {
    const info = describe(candidate, errors, enabled(candidate));
    result.plugins.push({
      ...info,
      permissions: permissionsOf(candidate, options.worktree, sandbox),
    });
  }
  const known = new Set(candidates.map((c) => c.name));
  for (const name of wanted) {
    if (known.has(name)) continue;
    const planned = BUNDLED_PLUGINS.includes(name);
    result.plugins.push({
      name,
      version: "",
      origin: null,
      dir: null,
      // A default bundled name this build does not ship yet is not an error of the user's setup.
      status: planned ? "disabled" : "errored",
      message: planned
        ? "Bundled plugin not shipped in this build yet"
        : "Not found in the bundled, global or local plugin folders",
      permissions: null,
    });
  }
  return result;
}

/** A load result with no plugins and nothing registered. */
export function emptyLoadResult(): LoadResult {
  return {
    plugins: [],
    owners: new Map(),
    serviceOwners: new Map(),
    pluginHooks: [],
    close() {},
    ...emptyRegistrations(),
  };
}

/** What a candidate runs with: everything when bundled, else its grant in this worktree. */
function permissionsOf(
  c: Candidate,
  worktree: string,
  sandbox: typeof import("./sandboxed.ts") | null,
): PluginInfo["permissions"] {
  if (c.origin === "bundled") return "all";
  if (!sandbox || !c.manifest) return null;
  const granted = sandbox.candidateGrant(c, worktree);
  return granted.ok ? granted.grant : null;
}

function describe(
  c: Candidate,
  errors: Map<Candidate, string>,
  enabled: boolean,
): Omit<PluginInfo, "permissions"> {
  const base = { name: c.name, version: c.manifest?.version ?? "", origin: c.origin, dir: c.dir };
  if (c.state === "skipped" || c.state === "errored") {
    return { ...base, status: c.state, message: c.message };
  }
  if (c.state === "shadowed") return { ...base, status: "disabled", message: c.message };
  if (!enabled) {
    return { ...base, status: "disabled", message: "Not in the plugins config list" };
  }
  const error = errors.get(c);
  if (error !== undefined) return { ...base, status: "errored", message: error };
  return { ...base, status: "loaded", message: c.message };
}

/** Sorted by name; within a name the winning copy first, then later roots before earlier ones. */
function orderForDisplay(candidates: Candidate[]): Candidate[] {
  const rank = (c: Candidate) => (c.state === "ok" ? -Infinity : -candidates.indexOf(c));
  return [...candidates].sort((a, b) =>
    a.name === b.name ? rank(a) - rank(b) : a.name < b.name ? -1 : 1
  );
}

/** Imports the entry and runs each exported hook; returns registrations or an error message. */
async function activate(
  c: Candidate,
  timeouts: { import: number; hook: number },
): Promise<Registrations | string> {
  let mod: Record<string, unknown>;
  try {
    const url = pathToFileURL(c.entryPath!).href;
    mod = await withTimeout(import(url), timeouts.import);
  } catch (err) {
    return `Import failed: ${firstLine(err)}`;
  }
  const registrations = emptyRegistrations();
  for (const { hook, kind, key } of HOOKS) {
    const fn = mod[hook];
    if (fn === undefined) continue;
    if (typeof fn !== "function") return `${hook} failed: ${hook} is not a function`;
    const list: unknown[] = [];
    const { registrar, seal } = makeRegistrar(kind, { key, list });
    try {
      await withTimeout(Promise.resolve(fn(registrar)), timeouts.hook);
    } catch (err) {
      return `${hook} failed: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      seal();
    }
    (registrations[kind] as unknown[]).push(...list);
  }
  return registrations;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let cancel = () => {};
  const timeout = new Promise<never>((_, reject) => {
    cancel = startTimer(ms, () => reject(new Error(`timed out after ${ms} ms`)));
  });
  return Promise.race([promise, timeout]).finally(cancel);
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split("\n")[0];
}
