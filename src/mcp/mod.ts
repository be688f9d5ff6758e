/** The MCP server of svc (stdio and streamable HTTP, both protocol eras) on the official SDK. */
export { auditLog, auditPath } from "./audit.ts";
export { createMcpHost } from "./host.ts";
export { createMcpHttpEndpoint, MAX_MCP_BYTES } from "./http.ts";
export { createMcpServer, type McpHost, SESSION_URI } from "./server.ts";
export { sessionReader } from "./sessions.ts";
export { serveMcpStdio } from "./stdio.ts";
export {
  exposedTools,
  type ExposeOptions,
  offeredTools,
  SERVED_SESSION,
  type ToolScope,
} from "./tools.ts";
