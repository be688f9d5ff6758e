import type { ServiceDef } from "../../../src/plugin/api.ts";

/** Where the MCP endpoint is mounted on `svc serve`. */
export const MCP_PATH = "/mcp";

/**
 * The MCP route: `svc serve` hands `create` its context and mounts the endpoint behind its Host,
 * Origin and token checks. The host owns the protocol code (shared with `svc mcp` on stdio); this
 * plugin decides whether the route exists, so disabling it removes POST /mcp.
 */
export const mcpService: ServiceDef = {
  name: "mcp",
  http: {
    path: MCP_PATH,
    create: (ctx) => ctx.endpoints.mcp(),
  },
};
