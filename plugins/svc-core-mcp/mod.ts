/**
 * svc-core-mcp: MCP both ways. The POST /mcp route of `svc serve` (svc's MCP server over
 * streamable HTTP), and the MCP client: mcp_connect, mcp_list and mcp_disconnect import the tools
 * of the servers in `mcp.servers`; entries with `autoconnect` connect when the first engine starts.
 */
import type { ServiceDef, Tool } from "../../src/plugin/api.ts";
import { mcpService } from "./src/mcp_service.ts";
import { autoconnectService } from "./src/client/autoconnect.ts";
import { mcpConnectTool, mcpDisconnectTool, mcpListTool } from "./src/client/tools.ts";

/** Plugin hook: the MCP client's tools. */
export function register_tools(registry: { add(tool: Tool): void }): void {
  registry.add(mcpConnectTool);
  registry.add(mcpListTool);
  registry.add(mcpDisconnectTool);
}

/** Plugin hook: the MCP HTTP route and the autoconnect start hook. */
export function register_services(services: { add(service: ServiceDef): void }): void {
  services.add(mcpService);
  services.add(autoconnectService);
}
