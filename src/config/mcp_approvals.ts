/**
 * MCP server approvals belong to the person, not to the repository. Starting a stdio server that a
 * worktree's own `.svc/config.json` names runs that repository's code, so trusting the worktree is
 * not enough: each such server needs a grant kept in the user's config folder
 * (`~/.config/svc/mcp_approvals.json`, mode 0600, read with the private-file check), keyed by the
 * canonical worktree and the server's name, and bound to a hash of its command, arguments,
 * working folder and environment (and this user's id). A changed entry has no matching grant.
 * `sandbox` is not hashed: a grant of an entry that ran outside svc's OS sandbox covers it inside
 * too (a tightening), while a grant given with `sandbox: true` is kept as such and does not cover
 * the same entry once it leaves the sandbox. Servers of the user's own config (global) and HTTP
 * servers need none.
 */
import { join } from "../util/posix_path.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { changeGrants, type GrantFile, readGrantFile } from "../util/grant_file.ts";
import { sha256Hex } from "../util/sha256.ts";
import { canonicalPath } from "../util/canonical_path.ts";
import { currentUid } from "../util/private_file.ts";
import { configPaths, readConfigFile } from "./load.ts";

/** What an approval binds: the parts of an `mcp.servers` entry that decide what runs. */
export interface ServerSpec {
  name: string;
  transport?: string;
  command?: string | null;
  args?: string[];
  cwd?: string | null;
  env?: Record<string, string>;
  /** The server starts inside svc's OS sandbox. */
  sandbox?: boolean;
}

/** One person's approval of one server entry. */
export interface ServerGrant {
  hash: string;
  uid: number | null;
  approved_at: string;
  /** Approved to run inside svc's OS sandbox only (the entry had `sandbox: true`). */
  sandbox?: true;
}

/**
 * Whether a server may start: needs no approval, approved, or not (none, a changed entry, or one
 * approved inside svc's OS sandbox that no longer asks for it).
 */
export type ServerApproval = "not_needed" | "approved" | "none" | "changed" | "unsandboxed";

/** `~/.config/svc/mcp_approvals.json`. */
export function mcpApprovalsPath(): string {
  return join(globalConfigDir(), "mcp_approvals.json");
}

function canonical(worktree: string): string {
  return canonicalPath(Deno.cwd(), worktree);
}

/** The names of the stdio servers the worktree's own `.svc/config.json` lists. */
export async function localServerNames(worktree: string): Promise<Set<string>> {
  const local = await readConfigFile(configPaths(worktree).local);
  const servers = local["mcp.servers"];
  if (!Array.isArray(servers)) return new Set();
  return new Set(
    servers.filter((s) => s && typeof s === "object" && !("url" in s) && s.transport !== "http")
      .map((s) => String(s.name)),
  );
}

/** sha256 of the entry's command, arguments, cwd and env, the worktree and this user's id. */
export async function serverHash(entry: ServerSpec, worktree: string): Promise<string> {
  const material = JSON.stringify([
    entry.command ?? null,
    entry.args ?? [],
    entry.cwd ?? null,
    Object.entries(entry.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    canonical(worktree),
    currentUid(),
  ]);
  return await sha256Hex(material);
}

/** Every grant, by canonical worktree then server name (a missing or corrupt file grants none). */
export function loadServerGrants(): Promise<GrantFile<ServerGrant>> {
  return readGrantFile<ServerGrant>(mcpApprovalsPath());
}

/** Whether `entry` of `worktree` may start now. */
export async function serverApproval(
  entry: ServerSpec,
  worktree: string,
): Promise<ServerApproval> {
  if (entry.transport === "http" || !entry.command) return "not_needed";
  if (!(await localServerNames(worktree)).has(entry.name)) return "not_needed";
  const grant = (await loadServerGrants())[canonical(worktree)]?.[entry.name];
  if (!grant || typeof grant.hash !== "string") return "none";
  const same = grant.hash === await serverHash(entry, worktree) && grant.uid === currentUid();
  if (!same) return "changed";
  // Approved inside the sandbox: the same entry outside it needs a new approval.
  return grant.sandbox === true && entry.sandbox !== true ? "unsandboxed" : "approved";
}

/**
 * Why `entry` may not start in `worktree`, or null when it may: a stdio server the worktree's own
 * config names needs this person's approval of its current command, args, cwd and env. When the
 * approval cannot be checked (an unsafe approvals file, a broken config), it may not start.
 */
export async function serverRefusal(entry: ServerSpec, worktree: string): Promise<string | null> {
  try {
    const approval = await serverApproval(entry, worktree);
    if (approval === "approved" || approval === "not_needed") return null;
    return unapprovedMessage(entry.name, { worktree, approval });
  } catch (err) {
    return `MCP server ${entry.name} was not started: its approval could not be checked: ` +
      (err as Error).message;
  }
}

/** The command that approves `name` in `worktree`, for messages. */
export function approveCommand(name: string, worktree: string): string {
  return `svc trust --mcp ${name} ${JSON.stringify(canonical(worktree))}`;
}

/** Why an unapproved server was not started, naming the command that approves it. */
export function unapprovedMessage(
  name: string,
  options: { worktree: string; approval: ServerApproval },
): string {
  const why = options.approval === "changed"
    ? "its entry in this worktree's .svc/config.json changed since you approved it"
    : options.approval === "unsandboxed"
    ? "you approved it to run in svc's OS sandbox, and its entry in this worktree's " +
      ".svc/config.json no longer sets sandbox: true"
    : "it comes from this worktree's .svc/config.json and you have not approved it";
  return `MCP server ${name} was not started: ${why}; review it and run ` +
    approveCommand(name, options.worktree);
}

function change(worktree: string, fn: (servers: Record<string, ServerGrant>) => void) {
  return changeGrants(mcpApprovalsPath(), { worktree: canonical(worktree), fn });
}

/** Records this user's approval of `entry` as it is now. */
export async function approveServer(
  worktree: string,
  entry: ServerSpec,
  options: { now?: Date } = {},
): Promise<ServerGrant> {
  const record: ServerGrant = {
    hash: await serverHash(entry, worktree),
    uid: currentUid(),
    approved_at: (options.now ?? new Date()).toISOString(),
    ...(entry.sandbox === true ? { sandbox: true as const } : {}),
  };
  await change(worktree, (servers) => {
    servers[entry.name] = record;
  });
  return record;
}

/** Removes the approval of `name` in `worktree`; says whether there was one. */
export async function revokeServer(worktree: string, name: string): Promise<boolean> {
  let had = false;
  await change(worktree, (servers) => {
    had = name in servers;
    delete servers[name];
  });
  return had;
}
