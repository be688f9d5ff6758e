import { join } from "../util/posix_path.ts";
import { localDir } from "../util/dirs.ts";
import type { PermissionRecord } from "../shared/types.ts";

/** Where MCP tool calls are audited: one PermissionRecord per line, never in a session. */
export function auditPath(worktree: string): string {
  return join(localDir(worktree), "logs", "mcp_audit.jsonl");
}

/**
 * An append-only audit of MCP tool calls (`.svc/logs/mcp_audit.jsonl`). Serving never writes a
 * session, so this file is where every served call lands. Each record is one O_APPEND write, so
 * `svc serve` and `svc mcp` sharing a worktree never interleave lines. Failures are reported,
 * never thrown: an unwritable log does not block a call.
 */
export function auditLog(
  worktree: string,
  warn: (message: string) => void = () => {},
): (record: PermissionRecord) => Promise<void> {
  const path = auditPath(worktree);
  let ready: Promise<void> | null = null;
  return async (record) => {
    try {
      ready ??= Deno.mkdir(join(localDir(worktree), "logs"), { recursive: true });
      await ready;
      await Deno.writeTextFile(path, `${JSON.stringify(record)}\n`, { append: true });
    } catch (err) {
      ready = null;
      warn(`cannot write the MCP audit log ${path}: ${(err as Error).message}`);
    }
  };
}
