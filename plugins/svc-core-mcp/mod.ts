/** svc-core-mcp: the POST /mcp route of `svc serve` (MCP over streamable HTTP). */
import type { ServiceDef } from "../../src/plugin/api.ts";
import { mcpService } from "./src/mcp_service.ts";

/** Plugin hook: registers the MCP HTTP service. */
export function register_services(services: { add(service: ServiceDef): void }): void {
  services.add(mcpService);
}
