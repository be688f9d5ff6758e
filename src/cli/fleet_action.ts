/**
 * `svc fleet`: the roster commands (init, add, remove, enable, disable, config), the supervisor
 * commands (up, down, restart) and what reads its state (status, logs).
 */
import { join, relative } from "../util/path.ts";
import { configPaths } from "../config/load.ts";
import { isTrusted, setTrusted } from "../config/trust.ts";
import {
  AGENT_NAME,
  type AgentDef,
  agentDir,
  agentLogPath,
  type AgentReport,
  detachSupervisor,
  FleetError,
  fleetPaths,
  fleetStatus,
  followFile,
  loadRoster,
  readState,
  requestRestart,
  rosterDir,
  runSupervisor,
  stopFleet,
  tailLines,
  tuningFromEnv,
  updateRoster,
} from "../fleet/mod.ts";
import { Runtime } from "../runtime/runtime.ts";
import { resolveWorktree } from "../runtime/worktree.ts";
import { ACTIONS, CATEGORIES } from "../shared/types.ts";
import { pathExists } from "../util/fs.ts";
import { writeConfigKeys } from "../config/write.ts";
import { UsageError } from "./usage.ts";
import { delay } from "../util/time.ts";

/** `--path`: the fleet root (default: the current directory). */
export interface FleetScope {
  path?: string;
}

/** `--no-trust` gives `trust: false`. */
export interface TrustFlag {
  trust: boolean;
}

const say = (text: string) => console.log(text);
const note = (text: string) => console.error(text);

function rootOf(flags: FleetScope): string {
  return resolveWorktree(flags.path);
}

/** The roster entry named `name`, or a FleetError listing the names. */
async function agentNamed(root: string, name: string): Promise<AgentDef> {
  const roster = await loadRoster(root);
  const def = roster.agents.find((a) => a.name === name);
  if (def) return def;
  const names = roster.agents.map((a) => a.name).join(", ") || "none; run svc fleet init or add";
  throw new FleetError(`no agent named ${name} in ${fleetPaths(root).roster} (agents: ${names})`);
}

/**
 * Fleet folders are configured by the operator, so their `.svc/config.json` must apply in full:
 * record them in the same trust list as `svc trust` (and say so), unless `--no-trust`.
 */
async function trustFolders(dirs: string[], flags: TrustFlag): Promise<void> {
  for (const dir of dirs) {
    if (await isTrusted(dir)) continue;
    if (!flags.trust) {
      note(
        `note: ${dir} is not trusted: its .svc/config.json may only tighten the policy ` +
          `(svc trust ${dir} to change that)`,
      );
      continue;
    }
    await setTrusted(dir);
    say(
      `trusted ${dir} (as svc trust does): its .svc/config.json applies in full; ` +
        `undo with svc trust --remove ${dir}`,
    );
  }
}

/** `fleet init`: adds every subfolder holding `.svc/config.json` to the roster. */
export async function init(flags: FleetScope & TrustFlag): Promise<number> {
  const root = rootOf(flags);
  const found: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    if (!entry.isDirectory || entry.name.startsWith(".")) continue;
    if (await pathExists(join(root, entry.name, ".svc", "config.json"))) found.push(entry.name);
  }
  found.sort();
  const skipped = found.filter((name) => !AGENT_NAME.test(name));
  const { added, kept } = await updateRoster(root, (roster) => {
    const added: string[] = [];
    const kept: string[] = [];
    for (const name of found.filter((n) => AGENT_NAME.test(n))) {
      const dir = join(root, name);
      const known = roster.agents.find((a) => a.name === name || agentDir(root, a) === dir);
      if (known) {
        kept.push(name);
        continue;
      }
      roster.agents.push({ name, dir: name, enabled: true, max_restarts: 10 });
      added.push(name);
    }
    return { added, kept };
  });
  const path = fleetPaths(root).roster;
  for (const name of skipped) {
    note(
      `note: skipped ${name}: an agent name must be letters, digits, _, . or -; use svc fleet add`,
    );
  }
  if (added.length) say(`added ${added.join(", ")} to ${path}`);
  if (kept.length) say(`already in the roster: ${kept.join(", ")}`);
  if (!found.length) {
    say(
      `no subfolder of ${root} holds .svc/config.json; configure one (svc config set provider ` +
        `<p> --path <folder>) or add an agent with svc fleet add <name> --dir <folder>`,
    );
  }
  await trustFolders(added.map((name) => join(root, name)), flags);
  if (added.length) {
    say("start them with: svc fleet up --detach (or svc fleet up in the foreground)");
  }
  return 0;
}

/** Flags of `fleet add`. */
export interface AddFlags extends FleetScope, TrustFlag {
  dir?: string;
  port?: string;
  maxRestarts?: string;
  disabled?: boolean;
}

