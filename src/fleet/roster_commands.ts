/**
 * `svc fleet init, add, remove, enable, disable`: roster changes, and the trust the agent folders
 * need, said on standard output (notes on standard error).
 */
import { configPaths } from "../config/load.ts";
import { isTrusted, setTrusted } from "../config/trust.ts";
import { UsageError } from "../shared/usage_error.ts";
import { pathExists } from "../util/fs.ts";
import { join } from "../util/posix_path.ts";
import { FleetError } from "./daemon.ts";
import {
  AGENT_NAME,
  type AgentDef,
  agentDir,
  fleetPaths,
  loadRoster,
  rosterDir,
  updateRoster,
} from "./roster.ts";

const say = (text: string) => console.log(text);
const note = (text: string) => console.error(text);

/** `trust: false` (`--no-trust`) leaves new agent folders untrusted. */
export interface TrustOption {
  trust: boolean;
}

/** The roster entry named `name`, or a FleetError listing the names. */
export async function agentNamed(root: string, name: string): Promise<AgentDef> {
  const roster = await loadRoster(root);
  const def = roster.agents.find((a) => a.name === name);
  if (def) return def;
  const names = roster.agents.map((a) => a.name).join(", ") || "none; run svc fleet init or add";
  throw new FleetError(`no agent named ${name} in ${fleetPaths(root).roster} (agents: ${names})`);
}

/**
 * Fleet folders are configured by the operator, so their `.svc/config.json` must apply in full:
 * record them in the same trust list as `svc trust` (and say so), unless `trust` is false.
 */
async function trustFolders(dirs: string[], options: TrustOption): Promise<void> {
  for (const dir of dirs) {
    if (await isTrusted(dir)) continue;
    if (!options.trust) {
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

/** `fleet init`: adds every subfolder of `root` holding `.svc/config.json` to the roster. */
export async function initRoster(root: string, options: TrustOption): Promise<number> {
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
  await trustFolders(added.map((name) => join(root, name)), options);
  if (added.length) {
    say("start them with: svc fleet up --detach (or svc fleet up in the foreground)");
  }
  return 0;
}

/** Options of `fleet add`. */
export interface AddAgentOptions extends TrustOption {
  /** The agent folder (default: `<root>/<name>`). */
  dir?: string;
  port?: number;
  maxRestarts?: number;
  disabled?: boolean;
}

/** `fleet add <name>`: one agent into the roster. */
export async function addAgent(
  root: string,
  name: string,
  options: AddAgentOptions,
): Promise<number> {
  if (!AGENT_NAME.test(name)) {
    throw new UsageError(
      `agent name ${JSON.stringify(name)}: use 1-64 letters, digits, _, . or -, starting with a ` +
        "letter or digit",
    );
  }
  const { port } = options;
  const wanted = options.dir ?? join(root, name);
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
      enabled: !options.disabled,
      max_restarts: options.maxRestarts ?? 10,
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
  await trustFolders([dir], options);
  return 0;
}

/** `fleet remove <name>`: out of the roster; a running supervisor stops it at its next sweep. */
export async function removeAgent(root: string, name: string): Promise<number> {
  await agentNamed(root, name);
  await updateRoster(root, (roster) => {
    roster.agents = roster.agents.filter((a) => a.name !== name);
  });
  say(`removed ${name} from ${fleetPaths(root).roster}; a running supervisor stops it`);
  return 0;
}

/** `fleet enable <name>` and `fleet disable <name>`: the roster's `enabled`. */
export async function setAgentEnabled(
  root: string,
  { name, enabled }: { name: string; enabled: boolean },
): Promise<number> {
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
