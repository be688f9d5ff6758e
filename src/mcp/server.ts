import { McpServer } from "@modelcontextprotocol/server";
import type { ClientInfo, ServiceSessions, ServiceTools } from "../plugin/api.ts";
import type { ServedPrompts } from "../runtime/served_prompts.ts";
import { registerPrompts } from "./prompts.ts";
import { registerSessions, SESSION_URI, type SessionUpdates } from "./sessions.ts";
import { registerTools } from "./tools.ts";

export { SESSION_URI };

/** What an MCP server is built from: the exposed tools, the saved sessions, the catalogs. */
export interface McpHost {
  version: string;
  tools: ServiceTools;
  sessions: ServiceSessions;
  prompts: ServedPrompts;
}

/** Which client an instance serves, in which protocol era, and how it delivers updates. */
export interface McpInstanceOptions {
  /** Whether the client may confirm ask-gated calls. */
  client: ClientInfo;
  era: "legacy" | "modern";
  /** Default `none`: the serving entry delivers session updates, if anyone does. */
  updates?: SessionUpdates;
}

/**
 * A fresh MCP server instance for one client: every exposed tool (with progress and logging while
 * it runs), every saved session as the resource `svc://session/<name>` (completion of names,
 * subscriptions), and the catalogs as prompts (with completion of entry names). The SDK answers
 * the protocol, `logging/setLevel` and `completion/complete` included.
 */
export function createMcpServer(host: McpHost, options: McpInstanceOptions): McpServer {
  const server = new McpServer({ name: "svc", version: host.version }, {
    capabilities: {
      tools: { listChanged: false },
      resources: { listChanged: false, subscribe: true },
      prompts: { listChanged: false },
      logging: {},
    },
    instructions: "svc exposes its policy-filtered tools, its saved sessions " +
      "(resources svc://session/<name>, JSON) and its agent types, skills and teams (prompts).",
  });
  registerTools(server, { tools: host.tools, client: options.client });
  registerSessions(server, host.sessions, {
    era: options.era,
    updates: options.updates ?? "none",
  });
  registerPrompts(server, host.prompts);
  return server;
}
