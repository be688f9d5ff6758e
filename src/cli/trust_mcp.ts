/**
 * `svc trust --mcp`: approve, revoke or list the stdio MCP servers that a worktree's own
 * `.svc/config.json` names (config/mcp_approvals.ts). Approving shows what will run.
 */
import {
  approveServer,
  loadServerGrants,
  localServerNames,
  mcpApprovalsPath,
  revokeServer,
} from "../config/mcp_approvals.ts";
import { loadConfigReport } from "../config/load.ts";
import { resolveWorktree } from "../runtime/worktree.ts";
import { UsageError } from "./usage.ts";

/** What `svc trust --mcp` was asked. */
export interface TrustMcpFlags {
  mcp: string | true;
  remove?: boolean;
  list?: boolean;
  json?: boolean;
}

/** Runs `svc trust --mcp [name] [folder]` (approve), with `--remove` (revoke) or `--list`. */
export async function trustMcp(folder: string | undefined, flags: TrustMcpFlags): Promise<void> {
  if (flags.list) {
    if (folder || flags.remove || flags.mcp !== true) {
      throw new UsageError("--mcp --list takes no server name, no folder and no --remove");
    }
    return await listApprovals(Boolean(flags.json));
  }
  if (flags.mcp === true) throw new UsageError("--mcp needs the name of a server (or --list)");
  const worktree = resolveWorktree(folder);
  const name = flags.mcp;
  if (flags.remove) {
    const had = await revokeServer(worktree, name);
    if (flags.json) console.log(JSON.stringify({ worktree, server: name, revoked: had }));
    else {console.log(
        had ? `Revoked MCP server ${name} in ${worktree}` : `${name} was not approved`,
      );}
    return;
  }
  const report = await loadConfigReport(worktree);
  const entry = report.config["mcp.servers"].find((e) => e.name === name);
  if (!report.trusted) {
    throw new UsageError(
      `${worktree} is not trusted: its own mcp.servers are ignored (run svc trust first)`,
    );
  }
  if (!entry) throw new UsageError(`no MCP server named ${name} is configured in ${worktree}`);
  if (entry.transport === "http" || !(await localServerNames(worktree)).has(name)) {
    console.log(`${name} needs no approval: it comes from your own config or is an HTTP server`);
    return;
  }
  await approveServer(worktree, entry);
  if (flags.json) {
    console.log(JSON.stringify({ worktree, server: name, approved: true, entry }, null, 2));
    return;
  }
  console.log(`Approved MCP server ${name} in ${worktree}; it runs:`);
  console.log(`  command: ${[entry.command!, ...entry.args].map(shellWord).join(" ")}`);
  console.log(`  cwd: ${entry.cwd ?? "(the worktree)"}`);
  for (const [key, value] of Object.entries(entry.env)) console.log(`  env: ${key}=${value}`);
  console.log(`  sandbox: ${entry.sandbox ? "yes (only inside svc's OS sandbox)" : "no"}`);
  console.log("A change to any of these needs a new approval (turning sandbox on does not).");
}

function shellWord(word: string): string {
  return /^[\w./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

async function listApprovals(json: boolean): Promise<void> {
  const store = await loadServerGrants();
  const rows = Object.entries(store).flatMap(([worktree, servers]) =>
    Object.entries(servers).map(([server, g]) => ({ worktree, server, approved_at: g.approved_at }))
  );
  if (json) console.log(JSON.stringify(rows, null, 2));
  else if (rows.length) {
    for (const r of rows) console.log(`${r.worktree}\t${r.server}\t${r.approved_at}`);
  } else console.error(`No approved MCP servers (${mcpApprovalsPath()})`);
}