/** `fleet add <name> --dir <dir> --port <n>`. */
export async function add(name: string, flags: AddFlags): Promise<number> {
  const root = rootOf(flags);
  if (!AGENT_NAME.test(name)) {
    throw new UsageError(
      `agent name ${JSON.stringify(name)}: use 1-64 letters, digits, _, . or -, starting with a ` +
        "letter or digit",
    );
  }
  const port = flags.port === undefined ? undefined : integer(flags.port, "--port", 1, 65535);
  const maxRestarts = flags.maxRestarts === undefined
    ? undefined
    : integer(flags.maxRestarts, "--max-restarts", 0, Number.MAX_SAFE_INTEGER);
  const wanted = flags.dir ?? join(root, name);
  if (!(await Deno.stat(wanted).then((i) => i.isDirectory, () => false))) {
    throw new FleetError(
      `the agent folder ${wanted} does not exist; create it (mkdir -p ${wanted}) and configure it ` +
        `(svc fleet config ${name} ... after adding)`,
    );
  }
  const dir = Deno.realPathSync(wanted);
  await updateRoster(root, (roster) => {
    if (roster.agents.some((a) => a.name === name)) {
      throw new FleetError(
        `agent ${name} is already in ${fleetPaths(root).roster}; remove it first (svc fleet ` +
          "remove) or edit the file",
      );
    }
    roster.agents.push({
      name,
      dir: rosterDir(root, dir),
      enabled: !flags.disabled,
      max_restarts: maxRestarts ?? 10,
      ...(port !== undefined ? { prefer_port: port } : {}),
    });
  });
  say(
    `added ${name} (${dir}${port !== undefined ? `, port ${port}` : ""}) to ` +
      `${fleetPaths(root).roster}; a running supervisor starts it at its next sweep`,
  );
  if (!(await pathExists(configPaths(dir).local))) {
    note(
      `note: ${configPaths(dir).local} does not exist; give the agent a model backend: ` +
        `svc fleet config ${name} --provider <p> --model <m>`,
    );
  }
  await trustFolders([dir], flags);
  return 0;
}

/** `fleet remove <name>`: out of the roster; a running supervisor stops it at its next sweep. */
export async function remove(name: string, flags: FleetScope): Promise<number> {
  const root = rootOf(flags);
  await agentNamed(root, name);
  await updateRoster(root, (roster) => {
    roster.agents = roster.agents.filter((a) => a.name !== name);
  });
  say(`removed ${name} from ${fleetPaths(root).roster}; a running supervisor stops it`);
  return 0;
}

/** `fleet enable <name>` and `fleet disable <name>`: the roster's `enabled`. */
export async function setEnabled(
  name: string,
  enabled: boolean,
  flags: FleetScope,
): Promise<number> {
  const root = rootOf(flags);
  await agentNamed(root, name);
  await updateRoster(root, (roster) => {
    for (const agent of roster.agents) if (agent.name === name) agent.enabled = enabled;
  });
  say(
    enabled
      ? `enabled ${name}: a running supervisor starts it with a fresh restart count`
      : `disabled ${name}: a running supervisor stops it and leaves it alone`,
  );
  return 0;
}

/** Flags of `fleet config`. */
export interface ConfigFlags extends FleetScope {
  provider?: string;
  model?: string;
  mode?: "plan" | "build";
  systemPrompt?: string;
  toolsDeny?: string;
  toolPermission?: string;
  type?: string;
  approveModel?: boolean;
}

/**
 * `fleet config <name>`: writes only the keys given into `<dir>/.svc/config.json`. `--type`
 * inlines the type's system_prompt, model and tool_permission (the other flags win over it); an
 * unknown type aborts the write, and so does a model the approval gate refuses.
 */
