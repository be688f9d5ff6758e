/** What the MCP client's parts share, without loading the SDK (it loads on the first connect). */
import type {
  AskRequest,
  ElicitationDecision,
  ElicitationRequest,
  ToolContext,
} from "../../../../src/plugin/api.ts";

/** One `mcp.servers` entry with its defaults applied (the config schema has validated it). */
export type ServerEntry = ToolContext["config"]["mcp.servers"][number];

/** A tool as an MCP server lists it (only what svc reads; the rest is kept but unused). */
export interface McpToolDef {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  [key: string]: unknown;
}

/** A `tools/call` result as the server sent it. */
export interface McpCallResult {
  content?: Array<Record<string, unknown>>;
  structuredContent?: unknown;
  isError?: boolean;
  /** svc's own notes: the questions the server asked during the call and who answered them. */
  notes?: string[];
}

/** A live connection to one server (connection.ts opens it). */
export interface Connection {
  /** `modern` (2026-07-28, stateless) or `legacy` (initialize handshake). */
  era: string;
  /** The negotiated protocol revision. */
  version: string;
  /** What the server calls itself, when it says. */
  server?: { name: string; version: string };
  /** Why the connection ended, once it has (process exit, closed stream, disconnect). */
  readonly ended: string | null;
  listTools(signal?: AbortSignal): Promise<McpToolDef[]>;
  /**
   * Calls a tool; the questions (elicitations) the server asks meanwhile go to `approve` (the
   * configured approver, when there is one), then to `ask` (the front-end's person).
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: {
      signal: AbortSignal;
      ask(request: AskRequest): Promise<string | null>;
      approve?(request: ElicitationRequest): Promise<ElicitationDecision | null>;
    },
  ): Promise<McpCallResult>;
  close(): Promise<void>;
}

/** What a connection reports back to its owner. */
export interface ConnectionEvents {
  /** The connection ended without `close()` (a crash, a closed stream). */
  onEnded(reason: string): void;
  /** The server said its tool list changed. */
  onToolsChanged(): void;
}
