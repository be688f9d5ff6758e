/** The MCP server of svc (stdio and streamable HTTP, both protocol eras) on the official SDK. */
export { createMcpHttpEndpoint, MAX_MCP_BYTES } from "./http.ts";
export { createMcpServer, type McpHost, SESSION_URI } from "./server.ts";
export { serveMcpStdio } from "./stdio.ts";
