import type { ServiceSessions, ServiceTools } from "../plugin/api.ts";
import { VERSION } from "../version.ts";
import type { Runtime } from "./runtime.ts";
import { auditLog } from "./served_audit.ts";
import { type ServedPrompts, servedPrompts } from "./served_prompts.ts";
import { sessionReader } from "./served_sessions.ts";
import { servedTools, type ServeToolsOptions } from "./served_tools.ts";

/**
 * What serving exposes (MCP, plugin services): tools, read-only sessions, the catalogs as prompts,
 * version, worktree.
 */
export interface ServedHost {
  worktree: string;
  version: string;
  tools: ServiceTools;
  sessions: ServiceSessions;
  /** The catalogs (agent types, skills, teams) as prompt material. */
  prompts: ServedPrompts;
}

/**
 * The host side of serving a runtime: its tools (policy-checked through the one invocation path,
 * audited to `.svc/logs/mcp_audit.jsonl`, serialized by `serialize`, cancelled by `shutdown`)
 * and its saved sessions, read-only.
 */
export function servedHost(
  runtime: Runtime,
  options: Omit<ServeToolsOptions, "audit"> & { warn?: (message: string) => void } = {},
): ServedHost {
  return {
    worktree: runtime.worktree,
    version: VERSION,
    tools: servedTools(runtime, { ...options, audit: auditLog(runtime.worktree, options.warn) }),
    sessions: sessionReader(runtime.sessions),
    prompts: servedPrompts(runtime),
  };
}
