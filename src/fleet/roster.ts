/**
 * The roster: `<root>/.svc/fleet.json`, the agents an operator wants supervised. Validated with
 * zod on every read (a file that does not parse is reported with its path and never overwritten
 * with defaults) and rewritten crash-safely under its lock.
 */
import { isAbsolute, join, relative, resolve } from "../util/posix_path.ts";
import * as z from "zod";
import { localDir } from "../util/dirs.ts";
import { readJson, updateJson } from "../util/json_file.ts";

/** An agent name: it names the log file and the agent in every command. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const NAME_RULE = "must be 1-64 letters, digits, _, . or -, starting with a letter or digit";

/** Default of `max_restarts`; 0 means unlimited. */
export const DEFAULT_MAX_RESTARTS = 10;

/** One AgentDef (SPEC "Fleet"). */
export const AgentDefSchema = z.strictObject({
  name: z.string().regex(AGENT_NAME, NAME_RULE),
  /** The agent folder, relative to the fleet root or absolute. */
  dir: z.string().min(1),
  enabled: z.boolean().default(true),
  prefer_port: z.number().int().min(1).max(65535).optional(),
  max_restarts: z.number().int().min(0).default(DEFAULT_MAX_RESTARTS),
  /** Replaces `svc serve --host 127.0.0.1 --port <n> --path <dir>` (a test seam). */
  command: z.array(z.string()).min(1).optional(),
});
export type AgentDef = z.infer<typeof AgentDefSchema>;

export const RosterSchema = z.strictObject({
  agents: z.array(AgentDefSchema).default([]),
}).superRefine((roster, ctx) => {
  const seen = new Set<string>();
  roster.agents.forEach((agent, index) => {
    if (seen.has(agent.name)) {
      ctx.addIssue({
        code: "custom",
        path: ["agents", index, "name"],
        message: `agent ${agent.name} is listed twice; names must be unique`,
      });
    }
    seen.add(agent.name);
  });
});
export type Roster = z.infer<typeof RosterSchema>;

/** Paths of a fleet root's files. */
export function fleetPaths(root: string) {
  const dir = localDir(root);
  return {
    roster: join(dir, "fleet.json"),
    state: join(dir, "fleet.state.json"),
    /** Held by the one supervisor of this roster. */
    lock: join(dir, "fleet.daemon.lock"),
    /** The detached supervisor's own output. */
    log: join(dir, "fleet.log"),
  };
}

/** A roster file that exists but is not a valid roster. */
export class RosterError extends Error {
  override name = "RosterError";
}

/** Parses a roster value; throws RosterError naming `path` and every problem. */
export function parseRoster(value: unknown, path: string): Roster {
  const parsed = RosterSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const where = issue.path.map(String).join(".");
    return where ? `${where}: ${issue.message}` : issue.message;
  });
  throw new RosterError(`${path} is not a valid roster: ${problems.join("; ")}`);
}

/** The roster of `root` (empty when there is no file); throws RosterError when it is invalid. */
export async function loadRoster(root: string): Promise<Roster> {
  const path = fleetPaths(root).roster;
  const read = await readJson(path);
  if (read.warning) throw new RosterError(read.warning);
  return parseRoster(read.value, path);
}

/**
 * Read-modify-write of the roster under its lock: `edit` gets the validated roster and returns
 * the next one, which is validated again before it is written. An invalid file is not touched.
 */
export async function updateRoster<T>(
  root: string,
  edit: (roster: Roster) => T,
): Promise<T> {
  const path = fleetPaths(root).roster;
  let result!: T;
  const read = await readJson(path);
  if (read.warning) throw new RosterError(`${read.warning}; fix or remove it first`);
  await updateJson(path, (current) => {
    const roster = parseRoster(current, path);
    result = edit(roster);
    return compact(parseRoster(roster, path));
  });
  return result;
}

/** The file form: defaults left out, so the file holds what the operator chose. */
function compact(roster: Roster): unknown {
  return {
    agents: roster.agents.map((agent) => ({
      name: agent.name,
      dir: agent.dir,
      enabled: agent.enabled,
      ...(agent.prefer_port !== undefined ? { prefer_port: agent.prefer_port } : {}),
      ...(agent.max_restarts !== DEFAULT_MAX_RESTARTS ? { max_restarts: agent.max_restarts } : {}),
      ...(agent.command ? { command: agent.command } : {}),
    })),
  };
}

/** An agent's folder as an absolute path. */
export function agentDir(root: string, agent: Pick<AgentDef, "dir">): string {
  return resolve(root, agent.dir);
}

/** How the roster records `dir`: relative to the root when inside it, else absolute. */
export function rosterDir(root: string, dir: string): string {
  const absolute = resolve(dir);
  const inside = relative(root, absolute);
  return inside && !inside.startsWith("..") && !isAbsolute(inside) ? inside : absolute;
}

/** An agent's log file, `<dir>/.svc/logs/<name>.log`. */
export function agentLogPath(root: string, agent: Pick<AgentDef, "dir" | "name">): string {
  return join(localDir(agentDir(root, agent)), "logs", `${agent.name}.log`);
}
