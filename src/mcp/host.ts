import { VERSION } from "../version.ts";
import type { SessionStore } from "../session/store.ts";
import { auditLog } from "./audit.ts";
import type { McpHost } from "./server.ts";
import { sessionReader } from "./sessions.ts";
import { exposedTools, type ExposeOptions, type ToolScope } from "./tools.ts";

/**
 * The host side of serving: the engine's tools (policy-checked, audited to
 * `.svc/logs/mcp_audit.jsonl`, serialized by `serialize`, cancelled by `shutdown`) and read-only
 * sessions.
 */
export function createMcpHost(
  scope: ToolScope,
  store: SessionStore,
  options: Omit<ExposeOptions, "audit"> & { warn?: (message: string) => void } = {},
): McpHost {
  return {
    version: VERSION,
    tools: exposedTools(scope, {
      serialize: options.serialize,
      shutdown: options.shutdown,
      audit: auditLog(scope.worktree, options.warn),
    }),
    sessions: sessionReader(store),
  };
}