export async function config(name: string, flags: ConfigFlags): Promise<number> {
  const root = rootOf(flags);
  const def = await agentNamed(root, name);
  const dir = agentDir(root, def);
  const patch: Record<string, unknown> = {};
  let runtime: Runtime | undefined;
  const load = async () => runtime ??= await Runtime.load({ path: dir });
  try {
    if (flags.type !== undefined) {
      const catalog = await (await load()).catalog();
      const type = catalog.types.get(flags.type);
      if (!type) {
        const names = [...catalog.types.keys()].sort().join(", ");
        throw new FleetError(
          `unknown type "${flags.type}" (available types: ${names}); nothing was written`,
        );
      }
      patch.system_prompt = type.system_prompt;
      if (type.model) patch.model = type.model;
      for (const [category, action] of Object.entries(type.tool_permission ?? {})) {
        patch[`tool_permission.${category}`] = action;
      }
    }
    if (flags.provider !== undefined) patch.provider = flags.provider;
    if (flags.model !== undefined) patch.model = flags.model;
    if (flags.mode !== undefined) patch.mode = flags.mode;
    if (flags.systemPrompt !== undefined) patch.system_prompt = flags.systemPrompt;
    if (flags.toolsDeny !== undefined) {
      patch["tools.deny"] = flags.toolsDeny.split(",").map((t) => t.trim()).filter(Boolean);
    }
    if (flags.toolPermission !== undefined) {
      Object.assign(patch, parseToolPermission(flags.toolPermission));
    }
    if (Object.keys(patch).length === 0 && !flags.approveModel) {
      throw new UsageError(
        "give at least one of --provider, --model, --mode, --system-prompt, --tools-deny, " +
          "--tool-permission, --type",
      );
    }
    let warning: string | undefined;
    if (patch.model !== undefined || patch.provider !== undefined || flags.approveModel) {
      warning = await checkModel(await load(), patch, flags);
    }
    const path = configPaths(dir).local;
    if (Object.keys(patch).length) {
      const { problems } = await writeConfigKeys(path, patch);
      say(`wrote ${Object.keys(patch).join(", ")} to ${path}`);
      for (const problem of problems) note(`note: ${problem}`);
      say(`the agent reads it when it starts: svc fleet restart ${name}`);
    }
    if (warning) note(`note: ${warning}`);
    if (!(await isTrusted(dir))) {
      note(
        `note: ${dir} is not trusted, so this config may only tighten the policy; ` +
          `svc trust ${dir} lets it apply in full`,
      );
    }
    return 0;
  } finally {
    runtime?.plugins.close();
  }
}

/**
 * The model approval gate for the model the agent will use: a `--model` is the operator's
 * choice (approved and recorded, as `svc config set model` does), a model only the type names
 * needs `--approve-model` (or an earlier approval). A refused model throws (nothing is written);
 * a backend that cannot be resolved yet is only a warning.
 */
async function checkModel(
  runtime: Runtime,
  patch: Record<string, unknown>,
  flags: ConfigFlags,
): Promise<string | undefined> {
  try {
    const connection = await runtime.connect({
      provider: patch.provider as string | undefined,
      model: patch.model as string | undefined,
      modelFrom: flags.model !== undefined ? "flag" : "type",
      approveModel: flags.approveModel,
    });
    if (flags.approveModel || flags.model !== undefined) {
      say(`approved ${connection.provider}/${connection.model} for headless runs`);
    }
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    if (message.startsWith("model not approved")) {
      throw new FleetError(`${message}; nothing was written`);
    }
    return `the agent cannot reach a model yet: ${message}`;
  }
}

/** `edit=deny,bash=ask` or a JSON object, as `tool_permission.<category>` keys. */
function parseToolPermission(text: string): Record<string, unknown> {
  let entries: Array<[string, unknown]>;
  if (text.trim().startsWith("{")) {
    try {
      entries = Object.entries(JSON.parse(text));
    } catch (err) {
      throw new UsageError(`--tool-permission: not valid JSON (${(err as Error).message})`);
    }
  } else {
    entries = text.split(",").filter((part) => part.trim()).map((part) => {
      const [key, value] = part.split("=").map((s) => s.trim());
      return [key, value];
    });
  }
  const patch: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    if (key === "bash_allow" && Array.isArray(value)) {
      patch[`tool_permission.${key}`] = value;
      continue;
    }
    if (!(CATEGORIES as readonly string[]).includes(key)) {
      throw new UsageError(
        `--tool-permission: unknown category ${JSON.stringify(key)} (categories: ` +
          `${CATEGORIES.join(", ")}; bash_allow as a JSON list)`,
      );
    }
    if (!(ACTIONS as readonly unknown[]).includes(value)) {
      throw new UsageError(
        `--tool-permission: ${key} must be one of ${ACTIONS.join(", ")}, not ${
          JSON.stringify(value)
        }`,
      );
    }
    patch[`tool_permission.${key}`] = value;
  }
  return patch;
}

/** `fleet up [--detach]`. */
export async function up(flags: FleetScope & { detach?: boolean }): Promise<number> {
  const root = rootOf(flags);
  const tuning = tuning_();
  if (flags.detach) {
    const { pid, log } = await detachSupervisor(root);
    say(
      `svc fleet: supervisor started in the background (pid ${pid}, log ${log}); ` +
        "svc fleet status shows the agents, svc fleet down stops them",
    );
    return 0;
  }
  await runSupervisor(root, tuning);
  return 0;
}

function tuning_() {
  try {
    return tuningFromEnv((name) => Deno.env.get(name));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** `fleet down`: the supervisor and every agent stopped. */
export async function down(flags: FleetScope): Promise<number> {
  const root = rootOf(flags);
  const report = await stopFleet(root, tuning_());
  if (report.supervisor) say(`stopped the fleet supervisor (pid ${report.supervisor})`);
  else say(`no fleet supervisor was running for ${root}`);
  if (report.leftovers.length) {
    say(`stopped agents it had left running: ${report.leftovers.join(", ")}`);
  }
  return 0;
}

/** `fleet restart [name|all]`: resets backoff and counter and relaunches. */
export async function restart(name: string | undefined, flags: FleetScope): Promise<number> {
  const root = rootOf(flags);
  const target = name ?? "all";
  if (target !== "all" && !(await agentNamed(root, target)).enabled) {
    throw new FleetError(`${target} is disabled; svc fleet enable ${target} starts it`);
  }
  await requestRestart(root, target);
  const deadline = Date.now() + tuning_().sweepMs * 3 + 10_000;
  while (Date.now() < deadline) {
    const { state } = await readState(root);
    if (!state.requests.some((r) => r.agent === target)) {
      say(`restarting ${target === "all" ? "every agent" : target}`);
      return 0;
    }
    await delay(100);
  }
  say(`restart of ${target} requested; the supervisor has not taken it yet`);
  return 0;
}

/** `fleet status [--json]`. */
export async function status(flags: FleetScope & { json?: boolean }): Promise<number> {
  const root = rootOf(flags);
  const report = await fleetStatus(root);
  for (const warning of report.warnings) note(`warning: ${warning}`);
  const supervisor = report.supervisor
    ? `supervisor: running (pid ${report.supervisor.pid}, since ${report.supervisor.started_at})`
    : "supervisor: not running (svc fleet up starts it)";
  if (flags.json) {
    note(supervisor);
    say(JSON.stringify(report.agents, null, 2));
    return 0;
  }
  say(supervisor);
  if (report.agents.length === 0) {
    say(`no agents in ${fleetPaths(root).roster}; svc fleet init or svc fleet add adds them`);
    return 0;
  }
  say(table(report.agents, Date.now()));
  for (const agent of report.agents) {
    const troubled = ["starting", "backoff", "crashed", "stopping"].includes(agent.state);
    if (agent.last_error && troubled) say(`${agent.name}: ${agent.last_error}`);
    if (!agent.trusted) {
      say(
        `${agent.name}: folder not trusted, its .svc/config.json may only tighten the policy ` +
          `(svc trust ${agent.dir})`,
      );
    }
  }
  return 0;
}

function table(agents: AgentReport[], now: number): string {
  const rows = agents.map((a) => [
    a.name,
    a.state,
    a.health,
    a.pid === null ? "-" : String(a.pid),
    a.port === null ? "-" : String(a.port),
    a.max_restarts ? `${a.restarts}/${a.max_restarts}` : String(a.restarts),
    lastExit(a, now),
    a.next_retry ? `in ${Math.max(0, Math.ceil((Date.parse(a.next_retry) - now) / 1000))} s` : "-",
  ]);
  const head = ["NAME", "STATE", "HEALTH", "PID", "PORT", "RESTARTS", "LAST EXIT", "NEXT RETRY"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [head, ...rows].map((row) =>
    row.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd()
  )
    .join("\n");
}

function lastExit(agent: AgentReport, now: number): string {
  const exit = agent.last_exit;
  if (!exit) return "-";
  const how = exit.signal ? exit.signal : exit.code === null ? "exited" : `code ${exit.code}`;
  const ago = Math.max(0, Math.round((now - Date.parse(exit.at)) / 1000));
  return `${how} (${ago} s ago)`;
}

/** `fleet logs <name> [n] [-f]`. */
export async function logs(
  name: string,
  count: string | undefined,
  flags: FleetScope & { follow?: boolean },
): Promise<number> {
  const root = rootOf(flags);
  const lines = count === undefined ? 50 : integer(count, "n", 0, 1_000_000);
  const def = await agentNamed(root, name);
  const path = agentLogPath(root, def);
  let size = 0;
  try {
    size = (await Deno.stat(path)).size;
    const tail = await tailLines(path, lines);
    if (tail.length) say(tail.join("\n"));
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    if (!flags.follow) {
      note(`${name} has no log yet (${relative(Deno.cwd(), path) || path})`);
      return 0;
    }
  }
  if (!flags.follow) return 0;
  const controller = new AbortController();
  const stop = () => controller.abort();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  const encoder = new TextEncoder();
  try {
    await followFile(path, size, (text) => {
      Deno.stdout.writeSync(encoder.encode(text));
    }, controller.signal);
  } finally {
    Deno.removeSignalListener("SIGINT", stop);
    Deno.removeSignalListener("SIGTERM", stop);
  }
  return 0;
}

function integer(text: string, what: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new UsageError(`${what} must be an integer from ${min} to ${max}, not "${text}"`);
  }
  return value;
}
